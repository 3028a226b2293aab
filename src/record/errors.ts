// A caught value as the sentence to show. A leaf module (it imports nothing) so that every
// layer, the screen and the tests included, can use the one rule.

/** The message of an Error; anything else thrown (a string, a number, null) as its String(). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
