// Whether a tool call runs, is asked about, or is refused: one pure function over the mode,
// the call, the sandbox and what has been allowed. run.ts gathers the facts and carries out
// the answer; nothing else decides.
import { assertNever } from "../record/types.js";
import { lineMatches, lineTouches, type CommandRule } from "./command-rules.js";
import type { PermissionPolicy } from "./types.js";

export interface PolicyFacts {
  mode: PermissionPolicy;
  workspace: string;
  tool: { name: string; kind: "read" | "write" | "exec"; readOnlyAllowed?: boolean };
  /** the shell command, for bash */
  command?: string;
  /** the real paths outside the workspace the call touches, and whether each was allowed before */
  outside: readonly { real: string; allowed: boolean }[];
  /** the command would run inside the sandbox */
  sandboxed: boolean;
  /** the whole tool was allowed for the session (picked by a person) */
  toolAllowed: boolean;
  /** command rules that allow without asking: the session's and the config's */
  allow: readonly CommandRule[];
  /** command rules that refuse: the config's "deny" */
  deny: readonly CommandRule[];
  /** the config allows or denies the tool whole ("edit" in "allow") */
  toolRule?: "allow" | "deny" | undefined;
}

export type Decision = { act: "run" } | { act: "ask" } | { act: "deny"; why: string };

const RUN: Decision = { act: "run" };
const ASK: Decision = { act: "ask" };

export function decide(f: PolicyFacts): Decision {
  const { tool } = f;
  if (f.toolRule === "deny") return { act: "deny", why: `denied: the config's "deny" lists ${tool.name}` };
  if (f.command !== undefined && f.deny.length > 0 && lineTouches(f.command, f.deny)) {
    return { act: "deny", why: `denied: the config's "deny" rules match this command` };
  }
  const reads = tool.kind === "read" || tool.readOnlyAllowed === true;
  const outsideAsked = f.outside.some((o) => !o.allowed);
  switch (f.mode) {
    case "auto":
      return RUN;
    case "read-only":
    case "plan":
      if (!reads) return { act: "deny", why: `denied: albedo-tui runs in ${f.mode} mode; ${tool.name} is not allowed` };
      if (f.outside.length > 0) return { act: "deny", why: `denied: albedo-tui runs in ${f.mode} mode; ${f.outside.map((o) => o.real).join(", ")} is outside the workspace ${f.workspace}` };
      return RUN;
    case "accept-edits":
      if (tool.kind === "write" && f.outside.length === 0) return RUN;
      break;
    case "ask":
      break;
    default:
      return assertNever(f.mode, "permission mode");
  }
  // ask and accept-edits: reads inside the workspace run; the rest needs a yes, an earlier
  // "allow for this session" of its scope, a config rule, or (commands) the sandbox
  if (f.outside.length > 0) return outsideAsked ? ASK : RUN;
  if (tool.kind === "read") return RUN;
  if (f.toolAllowed || f.toolRule === "allow") return RUN;
  if (tool.kind === "exec") {
    if (f.sandboxed) return RUN;
    if (f.command !== undefined && lineMatches(f.command, f.allow)) return RUN;
  }
  return ASK;
}
