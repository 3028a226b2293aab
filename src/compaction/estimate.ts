// One estimator for every block kind: pressure counts text, tool input, tool output, reasoning
// and images, not only text (docs/architecture.md, Design rules). Each block is counted in the
// prose form replay sends, so the estimate tracks the request rather than the record.
import { assertNever, type Block } from "../record/types.js";
import {
  EMPTY_MESSAGE_MARKER,
  imageNotSeenMarker,
  reasoningProse,
  toolResultProse,
  toolUseProse,
} from "../replay/replay.js";
import { countTokens, type TokenMethod } from "../tokens/count.js";

/** The token method plus anything else the estimate relied on. */
type EstimateMethod = TokenMethod | `${TokenMethod} + images by size`;

/** A history estimate. `method` names everything used ("chars/4 + images by size");
 * `tokenizer` is the text method alone, for callers that count more text the same way. */
export interface HistoryEstimate {
  tokens: number;
  method: EstimateMethod;
  tokenizer: TokenMethod;
}

export interface EstimateOptions {
  /** whether the model sees images; when it does not, an image crosses as a short marker.
   * Defaults to true (the larger count) so pressure is never understated. */
  vision?: boolean;
}

/** Role framing and separators each message costs on the wire, whatever its content. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Anthropic's published ceiling for one image after its automatic resize. */
export const IMAGE_TOKENS_MAX = 1600;
/** Anthropic resizes images whose long edge exceeds this before counting them. */
const IMAGE_LONG_EDGE = 1568;

/** Tokens for one image, by Anthropic's rule (width × height / 750) after the provider's
 * resize to a 1568 px long edge, capped at ~1,600. Unknown size counts as the cap: an image
 * of unknown size may be large, and overstating pressure is the safe side. OpenAI's tile rule
 * differs in detail but lands in the same range for screenshots. */
export function imageTokens(width?: number, height?: number): number {
  if (!width || !height || !Number.isFinite(width) || !Number.isFinite(height) || width <= 0 || height <= 0) {
    return IMAGE_TOKENS_MAX;
  }
  let w = width;
  let h = height;
  const long = Math.max(w, h);
  if (long > IMAGE_LONG_EDGE) {
    const scale = IMAGE_LONG_EDGE / long;
    w = Math.max(1, Math.round(w * scale));
    h = Math.max(1, Math.round(h * scale));
  }
  return Math.min(IMAGE_TOKENS_MAX, Math.max(1, Math.ceil((w * h) / 750)));
}

// Histories of 200,000 tokens are estimated before every request, and a real tokenizer over
// that much text costs far more than a request's other preparation. Blocks are kept by object
// identity (the loaded record, and every block microcompact leaves alone), so a per-block
// cache makes the repeat cost near zero. The key carries the method and the length of the
// block's text, so a block extended in place (a streaming checkpoint) is recounted, not stale.
interface CacheEntry {
  key: string;
  tokens: number;
}
const blockCache = new WeakMap<Block, CacheEntry>();

function cacheKey(b: Block, method: TokenMethod): string | undefined {
  switch (b.type) {
    case "text":
      return `${method}|${b.text.length}`;
    case "tool_use":
      // the input is parsed once when the call completes and never edited afterwards
      return `${method}|${b.name.length}`;
    case "tool_result":
      return `${method}|${b.name.length}|${b.output.length}|${b.isError ? 1 : 0}`;
    case "reasoning":
      return `${method}|${b.text.length}`;
    case "image":
      // counting an image is arithmetic; caching it would cost more than it saves
      return undefined;
    default:
      return assertNever(b, "block");
  }
}

function countBlock(b: Block, method: TokenMethod, vision: boolean): number {
  switch (b.type) {
    case "text":
      return countTokens(b.text, method);
    case "tool_use":
      return countTokens(toolUseProse(b.name, b.input), method);
    case "tool_result":
      return countTokens(toolResultProse(b.name, b.output, b.isError), method);
    case "reasoning":
      // only the text crosses; the opaque body (signature, encrypted reasoning) belongs to its
      // live round and is not replayed, so it is not counted
      return countTokens(reasoningProse(b.text), method);
    case "image":
      return vision
        ? imageTokens(b.width, b.height)
        : countTokens(imageNotSeenMarker(b.mediaType, b.bytes, b.width, b.height), method);
    default:
      return assertNever(b, "block");
  }
}

/** Estimated tokens one block adds to a request. */
export function estimateBlock(b: Block, method: TokenMethod, opts: EstimateOptions = {}): number {
  const vision = opts.vision ?? true;
  const key = cacheKey(b, method);
  if (key !== undefined) {
    const hit = blockCache.get(b);
    if (hit && hit.key === key) return hit.tokens;
  }
  const tokens = countBlock(b, method, vision);
  if (key !== undefined) blockCache.set(b, { key, tokens });
  return tokens;
}

/** Estimated tokens of one message, framing included. */
export function estimateMessage(
  m: { blocks: readonly Block[] },
  method: TokenMethod,
  opts: EstimateOptions = {},
): number {
  // a message with no blocks still crosses, as the interrupted marker
  if (m.blocks.length === 0) return MESSAGE_OVERHEAD_TOKENS + countTokens(EMPTY_MESSAGE_MARKER, method);
  let n = MESSAGE_OVERHEAD_TOKENS;
  for (const b of m.blocks) n += estimateBlock(b, method, opts);
  return n;
}

/** Estimated tokens of a whole history, labelled with how it was counted. */
export function estimateMessages(
  msgs: ReadonlyArray<{ blocks: readonly Block[] }>,
  method: TokenMethod,
  opts: EstimateOptions = {},
): HistoryEstimate {
  const vision = opts.vision ?? true;
  let tokens = 0;
  let images = false;
  for (const m of msgs) {
    tokens += estimateMessage(m, method, opts);
    if (vision && !images) images = m.blocks.some((b) => b.type === "image");
  }
  return { tokens, method: images ? `${method} + images by size` : method, tokenizer: method };
}
