// GrowingMarkdown lays out a streaming answer's kept part once and only its tail
// per frame. Whatever the text and wherever the stream is cut, its lines must be exactly
// those of laying the whole text out again: that is what this file checks, over generated
// Markdown with everything that spans a blank line (fenced code, loose lists, quotes,
// indented code, tables, reference definitions) and over every prefix of it.
import { describe, expect, it } from "vitest";
import { GrowingMarkdown } from "../../src/ui/markdown-growing.js";
import { renderMarkdown } from "../../src/ui/markdown.js";
import { inert } from "../../src/ui/inert.js";
import type { Line } from "../../src/ui/style.js";
import { prng } from "../helpers/prng.js";

const GUTTER: Line = [{ t: "  " }];
const deco = (l: Line): Line => [...GUTTER, ...l];
const whole = (raw: string, width: number): Line[] => renderMarkdown(inert(raw), width).map(deco);

const BLOCKS = [
  "A plain paragraph with **bold**, `code` and a [link](https://example.com).",
  "Second line of a paragraph\nthat goes on here.",
  "# A heading",
  "Setext title\n===",
  "- one\n- two\n  - nested",
  "- loose one",
  "- loose two\n\n  continued inside the item",
  "1. first\n2. second",
  "3) third, loose",
  "> a quote\n> goes on",
  "> another quote",
  "```ts\nconst x = 1;\n\n\nconst y = 2;\n```",
  "~~~\nno language\n\n~~~",
  "````md\n```\ninner fence\n```\n````",
  "    indented code\n\n    after a blank",
  "| a | b |\n|---|---|\n| 1 | 2 |",
  "| more | rows |",
  "See [the ref][r] here.",
  "[r]: https://example.com/ref",
  "---",
  "<div>\nhtml block\n</div>",
  "tab\tseparated\tcells",
  "emoji 🎉 and 漢字 wide text that wraps across the narrow width of the test screen",
];

function doc(seed: number, n: number): string {
  const r = prng(seed);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(BLOCKS[Math.floor(r() * BLOCKS.length)]!);
  // blank lines between blocks, sometimes two, sometimes none (a block running into the next)
  return parts.map((p, i) => (i === 0 ? p : (r() < 0.15 ? "\n" : r() < 0.2 ? "\n\n\n" : "\n\n") + p)).join("");
}

describe("GrowingMarkdown", () => {
  it("gives the lines of the whole text at every prefix, for generated Markdown", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const text = doc(seed, 14);
      const width = 20 + (seed % 3) * 30;
      const md = new GrowingMarkdown();
      const r = prng(seed * 7);
      // a stream: pieces of 1–12 characters, checked after each
      for (let at = 0; at < text.length; ) {
        at = Math.min(text.length, at + 1 + Math.floor(r() * 12));
        const prefix = text.slice(0, at);
        expect(md.render(prefix, width, inert, deco), `seed ${seed} at ${at}: ${JSON.stringify(prefix.slice(-40))}`).toEqual(whole(prefix, width));
      }
    }
  });

  it("keeps what it laid out: a long answer's kept part is not laid out again", () => {
    const para = "word ".repeat(50).trim();
    const md = new GrowingMarkdown();
    let text = "";
    for (let i = 0; i < 200; i++) {
      text += `${para} ${i}.\n\n`;
      md.render(text, 80, inert, deco);
    }
    // the kept part is the same array objects from one call to the next
    const a = md.render(text + "tail", 80, inert, deco);
    const b = md.render(text + "tail more", 80, inert, deco);
    expect(a.length).toBeGreaterThan(200);
    // all but the last paragraph (its boundary line, "tail", is not whole yet) and the tail
    const kept = a.length - 10;
    for (let i = 0; i < kept; i++) expect(b[i]).toBe(a[i]);
  });

  it("starts again for another width or for text that does not continue the last", () => {
    const md = new GrowingMarkdown();
    const text = "first paragraph\n\nsecond paragraph\n\nthird";
    expect(md.render(text, 40, inert, deco)).toEqual(whole(text, 40));
    expect(md.render(text, 8, inert, deco)).toEqual(whole(text, 8));
    const other = "another answer\n\nentirely";
    expect(md.render(other, 8, inert, deco)).toEqual(whole(other, 8));
  });

  it("never cuts inside an HTML block that runs across blank lines (CommonMark kinds 1-5), nor takes a backtick line that is no fence for one", () => {
    // each of these goes on, dimmed as HTML, past its blank lines to its end marker; a cut
    // at the blank line would lay the rest out as a paragraph
    const html = [
      "<pre>\nabc\n\nline two of the pre block\n\n</pre>",
      "<!--\ncomment\n\nhidden text in the comment\n-->",
      "<SCRIPT>\nx\n\nvar y = 1; // goes on\n</script>",
      "<style>\n\np { color: red; } /* more */\n</style>",
      "<?php\n\necho 'hi there friends';\n?>",
      "<![CDATA[\n\nsome cdata text here\n]]>",
      "<!DOCTYPE\n\nhtml something long\n>",
      "<!-- one line --> then text",
      "<pre>one line</pre>",
      // not a fence (a backtick in a backtick fence's info): a fence after it opens, not closes
      "``` a`b\nnot a fence\n\nstill text",
    ];
    for (let seed = 1; seed <= 30; seed++) {
      const r = prng(seed * 13);
      const parts: string[] = [];
      for (let i = 0; i < 8; i++) parts.push(r() < 0.5 ? html[Math.floor(r() * html.length)]! : BLOCKS[Math.floor(r() * BLOCKS.length)]!);
      const text = parts.join("\n\n");
      const md = new GrowingMarkdown();
      for (let at = 1; at <= text.length; at++) {
        const prefix = text.slice(0, at);
        expect(md.render(prefix, 40, inert, deco), `seed ${seed} at ${at}: ${JSON.stringify(prefix.slice(-40))}`).toEqual(whole(prefix, 40));
      }
    }
  });

  it("never cuts after an HTML line: what looks like an opener may be inside another HTML block", () => {
    // found by a fuzz in review: a comment opener inside a <details> block (which runs to the
    // blank line) is text, so the CDATA after the blank is what stays open; a <script> opener
    // inside one hid a real fence that opened later
    const texts = [
      "</details> *\n<!-- x\n\n\n<![CDATA[ y\n--> word\n|  | ]\n\n---\n\nafter all this",
      "</details> x\n<script> y\n\n``` fence\n</script> _\n\n\nstill in the fence\n```\n\nafter all this",
    ];
    for (const text of texts) {
      const md = new GrowingMarkdown();
      for (let at = 1; at <= text.length; at++) {
        const prefix = text.slice(0, at);
        expect(md.render(prefix, 30, inert, deco), `at ${at}: ${JSON.stringify(prefix.slice(-40))}`).toEqual(whole(prefix, 30));
      }
    }
  });

  it("takes a backtick line with a backtick after it for text, so the fence after it opens", () => {
    const text = "a\n\n``` a`b\nnot a fence\n\ntext\n```\ncode\n\nstill code\n```\n\nafter";
    for (const width of [20, 60]) {
      const md = new GrowingMarkdown();
      for (let at = 1; at <= text.length; at++) {
        const prefix = text.slice(0, at);
        expect(md.render(prefix, width, inert, deco), `at ${at}: ${JSON.stringify(prefix.slice(-40))}`).toEqual(whole(prefix, width));
      }
    }
  });

  it("never cuts inside a control sequence (inert removes the whole sequence)", () => {
    const md = new GrowingMarkdown();
    const text = "before \x1b]0;title\n\nstill the title\x07 after\n\nnext paragraph\n\nlast";
    for (let at = 1; at <= text.length; at++) {
      const prefix = text.slice(0, at);
      expect(md.render(prefix, 30, inert, deco)).toEqual(whole(prefix, 30));
    }
  });
});

describe("a streaming answer in the transcript", () => {
  it("lays out each part of a long answer about once, however many frames it streams in", async () => {
    const { Transcript } = await import("../../src/ui/transcript.js");
    const { markdownStats } = await import("../../src/ui/markdown.js");
    const t = new Transcript();
    const answer = 1 as unknown as import("../../src/session/turn/events.js").AnswerId;
    t.answerStart(answer);
    const para = `${"word ".repeat(60).trim()}.\n\n`;
    let most = 0;
    // 400 paragraphs, a frame after every 10 words: 2,400 frames
    for (let p = 0; p < 400; p++) {
      const words = para.split(/(?<= )/);
      for (let i = 0; i < words.length; i++) {
        t.textDelta(answer, words[i]!);
        if (i % 10 === 0) {
          const before = markdownStats.chars;
          t.view(100, 40);
          most = Math.max(most, markdownStats.chars - before);
        }
      }
    }
    // laying the whole text out per frame would reach 120 kB a frame here; each frame lays
    // out only the paragraph arriving (and at most the one before it)
    expect(most).toBeLessThanOrEqual(2 * para.length);
    expect(t.view(100, 40).lines.map((l) => l.map((s) => s.t).join("")).join("\n")).toContain("word word");
  });
});
