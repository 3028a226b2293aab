// Stored record → provider-neutral wire messages. Pure: no I/O. One wire message per stored
// message. Replayed history is prose (no tool roles, no call ids); only the live round's
// complete messages cross natively. Every normalisation of a request's messages is a named
// step here (blockToPart, blindImage, dropBlankText, markEmpty, leadWithUser), applied once.
import { assertNever, type Block, type ImageBlock, type StoredMessage } from "../record/types.js";
import type {
  AssistantPart,
  ImagePart,
  ProseMessage,
  ProsePart,
  TextPart,
  UserPart,
  WireMessage,
  WirePart,
} from "../provider/types.js";
import { toolInputJson } from "../provider/tool-input.js";

export interface ReplayOptions {
  /** whether the model can see images; the only fact that changes the projection */
  vision: boolean;
}

/** The marker for a stored message that has no blocks (a turn killed before any output). */
export const EMPTY_MESSAGE_MARKER = "[This turn was interrupted before any output.]";

/** Ends the prose of an answer that was cut off (Esc, a dropped link, kill -9): the model
 * must not take a partial answer for a finished one. */
export const INTERRUPTED_MARKER = "[This answer was interrupted here.]";

/** Stands for the result of a call whose turn ended before the tool finished. */
export function noResultProse(name: string): string {
  return `Result (${name}): [no result: the turn was interrupted before the tool finished]`;
}

/** Put before a request's history when it would otherwise open with an assistant message (a
 * session whose first row could not be read, a summary request's prefix): providers want a
 * user message first. */
export const LEADING_USER_MARKER = "(conversation so far)";

export function imageNotSeenMarker(mediaType: string, bytes: number, width?: number, height?: number): string {
  const dims = width && height ? `, ${width}×${height}` : "";
  return `[Image not seen: the model cannot view images (${mediaType}, ${bytes} bytes${dims}).]`;
}

export function toolUseProse(name: string, input: unknown): string {
  return `Tool use: ${name}(${toolInputJson(input)})`;
}

export function toolResultProse(name: string, output: string, isError: boolean): string {
  return `${isError ? "Error" : "Result"} (${name}): ${output}`;
}

export function reasoningProse(text: string): string {
  // redacted thinking has no readable text: say so rather than send an empty label
  return `[Reasoning]: ${text.trim() ? text : "(not shown by the provider)"}`;
}

/** A stored block as prose: the one form every turn but the live one crosses in. */
export function blockToPart(block: Block, opts: ReplayOptions): ProsePart {
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
    case "image":
      return opts.vision ? imagePart(block) : blindImage(block);
    default:
      return assertNever(block, "block");
  }
}

function imagePart(block: ImageBlock): ImagePart {
  const part: ImagePart = { type: "image", mediaType: block.mediaType, data: block.data, bytes: block.bytes };
  if (block.width !== undefined) part.width = block.width;
  if (block.height !== undefined) part.height = block.height;
  return part;
}

/** Image blinding: a model that cannot see images is told what was there. */
export function blindImage(block: ImageBlock): TextPart {
  return { type: "text", text: imageNotSeenMarker(block.mediaType, block.bytes, block.width, block.height) };
}

// Every request replays the whole history, and a stored block always crosses the same way,
// so its part is made once per block (stored blocks are never mutated: updates replace
// them). Handing out the very same strings each time also lets the token-count cache find
// them without hashing megabytes of text again (V8 keeps a string's hash with it).
const seenParts = new WeakMap<Block, ProsePart>();
const blindParts = new WeakMap<Block, ProsePart>();

function prosePart(b: Block, opts: ReplayOptions): ProsePart {
  const memo = opts.vision ? seenParts : blindParts;
  let part = memo.get(b);
  if (!part) {
    part = blockToPart(b, opts);
    memo.set(b, part);
  }
  return part;
}

/** A block of the live round's user message: a tool result keeps its call id. */
function nativeUserPart(b: Block, opts: ReplayOptions): UserPart {
  if (b.type === "tool_result") return { type: "tool_result", callId: b.toolUseId, name: b.name, output: b.output, isError: b.isError };
  // a call or reasoning in a user message cannot be native: it crosses as what it said
  return prosePart(b, opts);
}

/** A block of the live round's assistant message: calls keep their ids, reasoning its signature. */
function nativeAssistantPart(b: Block, opts: ReplayOptions): AssistantPart {
  if (b.type === "tool_use") return { type: "tool_call", id: b.id, name: b.name, input: b.input };
  if (b.type === "reasoning") return b.opaque ? { type: "reasoning", text: b.text, opaque: b.opaque } : { type: "reasoning", text: b.text };
  // a result in an assistant message answers nothing: it crosses as what it said
  return prosePart(b, opts);
}

/** Empty-part filtering: providers reject empty or whitespace-only text parts (Anthropic:
 * "text content blocks must contain non-whitespace text"). */
export function dropBlankText<P extends WirePart>(parts: P[]): P[] {
  return parts.filter((p) => p.type !== "text" || p.text.trim().length > 0);
}

/** Providers reject a message with no content: an empty one says what happened instead. */
export function markEmpty<P extends WirePart>(parts: P[]): Array<P | TextPart> {
  return parts.length > 0 ? parts : [{ type: "text", text: EMPTY_MESSAGE_MARKER }];
}

type Replayable = { role: StoredMessage["role"]; blocks: Block[]; status?: StoredMessage["status"] };

const INTERRUPTED_PART: TextPart = { type: "text", text: INTERRUPTED_MARKER };

/**
 * Replays one stored message's blocks as the content of one prose message. Interrupted work
 * says so, as an unseen image does: an answer cut off ends with INTERRUPTED_MARKER, and a
 * call whose result never landed (`answered` lacks its id) is followed by noResultProse.
 */
export function replayMessage(msg: Replayable, opts: ReplayOptions, answered?: ReadonlySet<string>): ProseMessage {
  const parts: ProsePart[] = [];
  for (const b of msg.blocks) {
    parts.push(prosePart(b, opts));
    if (answered && b.type === "tool_use" && !answered.has(b.id)) parts.push({ type: "text", text: noResultProse(b.name) });
  }
  const content = dropBlankText(parts);
  // an empty interrupted message already says it was interrupted (markEmpty)
  if (msg.status === "interrupted" && msg.role === "assistant" && content.length > 0) content.push(INTERRUPTED_PART);
  return { role: msg.role, content: markEmpty(content) };
}

export function replayMessages(stored: ReadonlyArray<Replayable>, opts: ReplayOptions): ProseMessage[] {
  // results are stored right after their calls; a call with none anywhere never got one
  const answered = new Set<string>();
  for (const m of stored) for (const b of m.blocks) if (b.type === "tool_result") answered.add(b.toolUseId);
  return stored.map((m) => replayMessage(m, opts, answered));
}

/** The native wire form of one of the live round's complete messages: call ids kept, signed
 * reasoning kept, each part in a role that can carry it. */
export function nativeMessage(msg: Replayable, opts: ReplayOptions): WireMessage {
  switch (msg.role) {
    case "user":
      return { role: "user", content: markEmpty(dropBlankText(msg.blocks.map((b) => nativeUserPart(b, opts)))) };
    case "assistant":
      return { role: "assistant", content: markEmpty(dropBlankText(msg.blocks.map((b) => nativeAssistantPart(b, opts)))) };
    default:
      return assertNever(msg.role, "role");
  }
}

/** One message of the live round: complete ones natively; an interrupted one (its reasoning
 * unsigned, a call maybe cut off) as prose. */
export function liveMessage(msg: Replayable & { status: StoredMessage["status"] }, opts: ReplayOptions): WireMessage {
  switch (msg.status) {
    case "complete":
      return nativeMessage(msg, opts);
    case "interrupted":
      return replayMessage(msg, opts);
    default:
      return assertNever(msg.status, "message status");
  }
}

/** The leading-user marker: a request must open with a user message (a session whose first
 * row could not be read, a summary request's prefix may not). */
export function leadWithUser(history: ProseMessage[], live: readonly WireMessage[]): ProseMessage[] {
  const first = history[0] ?? live[0];
  return first?.role === "user" ? history : [{ role: "user", content: [{ type: "text", text: LEADING_USER_MARKER }] }, ...history];
}
