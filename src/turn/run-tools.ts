// The tools of one answer, in order: each through the permission policy, its output and
// diff redacted before anything sees them. After an interrupt the rest are not run but still
// answered, so every call of the live round has its result.
import type { ToolResultBlock, ToolUseBlock } from "../record/types.js";
import { noRedaction } from "../config/secrets.js";
import { runTool } from "../tools/run.js";
import type { TurnEnv } from "./env.js";

export async function runTools(env: TurnEnv, calls: readonly ToolUseBlock[], signal: AbortSignal): Promise<ToolResultBlock[]> {
  const redact = env.redact ?? noRedaction;
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    if (signal.aborted) {
      results.push({ type: "tool_result", toolUseId: call.id, name: call.name, output: "interrupted before it ran", isError: true });
      continue;
    }
    env.events.emit({ type: "state", state: "tool", detail: call.name });
    env.events.emit({ type: "tool_start", id: call.id, name: call.name, input: call.input });
    // the time the tool ran: a person's wait at a permission prompt is not its cost
    let t0 = Date.now();
    const onRun = (): void => {
      t0 = Date.now();
    };
    const out = await runTool(env.tools, call.name, call.input, { ...env.toolCtx, signal, onRun }, env.memory);
    const ms = Date.now() - t0;
    const output = redact(out.output);
    const diff = out.diff !== undefined ? redact(out.diff) : undefined;
    env.events.emit({ type: "tool_end", id: call.id, name: call.name, output, isError: out.isError, ms, ...(diff ? { diff } : {}) });
    results.push({ type: "tool_result", toolUseId: call.id, name: call.name, output, isError: out.isError });
  }
  return results;
}
