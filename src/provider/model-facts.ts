// What a provider's own Models API said about its models (Anthropic's GET /v1/models:
// max_input_tokens, max_tokens, capabilities, lifecycle), kept for the run. The catalog
// (catalog.ts, lookupModel) puts these over its built-in table, which stays the fallback.
import type { Lifecycle, ThinkingMode } from "./catalog-table.js";

export interface ServerFacts {
  contextWindow?: number;
  maxOutput?: number;
  vision?: boolean;
  thinking?: ThinkingMode;
  lifecycle?: Lifecycle;
}

/** At most this many models are kept: a server that lists more gets the first ones. */
const MAX_FACTS = 2000;
const facts = new Map<string, ServerFacts>();

/** Keeps what a server said about these models (ids as the server spells them, lower-cased). */
export function rememberServerFacts(entries: ReadonlyArray<{ id: string; facts: ServerFacts }>): void {
  for (const e of entries) {
    if (facts.size >= MAX_FACTS && !facts.has(e.id.toLowerCase())) break;
    facts.set(e.id.toLowerCase(), e.facts);
  }
}

export function serverFacts(id: string): ServerFacts | undefined {
  return facts.get(id.toLowerCase());
}

/** Forgets every server's facts (tests; a run keeps them). */
export function forgetServerFacts(): void {
  facts.clear();
}
