// The fake provider's prompt cache: what Anthropic and OpenAI report as cached input, simulated
// from the request bodies themselves, so tests and the benchmark can assert reads and writes.
//
// Tokens: the fake counts ceil(chars / 4) of each block's canonical JSON (FAKE_TOKEN_RULE). It
// is not a tokenizer; it only has to be the same rule for every request.
//
// Anthropic (docs: prompt caching): the prompt is tools, then system, then messages, whatever
// the body's key order. Each block with `cache_control` is a breakpoint; the cached prefix is
// everything up to and including that block. For each breakpoint the cache is looked up at its
// own position and at up to 20 block boundaries before it (the API's look-back); the longest
// hit is read (`cache_read_input_tokens`) and its entry's life is renewed. Every breakpoint
// past the read is written (`cache_creation_input_tokens` = the last written prefix minus the
// read) if its prefix reaches the minimum cacheable length; `input_tokens` is the rest. The
// hash leaves `cache_control` itself out, so a prefix marked differently still matches (as the
// rolling breakpoint needs). More than 4 breakpoints: the API's 400.
//
// OpenAI (automatic caching): prompts of 1024 tokens or more are cached in 128-token steps per
// `prompt_cache_key`; `cached_tokens` is the longest such step of this prompt seen before (with
// the same key, within the TTL). Both OpenAI routes report it: Chat as
// prompt_tokens_details.cached_tokens, Responses (fake-responses.ts) as
// input_tokens_details.cached_tokens, the prompt's tokens including the cached ones.
import { createHash } from "node:crypto";

export const FAKE_TOKEN_RULE = "ceil(chars/4) of each block's JSON, cache_control left out";
/** Anthropic's look-back from a breakpoint, in block boundaries */
export const LOOKBACK_BLOCKS = 20;
export const MAX_BREAKPOINTS = 4;
/** OpenAI: the shortest cached prompt and the step it grows by */
export const OPENAI_MIN_CACHED = 1024;
export const OPENAI_CACHE_STEP = 128;

export type CacheTtl = "5m" | "1h";
const TTL_MS: Record<CacheTtl, number> = { "5m": 5 * 60_000, "1h": 60 * 60_000 };

export function fakeTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One breakpoint of an Anthropic request, as the fake saw it. */
export interface FakeBreakpoint {
  /** the block's place in tools → system → messages order (0-based) */
  block: number;
  /** where it sits: "tools", "system" or "messages.<i>.content.<j>" */
  at: string;
  ttl: CacheTtl;
  /** the prefix's tokens up to and including this block */
  tokens: number;
  /** how it fared: read from cache, written, or neither (below the minimum) */
  outcome: "read" | "written" | "too_short" | "covered";
}

/** What the fake reported for one request. */
export interface CacheLogEntry {
  shape: "anthropic" | "openai";
  model: string;
  /** all input tokens of the prompt (read + written + uncached) */
  totalTokens: number;
  readTokens: number;
  writtenTokens: number;
  /** input not read from cache nor written to it (Anthropic's input_tokens) */
  uncachedTokens: number;
  breakpoints: FakeBreakpoint[];
  /** OpenAI: the prompt_cache_key sent, if any */
  key?: string;
}

export interface AnthropicCacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface OpenAICacheUsage {
  /** the whole prompt, cached part included (OpenAI's prompt_tokens) */
  prompt_tokens: number;
  cached_tokens: number;
}

export interface FakeCacheOptions {
  /** the clock, for expiring entries (default Date.now) */
  now?: () => number;
  /** Anthropic's minimum cacheable prefix for a model (default 1024 tokens for every model) */
  minTokens?: (model: string) => number;
  /** OpenAI's cache life (default 5 minutes of inactivity) */
  openaiTtl?: CacheTtl;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

interface Entry {
  tokens: number;
  expires: number;
  ttl: number;
}

interface Unit {
  at: string;
  /** the canonical JSON the hash and the token count are made of */
  json: string;
  control?: unknown;
}

export class FakeCache {
  readonly log: CacheLogEntry[] = [];
  private readonly anthropicEntries = new Map<string, Entry>();
  private readonly openaiEntries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly minTokens: (model: string) => number;
  private readonly openaiTtl: number;

  constructor(opts: FakeCacheOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.minTokens = opts.minTokens ?? (() => 1024);
    this.openaiTtl = TTL_MS[opts.openaiTtl ?? "5m"];
  }

  /** Forget everything cached (the log stays). */
  clear(): void {
    this.anthropicEntries.clear();
    this.openaiEntries.clear();
  }

  /** The log entries since `from` (an index into the log). */
  since(from: number): CacheLogEntry[] {
    return this.log.slice(from);
  }

  /** Anthropic: the usage for a (validated) request body, or the API's error text. */
  anthropic(body: Obj): { usage: AnthropicCacheUsage } | { error: string } {
    const model = String(body["model"] ?? "");
    const units = anthropicUnits(body);
    if ("error" in units) return units;
    const marked = units.list.flatMap((u, i) => (u.control === undefined ? [] : [{ u, i }]));
    if (marked.length > MAX_BREAKPOINTS) {
      return { error: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.` };
    }
    const breakpoints: { i: number; at: string; ttl: CacheTtl }[] = [];
    for (const { u, i } of marked) {
      const c = u.control;
      if (!isObj(c) || c["type"] !== "ephemeral") return { error: `${u.at}.cache_control.type: Input should be 'ephemeral'` };
      const ttl = c["ttl"] ?? "5m";
      if (ttl !== "5m" && ttl !== "1h") return { error: `${u.at}.cache_control.ephemeral.ttl: Input should be '5m' or '1h'` };
      breakpoints.push({ i, at: u.at, ttl });
    }

    // the prefix's hash and tokens at every block boundary
    const hashes: string[] = [];
    const tokens: number[] = [];
    let h = createHash("sha256").update(`anthropic\u0000${model}`).digest("hex");
    let t = 0;
    for (const u of units.list) {
      h = createHash("sha256").update(h).update("\u0000").update(u.json).digest("hex");
      t += fakeTokens(u.json);
      hashes.push(h);
      tokens.push(t);
    }
    const total = t;
    const now = this.now();
    this.expire(this.anthropicEntries, now);

    // the longest hit over every breakpoint and its look-back
    let read = 0;
    let readAt = -1;
    for (const bp of breakpoints) {
      for (let p = bp.i; p >= 0 && p >= bp.i - LOOKBACK_BLOCKS; p--) {
        const e = this.anthropicEntries.get(hashes[p] as string);
        if (e) {
          if (e.tokens > read) {
            read = e.tokens;
            readAt = p;
          }
          break;
        }
      }
    }
    if (readAt >= 0) {
      const e = this.anthropicEntries.get(hashes[readAt] as string) as Entry;
      e.expires = now + e.ttl; // a read renews the entry's life
    }

    const min = this.minTokens(model);
    let writtenUpTo = read;
    const seen: FakeBreakpoint[] = [];
    for (const bp of breakpoints) {
      const bpTokens = tokens[bp.i] as number;
      let outcome: FakeBreakpoint["outcome"];
      if (bpTokens <= read) outcome = bp.i === readAt ? "read" : "covered";
      else if (bpTokens < min) outcome = "too_short";
      else {
        outcome = "written";
        this.anthropicEntries.set(hashes[bp.i] as string, { tokens: bpTokens, expires: now + TTL_MS[bp.ttl], ttl: TTL_MS[bp.ttl] });
        writtenUpTo = Math.max(writtenUpTo, bpTokens);
      }
      seen.push({ block: bp.i, at: bp.at, ttl: bp.ttl, tokens: bpTokens, outcome });
    }
    const written = writtenUpTo - read;
    const uncached = total - read - written;
    this.log.push({
      shape: "anthropic",
      model,
      totalTokens: total,
      readTokens: read,
      writtenTokens: written,
      uncachedTokens: uncached,
      breakpoints: seen,
    });
    return { usage: { input_tokens: uncached, cache_creation_input_tokens: written, cache_read_input_tokens: read } };
  }

  /** OpenAI (Chat Completions or Responses): the prompt's tokens and how many were cached. */
  openai(body: Obj): OpenAICacheUsage {
    const model = String(body["model"] ?? "");
    const key = typeof body["prompt_cache_key"] === "string" ? body["prompt_cache_key"] : undefined;
    // the prompt in the order the model reads it: tools, instructions, then the conversation
    const text = ["tools", "instructions", "messages", "input"]
      .filter((f) => body[f] !== undefined)
      .map((f) => `${f}:${JSON.stringify(body[f])}`)
      .join("\u0000");
    const total = fakeTokens(text);
    const now = this.now();
    this.expire(this.openaiEntries, now);
    const seed = `openai\u0000${model}\u0000${key ?? ""}\u0000`;
    const stepHash = (n: number): string => createHash("sha256").update(seed).update(text.slice(0, n * 4)).digest("hex");
    let cached = 0;
    const steps: number[] = [];
    for (let n = OPENAI_MIN_CACHED; n <= total; n += OPENAI_CACHE_STEP) steps.push(n);
    for (const n of steps) {
      const hash = stepHash(n);
      const e = this.openaiEntries.get(hash);
      if (e) {
        cached = n;
        e.expires = now + e.ttl;
      }
      this.openaiEntries.set(hash, { tokens: n, expires: now + this.openaiTtl, ttl: this.openaiTtl });
    }
    this.log.push({
      shape: "openai",
      model,
      totalTokens: total,
      readTokens: cached,
      writtenTokens: 0,
      uncachedTokens: total - cached,
      breakpoints: [],
      ...(key !== undefined ? { key } : {}),
    });
    return { prompt_tokens: total, cached_tokens: cached };
  }

  private expire(entries: Map<string, Entry>, now: number): void {
    for (const [k, e] of entries) if (e.expires <= now) entries.delete(k);
  }
}

/** The request's blocks in Anthropic's cache order: tools, system, then each message's blocks. */
function anthropicUnits(body: Obj): { list: Unit[] } | { error: string } {
  const list: Unit[] = [];
  const unit = (at: string, block: unknown, prefix = ""): Unit => {
    if (!isObj(block)) return { at, json: prefix + JSON.stringify(block) };
    const { cache_control: control, ...rest } = block;
    return { at, json: prefix + JSON.stringify(rest), ...(control !== undefined ? { control } : {}) };
  };
  const tools = body["tools"];
  if (Array.isArray(tools)) tools.forEach((t, i) => list.push(unit(`tools.${i}`, t)));
  const sys = body["system"];
  if (typeof sys === "string") list.push({ at: "system", json: JSON.stringify({ type: "text", text: sys }) });
  else if (Array.isArray(sys)) sys.forEach((b, i) => list.push(unit(`system.${i}`, b)));
  const messages = body["messages"];
  if (Array.isArray(messages)) {
    for (const [i, m] of messages.entries()) {
      if (!isObj(m)) continue;
      const content = m["content"];
      const blocks = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
      for (const [j, b] of blocks.entries()) {
        const at = `messages.${i}.content.${j}`;
        // a message's start is part of its first block's hash: [a, b] differs from [a], [b]
        const u = unit(at, b, j === 0 ? `${String(m["role"])}:` : "");
        if (u.control !== undefined && isObj(b) && (b["type"] === "thinking" || b["type"] === "redacted_thinking")) {
          return { error: `${at}.${b["type"]}.cache_control: Extra inputs are not permitted` };
        }
        list.push(u);
      }
    }
  }
  return { list };
}
