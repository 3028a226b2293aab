// Answers of every shape the transcript's layout must stream in linear time: one paragraph
// with a numbered line every ten words and no blank line (what a log dump looks like), one
// line with no break at all, a long bulleted list, a long numbered list, a long fenced code
// block, a long table, nested quotes, and a mix of them all. Seeded, so a failure or a
// benchmark row can be reproduced. The unit tests use them small with Markdown sprinkled in
// (`spice`), the benchmark and the cost test at 20,000 and 200,000 words.
import { prng } from "./prng.js";

export const SHAPES = ["paragraph", "line", "bullets", "numbered", "code", "table", "quotes", "mix"] as const;
export type Shape = (typeof SHAPES)[number];

const WORDS = ["alpha", "beta", "gamma", "delta", "word", "stream", "layout", "río", "naïve", "漢字", "tool", "output", "the", "of", "a", "value"];
const SPICE = ["**bold**", "`code`", "_em_", "[link](https://example.com)", "a*b", "x_y", "<b>", "&amp;", "~~gone~~", "https://example.com/x", "2 * 3", "|", "\\*", "🎉"];

export interface ShapeOptions {
  /** about how many words */
  words: number;
  seed?: number;
  /** how often a word is Markdown that may reach across lines (0: plain text) */
  spice?: number;
  /** fenced code ends with its closing fence (as in a mix, where an open fence would take in the rest) */
  closed?: boolean;
}

/** an answer of the shape with about `words` words */
export function answerOf(shape: Shape, o: ShapeOptions): string {
  const r = prng(o.seed ?? 1);
  const spice = o.spice ?? 0;
  const word = (): string => (spice > 0 && r() < spice ? SPICE[Math.floor(r() * SPICE.length)]! : WORDS[Math.floor(r() * WORDS.length)]!);
  const words = (n: number): string => Array.from({ length: n }, word).join(" ");
  const out: string[] = [];
  let count = 0;
  let n = 0;
  const more = (): boolean => count < o.words;
  switch (shape) {
    case "paragraph":
      // a numbered line every ten words, no blank line: one Markdown paragraph with soft breaks
      while (more()) {
        out.push(`${++n}: ${words(10)}\n`);
        count += 11;
      }
      break;
    case "line":
      while (more()) {
        out.push(`${words(10)} `);
        count += 10;
      }
      break;
    case "bullets":
      while (more()) {
        out.push(`- item ${++n}: ${words(8)}\n`);
        if (r() < 0.1) out.push(`  - nested ${words(4)}\n`);
        count += 10;
      }
      break;
    case "numbered":
      while (more()) {
        out.push(`${++n}. ${words(9)}\n`);
        count += 10;
      }
      break;
    case "code":
      out.push(r() < 0.5 || spice === 0 ? "```\n" : "```ts\n");
      while (more()) {
        const i = ++n;
        out.push(r() < 0.08 ? "\n" : `const value${i} = compute("${words(3)}", ${i}); // ${words(3)}\n`);
        count += 8;
      }
      if (o.closed || r() < 0.5) out.push("```\n\nafter the code\n");
      break;
    case "table":
      out.push("| n | name | what | value |\n|---|:---|---|--:|\n");
      while (more()) {
        out.push(`| ${++n} | ${words(1)} | ${words(r() < 0.05 ? 4 : 2)} | ${Math.floor(r() * 1000)} |\n`);
        count += 6;
      }
      break;
    case "quotes":
      // runs of lines at one depth, a blank line between runs (a quote whose depth changes
      // without one holds its later lines lazily in the deeper quote)
      while (more()) {
        const depth = n++ % 4 === 0 ? 1 + (n % 3) : 2;
        const lines = 5 + Math.floor(r() * 60);
        for (let i = 0; i < lines; i++) out.push(`${"> ".repeat(depth)}${words(10)}\n`);
        out.push("\n");
        count += 10 * lines;
      }
      break;
    case "mix": {
      const parts: Shape[] = ["paragraph", "line", "bullets", "numbered", "code", "table", "quotes"];
      let i = 0;
      while (more()) {
        const part = parts[Math.floor(r() * parts.length)]!;
        const w = 50 + Math.floor(r() * 400);
        out.push(answerOf(part, { words: w, seed: (o.seed ?? 1) * 31 + i++, spice, closed: true }).replace(/\n*$/, "\n"));
        // prose between the parts, as an answer has (two lists with only a blank line between
        // them are one loose list, laid out whole: see docs/performance.md)
        out.push(`\nNext, part ${i}:\n\n`);
        count += w;
      }
      break;
    }
  }
  return out.join("");
}

/** the answer cut into the pieces a provider streams: 1 to `most` characters, mostly a few words */
export function deltasOf(text: string, seed = 7, most = 40): string[] {
  const r = prng(seed);
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    const n = 1 + Math.floor(r() * r() * most);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}
