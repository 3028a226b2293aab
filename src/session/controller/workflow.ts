// What people bring from other agents, for one run: custom slash commands, skills, hooks,
// /init, and the todo tool (src/extensions/commands.ts, skills.ts, hooks.ts; tools/todo.ts).
// The controller asks this for the prompt a command expands to, the context items and tools
// it adds, and the hooks of each moment of a turn; the front ends list them through
// WorkflowControl.
import path from "node:path";
import type { ContextItem } from "../../provider/types.js";
import type { ToolDef } from "../../tools/types.js";
import type { EventHub } from "../turn/events.js";
import type { TurnEnv, TurnHooks, TurnOutcome } from "../turn/env.js";
import { expandCommand, loadCommands, matchCommand, type CustomCommand } from "../../extensions/commands.js";
import { loadSkills, skillsItem, skillTool, type Skill } from "../../extensions/skills.js";
import { approveHooks, hookLabel, hooksApproved, loadHooks, runHooks, WORKSPACE_HOOK_FILES, type HookEvent, type HookSet, type HookVerdict } from "../../extensions/hooks.js";
import { todoTool } from "../../tools/todo.js";
import { visibleEscape } from "../../text/sanitize.js";
import { INIT_PROMPT } from "./init-prompt.js";

/** the screen's own commands (src/ui/commands.ts): a command file never takes one of these names */
export const BUILTIN_COMMANDS = ["help", "new", "sessions", "rewind", "fork", "model", "image", "reload", "compact", "context", "export", "api", "mcp", "clear-screen", "quit", "skills", "hooks", "todo", "init"] as const;

/** The workflow's listing, for the front ends. */
export interface WorkflowControl {
  /** the custom commands and /init, for /help and Tab */
  commands(): Array<{ name: string; args: string; help: string }>;
  /** /skills: each skill's name, description and file, in lines */
  describeSkills(): string;
  /** /hooks: each hook, where it comes from, and whether it runs */
  describeHooks(): string;
  /** /hooks approve */
  approveHooks(): string;
  /** whether "/name" is a custom command (or /init), which the controller expands */
  isCommand(name: string): boolean;
}

interface WorkflowDeps {
  workspace: string;
  /** the config folder (commands/, skills/, settings.json); undefined: none */
  configFolder: string | undefined;
  /** the built-in commands' names: a file never takes one */
  reserved: readonly string[];
  headless: boolean;
  events: EventHub;
  secrets: () => readonly string[];
  redact: (t: string) => string;
}

const shown = (s: string): string => visibleEscape(s);

export class Workflow implements WorkflowControl {
  private cmds: CustomCommand[] = [];
  private skillList: Skill[] = [];
  private hookSet: HookSet = { hooks: [], problems: [], workspaceFiles: [] };
  private problems: string[] = [];
  /** SessionStart's context, per session id it ran for */
  private started = new Map<string, ContextItem[]>();
  private readonly skillToolDef = skillTool(() => this.skillList);

  constructor(private readonly d: WorkflowDeps) {}

  /** Reads the commands, skills and hooks (at the parts' load, and again by /reload). */
  load(): void {
    const c = loadCommands(this.d.workspace, this.d.configFolder, this.d.reserved);
    const s = loadSkills(this.d.workspace, this.d.configFolder);
    this.hookSet = loadHooks(this.d.workspace, this.d.configFolder);
    this.cmds = c.commands;
    this.skillList = s.skills;
    const fresh = [...c.problems, ...s.problems, ...this.hookSet.problems].map(shown);
    if (this.hookSet.workspaceHash && !this.approved()) {
      fresh.push(shown(`The workspace's hooks (${this.hookSet.workspaceFiles.join(", ")}) are not approved, so they do not run; /hooks shows them and /hooks approve runs them from now on.`));
    }
    // each problem is said once a run, not at every /reload (headless mode prints notes() instead:
    // it reads them before anyone listens)
    for (const p of fresh) if (!this.problems.includes(p)) this.d.events.emit({ type: "notice", level: "warning", text: p });
    this.problems = fresh;
  }

  /** what was skipped or is waiting for approval, in sentences (escaped) */
  notes(): readonly string[] {
    return this.problems;
  }

  private approved(): boolean {
    return hooksApproved(this.d.workspace, this.hookSet.workspaceHash);
  }

  /** the hooks that run: the user's, and the workspace's once approved */
  private runnable(): HookSet["hooks"] {
    const ok = this.approved();
    return this.hookSet.hooks.filter((h) => !h.workspace || ok);
  }

  /** the tools it adds after the built-ins: todo, and skill when there are skills */
  tools(): ToolDef[] {
    return this.skillList.length > 0 ? [todoTool as ToolDef, this.skillToolDef as ToolDef] : [todoTool as ToolDef];
  }

  /** the skills' item, after the project's context items */
  skillsContext(): ContextItem[] {
    const skills = skillsItem(this.skillList);
    return skills ? [skills] : [];
  }

  /** what SessionStart's hooks added for this session, after every other context item */
  startContext(sessionId: string): ContextItem[] {
    return this.started.get(sessionId) ?? [];
  }

  /** A prompt that names a custom command (or /init) as the prompt it expands to; others as they are. */
  expand(text: string): string {
    if (/^\s*\/init(?:\s|$)/i.test(text)) {
      const extra = text.replace(/^\s*\/init/i, "").trim();
      return extra ? `${INIT_PROMPT}\n\nAlso: ${extra}` : INIT_PROMPT;
    }
    const m = matchCommand(text, this.cmds);
    if (!m) return text;
    const c = m.command;
    if (c.model) this.d.events.emit({ type: "notice", level: "info", text: shown(`/${c.name} asks for the model ${c.model}; the model in use is kept (/model switches it).`) });
    if (c.allowedTools.length > 0) this.d.events.emit({ type: "notice", level: "info", text: shown(`/${c.name} lists allowed tools (${c.allowedTools.join(", ")}); they still go through the permission mode in force.`) });
    return expandCommand(c.body, m.args);
  }

  private run(event: HookEvent, payload: Record<string, unknown>, sessionId: string, signal?: AbortSignal, tool?: string): Promise<HookVerdict> {
    return runHooks(this.runnable(), event, payload, { workspace: this.d.workspace, sessionId, secrets: this.d.secrets, redact: this.d.redact, ...(signal ? { signal } : {}) }, tool);
  }

  private say(v: HookVerdict): void {
    for (const n of v.notes) this.d.events.emit({ type: "notice", level: "warning", text: shown(n) });
  }

  private items(v: HookVerdict): ContextItem[] {
    return v.context.map((c) => ({ source: c.source, text: c.text }));
  }

  /** SessionStart, once per session a run opens; its context joins that session's requests. */
  async sessionStart(sessionId: string, source: "startup" | "resume"): Promise<void> {
    if (this.started.has(sessionId)) return;
    this.started.set(sessionId, []);
    const v = await this.run("SessionStart", { source }, sessionId);
    this.say(v);
    this.started.set(sessionId, this.items(v));
  }

  /** UserPromptSubmit: the prompt blocked (why), or the context it adds to this turn. */
  async promptSubmit(sessionId: string, prompt: string): Promise<{ block?: string; context: ContextItem[] }> {
    const v = await this.run("UserPromptSubmit", { prompt }, sessionId);
    this.say(v);
    const block = v.block ?? v.stop;
    return { ...(block ? { block } : {}), context: this.items(v) };
  }

  /**
   * The hooks at a turn's start, inside it: SessionStart (once per session), then
   * UserPromptSubmit, whose context joins this turn's requests and whose block ends the turn
   * before anything is stored. Returns the outcome when the prompt is blocked. The PreToolUse
   * and PostToolUse hooks go into the turn's env.
   */
  async beginTurn(env: TurnEnv, sessionId: string, source: "startup" | "resume", prompt: string, fromStopHook = false): Promise<TurnOutcome | undefined> {
    await this.sessionStart(sessionId, source);
    if (this.started.get(sessionId)?.length) env.context = [...env.context, ...this.started.get(sessionId)!.filter((c) => !env.context.includes(c))];
    if (prompt && !fromStopHook) {
      const submitted = await this.promptSubmit(sessionId, prompt);
      if (submitted.block !== undefined) {
        const said = `A UserPromptSubmit hook blocked this prompt: ${submitted.block}`;
        this.d.events.emit({ type: "notice", level: "warning", text: shown(said) });
        return { ok: false, unsent: true, error: said, finalText: "" };
      }
      if (submitted.context.length > 0) env.context = [...env.context, ...submitted.context];
    }
    const hooks = this.turnHooks(sessionId);
    if (hooks) env.hooks = hooks;
    return undefined;
  }

  /** Stop, when a turn has ended: what it says is shown; a block's reason is returned (the
   * model goes on with it, as in Claude Code). `active`: this turn was such a continuation. */
  async stop(sessionId: string, active: boolean): Promise<string | undefined> {
    const v = await this.run("Stop", { stop_hook_active: active }, sessionId);
    this.say(v);
    for (const c of v.context) this.d.events.emit({ type: "notice", level: "info", text: shown(`${c.source}: ${c.text}`) });
    return v.block;
  }

  /** PreToolUse and PostToolUse for a turn's tool calls (session/turn/run-tools.ts). */
  turnHooks(sessionId: string): TurnHooks | undefined {
    const hooks = this.runnable();
    if (!hooks.some((h) => h.event === "PreToolUse" || h.event === "PostToolUse")) return undefined;
    return {
      before: async (call, signal) => {
        const v = await this.run("PreToolUse", { tool_name: call.name, tool_input: call.input }, sessionId, signal, call.name);
        this.say(v);
        return {
          ...(v.block ? { block: v.block } : {}),
          ...(v.stop ? { stop: v.stop } : {}),
          ...(v.updatedInput ? { updatedInput: v.updatedInput } : {}),
          context: v.context.map((c) => `[${c.source}] ${c.text}`),
        };
      },
      after: async (call, signal) => {
        const v = await this.run("PostToolUse", { tool_name: call.name, tool_input: call.input, tool_response: { output: call.output, is_error: call.isError } }, sessionId, signal, call.name);
        this.say(v);
        const context = v.context.map((c) => `[${c.source}] ${c.text}`);
        // a PostToolUse "block" cannot undo the call: its reason reaches the model with the result
        if (v.block) context.push(`[PostToolUse hook] ${v.block}`);
        return { ...(v.stop ? { stop: v.stop } : {}), context };
      },
    };
  }

  commands(): Array<{ name: string; args: string; help: string }> {
    return [
      { name: "init", args: "", help: "study the workspace and write or improve AGENTS.md (the edit is shown for approval)" },
      ...this.cmds.map((c) => ({ name: c.name, args: c.argumentHint, help: `${c.description}${c.description ? " " : ""}(${path.relative(this.d.workspace, c.file).startsWith("..") ? c.file : path.relative(this.d.workspace, c.file)})` })),
    ];
  }

  /** the custom commands, for a front end's check of what is typed */
  isCommand(name: string): boolean {
    const n = name.toLowerCase();
    return n === "init" || this.cmds.some((c) => c.name === n);
  }

  describeSkills(): string {
    if (this.skillList.length === 0) return shown(`No skills: a skill is a folder holding a SKILL.md (front matter name and description) in .claude/skills or .agents/skills of the workspace${this.d.configFolder ? `, or in ${path.join(this.d.configFolder, "skills")}` : ""}.`);
    const lines = ["Skills (names and descriptions go with every request; the model reads one's instructions with the skill tool):"];
    for (const s of this.skillList) lines.push(shown(`  ${s.name}: ${s.description}`), shown(`    ${s.file}`));
    return lines.join("\n");
  }

  describeHooks(): string {
    const hs = this.hookSet.hooks;
    if (hs.length === 0) return shown(`No hooks: add "hooks" to ${this.d.configFolder ? path.join(this.d.configFolder, "settings.json") : "the config folder's settings.json"} or to the workspace's ${WORKSPACE_HOOK_FILES.join(" or ")}.`);
    const ok = this.approved();
    const lines = ["Hooks:"];
    for (const h of hs) {
      const state = h.workspace ? (ok ? "approved" : "not approved, does not run") : "yours, runs";
      lines.push(shown(`  ${hookLabel(h)}${h.matcher ? ` (matcher ${h.matcher})` : ""} · ${h.file} · ${state}`));
      lines.push(shown(`    command: ${h.command}`));
    }
    if (this.hookSet.workspaceHash && !ok) lines.push("/hooks approve runs the workspace's hooks (remembered for this version of its files).");
    return lines.join("\n");
  }

  approveHooks(): string {
    const hash = this.hookSet.workspaceHash;
    if (!hash) return shown(`The workspace has no hooks to approve (${WORKSPACE_HOOK_FILES.join(", ")}).`);
    if (this.approved()) return "The workspace's hooks are approved already.";
    if (this.d.headless) return "Hooks cannot be approved without a screen; run albedo-tui in this workspace and type /hooks approve.";
    approveHooks(this.d.workspace, hash);
    return shown(`Approved the hooks of ${this.hookSet.workspaceFiles.join(", ")} (sha256 ${hash.slice(0, 12)}…) for ${this.d.workspace}; they run from now on.`);
  }
}
