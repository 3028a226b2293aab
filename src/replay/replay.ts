// Stored record → provider-neutral wire messages. Pure: no I/O. One wire message per stored
// message. Replayed history is prose (no tool roles, no call ids); only the live round's
// complete messages cross natively. Every normalisation of a request's messages is a named
// step here (blockToPart, unseenReason/blindImage, dropBlankText, markEmpty, leadWithUser),
// applied once.
import { assertNever, type Block, type ImageBlock, type StoredMessage } from "../record/types.js";
import { imageLimits, type ImageLimits } from "../provider/catalog.js";
import type { ProviderName } from "../provider/types.js";
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

/**
 * Who is to see a request's images: whether the model can see at all, and what its
 * provider's API takes. Data, not a callback, so the projection stays pure and comparable.
 */
export type ImageTarget =
  | { sees: false }
  | {
      sees: true;
      limits: ImageLimits;
      manyImages?: number;
      /** the request's older images that its per-request limits leave out (targetForRequest) */
      crowdedOut?: ReadonlySet<object>;
    };

/** A target that sees no image (a model without vision, a summary request). */
export const BLIND: ImageTarget = { sees: false };

/** The target for a model served by `provider`: its vision, and that provider's limits. */
export function imageTarget(provider: ProviderName, sees: boolean): ImageTarget {
  return sees ? { sees: true, limits: imageLimits(provider) } : BLIND;
}

export interface ReplayOptions {
  /** whether each image can be seen by the target; the only fact that changes the projection */
  vision: ImageTarget;
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

/** Why an image is not seen, as its marker says it: the reason, and the figures behind it. */
interface Unseen {
  why: string;
  detail?: string;
}

const CANNOT_VIEW: Unseen = { why: "the model cannot view images" };

export function imageNotSeenMarker(mediaType: string, bytes: number, width?: number, height?: number, unseen: Unseen = CANNOT_VIEW): string {
  const dims = width && height ? `, ${width}×${height}` : "";
  const detail = unseen.detail ? `; ${unseen.detail}` : "";
  return `[Image not seen: ${unseen.why} (${mediaType}, ${bytes} bytes${dims}${detail}).]`;
}

/** The size of an image's standard base64 (what Anthropic counts): 4 characters per 3 bytes. */
function base64Bytes(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** Megabytes as the providers state their limits (5 MB = 5,242,880 bytes). */
function mb(n: number): string {
  return `${(n / 1_048_576).toFixed(1).replace(/\.0$/, "")} MB`;
}

const TOO_LARGE = "larger than this provider accepts";

/**
 * The image rule: why `target` cannot take this image, or undefined when it is sent as an
 * image. One rule for replayed history, the live round and tool results alike, and for
 * /image and /model (src/session/controller), so what is refused, warned and sent agree.
 */
export function unseenReason(block: Pick<ImageBlock, "mediaType" | "bytes" | "width" | "height" | "refused">, target: ImageTarget): Unseen | undefined {
  // refused once, refused again: the marker says so plainly, and the request goes through
  if (block.refused !== undefined) return { why: "refused by the provider when it was sent before, so it is no longer sent", detail: block.refused };
  if (!target.sees) return CANNOT_VIEW;
  const l = target.limits;
  if (!l.mediaTypes.includes(block.mediaType)) {
    return { why: "a format this provider does not accept", detail: `${l.provider} takes ${l.mediaTypes.join(", ")}` };
  }
  const b64 = base64Bytes(block.bytes);
  if (l.maxBase64Bytes !== undefined && b64 > l.maxBase64Bytes) {
    return { why: TOO_LARGE, detail: `${mb(b64)} as base64; ${l.provider} takes up to ${mb(l.maxBase64Bytes)}` };
  }
  if (l.maxBytes !== undefined && block.bytes > l.maxBytes) {
    return { why: TOO_LARGE, detail: `${mb(block.bytes)}; ${l.provider} takes up to ${mb(l.maxBytes)}` };
  }
  if (l.maxSide !== undefined && Math.max(block.width ?? 0, block.height ?? 0) > l.maxSide) {
    const many = target.manyImages !== undefined ? ` in a request of more than ${l.manyImages?.over ?? 0} images (this one has ${target.manyImages})` : "";
    return { why: TOO_LARGE, detail: `${l.provider} takes up to ${l.maxSide} px a side${many}` };
  }
  if (target.crowdedOut?.has(block) && l.perRequest) {
    const r = l.perRequest;
    return { why: "more images than this provider accepts in one request", detail: `${l.provider} takes up to ${r.maxImages} images or ${mb(r.maxBase64Bytes)} of them as base64 in one request; the newest are sent` };
  }
  return undefined;
}

/**
 * The target for one whole request: Anthropic takes smaller images (2000 px a side) when a
 * request carries more than 20, so the count of images the target would take decides the
 * side limit for all of them. Counted before the tighter limit applies, so the answer is
 * the same however many the tighter limit then turns into markers (always a request the
 * provider takes).
 */
export function targetForRequest(target: ImageTarget, messages: Iterable<{ blocks: readonly Block[] }>): ImageTarget {
  if (!target.sees) return target;
  const all: ImageBlock[] = [];
  for (const m of messages) for (const b of m.blocks) if (b.type === "image") all.push(b);
  let t: ImageTarget = target;
  const many = target.limits.manyImages;
  if (many) {
    const n = all.filter((b) => !unseenReason(b, target)).length;
    if (n > many.over) t = { sees: true, limits: { ...target.limits, maxSide: Math.min(target.limits.maxSide ?? Infinity, many.maxSide) }, manyImages: n };
  }
  return crowdOut(t, all);
}

/**
 * Images each taken can still be more than one request carries (Anthropic: 100, and 32 MB
 * for the body whole), and such a request would be refused, and every one after it. The
 * newest that fit are sent; from the first that does not, the older ones cross as markers.
 */
function crowdOut(t: Extract<ImageTarget, { sees: true }>, all: readonly ImageBlock[]): ImageTarget {
  const cap = t.limits.perRequest;
  if (!cap) return t;
  const out = new Set<object>();
  let count = 0;
  let bytes = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const b = all[i]!;
    if (unseenReason(b, t)) continue;
    if (out.size > 0 || count + 1 > cap.maxImages || bytes + base64Bytes(b.bytes) > cap.maxBase64Bytes) {
      out.add(b);
      continue;
    }
    count++;
    bytes += base64Bytes(b.bytes);
  }
  return out.size === 0 ? t : { ...t, crowdedOut: out };
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
    case "image": {
      const reason = unseenReason(block, opts.vision);
      return reason === undefined ? imagePart(block) : blindImage(block, reason);
    }
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

/** Image blinding: a target that cannot take the image is told what was there, and why. */
function blindImage(block: ImageBlock, unseen: Unseen = CANNOT_VIEW): TextPart {
  return { type: "text", text: imageNotSeenMarker(block.mediaType, block.bytes, block.width, block.height, unseen) };
}

// Every request replays the whole history, and a stored block always crosses the same way
// for the same target, so its part is made once per block (stored blocks are never mutated:
// updates replace them). Handing out the very same strings each time also lets the
// token-count cache find them without hashing megabytes of text again (V8 keeps a string's
// hash with it). Only an image's part depends on the target: it is memoised per verdict.
const parts = new WeakMap<Block, ProsePart>();
const imageParts = new WeakMap<Block, Map<string, ProsePart>>();
const SEEN = "";

function prosePart(b: Block, opts: ReplayOptions): ProsePart {
  if (b.type === "image") {
    const unseen = unseenReason(b, opts.vision);
    const verdict = unseen ? `${unseen.why}\n${unseen.detail ?? ""}` : SEEN;
    let byVerdict = imageParts.get(b);
    if (!byVerdict) imageParts.set(b, (byVerdict = new Map()));
    let part = byVerdict.get(verdict);
    if (!part) byVerdict.set(verdict, (part = unseen ? blindImage(b, unseen) : imagePart(b)));
    return part;
  }
  let part = parts.get(b);
  if (!part) {
    part = blockToPart(b, opts);
    parts.set(b, part);
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
  // the live round resends a Responses message's phase with it
  if (b.type === "text" && b.phase) return { type: "text", text: b.text, phase: b.phase };
  // a result in an assistant message answers nothing: it crosses as what it said
  return prosePart(b, opts);
}

/** Empty-part filtering: providers reject empty or whitespace-only text parts (Anthropic:
 * "text content blocks must contain non-whitespace text"). */
function dropBlankText<P extends WirePart>(parts: P[]): P[] {
  return parts.filter((p) => p.type !== "text" || p.text.trim().length > 0);
}

/** Providers reject a message with no content: an empty one says what happened instead. */
function markEmpty<P extends WirePart>(parts: P[]): Array<P | TextPart> {
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
function nativeMessage(msg: Replayable, opts: ReplayOptions): WireMessage {
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

/**
 * The opaque-body bound: each round of the live round may bring a signature or an encrypted
 * reasoning item that must go back verbatim, and every request of the turn carries them all
 * again, so a provider that sends megabytes of them a round makes each request larger than
 * the last (and the process hold every one). From the newest, bodies are kept while their
 * UTF-8 bytes fit `maxBytes`; from the first that does not, that one and every older one
 * cross without their body: the reasoning's text goes as prose, the path a body the redactor
 * drops takes. Kept from the newest because the newest round's body is the one a provider
 * needs most (Anthropic wants the tool loop's last thinking signed). Unchanged messages are
 * returned as they are.
 */
export function boundOpaque(live: readonly WireMessage[], maxBytes: number): WireMessage[] {
  let used = 0;
  let over = false;
  const out = live.slice();
  for (let i = live.length - 1; i >= 0; i--) {
    const m = live[i]!;
    if (m.role !== "assistant") continue;
    let parts: AssistantPart[] | undefined;
    for (let j = m.content.length - 1; j >= 0; j--) {
      const p = m.content[j]!;
      if (p.type !== "reasoning" || p.opaque === undefined) continue;
      if (!over) {
        const n = Buffer.byteLength(p.opaque.body, "utf8");
        if (used + n <= maxBytes) {
          used += n;
          continue;
        }
        over = true;
      }
      parts ??= m.content.slice();
      parts[j] = { type: "reasoning", text: p.text };
    }
    if (parts) out[i] = { role: "assistant", content: parts };
  }
  return out;
}

/** The leading-user marker: a request must open with a user message (a session whose first
 * row could not be read, a summary request's prefix may not). */
export function leadWithUser(history: ProseMessage[], live: readonly WireMessage[]): ProseMessage[] {
  const first = history[0] ?? live[0];
  return first?.role === "user" ? history : [{ role: "user", content: [{ type: "text", text: LEADING_USER_MARKER }] }, ...history];
}
