// The tools of one answer, in order: each through the permission policy, its output and
// diff redacted before anything sees them. After an interrupt the rest are not run but still
// answered, so every call of the live round has its result.
import type { ImageBlock, ToolResultBlock, ToolUseBlock } from "../../record/types.js";
import { outputImages } from "../../extensions/results.js";
import { noRedaction } from "../../config/secrets.js";
import { runTool } from "../../tools/run.js";
import type { TurnEnv } from "./env.js";
import type { ToolOutput } from "../../tools/types.js";

export async function runTools(env: TurnEnv, calls: readonly ToolUseBlock[], signal: AbortSignal): Promise<ToolResultBlock[]> {
  return (await runToolCalls(env, calls, signal)).results;
}

/** The blocks of the results message: the results, then the images an extension tool brought
 * (an MCP server's image content), after the results so the vision rule replays them. */
export async function resultsMessage(env: TurnEnv, calls: readonly ToolUseBlock[], signal: AbortSignal): Promise<Array<ToolResultBlock | ImageBlock>> {
  const { results, images } = await runToolCalls(env, calls, signal);
  return [...results, ...images];
}

/** The call between its hooks: a PreToolUse block answers it with the hook's reason; a
 * PreToolUse updatedInput runs it with that input (through the same permission policy) and
 * says so in the result, since the record keeps the model's own input; what the hooks add
 * follows the output. */
async function hookedRun(env: TurnEnv, call: ToolUseBlock, signal: AbortSignal, onRun: () => void, onOutput: (text: string) => void): Promise<ToolOutput> {
  const hooks = env.hooks;
  const before = hooks ? await hooks.before({ name: call.name, input: call.input }, signal) : undefined;
  if (before?.stop) env.hookStop ??= before.stop;
  if (before?.block !== undefined) return { output: `blocked by a PreToolUse hook: ${before.block}`, isError: true };
  const input = before?.updatedInput ?? call.input;
  const changed = before?.updatedInput ? [`[a PreToolUse hook changed the input to: ${JSON.stringify(input)}]`] : [];
  const out = await runTool(env.tools, call.name, input, { ...env.toolCtx, signal, onRun, onOutput }, env.memory);
  if (!hooks || signal.aborted) return changed.length > 0 ? { ...out, output: `${changed[0]}\n${out.output}` } : out;
  const after = await hooks.after({ name: call.name, input, output: out.output, isError: out.isError }, signal);
  if (after.stop) env.hookStop ??= after.stop;
  const added = [...(before?.context ?? []), ...after.context];
  const output = [...changed, out.output, ...added].join("\n");
  return output !== out.output ? { ...out, output } : out;
}

async function runToolCalls(env: TurnEnv, calls: readonly ToolUseBlock[], signal: AbortSignal): Promise<{ results: ToolResultBlock[]; images: ImageBlock[] }> {
  const redact = env.redact ?? noRedaction;
  const results: ToolResultBlock[] = [];
  const images: ImageBlock[] = [];
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
    const live = liveOutput(env, call.id, redact);
    const out = await hookedRun(env, call, signal, onRun, live.push);
    live.close();
    const ms = Date.now() - t0;
    const output = redact(out.output);
    const diff = out.diff !== undefined ? redact(out.diff) : undefined;
    env.events.emit({ type: "tool_end", id: call.id, name: call.name, output, isError: out.isError, ms, ...(diff ? { diff } : {}) });
    results.push({ type: "tool_result", toolUseId: call.id, name: call.name, output, isError: out.isError });
    images.push(...outputImages(out));
  }
  return { results, images };
}

/** Characters of a running command's newest output kept for the screen. */
const LIVE_TAIL_CHARS = 8_000;
/** At most one tool_output event per this many ms: a flood does not flood the screen. */
const LIVE_EVERY_MS = 100;

/** A running call's output as tool_output events: the newest LIVE_TAIL_CHARS, redacted
 * whole each time (a key split across two chunks is whole in the tail), throttled. */
function liveOutput(env: TurnEnv, id: string, redact: (t: string) => string): { push: (text: string) => void; close: () => void } {
  let tail = "";
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    env.events.emit({ type: "tool_output", id, tail: redact(tail), bytes });
  };
  return {
    push: (text) => {
      bytes += Buffer.byteLength(text);
      tail = (tail + text).slice(-LIVE_TAIL_CHARS);
      timer ??= setTimeout(flush, LIVE_EVERY_MS);
    },
    close: () => clearTimeout(timer),
  };
}
