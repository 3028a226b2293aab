// Token estimates that always name their method. A real tokenizer where one fits the model
// family (o200k/cl100k for OpenAI models); chars/4 otherwise (Claude has no public tokenizer,
// and local models vary), and the method label says so.
import { createRequire } from "node:module";
import type { ProviderName } from "../provider/types.js";
import { formatInt } from "../record/numbers.js";
import { assertNever } from "../record/types.js";

export type TokenMethod = "o200k tokenizer" | "cl100k tokenizer" | "chars/4";

interface Estimate {
  tokens: number;
  method: TokenMethod;
}

type Counter = (text: string) => number;
const require = createRequire(import.meta.url);
const counters = new Map<TokenMethod, Counter>();

// Loaded on first use: the encodings are megabytes of data, and start-up should not pay for them.
function counter(method: TokenMethod): Counter {
  const have = counters.get(method);
  if (have) return have;
  let c: Counter;
  switch (method) {
    case "o200k tokenizer":
      c = keptSplitCounter(require("gpt-tokenizer/cjs/encoding/o200k_base") as Encoding);
      break;
    case "cl100k tokenizer":
      c = keptSplitCounter(require("gpt-tokenizer/cjs/encoding/cl100k_base") as Encoding);
      break;
    case "chars/4":
      c = (t) => Math.ceil(t.length / 4);
      break;
    default:
      assertNever(method, "token method");
  }
  counters.set(method, c);
  return c;
}

/** What gpt-tokenizer's encoding modules export that the counters read. */
interface Encoding {
  countTokens: (t: string, o?: unknown) => number;
  default?: { bytePairEncodingCoreProcessor?: Partial<BpeCore> };
}
interface BpeCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(s: string): number | undefined;
  bytePairEncode(s: string): ArrayLike<number>;
}

/**
 * The library's count (countNative: each piece its split regex matches is one token if it is
 * in the vocabulary, else its byte-pair encoding's length), with the split regex held here.
 * The library splits with `text.matchAll(regex)`, which makes a new RegExp from the source
 * each call; its compiled code is found again only through V8's compilation cache, which
 * forgets an entry after two full collections without a use, so the first count after an
 * idle spell (every turn's first request, typically) compiled the large regex again: 5-14 ms
 * for o200k. A RegExp object that lives keeps its code. Special tokens count as text either
 * way (nothing is disallowed or allowed, as before). Should the library's insides change
 * shape, its public countTokens is used.
 */
function keptSplitCounter(m: Encoding): Counter {
  const publicCount: Counter = (t) => m.countTokens(t, { disallowedSpecial: new Set() });
  const core = m.default?.bytePairEncodingCoreProcessor;
  if (!core || !(core.tokenSplitRegex instanceof RegExp) || typeof core.getBpeRankFromString !== "function" || typeof core.bytePairEncode !== "function") {
    return publicCount;
  }
  const bpe = core as BpeCore;
  const { tokenSplitRegex } = bpe;
  const flags = tokenSplitRegex.flags.includes("g") ? tokenSplitRegex.flags : `${tokenSplitRegex.flags}g`;
  const split = new RegExp(tokenSplitRegex.source, flags);
  const unicode = /[uv]/.test(split.flags);
  return (text) => {
    let n = 0;
    split.lastIndex = 0;
    for (let hit = split.exec(text); hit !== null; hit = split.exec(text)) {
      const piece = hit[0];
      if (piece.length === 0) {
        // as matchAll does: step past an empty match, by a whole code point in unicode mode
        const at = split.lastIndex;
        const pair = unicode && isLead(text.charCodeAt(at)) && isTrail(text.charCodeAt(at + 1));
        split.lastIndex = at + (pair ? 2 : 1);
        continue;
      }
      n += bpe.getBpeRankFromString(piece) !== undefined ? 1 : bpe.bytePairEncode(piece).length;
    }
    return n;
  };
}

function isLead(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isTrail(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Which method fits a model. Only OpenAI's own model names get a tokenizer: a local model
 * behind an OpenAI-compatible server has its own vocabulary. */
export function methodFor(provider: ProviderName, model: string): TokenMethod {
  if (provider !== "openai") return "chars/4";
  const m = model.toLowerCase();
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o)/.test(m)) return "o200k tokenizer";
  if (/^(gpt-4|gpt-3\.5)/.test(m)) return "cl100k tokenizer";
  return "chars/4";
}

// Every request re-sends the whole history, so the same texts are counted again and again;
// a real tokenizer runs at ~30 MB/s, so remember every count, short texts too (a join or
// "Done." counted from the cache keeps a request made only of known texts off the tokenizer
// entirely; keptSplitCounter keeps the tokenizer's first call after an idle spell cheap). Bounded by the
// characters it holds (each entry charged at least ENTRY_CHARS, so many tiny texts are
// bounded too); emptied whole when full (simple, and refilled by the next request).
const ENTRY_CHARS = 32;
const CACHE_MAX_CHARS = 32 * 1024 * 1024;
const cache = new Map<TokenMethod, Map<string, number>>();
let cachedChars = 0;

export function countTokens(text: string, method: TokenMethod): number {
  if (text.length === 0) return 0;
  if (method === "chars/4") return Math.ceil(text.length / 4);
  try {
    let m = cache.get(method);
    if (!m) cache.set(method, (m = new Map()));
    const have = m.get(text);
    if (have !== undefined) return have;
    const n = counter(method)(text);
    const charge = Math.max(ENTRY_CHARS, text.length);
    if (cachedChars + charge > CACHE_MAX_CHARS) {
      cache.clear();
      cachedChars = 0;
      cache.set(method, (m = new Map()));
    }
    m.set(text, n);
    cachedChars += charge;
    return n;
  } catch {
    // a tokenizer failure must not break a turn; fall back to the rough count
    return Math.ceil(text.length / 4);
  }
}

/** Opaque provider bodies (a thinking signature, encrypted reasoning) are no text a tokenizer
 * reads: they are counted by size, a token per 4 bytes. That overstates what the providers
 * charge for them (the safe side), and a body megabytes long counts as what it weighs. */
export const OPAQUE_BYTES_PER_TOKEN = 4;

export function opaqueTokens(bytes: number): number {
  return Math.ceil(Math.max(0, bytes) / OPAQUE_BYTES_PER_TOKEN);
}

/** "≈ 41,200 tokens (o200k tokenizer)". Takes any method label, so a history estimate that
 * also names its image rule ("chars/4 + images by size") formats the same way. */
export function formatEstimate(e: Estimate | { tokens: number; method: string }): string {
  return `≈ ${formatInt(e.tokens)} tokens (${e.method})`;
}
