// `!command` from the prompt: the person's own shell command, run as the model's bash is
// (the same tool, so the same permission policy, sandbox and process tracking), its output
// shown; `add` stores it as a user message, so the model reads it in the next request and the
// inspector counts it. `!!command` runs it without adding it.
import { runTool } from "../../tools/run.js";
import { bashTool } from "../../tools/bash.js";
import type { ToolDef } from "../../tools/types.js";
import { noRedaction } from "../../config/secrets.js";
import type { TurnEnv } from "./env.js";
import { append } from "./record.js";

/** The text a `!command` adds to the conversation: what ran and what it said. */
export function shellMessageText(command: string, output: string): string {
  return `I ran this command in the workspace:\n$ ${command}\n${output}`;
}

export async function runShellCommand(env: TurnEnv, command: string, add: boolean, signal: AbortSignal): Promise<{ output: string; isError: boolean }> {
  const redact = env.redact ?? noRedaction;
  const out = await runTool([bashTool as ToolDef], "bash", { command }, { ...env.toolCtx, signal }, env.memory);
  const output = redact(out.output);
  // a refusal (read-only mode, a "no") ran nothing: nothing joins the conversation
  if (add && !(out.isError && out.output.startsWith("denied"))) await append(env, "user", [{ type: "text", text: shellMessageText(redact(command), output) }], "complete");
  return { output, isError: out.isError };
}
