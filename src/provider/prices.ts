// List prices per model, in US dollars per million tokens, and what a response cost by its
// provider usage (never by an estimate). Source and date of each row: docs/providers.md,
// Prices. The table is secondhand (the providers' pricing pages as last read before the
// SDKs here, not read again: neither SDK nor the shared reference gives prices, the reference
// gives only the cache multipliers); a config may put its own prices over it (`overrides`),
// for local or negotiated ones. A model without a price has no cost, never a guessed one.
import type { Usage } from "./types.js";

export interface Price {
  /** $ per million uncached input tokens */
  input: number;
  output: number;
  cacheRead: number;
  /** a 5-minute cache write (Anthropic: 1.25× input); OpenAI charges none */
  cacheWrite5m: number;
  /** a 1-hour cache write (Anthropic: 2× input) */
  cacheWrite1h: number;
  source: string;
}

const TABLE_SOURCE = "list price, secondhand (provider pricing pages, not re-read 2026-12-07)";

/** Anthropic's multipliers (the reference, Prompt caching): read 0.1×, 5m write 1.25×, 1h write 2×. */
const claude = (input: number, output: number): Price => ({ input, output, cacheRead: input * 0.1, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2, source: TABLE_SOURCE });
/** OpenAI: cached input at the given rate, writes free. */
const openai = (input: number, output: number, cacheRead: number): Price => ({ input, output, cacheRead, cacheWrite5m: 0, cacheWrite1h: 0, source: TABLE_SOURCE });

// ids as the catalog spells them; a dated snapshot takes its id's price
const PRICES: Record<string, Price> = {
  "claude-opus-4-6": claude(5, 25),
  "claude-opus-4-5": claude(5, 25),
  "claude-sonnet-4-6": claude(3, 15),
  "claude-sonnet-4-5": claude(3, 15),
  "claude-sonnet-4": claude(3, 15),
  "claude-haiku-4-5": claude(1, 5),
  "claude-opus-4-1": claude(15, 75),
  "claude-opus-4": claude(15, 75),
  "gpt-5": openai(1.25, 10, 0.125),
  "gpt-5-mini": openai(0.25, 2, 0.025),
  "gpt-5-nano": openai(0.05, 0.4, 0.005),
  "gpt-4.1": openai(2, 8, 0.5),
  "gpt-4.1-mini": openai(0.4, 1.6, 0.1),
  "gpt-4.1-nano": openai(0.1, 0.4, 0.025),
  "gpt-4o": openai(2.5, 10, 1.25),
  "gpt-4o-mini": openai(0.15, 0.6, 0.075),
  "o3": openai(2, 8, 0.5),
  "o4-mini": openai(1.1, 4.4, 0.275),
};

/** A price the config gives: the figures, per million tokens. */
export type PriceOverride = Partial<Omit<Price, "source">> & { input: number; output: number };

/** The price of a model: the config's over the table; undefined when neither has one. */
export function priceFor(model: string, overrides: Readonly<Record<string, PriceOverride>> = {}): Price | undefined {
  const id = model.trim().toLowerCase().replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, "");
  const own = overrides[model] ?? overrides[id];
  if (own) {
    return {
      input: own.input,
      output: own.output,
      cacheRead: own.cacheRead ?? own.input,
      cacheWrite5m: own.cacheWrite5m ?? own.input,
      cacheWrite1h: own.cacheWrite1h ?? own.input,
      source: "config",
    };
  }
  return PRICES[id];
}

export interface Cost {
  /** dollars, per part of the usage */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
  /** what the cached reads would have cost as input, less what they and the writes cost */
  savedByCache: number;
}

/** What one response cost, from its provider usage; cache writes at the TTL asked for. */
export function costOf(usage: Usage, price: Price, ttl: "5m" | "1h" = "5m"): Cost {
  const per = (tokens: number, rate: number): number => (tokens * rate) / 1_000_000;
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const c = {
    input: per(usage.inputTokens, price.input),
    output: per(usage.outputTokens, price.output),
    cacheRead: per(read, price.cacheRead),
    cacheWrite: per(write, ttl === "1h" ? price.cacheWrite1h : price.cacheWrite5m),
  };
  const total = c.input + c.output + c.cacheRead + c.cacheWrite;
  // without caching, every cached token (read or written) would have been plain input
  const uncached = per(read + write, price.input);
  return { ...c, total, savedByCache: uncached - c.cacheRead - c.cacheWrite };
}

/** The costs of many responses added up. */
export function sumCosts(costs: readonly Cost[]): Cost {
  const z: Cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, savedByCache: 0 };
  for (const c of costs) for (const k of Object.keys(z) as Array<keyof Cost>) z[k] += c[k];
  return z;
}

/** "$0.0123" (four places below a cent, two above) */
export function formatDollars(d: number): string {
  return `$${Math.abs(d) < 1 ? d.toFixed(4) : d.toFixed(2)}`;
}
