// Prompt caching for Anthropic: where the body's cache_control marks go.
//
// Anthropic caches a prompt's prefix up to each block marked with cache_control, in the
// order tools → system → messages, at most 4 marks per request (docs/providers.md, Prompt
// caching). We mark, where the prefix is long enough for the model to cache: the last tool,
// the last system block (system prompt and context items), the previous turn's last message
// (the end of the replayed history), and the newest message. The newest mark writes this
// request's prefix; the next request reads it through the API's look-back (about 20 blocks
// from a mark). Where the previous request's prefix ends further back than that (the turn
// before replays as more prose than that, or one round brought many parallel calls), the
// mark on the previous turn's end moves to where that prefix ends, so it is read, not written
// again with all the history before it.
import { assertNever } from "../../record/types.js";
import { minCacheableTokens } from "../catalog.js";
import type { WireWriter } from "../encoded.js";
import type { Json } from "../json.js";
import { requestMessages, type Request, type RequestCache, type WireMessage, type WirePart } from "../types.js";
import { isBlank, isBlankText } from "./parts.js";

export const MAX_CACHE_BREAKPOINTS = 4;
/** Blocks between the previous request's end and the newest mark past which its prefix gets a
 * mark of its own: a margin under the API's look-back of about 20 blocks. */
const READ_MARK_AFTER_BLOCKS = 15;

/** Characters per token of the placement estimate. It only decides whether a prefix is long
 * enough to mark (and errs long on code, short on prose); what is cached is the API's count. */
const CHARS_PER_TOKEN = 4;
/** What an image counts in the estimate: about a large image's tokens, as characters. */
const IMAGE_CHARS = 1600 * CHARS_PER_TOKEN;

interface BreakpointPlan {
  ttl: RequestCache["ttl"];
  tools: boolean;
  system: boolean;
  /** indexes into requestMessages(req) whose last block is marked */
  messages: number[];
}

/** The chars/4 estimate of a prefix's tokens (placement only). */
export function estimatePrefixTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

export function planBreakpoints(req: Request, tools: Json[]): BreakpointPlan | undefined {
  if (!req.cache) return undefined;
  const min = minCacheableTokens(req.model);
  const long = (chars: number): boolean => estimatePrefixTokens(chars) >= min;
  let chars = 0;
  for (const t of tools) chars += JSON.stringify(t).length;
  const toolsMark = tools.length > 0 && long(chars);
  const hasSystem = !isBlankText(req.system) || req.context.some((c) => !isBlankText(c.text));
  chars += req.system.length;
  for (const c of req.context) chars += c.text.length;
  const systemMark = hasSystem && long(chars);
  const messages: number[] = [];
  const all = requestMessages(req);
  const newest = all.length - 1;
  const read = previousRequestEnd(req);
  const far = read !== undefined && read >= 0 && read < newest && blocksIn(all.slice(read + 1)) > READ_MARK_AFTER_BLOCKS;
  const marked = [far ? read : req.history.length - 1, newest];
  all.forEach((m, i) => {
    for (const part of m.content) chars += partChars(part);
    if (marked.includes(i) && long(chars)) messages.push(i);
  });
  if (!toolsMark && !systemMark && messages.length === 0) return undefined;
  return { ttl: req.cache.ttl, tools: toolsMark, system: systemMark, messages };
}

/** Where the previous request's messages ended (an index into requestMessages): within a
 * turn, just before its newest answer; at a turn's first request, the previous turn's prompt,
 * which that turn's first request marked as its newest. */
function previousRequestEnd(req: Request): number | undefined {
  const live = req.live ?? [];
  for (let j = live.length - 1; j >= 0; j--) if (live[j]!.role === "assistant") return req.history.length + j - 1;
  return req.cache?.previousTurnStart;
}

/** The body blocks these messages become (encodeMessage: blank parts dropped, at least one). */
function blocksIn(messages: readonly WireMessage[]): number {
  let n = 0;
  for (const m of messages) n += Math.max(1, m.content.filter((p) => !isBlank(p)).length);
  return n;
}

function partChars(part: WirePart): number {
  switch (part.type) {
    case "text":
      return part.text.length;
    case "image":
      return IMAGE_CHARS;
    case "tool_call":
      return part.name.length + JSON.stringify(part.input ?? {}).length;
    case "tool_result":
      return part.output.length;
    case "reasoning":
      return part.text.length;
    default:
      return assertNever(part, "wire part");
  }
}

/** Marks a block of the body as a cache breakpoint, and records the mark on the wire right
 * after the block's content (the capture shows it as a marker; it is not content). */
export function markBreakpoint(block: Json, ttl: RequestCache["ttl"], w: WireWriter): Json {
  // 5 minutes is the API's default: the field is sent only for the hour
  block["cache_control"] = ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  w.wire.push({ type: "cache_breakpoint", ttl });
  return block;
}
