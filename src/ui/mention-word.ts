// The `@word` a person is typing, found without loading anything: the screen asks this at
// each key, and loads the file index (mentions.ts) only once a mention is being typed.

/** the `@…` token that ends at the cursor (after the start or a space), if any */
export function mentionAt(text: string, cursor: number): { start: number; end: number; query: string } | undefined {
  let start = cursor;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  if (text[start] !== "@") return undefined;
  let end = cursor;
  while (end < text.length && !/\s/.test(text[end]!)) end++;
  return { start, end, query: text.slice(start + 1, cursor) };
}

/** every `@path` of a prompt: after its start or a space, up to the next space */
export function mentionedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?:^|\s)@([^\s@][^\s]*)/g)) {
    // a sentence's own punctuation after the path is not part of it
    out.add(m[1]!.replace(/[),.;:!?'"\]]+$/, ""));
  }
  return [...out].filter((p) => p !== "");
}
