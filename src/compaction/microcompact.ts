// Microcompact: tool output older than the most recent rounds is blurred to a marker in the
// prepared copy. What the model did (tool inputs), what it said and thought, and what people
// wrote all stay; only bulky old output goes, and the marker says what went and how big it was.
//
// It blurs in steps, for the provider's prompt cache: the un-blurred tail grows from K rounds
// to K + step − 1, and the next round blurs `step` rounds at once, back down to K. Between
// steps the prepared history is byte-identical from request to request, so a cached prefix
// holds; a step changes it from the first newly blurred output on, too far back for the
// provider's look-back to find what was cached before it, so the step's request writes the
// whole history again (docs/providers.md, Prompt caching). The boundary is a
// pure function of the record (its number of tool rounds, counted from the session's first
// message, summarised ones included), so nothing is stored and a resumed session prepares the
// same bytes as before the restart.
import type { Block, ToolResultBlock } from "../record/types.js";
import type { PreparedMessage, Removed } from "./types.js";
import { formatInt } from "../record/numbers.js";

interface MicrocompactResult {
  messages: PreparedMessage[];
  removed: Removed;
}

/** "[output of bash cleared: 48,213 bytes]" / "[error output of bash cleared: 1,024 bytes]" */
export function clearedOutputMarker(name: string, isError: boolean, bytes: number): string {
  return `[${isError ? "error output" : "output"} of ${name} cleared: ${formatInt(bytes)} bytes]`;
}

/** Whether a message starts a tool round. */
export function isRoundStart(m: { role: string; blocks: readonly Block[] }): boolean {
  return m.role === "assistant" && m.blocks.some((b) => b.type === "tool_use");
}

/** Tool rounds in a list of messages. */
export function countRounds(msgs: ReadonlyArray<{ role: string; blocks: readonly Block[] }>): number {
  let n = 0;
  for (const m of msgs) if (isRoundStart(m)) n++;
  return n;
}

/** Default step: the tail grows to K + 11 rounds, then 12 are blurred at once. Chosen by the
 * session's input cost at cache prices (read 0.1×, write 1.25×) in bench/cache.ts's 40-turn
 * session: step 1, 4, 8, 12, 16, 32 cost 1.10, 0.91, 0.85, 0.82, 0.86, 0.99 M token-units
 * (held outputs cost reads on every request; a step writes the history to the cache again). */
export const DEFAULT_MICROCOMPACT_STEP = 12;

/**
 * How many of the oldest tool rounds are blurred, out of `rounds` in the record: none while
 * there are at most K, then a multiple of `step` that leaves between K and K + step − 1 whole.
 * step 1 moves the boundary with every round (the behaviour before steps).
 */
export function blurredRounds(rounds: number, keepRounds: number, step: number): number {
  if (!Number.isFinite(keepRounds)) return 0;
  const k = Math.max(0, Math.floor(keepRounds));
  const s = Number.isFinite(step) ? Math.max(1, Math.floor(step)) : 1;
  if (rounds <= k) return 0;
  return Math.floor((rounds - k) / s) * s;
}

/** Index of the first message of round `n` (0-based) of msgs, or msgs.length when there is none. */
function roundStartIndex(msgs: ReadonlyArray<{ role: string; blocks: readonly Block[] }>, n: number): number {
  if (n <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < msgs.length; i++) {
    if (!isRoundStart(msgs[i]!)) continue;
    if (seen === n) return i;
    seen++;
  }
  return msgs.length;
}

interface MicrocompactOptions {
  keepRounds: number;
  /** rounds blurred at once (default 1: the boundary moves every round) */
  step?: number;
  /** tool rounds of the record before `msgs` begins (those a summary stands in for): the
   * step boundary counts from the session's first round, so a summary does not move it */
  roundsBefore?: number;
}

/** Blurs tool_result outputs of the oldest rounds, in steps (blurredRounds). The input is not
 * touched: changed messages get new block arrays and new blocks, unchanged blocks are shared. */
export function microcompact(
  msgs: ReadonlyArray<PreparedMessage>,
  opts: MicrocompactOptions,
): MicrocompactResult {
  const before = Math.max(0, opts.roundsBefore ?? 0);
  const blurred = blurredRounds(before + countRounds(msgs), opts.keepRounds, opts.step ?? 1);
  // with K = 0 and no round left after the boundary, everything is old: blur to the end
  const start = roundStartIndex(msgs, blurred - before);
  const removed: Removed = { outputs: 0, bytes: 0 };
  const messages: PreparedMessage[] = new Array<PreparedMessage>(msgs.length);
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    let blocks = m.blocks;
    if (i < start) {
      let copy: Block[] | undefined;
      for (let j = 0; j < m.blocks.length; j++) {
        const b = m.blocks[j]!;
        if (b.type !== "tool_result") continue;
        const blurred = blur(b);
        if (!blurred) continue;
        copy ??= m.blocks.slice();
        copy[j] = blurred.block;
        removed.outputs++;
        removed.bytes += blurred.bytes;
      }
      if (copy) blocks = copy;
    }
    messages[i] = m.status === undefined ? { role: m.role, blocks } : { role: m.role, blocks, status: m.status };
  }
  return { messages, removed };
}

const MARKER = /^\[(?:error )?output of .* cleared: [\d,]+ bytes\]$/;
/** A blurred output's marker anywhere in a text (the inspector counts them to say a step blurred N). */
export const CLEARED_OUTPUT_RE = /\[(?:error )?output of [^\]\n]{1,100} cleared: [\d,]+ bytes\]/g;

function blur(b: ToolResultBlock): { block: ToolResultBlock; bytes: number } | undefined {
  // already a marker (a prepared copy blurred again): the size it names is the real one
  if (b.output.length < 200 && MARKER.test(b.output)) return undefined;
  const bytes = Buffer.byteLength(b.output, "utf8");
  const marker = clearedOutputMarker(b.name, b.isError, bytes);
  // an output no longer than its marker saves nothing
  if (bytes <= Buffer.byteLength(marker, "utf8")) return undefined;
  return { block: { type: "tool_result", toolUseId: b.toolUseId, name: b.name, output: marker, isError: b.isError }, bytes };
}

/** "14 outputs, 412 kB" */
export function describeRemoved(r: Removed): string {
  return `${formatInt(r.outputs)} ${r.outputs === 1 ? "output" : "outputs"}, ${formatBytes(r.bytes)}`;
}

function formatBytes(n: number): string {
  if (n < 1000) return `${n} bytes`;
  const kb = Math.round(n / 1000);
  if (kb < 1000) return `${kb} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}
