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
    case "o200k tokenizer": {
      const m = require("gpt-tokenizer/cjs/encoding/o200k_base") as { countTokens: (t: string, o?: unknown) => number };
      c = (t) => m.countTokens(t, { disallowedSpecial: new Set() });
      break;
    }
    case "cl100k tokenizer": {
      const m = require("gpt-tokenizer/cjs/encoding/cl100k_base") as { countTokens: (t: string, o?: unknown) => number };
      c = (t) => m.countTokens(t, { disallowedSpecial: new Set() });
      break;
    }
    case "chars/4":
      c = (t) => Math.ceil(t.length / 4);
      break;
    default:
      assertNever(method, "token method");
  }
  counters.set(method, c);
  return c;
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
// a real tokenizer runs at ~30 MB/s, so remember every count, short texts too: the
// tokenizer's split regex is large, and V8 drops a regex's compiled code after two full
// collections in which it was not used, so the first tokenizer call after an idle spell
// recompiles it (~7 ms for o200k), even for "\n\n". Counting a join or "Done." from the
// cache keeps a request made only of known texts off the tokenizer entirely. Bounded by the
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
