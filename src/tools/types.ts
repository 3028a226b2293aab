// What a tool is, what it returns, and how permission is asked.
import type { z } from "zod";
import type { BackgroundShells } from "./background.js";
import type { CommandSandbox } from "./spawn-command.js";
import type { CommandRule } from "./command-rules.js";

/** the config's "allow" / "deny": `bash(npm test:*)` becomes a command rule, `edit` a tool */
export interface PermissionRules {
  allow: CommandRule[];
  deny: CommandRule[];
  allowTools: string[];
  denyTools: string[];
}

/** The permission modes: `ask` (reads run; the rest asks, commands in the sandbox run),
 * `accept-edits` (edits in the workspace run too), `plan` (read-only tools only, the model told
 * it is planning), `auto` (nothing asks); `read-only` is `plan` without the model being told. */
export const PERMISSION_MODES = ["ask", "accept-edits", "plan", "auto", "read-only"] as const;
export type PermissionPolicy = (typeof PERMISSION_MODES)[number];

/** read: looks only; write: changes files; exec: runs commands. */
type ToolKind = "read" | "write" | "exec";

export interface PermissionRequest {
  tool: string;
  kind: ToolKind;
  input: unknown;
  /** a one-line description for a prompt ("bash: npm test") */
  summary: string;
  /** unified diff for edit/write when it can be computed before running */
  diff?: string;
  /** set when the request is because a path leaves the workspace */
  outsideWorkspace?: string;
  /** what "allow for this session" grants, in words ("commands starting with: npm test") */
  sessionScope?: string;
  /** the question is to run a command again OUTSIDE the sandbox: what that allows, in words */
  unsandboxed?: string;
}

export type PermissionAnswer = "once" | "session" | "deny";

export interface ToolContext {
  workspace: string;
  signal: AbortSignal;
  policy: PermissionPolicy;
  /** asked when policy and tool need a person's answer; headless answers "deny" */
  askPermission: (req: PermissionRequest) => Promise<PermissionAnswer>;
  /** set when no person can be asked (headless): why, so a refusal says so instead of
   * "denied by the user" */
  unattended?: string;
  /** called just before the tool runs, after any permission prompt (for timing) */
  onRun?: () => void;
  /** called after the permission check, before a tool that is no read runs: `paths` are the
   * real paths a file tool was cleared to change (none for a command, which may change any).
   * The turn keeps what the call may change, so a rewind can put it back
   * (src/session/checkpoints/); it never fails the call. */
  beforeChange?: (change: { tool: string; kind: Exclude<ToolKind, "read">; paths: readonly string[]; signal: AbortSignal }) => Promise<void>;
  /** set by runTool from its permission check: the real paths outside the workspace this
   * call was cleared to touch (and what lies below them), or "any" in auto mode. A tool
   * re-checks what it opens against this, so a link swapped after the check is not
   * followed out. Absent: nothing outside. */
  outsideAllowed?: readonly string[] | "any";
  /** where commands run: inside bubblewrap with this policy, or (absent) as albedo-tui's own
   * children, unsandboxed */
  sandbox?: CommandSandbox | undefined;
  /** the config's "allow" and "deny" rules: command rules for bash, whole tools by name */
  rules?: PermissionRules | undefined;
  /** cuts the configured keys out of output; applied BEFORE output is cut to size, so a key
   * that straddles a cut is never kept in part */
  redact?: (text: string) => string;
  /** output of a running command as it arrives (not redacted, not bounded: the caller does
   * both before it shows any of it) */
  onOutput?: (text: string) => void;
  /** the session's background commands; absent where none may be left running */
  shells?: BackgroundShells;
}

export interface ToolOutput {
  output: string;
  isError: boolean;
  /** unified diff of a write/edit, for the screen (not sent to the model separately) */
  diff?: string;
  /** a sandboxed command failed, and its output suggests the sandbox stopped it: what it
   * seems to have been refused ("write outside the workspace") */
  sandboxRefused?: string;
}

/** What a tool would do, worked out before it runs, so a person can judge it. */
export interface ToolPreview {
  /** unified diff of the change a write/edit would make */
  diff?: string;
  /** the call would fail anyway (string absent, not a file): report it without asking */
  error?: string;
}

export interface ToolDef<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  kind: ToolKind;
  /** may run in read-only mode though it is no read (an MCP tool the user listed in
   * allowInReadOnly); `ask` still asks for it */
  readOnlyAllowed?: boolean;
  input: S;
  /** its commands run inside ctx.sandbox when there is one (bash) */
  sandboxed?: boolean;
  run(input: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
  /** one line for a permission prompt or a collapsed transcript row ("edit src/a.ts") */
  summarize?(input: z.infer<S>): string;
  /** the paths the call touches, as given; checked against the workspace before running */
  paths?(input: z.infer<S>): string[];
  /** the change the call would make, computed without making it */
  preview?(input: z.infer<S>, ctx: ToolContext): Promise<ToolPreview>;
}
