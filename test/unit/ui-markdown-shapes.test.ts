// GrowingMarkdown for every shape of answer: one paragraph with soft breaks, one line with no
// break, a long bulleted or numbered list, fenced code (plain and coloured), a table, nested
// quotes, and the mix. Whatever the shape and wherever the stream is cut, the lines must be
// those of laying the whole text out (checked at every prefix of a stream), and what was laid
// out is never laid out again: the characters laid out while streaming a 200,000-word answer
// stay within a small constant times its length (a count, not a timing).
import { describe, expect, it } from "vitest";
import { loadHighlighter } from "../../src/ui/highlight.js";
import { inert } from "../../src/ui/inert.js";
import { GrowingMarkdown } from "../../src/ui/markdown-growing.js";
import { markdownStats, renderMarkdown } from "../../src/ui/markdown.js";
import type { Line } from "../../src/ui/style.js";
import { answerOf, deltasOf, SHAPES, type Shape } from "../helpers/answer-shapes.js";
import { prng } from "../helpers/prng.js";

const GUTTER: Line = [{ t: "  " }];
const deco = (l: Line): Line => [...GUTTER, ...l];
const whole = (raw: string, width: number): Line[] => renderMarkdown(inert(raw), width).map(deco);

/** streams `text` in pieces of 1-12 characters, checking the lines after each */
function streamChecked(text: string, width: number, seed: number, label: string): void {
  const md = new GrowingMarkdown();
  const r = prng(seed);
  for (let at = 0; at < text.length; ) {
    at = Math.min(text.length, at + 1 + Math.floor(r() * 12));
    const prefix = text.slice(0, at);
    const got = md.render(prefix, width, inert, deco);
    const want = whole(prefix, width);
    if (got.length !== want.length || JSON.stringify(got) !== JSON.stringify(want)) {
      expect(got, `${label} at ${at}: ${JSON.stringify(prefix.slice(-60))}`).toEqual(want);
    }
  }
}

/** hand-made texts where later lines change earlier ones: each must be laid out again */
const TURNS = [
  // a setext underline makes the whole paragraph a heading
  "first line of text\nsecond line of text\nthird line\n===\n\nafter",
  "first line of text\nsecond line of text\nthird line\n---\nafter",
  // a table interrupts a paragraph; a row without a leading bar still belongs to the table
  "alpha beta gamma\ndelta words here\n| a | b |\n|---|---|\n| 1 | 2 |\nplain row\n\nend",
  // a list turns loose after many tight items; a different bullet starts another list
  "- one item\n- two item\n- three item\n\n- four item\n- five",
  "- one item\n- two item\n* other list\n* more",
  // numbered items whose markers widen past 9 and 99
  Array.from({ length: 105 }, (_, i) => `${i + 1}. item number ${i + 1}`).join("\n"),
  // numbering that does not count up: the layout numbers from the first
  Array.from({ length: 14 }, () => "1. same number").join("\n"),
  // a table whose columns widen row after row, then one too wide for the screen
  `| a | b |\n|---|---|\n${Array.from({ length: 30 }, (_, i) => `| ${"x".repeat(i)} | ${i} |`).join("\n")}\n| ${"y".repeat(90)} | z |`,
  // code: blank lines before the closing fence are not shown; an inner shorter fence is code
  "```\nline one\nline two\n\n\n```\n\ntext after",
  "````\nline one\n```\nstill code\n````\nafter",
  // quotes: a lazy line, a blank quote line, depth changes
  "> > deep quote text\n> > more deep text\nlazy line here\n> > back\n>\n> shallow\n> > > deeper\n\nafter",
  // hard breaks (two spaces, a backslash) and emphasis across lines
  "line with two spaces  \nnext line\nline with backslash\\\nnext *starts\nand ends* here\nplain words",
  // one long line with a word longer than the screen and emphasis across a row
  `${"word ".repeat(30)}${"z".repeat(150)} ${"more ".repeat(20)}**bold ${"across ".repeat(15)}rows** end`,
];

describe("GrowingMarkdown, every shape: the lines of the whole text at every prefix", () => {
  for (const shape of SHAPES) {
    it(shape, () => {
      for (let seed = 1; seed <= 6; seed++) {
        const width = [24, 60, 100][seed % 3]!;
        const text = answerOf(shape, { words: 260, seed, spice: seed <= 3 ? 0 : 0.08 });
        streamChecked(text, width, seed * 11, `${shape} seed ${seed} width ${width}`);
      }
    });
  }

  it("texts where later lines change earlier ones", () => {
    TURNS.forEach((text, i) => {
      for (const width of [20, 50]) streamChecked(text, width, i + width, `text ${i} width ${width}`);
    });
  });

  it("coloured code, and code that grows past the length that is coloured", async () => {
    await loadHighlighter();
    const code = Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? "" : i % 11 === 5 ? `/* a comment\n   over lines ${i} */` : `const v${i} = "s${i}" + f(${i}); // n`)).join("\n");
    for (const lang of ["ts", "python", "bash"]) streamChecked("```" + lang + "\n" + code + "\n```\n\nafter", 60, 3, lang);
    // past MAX_HIGHLIGHT (40,000) the whole block is plain, the pieces laid out coloured before too
    const long = "```ts\n" + Array.from({ length: 1400 }, (_, i) => `const v${i} = "value number ${i}";`).join("\n") + "\n```\n";
    const md = new GrowingMarkdown();
    for (let at = 0; at < long.length; ) {
      at = Math.min(long.length, at + 200);
      const prefix = long.slice(0, at);
      const got = md.render(prefix, 80, inert, deco);
      if (at > 39_000 || at % 4000 < 200) expect(got, `at ${at}`).toEqual(whole(prefix, 80));
    }
  });
});

// 200,000 words per shape, the length the issue of linear layout was measured at
const COST_WORDS = 200_000;

describe("GrowingMarkdown's cost: what was laid out is not laid out again", () => {
  for (const shape of SHAPES) {
    it(`${shape}: ${COST_WORDS.toLocaleString("en")} words stream with at most 12 characters laid out per character of the answer`, () => {
      const text = answerOf(shape, { words: COST_WORDS, seed: 5 });
      const md = new GrowingMarkdown();
      const before = markdownStats.chars;
      const r = prng(17);
      let raw = "";
      let lines: Line[] = [];
      // Frames as the screen's frame clock draws them (src/ui/frames.ts: at most one per 20 ms,
      // the deltas that arrived meanwhile coalesced): after 1 to 48 deltas, about 200
      // characters, a fast local model's pace. A frame still comes every few hundred characters,
      // so laying the growing block out again per frame would be quadratic and far past the
      // bound; a frame after every delta makes the test itself quadratic (each frame hands back
      // every line so far) and takes minutes.
      let gap = 0;
      for (const d of deltasOf(text, 9)) {
        const before = raw;
        raw += d;
        md.grew(before, raw, d);
        if (--gap <= 0) {
          lines = md.render(raw, 100, inert, deco);
          gap = 1 + Math.floor(r() * 48);
        }
      }
      lines = md.render(raw, 100, inert, deco);
      const laidOut = markdownStats.chars - before;
      console.log(`${shape}: ${(laidOut / text.length).toFixed(2)} characters laid out per character of ${text.length}`);
      expect(laidOut / text.length, `${laidOut} characters laid out for ${text.length}`).toBeLessThanOrEqual(12);
      // compared as one string: a deep comparison of 30,000 rows costs more than the layout
      const want = whole(text, 100);
      expect(lines.length).toBe(want.length);
      expect(JSON.stringify(lines) === JSON.stringify(want), "the streamed lines equal the whole text's").toBe(true);
    }, 240_000);
  }
});
