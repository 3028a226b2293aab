// Running a tool call from the model: find the tool, check its input, apply the permission
// policy, run it, and cap what comes back. Every failure is a result the model can read,
// never an exception out of the turn.
import { wellFormed } from "../text/well-formed.js";
import { z } from "zod";
import type { ToolSchema } from "../provider/types.js";
import { assertNever } from "../record/types.js";
import { messageOf } from "../record/errors.js";
import type { PermissionRequest, ToolContext, ToolDef, ToolOutput } from "./types.js";
import { capText } from "./cap.js";
import { InterruptedError } from "./files.js";
import { resolvePath, type ResolvedPath } from "./paths.js";
import { readTool } from "./read.js";
import { writeTool } from "./write.js";
import { editTool } from "./edit.js";
import { bashTool } from "./bash.js";
import { bashOutputTool, bashStopTool } from "./shell-tools.js";
import { lsTool } from "./ls.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { formatRule, sessionRules, type CommandRule } from "./command-rules.js";
import { decide } from "./policy.js";

/** "session" answers, kept for the life of one session (never written to disk). */
export class PermissionMemory {
  private readonly tools = new Set<string>();
  private readonly paths = new Set<string>();
  /** command prefixes ("npm test:*") and exact commands allowed for the session */
  private readonly commands = new Map<string, CommandRule>();
  /** exact lines the scan could not split, allowed as they are */
  private readonly lines = new Set<string>();
  /** exact lines allowed to run outside the sandbox */
  private readonly unsandboxed = new Set<string>();

  /** the tool may run inside the workspace without asking */
  allowsTool(tool: string): boolean {
    return this.tools.has(tool);
  }
  rememberTool(tool: string): void {
    this.tools.add(tool);
  }
  /** the tool may touch this real path outside the workspace without asking */
  allowsPath(tool: string, realPath: string): boolean {
    return this.paths.has(pathKey(tool, realPath));
  }
  rememberPath(tool: string, realPath: string): void {
    this.paths.add(pathKey(tool, realPath));
  }
  /** the command rules the session allows (prefixes), and whether this exact line was allowed */
  commandRules(): CommandRule[] {
    return [...this.commands.values()];
  }
  allowsLine(line: string): boolean {
    return this.lines.has(line);
  }
  /** what "session" grants for this command: its prefixes, else the line itself */
  rememberCommand(line: string): void {
    const rules = sessionRules(line);
    if (!rules) this.lines.add(line);
    else for (const r of rules) this.commands.set(formatRule(r), r);
  }
  allowsUnsandboxed(line: string): boolean {
    return this.unsandboxed.has(line);
  }
  rememberUnsandboxed(line: string): void {
    this.unsandboxed.add(line);
  }
  clear(): void {
    this.tools.clear();
    this.paths.clear();
    this.commands.clear();
    this.lines.clear();
    this.unsandboxed.clear();
  }
  /** takes back one grant, named as grants() names it; false when there was none */
  revoke(grant: string): boolean {
    if (this.tools.delete(grant)) return true;
    for (const k of this.paths) if (k.replace("\0", " ") === grant) return this.paths.delete(k);
    if (grant.startsWith("bash(") && grant.endsWith(")")) {
      const inner = grant.slice(5, -1);
      if (this.commands.delete(inner)) return true;
      if (this.lines.delete(inner)) return true;
    }
    if (grant.startsWith("outside the sandbox: ")) return this.unsandboxed.delete(grant.slice("outside the sandbox: ".length));
    return false;
  }
  /** what has been granted, for display ("bash", "read /etc/hosts", "bash(npm test:*)") */
  grants(): string[] {
    return [
      ...this.tools,
      ...[...this.paths].map((k) => k.replace("\0", " ")),
      ...[...this.commands.keys()].map((k) => `bash(${k})`),
      ...[...this.lines].map((l) => `bash(${l})`),
      ...[...this.unsandboxed].map((l) => `outside the sandbox: ${l}`),
    ];
  }
}

/** what "allow for this session" grants for a command, in words for the box */
export function commandScope(line: string): string {
  const rules = sessionRules(line);
  if (!rules) return "this exact command only";
  return `commands starting with: ${rules.map((r) => r.words.join(" ")).join(", ")}`;
}

function pathKey(tool: string, realPath: string): string {
  return `${tool}\0${realPath}`;
}

export function builtinTools(): ToolDef[] {
  return [readTool, writeTool, editTool, bashTool, bashOutputTool, bashStopTool, lsTool, globTool, grepTool] as ToolDef[];
}

/** The JSON Schemas the providers receive; one object schema per tool. */
export function toolSchemas(tools: ToolDef[]): ToolSchema[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: inputJsonSchema(t) }));
}

function inputJsonSchema(t: ToolDef): Record<string, unknown> {
  const js = z.toJSONSchema(t.input) as Record<string, unknown>;
  delete js.$schema;
  if (js.type !== "object") throw new Error(`tool ${t.name}: input schema must be an object, got ${String(js.type)}`);
  js.properties ??= {};
  js.required ??= [];
  return dropSafeIntegerBounds(js) as Record<string, unknown>;
}

/** zod writes ±2^53−1 bounds on every .int(); they say nothing and cost request bytes. */
function dropSafeIntegerBounds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropSafeIntegerBounds);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    if ((k === "maximum" && val === Number.MAX_SAFE_INTEGER) || (k === "minimum" && val === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = dropSafeIntegerBounds(val);
  }
  return out;
}

/** the shell line of a command tool's call */
function commandOf(tool: ToolDef, input: unknown): string | undefined {
  if (tool.sandboxed !== true || input === null || typeof input !== "object") return undefined;
  const c = (input as { command?: unknown }).command;
  return typeof c === "string" ? c : undefined;
}

/**
 * A sandboxed command failed in a way that suggests the sandbox stopped it: a person may let
 * it run once more OUTSIDE the sandbox, after a question that says so. Never in auto mode
 * (nothing is asked there) nor without a person; the output then says how to allow it.
 */
async function outsideSandbox(
  tool: ToolDef,
  input: unknown,
  ctx: ToolContext,
  memory: PermissionMemory,
  out: ToolOutput,
): Promise<ToolOutput> {
  const command = commandOf(tool, input);
  if (out.sandboxRefused === undefined || command === undefined || !ctx.sandbox) return out;
  const what = out.sandboxRefused;
  const note = (s: string): ToolOutput => ({ ...out, output: `${out.output}\n[${s}]` });
  if (ctx.policy !== "ask" && ctx.policy !== "accept-edits") return note(`the sandbox may have stopped this command (it seems to ${what}); in ${ctx.policy} mode it is not run outside the sandbox`);
  if (ctx.unattended !== undefined) return note(`the sandbox may have stopped this command (it seems to ${what}); no one can be asked to run it outside the sandbox; rerun with --sandbox off to allow that`);
  if (!memory.allowsUnsandboxed(command)) {
    const req: PermissionRequest = {
      tool: tool.name,
      kind: tool.kind,
      input,
      summary: `run again OUTSIDE the sandbox (it seems to ${what})`,
      unsandboxed: `this exact command, once more, with write access to every file you can write${ctx.sandbox.network ? "" : ", the network"}, your credentials and albedo-tui's own files`,
      sessionScope: "this exact command outside the sandbox, for this session",
    };
    const answer = await untilAborted(ctx.askPermission(req), ctx.signal);
    if (answer === ABORTED) return out;
    switch (answer) {
      case "deny":
        return note(`the sandbox may have stopped this command (it seems to ${what}); the user did not allow running it outside the sandbox`);
      case "session":
        memory.rememberUnsandboxed(command);
        break;
      case "once":
        break;
      default:
        return assertNever(answer, "permission answer");
    }
  }
  ctx.onRun?.();
  const again = await tool.run(input, { ...ctx, sandbox: undefined });
  return { ...again, output: `${out.output}\n[run again outside the sandbox, as the user allowed:]\n${again.output}` };
}

function fail(output: string): ToolOutput {
  return { output, isError: true };
}

const INTERRUPTED: ToolOutput = { output: "interrupted", isError: true };

/** Models occasionally send arguments as a JSON string, or nothing for a tool without any. */
function normalizeInput(raw: unknown): unknown {
  if (raw === undefined || raw === null || raw === "") return {};
  if (typeof raw === "string") {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function describeIssues(tool: ToolDef, raw: unknown, issues: z.core.$ZodIssue[]): string {
  const parts = issues.map((iss) => {
    const field = iss.path.length > 0 ? iss.path.map(String).join(".") : "input";
    if (iss.code === "invalid_type" && / received undefined$/.test(iss.message)) {
      return `${field}: missing (expected ${iss.expected})`;
    }
    return `${field}: ${iss.message}`;
  });
  // A misnamed field ("file_path" for "path") is silently dropped by zod; name it.
  if (tool.input instanceof z.ZodObject && raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const known = new Set(Object.keys(tool.input.shape as Record<string, unknown>));
    const unknown = Object.keys(raw).filter((k) => !known.has(k));
    if (unknown.length > 0) parts.push(`unknown field(s) ${unknown.join(", ")}; the fields are ${[...known].join(", ")}`);
  }
  return parts.join("; ");
}

/** Waits for a person's answer, unless the turn is interrupted first. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
const ABORTED = Symbol("aborted");

/**
 * Applies ctx.policy. Returns a result when the call must not run (denied, or a preview
 * shows it would fail anyway), undefined when it may run.
 */
async function checkPermission(
  tool: ToolDef,
  input: unknown,
  ctx: ToolContext,
  memory: PermissionMemory,
  resolved: ResolvedPath[],
): Promise<ToolOutput | undefined> {
  const outside = resolved.filter((r) => r.outsideWorkspace);
  const command = commandOf(tool, input);
  const rules = ctx.rules;
  const decision = decide({
    mode: ctx.policy,
    workspace: ctx.workspace,
    tool,
    ...(command !== undefined ? { command } : {}),
    outside: outside.map((r) => ({ real: r.real, allowed: memory.allowsPath(tool.name, r.real) })),
    sandboxed: tool.sandboxed === true && ctx.sandbox !== undefined,
    toolAllowed: memory.allowsTool(tool.name) || (command !== undefined && memory.allowsLine(command)),
    allow: [...memory.commandRules(), ...(command !== undefined ? (rules?.allow ?? []) : [])],
    deny: rules?.deny ?? [],
    toolRule: rules?.denyTools.includes(tool.name) ? "deny" : rules?.allowTools.includes(tool.name) ? "allow" : undefined,
  });
  switch (decision.act) {
    case "run":
      return undefined;
    case "deny":
      return fail(decision.why);
    case "ask":
      break;
    default:
      return assertNever(decision, "permission decision");
  }

  // Work out the change first: the person judges the diff, not the intent. A call that
  // would fail anyway is reported without bothering anyone.
  const preview = tool.preview ? await tool.preview(input, ctx) : {};
  if (preview.error !== undefined) return fail(preview.error);

  let summary = tool.summarize?.(input) ?? `${tool.name} ${JSON.stringify(input)}`;
  const outsideList = outside.map((r) => r.real).join(", ");
  if (outside.length > 0) summary += ` (outside the workspace: ${outsideList})`;
  const req: PermissionRequest = { tool: tool.name, kind: tool.kind, input, summary };
  if (preview.diff !== undefined) req.diff = preview.diff;
  if (outside.length > 0) req.outsideWorkspace = outsideList;
  req.sessionScope = outside.length > 0 ? `${tool.name} of these paths outside the workspace` : command !== undefined ? commandScope(command) : `every ${tool.name} call`;

  if (ctx.unattended !== undefined) return fail(`denied: ${ctx.unattended} (${summary})`);
  const answer = await untilAborted(ctx.askPermission(req), ctx.signal);
  if (answer === ABORTED) return INTERRUPTED;
  switch (answer) {
    case "once":
      return undefined;
    case "session":
      if (outside.length > 0) for (const r of outside) memory.rememberPath(tool.name, r.real);
      else if (command !== undefined) memory.rememberCommand(command);
      else memory.rememberTool(tool.name);
      return undefined;
    case "deny":
      return fail(`denied by the user (${summary})`);
    default:
      return assertNever(answer, "permission answer");
  }
}

export async function runTool(
  tools: ToolDef[],
  name: string,
  rawInput: unknown,
  ctx: ToolContext,
  memory: PermissionMemory,
): Promise<ToolOutput> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) return fail(`unknown tool "${name}"; the tools are: ${tools.map((t) => t.name).join(", ")}`);

  const raw = normalizeInput(rawInput);
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) return fail(`invalid input for ${name}: ${describeIssues(tool, raw, parsed.error.issues)}`);
  const input: unknown = parsed.data;
  if (ctx.signal.aborted) return INTERRUPTED;

  try {
    const given = tool.paths?.(input) ?? [];
    const resolved = await Promise.all(given.map((g) => resolvePath(ctx.workspace, g)));
    // The tool re-checks what it opens against what this check saw: a link swapped in
    // between must not carry the call outside (see boundaryProblem in paths.ts).
    const outsideAllowed = ctx.policy === "auto" ? "any" : resolved.filter((r) => r.outsideWorkspace).map((r) => r.real);
    const scoped: ToolContext = { ...ctx, outsideAllowed };
    const denied = await checkPermission(tool, input, scoped, memory, resolved);
    const redact = ctx.redact ?? ((t: string): string => t);
    if (denied) return { ...denied, output: capText(redact(denied.output)) };
    if (ctx.signal.aborted) return INTERRUPTED;
    if (tool.kind !== "read" && ctx.beforeChange) await ctx.beforeChange({ tool: tool.name, kind: tool.kind, paths: resolved.map((r) => r.real), signal: ctx.signal });
    if (ctx.signal.aborted) return INTERRUPTED;
    ctx.onRun?.();
    const out = await outsideSandbox(tool, input, scoped, memory, await tool.run(input, scoped));
    // A read cut short says nothing reliable; a write that finished did change the file,
    // and the record must say so even if the turn was interrupted meanwhile.
    if (ctx.signal.aborted && tool.kind === "read") return INTERRUPTED;
    // a lone surrogate in a tool's output becomes U+FFFD here, where it enters
    return { ...out, output: capText(redact(wellFormed(out.output))) };
  } catch (e) {
    if (e instanceof InterruptedError || ctx.signal.aborted) return INTERRUPTED;
    return fail(`${name} failed: ${messageOf(e)}`);
  }
}
