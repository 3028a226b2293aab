// Stored record → provider-neutral wire messages, as prose (SPEC §2).
// Pure: no I/O. One wire message per stored message; no tool roles, no call ids.
import { assertNever, type Block, type StoredMessage } from "../record/types.js";
import type { WireMessage, WirePart } from "../provider/types.js";

export interface ReplayOptions {
  /** whether the model can see images; the only fact that changes the projection */
  vision: boolean;
}

/** The marker for a stored message that has no blocks (a turn killed before any output). */
export const EMPTY_MESSAGE_MARKER = "[This turn was interrupted before any output.]";

/** Put before a request's history when it would otherwise open with an assistant message (a
 * session whose first row could not be read, a summary request's prefix): providers want a
 * user message first. */
export const LEADING_USER_MARKER = "(conversation so far)";

export function imageNotSeenMarker(mediaType: string, bytes: number, width?: number, height?: number): string {
  const dims = width && height ? `, ${width}×${height}` : "";
  return `[Image not seen: the model cannot view images (${mediaType}, ${bytes} bytes${dims}).]`;
}

export function toolUseProse(name: string, input: unknown): string {
  return `Tool use: ${name}(${stringifyInput(input)})`;
}

export function toolResultProse(name: string, output: string, isError: boolean): string {
  return `${isError ? "Error" : "Result"} (${name}): ${output}`;
}

export function reasoningProse(text: string): string {
  // redacted thinking has no readable text: say so rather than send an empty label
  return `[Reasoning]: ${text.trim() ? text : "(not shown by the provider)"}`;
}

function stringifyInput(input: unknown): string {
  if (input === undefined) return "{}";
  try {
    return JSON.stringify(input) ?? "{}";
  } catch {
    return String(input);
  }
}

export function blockToPart(block: Block, opts: ReplayOptions): WirePart {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "tool_use":
      return { type: "text", text: toolUseProse(block.name, block.input) };
    case "tool_result":
      return { type: "text", text: toolResultProse(block.name, block.output, block.isError) };
    case "reasoning":
      // the opaque body (signature, encrypted reasoning) belongs to its live round only
      return { type: "text", text: reasoningProse(block.text) };
    case "image": {
      if (opts.vision) {
        const part: WirePart = { type: "image", mediaType: block.mediaType, data: block.data, bytes: block.bytes };
        if (block.width !== undefined) part.width = block.width;
        if (block.height !== undefined) part.height = block.height;
        return part;
      }
      return { type: "text", text: imageNotSeenMarker(block.mediaType, block.bytes, block.width, block.height) };
    }
    default:
      return assertNever(block, "block");
  }
}

/** Replays one stored message's blocks as the content of one wire message. */
// Every request replays the whole history, and a stored block always crosses the same way,
// so its part is made once per block (stored blocks are never mutated: updates replace
// them). Handing out the very same strings each time also lets the token-count cache find
// them without hashing megabytes of text again (V8 keeps a string's hash with it).
const seenParts = new WeakMap<Block, WirePart>();
const blindParts = new WeakMap<Block, WirePart>();

function partOf(b: Block, opts: ReplayOptions): WirePart {
  const memo = opts.vision ? seenParts : blindParts;
  let part = memo.get(b);
  if (!part) {
    part = blockToPart(b, opts);
    memo.set(b, part);
  }
  return part;
}

export function replayMessage(msg: { role: StoredMessage["role"]; blocks: Block[] }, opts: ReplayOptions): WireMessage {
  const content = msg.blocks.map((b) => partOf(b, opts));
  // providers reject empty content, and empty or whitespace-only text parts too
  // (Anthropic: "text content blocks must contain non-whitespace text")
  const nonEmpty = content.filter((p) => p.type !== "text" || p.text.trim().length > 0);
  return { role: msg.role, content: nonEmpty.length > 0 ? nonEmpty : [{ type: "text", text: EMPTY_MESSAGE_MARKER }] };
}

export function replayMessages(
  stored: ReadonlyArray<{ role: StoredMessage["role"]; blocks: Block[] }>,
  opts: ReplayOptions,
): WireMessage[] {
  return stored.map((m) => replayMessage(m, opts));
}
