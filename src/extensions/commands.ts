// Custom slash commands: markdown files in the workspace's .albedo/commands, .claude/commands
// and .agents/commands, and the config folder's commands/, in Claude Code's format (front
// matter: description, argument-hint, allowed-tools, model; $ARGUMENTS and $1…$9 in the
// body). A sub-folder is a namespace: .claude/commands/frontend/review.md is /frontend:review.
// Running one sends its expanded body as the prompt; it changes no permission.
import path from "node:path";
import { listField, listFiles, plainLine, readFound, splitFrontMatter, validNamePart, type Origin } from "./workflow-files.js";

export interface CustomCommand {
  /** what is typed after "/": "review", "frontend:review" */
  name: string;
  description: string;
  argumentHint: string;
  /** as the file gives them; shown, never a grant (the permission policy decides) */
  allowedTools: string[];
  /** as the file gives it; shown, the model in use is kept */
  model?: string;
  body: string;
  /** the file, for /help and notices */
  file: string;
}

/** the folders read, first found wins for a name */
export const WORKSPACE_COMMAND_DIRS = [".albedo/commands", ".claude/commands", ".agents/commands"] as const;

export interface CommandSet {
  commands: CustomCommand[];
  /** files skipped, each with why */
  problems: string[];
}

/**
 * The custom commands of a workspace and the user's config folder. `reserved` names (the
 * built-in commands) are never taken by a file.
 */
export function loadCommands(workspace: string, configFolder: string | undefined, reserved: readonly string[]): CommandSet {
  const problems: string[] = [];
  const byName = new Map<string, CustomCommand>();
  const origins: Array<{ origin: Origin; dir: string }> = WORKSPACE_COMMAND_DIRS.map((dir) => ({ origin: { kind: "workspace", workspace }, dir }));
  if (configFolder) origins.push({ origin: { kind: "user" }, dir: path.join(configFolder, "commands") });
  for (const { origin, dir } of origins) {
    for (const f of listFiles(origin, dir, (n) => n.endsWith(".md"), problems)) {
      const parts = f.rel.slice(0, -".md".length).split("/");
      if (!parts.every(validNamePart)) {
        problems.push(`${plainLine(f.file)} was skipped: a command's name takes letters, digits, "-", "_" and "." only`);
        continue;
      }
      const name = parts.join(":").toLowerCase();
      if (reserved.includes(name)) {
        problems.push(`${f.file} was skipped: /${name} is a built-in command`);
        continue;
      }
      if (byName.has(name)) {
        problems.push(`${f.file} was skipped: /${name} is already ${byName.get(name)!.file}`);
        continue;
      }
      const read = readFound(origin, f, "command file");
      if ("problem" in read) {
        problems.push(read.problem);
        continue;
      }
      const fm = splitFrontMatter(read.text);
      if (fm.problem) problems.push(`${f.file}: ${fm.problem}; its fields were ignored`);
      const model = plainLine(fm.fields["model"], 100);
      byName.set(name, {
        name,
        description: plainLine(fm.fields["description"]) || firstLine(fm.body),
        argumentHint: plainLine(fm.fields["argument-hint"], 100),
        allowedTools: listField(fm.fields["allowed-tools"]),
        ...(model ? { model } : {}),
        body: fm.body,
        file: f.file,
      });
    }
  }
  return { commands: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), problems };
}

function firstLine(body: string): string {
  return plainLine(body.split("\n").find((l) => l.trim() !== "") ?? "", 80);
}

/** Arguments as a shell would split them, quotes kept together: `a "b c"` → a, b c. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m; m = re.exec(args)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3] ?? ""));
  return out;
}

/** The body with $ARGUMENTS and $1…$9 put in; without either, the arguments follow the body. */
export function expandCommand(body: string, args: string): string {
  const positional = splitArguments(args);
  let used = false;
  const text = body.replace(/\$ARGUMENTS\b|\$([1-9])(?![0-9])/g, (whole, n: string | undefined) => {
    used = true;
    if (n === undefined) return args;
    return positional[Number(n) - 1] ?? "";
  });
  if (used || !args.trim()) return text.trim();
  return `${text.trim()}\n\n${args}`;
}

/** "/review src/x.ts" → the command and its arguments, when the name is a custom command's. */
export function matchCommand(text: string, commands: readonly CustomCommand[]): { command: CustomCommand; args: string } | undefined {
  const m = /^\s*\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return undefined;
  const name = (m[1] ?? "").toLowerCase();
  const command = commands.find((c) => c.name === name);
  return command ? { command, args: (m[2] ?? "").trim() } : undefined;
}
