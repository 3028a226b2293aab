// When the turn compacts, as rules over plain figures (pure): which strategy is in force
// given the summaries already stored, whether summaries are asked for automatically, what
// a summary keeps of the recent history, and the room the fixed sections of a request take.
import type { ContextItem, ToolSchema } from "../provider/types.js";
import { KEEP_RECENT_SHARE } from "./prepare.js";
import type { CompactionStrategy } from "./types.js";

/** Recent history kept out of an automatic summary when the window is unknown. */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;

/** Whether this strategy asks for new summaries by itself (the others only use stored ones). */
export function summarisesAutomatically(strategy: CompactionStrategy): boolean {
  return strategy === "summary" || strategy === "microcompact+summary";
}

/**
 * The strategy a request is prepared with. A stored summary exists only because one was
 * asked for (/compact, a context-length refusal, or a summary strategy), so it is used
 * whatever the configured strategy; only the summary strategies ask for new ones.
 */
export function strategyInForce(configured: CompactionStrategy, hasSummaries: boolean): CompactionStrategy {
  if (summarisesAutomatically(configured) || !hasSummaries) return configured;
  return configured === "microcompact" ? "microcompact+summary" : "summary";
}

/** Tokens of the sections every request carries besides history (chars/4: a reserve, not a count). */
export function fixedTokens(system: string, context: readonly ContextItem[], tools: readonly ToolSchema[]): number {
  let chars = system.length;
  for (const c of context) chars += c.text.length;
  for (const t of tools) chars += JSON.stringify(t).length;
  return Math.ceil(chars / 4);
}

/**
 * Recent history a summary leaves alone. Automatic: the same share prepareHistory keeps
 * when it decides a summary is due, so one summary settles it. Forced (/compact, or the
 * provider said the request is too long): only the last turn is kept.
 */
export function summaryKeepRecentTokens(o: { force: boolean; contextWindow?: number; threshold: number; fixedTokens: number }): number {
  if (o.force) return 0;
  const budget = o.contextWindow ? Math.floor(o.threshold * o.contextWindow) - o.fixedTokens : undefined;
  return budget ? Math.floor(budget * KEEP_RECENT_SHARE) : DEFAULT_KEEP_RECENT_TOKENS;
}
