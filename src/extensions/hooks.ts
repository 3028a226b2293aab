// Hooks in Claude Code's settings shape: { "hooks": { EVENT: [{ "matcher": "...", "hooks":
// [{ "type": "command", "command": "...", "timeout": 60 }] }] } } for SessionStart,
// UserPromptSubmit, PreToolUse, PostToolUse and Stop. Read from the config folder's
// settings.json (the user's own: they run) and the workspace's .claude/settings.json,
// .claude/settings.local.json and .albedo/settings.json (a repository's: they run only once a
// person has approved them, per workspace and content, as a .mcp.json's servers are).
//
// A hook gets the event as JSON on stdin. Exit 2 blocks (stderr is the reason); exit 0 with
// JSON on stdout may block ("decision": "block", or a PreToolUse "permissionDecision":
// "deny"), add context ("additionalContext"), change a PreToolUse call's input
// ("updatedInput": the permission policy still judges the changed call), keep the model
// going (a Stop hook's "decision": "block": its reason is the model's next instruction), or
// stop the turn ("continue": false); plain
// stdout of a SessionStart or UserPromptSubmit hook is context. Any other exit is a
// warning, and the work goes on.
import crypto from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { readStartFileSync, readWorkspaceFileSync, StartFileError } from "../config/files.js";
import { stateDir } from "../config/paths.js";
import { messageOf } from "../record/errors.js";
import { approve, readApprovals } from "./approvals.js";
import { HOOK_DEFAULT_TIMEOUT_S, HOOK_MAX_TIMEOUT_S, spawnHook, type HookExit } from "./hook-spawn.js";
import { plainLine } from "./workflow-files.js";

export const HOOK_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export const WORKSPACE_HOOK_FILES = [".claude/settings.json", ".claude/settings.local.json", ".albedo/settings.json"] as const;
const MAX_SETTINGS_BYTES = 256 * 1024;

const hookSchema = z.object({
  type: z.literal("command"),
  command: z.string().min(1).max(10_000).refine((s) => !s.includes("\0"), "must not contain a NUL character"),
  timeout: z.number().positive().max(HOOK_MAX_TIMEOUT_S).optional(),
});
const groupSchema = z.object({ matcher: z.string().max(500).optional(), hooks: z.array(hookSchema).max(50) });
const settingsSchema = z.object({ hooks: z.record(z.string(), z.array(groupSchema).max(50)).optional() }).loose();

export interface Hook {
  event: HookEvent;
  /** a tool-name pattern (PreToolUse, PostToolUse); empty or "*" matches every tool */
  matcher: string;
  command: string;
  timeoutMs: number;
  /** the settings file it comes from */
  file: string;
  workspace: boolean;
}

export interface HookSet {
  hooks: Hook[];
  problems: string[];
  /** the workspace's hook files, hashed together: what an approval is of (undefined: none) */
  workspaceHash?: string;
  workspaceFiles: string[];
}

function parseSettings(text: string, file: string, workspace: boolean, into: HookSet): void {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    into.problems.push(`${file} is not valid JSON; its hooks were not read`);
    return;
  }
  const r = settingsSchema.safeParse(json);
  if (!r.success) {
    const iss = r.error.issues[0];
    into.problems.push(`${file}: ${iss ? `${iss.path.join(".")}: ${iss.message}` : "not in the settings shape"}; its hooks were not read`);
    return;
  }
  for (const [event, groups] of Object.entries(r.data.hooks ?? {})) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      into.problems.push(`${file}: hooks for ${plainLine(event, 60)} are not run by albedo-tui (it runs ${HOOK_EVENTS.join(", ")})`);
      continue;
    }
    for (const g of groups) {
      for (const h of g.hooks) {
        into.hooks.push({
          event: event as HookEvent,
          matcher: g.matcher ?? "",
          command: h.command,
          timeoutMs: Math.round((h.timeout ?? HOOK_DEFAULT_TIMEOUT_S) * 1000),
          file,
          workspace,
        });
      }
    }
  }
}

/** The hooks of the user's settings.json (config folder) and of the workspace's settings files. */
export function loadHooks(workspace: string, configFolder: string | undefined): HookSet {
  const set: HookSet = { hooks: [], problems: [], workspaceFiles: [] };
  if (configFolder) {
    const file = path.join(configFolder, "settings.json");
    try {
      parseSettings(readStartFileSync(file, { what: "settings file", maxBytes: MAX_SETTINGS_BYTES }).toString("utf8"), file, false, set);
    } catch (e) {
      if (!(e instanceof StartFileError && e.code === "ENOENT")) set.problems.push(messageOf(e));
    }
  }
  const hash = crypto.createHash("sha256");
  for (const name of WORKSPACE_HOOK_FILES) {
    let text: string;
    try {
      text = readWorkspaceFileSync(workspace, name, { what: "settings file", maxBytes: MAX_SETTINGS_BYTES }).toString("utf8");
    } catch (e) {
      if (!(e instanceof StartFileError && e.code === "ENOENT")) set.problems.push(messageOf(e));
      continue;
    }
    const before = set.hooks.length;
    parseSettings(text, path.join(workspace, name), true, set);
    if (set.hooks.length > before) {
      set.workspaceFiles.push(name);
      hash.update(`${name}\0${text}\0`);
    }
  }
  if (set.workspaceFiles.length > 0) set.workspaceHash = hash.digest("hex");
  return set;
}

export function hookApprovalsFile(): string {
  return path.join(stateDir(), "hook-approvals.json");
}

/** whether these workspace hooks (this content) were approved */
export function hooksApproved(workspace: string, hash: string | undefined, file = hookApprovalsFile()): boolean {
  if (hash === undefined) return true;
  return readApprovals(file).approvals.some((a) => a.workspace === workspace && a.sha256 === hash);
}

export function approveHooks(workspace: string, hash: string, file = hookApprovalsFile()): void {
  approve(workspace, hash, file);
}

/** Claude Code's tool names, so its matchers ("Bash", "Edit|Write") find albedo-tui's tools */
const CLAUDE_NAMES: Record<string, string> = { bash: "Bash", read: "Read", write: "Write", edit: "Edit", glob: "Glob", grep: "Grep", ls: "LS", todo: "TodoWrite", skill: "Skill" };

export function matches(matcher: string, tool: string): boolean {
  const m = matcher.trim();
  if (m === "" || m === "*") return true;
  const names = [tool, CLAUDE_NAMES[tool] ?? tool];
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${m})$`, "i");
  } catch {
    return names.some((n) => n.toLowerCase() === m.toLowerCase());
  }
  return names.some((n) => re.test(n));
}

/** What the hooks of one event decided, put together. */
export interface HookVerdict {
  /** the event is blocked (a tool call not run, a prompt not sent): why */
  block?: string;
  /** the turn ends: why */
  stop?: string;
  /** context the hooks added, each with the hook that added it */
  context: Array<{ source: string; text: string }>;
  /** warnings for the person (a hook that failed, timed out, printed what is not JSON) */
  notes: string[];
  /** a PreToolUse hook's "updatedInput": the call runs with this input instead (the first hook's) */
  updatedInput?: Record<string, unknown>;
}

/** the most JSON an updatedInput may hold: a hook cannot hand a tool more than a prompt could */
const MAX_UPDATED_INPUT_CHARS = 256 * 1024;

const outputSchema = z
  .object({
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    decision: z.string().optional(),
    reason: z.string().optional(),
    additionalContext: z.string().optional(),
    hookSpecificOutput: z
      .object({
        additionalContext: z.string().optional(),
        permissionDecision: z.string().optional(),
        permissionDecisionReason: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

/** the short name of a hook, for notices and the inspector: "PreToolUse hook: ./check.sh" */
export function hookLabel(h: Hook): string {
  return `${h.event} hook: ${plainLine(h.command, 60)}`;
}

/** One hook's exit read as Claude Code reads it (pure). */
export function readExit(h: Hook, x: HookExit, into: HookVerdict): void {
  const label = hookLabel(h);
  if (x.failed) {
    into.notes.push(`${label} could not start: ${plainLine(x.failed, 200)}`);
    return;
  }
  if (x.timedOut) {
    into.notes.push(`${label} did not finish within ${h.timeoutMs / 1000} s; it was stopped`);
    return;
  }
  if (x.code === 2) {
    const why = x.stderr.trim() || `${label} exited with 2`;
    into.block ??= why;
    return;
  }
  if (x.code !== 0) {
    into.notes.push(`${label} ${x.signal ? `was killed by ${x.signal}` : `exited with ${x.code ?? "no code"}`}${x.stderr.trim() ? `: ${plainLine(x.stderr, 200)}` : ""}`);
    return;
  }
  const out = x.stdout.trim();
  if (!out) return;
  let json: unknown;
  if (out.startsWith("{")) {
    try {
      json = JSON.parse(out);
    } catch {
      json = undefined;
    }
  }
  const parsed = json === undefined ? undefined : outputSchema.safeParse(json);
  if (!parsed?.success) {
    // plain text is context for the events that take it; for the others it is only shown
    if (h.event === "SessionStart" || h.event === "UserPromptSubmit") into.context.push({ source: label, text: out });
    return;
  }
  const o = parsed.data;
  const ctx = o.hookSpecificOutput?.additionalContext ?? o.additionalContext;
  if (ctx?.trim()) into.context.push({ source: label, text: ctx.trim() });
  const deny = o.hookSpecificOutput?.permissionDecision === "deny";
  if (o.decision === "block" || deny) into.block ??= o.hookSpecificOutput?.permissionDecisionReason ?? o.reason ?? `${label} blocked it`;
  if (o.continue === false) into.stop ??= o.stopReason ?? `${label} stopped the turn`;
  const updated = o.hookSpecificOutput?.updatedInput;
  if (updated && h.event === "PreToolUse" && into.updatedInput === undefined) {
    if (JSON.stringify(updated).length > MAX_UPDATED_INPUT_CHARS) into.notes.push(`${label} gave an updatedInput over ${MAX_UPDATED_INPUT_CHARS / 1024} KB; the call runs with the model's input`);
    else into.updatedInput = updated;
  }
}

export interface HookRunContext {
  workspace: string;
  sessionId: string;
  secrets: () => readonly string[];
  redact: (t: string) => string;
  signal?: AbortSignal;
}

/** Runs the hooks of one event that match, one after another, and puts their verdicts together. */
export async function runHooks(hooks: readonly Hook[], event: HookEvent, payload: Record<string, unknown>, c: HookRunContext, tool?: string): Promise<HookVerdict> {
  const verdict: HookVerdict = { context: [], notes: [] };
  const chosen = hooks.filter((h) => h.event === event && (tool === undefined || matches(h.matcher, tool)));
  if (chosen.length === 0) return verdict;
  const stdin = JSON.stringify({ session_id: c.sessionId, cwd: c.workspace, hook_event_name: event, ...payload });
  for (const h of chosen) {
    if (c.signal?.aborted) break;
    const x = await spawnHook({
      command: h.command,
      cwd: c.workspace,
      stdin,
      timeoutMs: h.timeoutMs,
      secrets: c.secrets(),
      env: { CLAUDE_PROJECT_DIR: c.workspace, ALBEDO_PROJECT_DIR: c.workspace },
      redact: c.redact,
      ...(c.signal ? { signal: c.signal } : {}),
    });
    readExit(h, x, verdict);
  }
  verdict.context = verdict.context.map((x) => ({ source: x.source, text: c.redact(x.text) }));
  if (verdict.block) verdict.block = c.redact(verdict.block);
  if (verdict.stop) verdict.stop = c.redact(verdict.stop);
  // what a hook hands a tool is outside text like any other: keys in it are cut
  if (verdict.updatedInput) verdict.updatedInput = redactDeep(verdict.updatedInput, c.redact) as Record<string, unknown>;
  return verdict;
}

/** every string of a JSON value (names too) through the redactor */
function redactDeep(v: unknown, redact: (t: string) => string): unknown {
  if (typeof v === "string") return redact(v);
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, redact));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), redactDeep(x, redact)]));
  return v;
}
