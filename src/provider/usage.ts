// A provider's token counts are outside input: a server may report a negative, fractional or
// absurd figure, or more cached tokens than the prompt held. Usage keeps whole non-negative
// counts, so the status line's hit share stays within 0–100 % and an answer's stored usage
// reads back through the store's schema instead of being dropped there.

/** A reported token count as a whole non-negative number (nonsense counts as 0). */
export function tokenCount(n: number): number {
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.round(n), Number.MAX_SAFE_INTEGER);
}

/** OpenAI's prompt count includes its cached part: the uncached rest, and the cached part
 * held to the prompt. */
export function splitPrompt(prompt: number, cached: number): { uncached: number; cached: number } {
  const all = tokenCount(prompt);
  const read = Math.min(tokenCount(cached), all);
  return { uncached: all - read, cached: read };
}
