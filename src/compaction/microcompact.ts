// Microcompact: tool output older than the most recent rounds is blurred to a marker in the
// prepared copy. What the model did (tool inputs), what it said and thought, and what people
// wrote all stay; only bulky old output goes, and the marker says what went and how big it was.
import type { Block, ToolResultBlock } from "../record/types.js";
import type { PreparedMessage, Removed } from "./types.js";
import { formatInt } from "../record/numbers.js";

export interface MicrocompactResult {
  messages: PreparedMessage[];
  removed: Removed;
}

/** "[output of bash cleared: 48,213 bytes]" / "[error output of bash cleared: 1,024 bytes]" */
export function clearedOutputMarker(name: string, isError: boolean, bytes: number): string {
  return `[${isError ? "error output" : "output"} of ${name} cleared: ${formatInt(bytes)} bytes]`;
}

/** Index of the first message of the K most recent tool rounds, or msgs.length when K is 0.
 * A round starts at an assistant message that called tools; its results follow it. */
export function recentRoundsStart(msgs: ReadonlyArray<{ role: string; blocks: readonly Block[] }>, keepRounds: number): number {
  const k = Number.isFinite(keepRounds) ? Math.max(0, Math.floor(keepRounds)) : Number.POSITIVE_INFINITY;
  if (k === 0) return msgs.length;
  let seen = 0;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role === "assistant" && m.blocks.some((b) => b.type === "tool_use")) {
      seen++;
      if (seen === k) return i;
    }
  }
  // fewer rounds than K: everything is recent
  return 0;
}

/** Blurs tool_result outputs before the K most recent tool rounds. The input is not touched:
 * changed messages get new block arrays and new blocks, unchanged blocks are shared. */
export function microcompact(
  msgs: ReadonlyArray<PreparedMessage>,
  opts: { keepRounds: number },
): MicrocompactResult {
  const start = recentRoundsStart(msgs, opts.keepRounds);
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

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} bytes`;
  const kb = Math.round(n / 1000);
  if (kb < 1000) return `${kb} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}
