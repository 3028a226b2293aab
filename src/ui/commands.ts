// Slash commands: what exists, parsing a prompt that starts with "/", and completion hints.

const COMMAND_NAMES = ["help", "new", "sessions", "rewind", "fork", "model", "image", "reload", "compact", "context", "export", "cost", "api", "mcp", "skills", "hooks", "todo", "init", "shells", "copy", "clear-screen", "quit"] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface CommandSpec {
  name: string;
  args: string;
  help: string;
}

export const COMMANDS: readonly CommandSpec[] = [
  { name: "help", args: "", help: "commands and keys" },
  { name: "new", args: "", help: "start a new session" },
  { name: "sessions", args: "[ID]", help: "pick a session to switch to, or switch to ID (its first 4+ characters will do)" },
  { name: "rewind", args: "[N]", help: "go back to before a prompt: restore the code, fork the conversation, or both (also Esc Esc)" },
  { name: "fork", args: "", help: "continue in a new session with this one's record copied" },
  { name: "model", args: "[NAME | anthropic:NAME | openai:NAME]", help: "show or switch the model / provider" },
  { name: "image", args: "PATH | clear", help: "attach an image to the next prompt" },
  { name: "reload", args: "", help: "re-read AGENTS.md and the config" },
  { name: "compact", args: "", help: "summarize older history now" },
  { name: "context", args: "", help: "open or close the context pane" },
  { name: "export", args: "[md | json]", help: "write this session to a file in the workspace" },
  { name: "cost", args: "", help: "what this session cost per turn, at list prices, from provider usage" },
  { name: "api", args: "", help: "where the local API (--api) listens: address, token file, routes" },
  { name: "mcp", args: "[approve]", help: "MCP servers: state, tools, last error, approval; approve starts the workspace's .mcp.json" },
  { name: "skills", args: "", help: "the skills found (.claude/skills, .agents/skills, the config folder's skills/)" },
  { name: "hooks", args: "[approve]", help: "the hooks found and whether they run; approve runs the workspace's" },
  { name: "todo", args: "", help: "the model's task list (also on its key)" },
  { name: "init", args: "[NOTE]", help: "study the workspace and write or improve AGENTS.md (the edit is shown for approval)" },
  { name: "shells", args: "[stop ID]", help: "background commands the model started: state, time, output; stop ID stops one" },
  { name: "copy", args: "[code]", help: "copy the last answer (or the selected tool call or message; code: its last code block) to the clipboard (OSC 52)" },
  { name: "clear-screen", args: "", help: "clear the screen (the record keeps everything)" },
  { name: "quit", args: "", help: "quit" },
];

type Parsed =
  | { kind: "prompt"; text: string }
  | { kind: "command"; name: CommandName; arg: string }
  | { kind: "unknown"; name: string };

/** "/model gpt-4o" → command; "//etc" → a prompt starting with "/"; anything else → prompt */
export function parseInput(text: string): Parsed {
  const t = text.replace(/^\s+/, "");
  if (!t.startsWith("/")) return { kind: "prompt", text };
  if (t.startsWith("//")) return { kind: "prompt", text: t.slice(1) };
  const m = /^\/(\S*)\s*([\s\S]*)$/.exec(t)!;
  const name = (m[1] ?? "").toLowerCase();
  const arg = (m[2] ?? "").trim();
  const spec = COMMAND_NAMES.find((c) => c === name);
  if (!spec) return { kind: "unknown", name };
  return { kind: "command", name: spec, arg };
}

/** commands matching what is typed so far ("/mo" → model), while the name is being typed */
export function matchingCommands(text: string, custom: readonly CommandSpec[] = []): CommandSpec[] {
  // the built-ins, then the custom commands (workspace and config folder), whose names may hold ":" and "."
  const all = custom.length > 0 ? [...COMMANDS, ...custom.filter((c) => !COMMANDS.some((b) => b.name === c.name))] : COMMANDS;
  if (!/^\/[a-z0-9:._-]*$/i.test(text)) {
    // after the name: show the one command's usage while its argument is typed
    const m = /^\/([a-z0-9:._-]+)\s/i.exec(text);
    const exact = m ? all.find((c) => c.name === m[1]!.toLowerCase()) : undefined;
    return exact && !text.includes("\n") ? [exact] : [];
  }
  const typed = text.slice(1).toLowerCase();
  return all.filter((c) => c.name.startsWith(typed));
}

/** Tab completion: the completed text, or undefined when nothing (more) can be completed */
export function completeCommand(text: string, custom: readonly CommandSpec[] = []): string | undefined {
  if (!/^\/[a-z0-9:._-]*$/i.test(text)) return undefined;
  const matches = matchingCommands(text, custom);
  if (matches.length === 0) return undefined;
  if (matches.length === 1) {
    const c = matches[0]!;
    return `/${c.name}${c.args ? " " : ""}`;
  }
  // the longest common prefix of the candidates
  let prefix: string = matches[0]!.name;
  for (const c of matches) while (!c.name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  const out = `/${prefix}`;
  return out.length > text.length ? out : undefined;
}

/** "/image ~/a b.png" → "~/a b.png" without surrounding quotes, with ~ expanded */
export function unquotePath(arg: string, home: string): string {
  let p = arg.trim();
  if ((p.startsWith('"') && p.endsWith('"')) || (p.startsWith("'") && p.endsWith("'"))) p = p.slice(1, -1);
  if (p === "~") return home;
  if (p.startsWith("~/")) return home + p.slice(1);
  return p;
}
