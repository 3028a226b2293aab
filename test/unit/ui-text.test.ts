import { beforeAll, describe, expect, it } from "vitest";
import stringWidth from "string-width";
import { SIMPLE_CHARS, WIDE_CHARS, clustersByWindow, fit, formatInt, graphemes, graphemesOf, graphemeWidth, lineWidth, loadWidths, takeEstimated, textWidth, truncate, wrapLine, wrapText } from "../../src/ui/text.js";
import { lineText, type Line } from "../../src/ui/style.js";
import { prng } from "../helpers/prng.js";

// string-width loads in the background (the screen's first frame does not wait for it);
// these tests are about exact widths
beforeAll(() => loadWidths());

const texts = (ls: Line[]): string[] => ls.map(lineText);

describe("widths", () => {
  it("counts CJK and emoji as two cells, combining marks as none", () => {
    expect(textWidth("abc")).toBe(3);
    expect(textWidth("中文")).toBe(4);
    expect(textWidth("😀")).toBe(2);
    expect(textWidth("e\u0301")).toBe(1);
    expect(textWidth("👍🏽")).toBe(2);
    expect(graphemeWidth("\u200b")).toBe(0);
  });
});

describe("the characters measured without string-width or a segmenter", () => {
  const simple = new RegExp(`^[${SIMPLE_CHARS}]$`);
  const all: string[] = [];
  for (let c = 0; c <= 0xffff; c++) if (simple.test(String.fromCharCode(c))) all.push(String.fromCharCode(c));

  it("are each one cell wide, as string-width says", () => {
    expect(all.length).toBeGreaterThan(1000);
    const wrong = all.filter((ch) => stringWidth(ch) !== 1).map((ch) => ch.charCodeAt(0).toString(16));
    expect(wrong).toEqual([]);
    for (const ch of all) expect(graphemeWidth(ch)).toBe(1);
  });

  it("are each a grapheme cluster of their own in any order, newlines too, as Intl.Segmenter says", () => {
    const seg = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    // forwards, backwards, and interleaved with newlines: every neighbour pair a break
    const texts = [all.join(""), [...all].reverse().join(""), all.join("\n")];
    for (const text of texts) {
      const exact = [...seg.segment(text)].map((g) => g.segment);
      expect(exact.length).toBe(text.length);
      expect(graphemesOf(text)).toEqual(exact);
    }
    expect(graphemes(all.join(""))).toEqual(all);
    expect(textWidth(all.join(""))).toBe(all.length);
  });

  it("the wide ones are each two cells and a cluster of their own, next to each other and to the simple ones", () => {
    const wide = new RegExp(`^[${WIDE_CHARS}]$`);
    const chars: string[] = [];
    for (let c = 0; c <= 0xffff; c++) if (wide.test(String.fromCharCode(c))) chars.push(String.fromCharCode(c));
    expect(chars.length).toBeGreaterThan(30_000);
    expect(chars.filter((ch) => stringWidth(ch) !== 2).map((ch) => ch.charCodeAt(0).toString(16))).toEqual([]);
    const seg = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    // every wide character after every other kind once: wide, simple, newline
    const r = prng(41);
    const mixed = chars.map((ch, i) => ch + (i % 3 === 0 ? all[Math.floor(r() * all.length)]! : i % 3 === 1 ? "\n" : ""));
    // in texts of 200 (the segmenter's own time and memory grow with the square of one string)
    for (let k = 0; k < mixed.length; k += 200) {
      const text = mixed.slice(k, k + 200).join("");
      const exact = [...seg.segment(text)].map((g) => g.segment);
      expect(exact.length).toBe(text.length);
      const got = graphemesOf(text);
      expect(got.length === exact.length && got.every((g, i) => g === exact[i]), `texts from ${k}`).toBe(true);
      const noLines = text.replace(/\n/g, "");
      expect(textWidth(noLines)).toBe(stringWidth(noLines));
    }
  });

  it("cover the starting frame's own text, so it is exact before string-width arrives", () => {
    // what the screen draws before the session is attached (src/ui/status.ts: status, prompt, hint line)
    const starting = [
      " starting…",
      "› Starting… type away; what you type is kept",
      "───── opening the session · Enter sends once it is open",
      "sent once the session is open · Esc keeps it in the prompt",
      "press ^C again to quit",
      "kept in the prompt · Enter sends it",
      "› naïve café → résumé",
    ];
    const simpleText = new RegExp(`^[${SIMPLE_CHARS}]*$`);
    for (const text of starting) expect(simpleText.test(text), text).toBe(true);
    takeEstimated();
    for (const text of starting) expect(textWidth(text)).toBe(text.length);
    expect(takeEstimated()).toBe(false);
  });
});

describe("formatInt", () => {
  it("writes thousands separators as en-US does", () => {
    for (const n of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 123_456_789, -1, -1234, -1_000_000, 12.6, 1e15]) {
      expect(formatInt(n)).toBe(Math.round(n).toLocaleString("en-US"));
    }
  });
});

describe("wrapLine", () => {
  it("breaks at spaces and keeps every row within the width", () => {
    const rows = wrapText("the quick brown fox jumps over the lazy dog", 10);
    expect(texts(rows)).toEqual(["the quick", "brown fox", "jumps over", "the lazy", "dog"]);
    for (const r of rows) expect(lineWidth(r)).toBeLessThanOrEqual(10);
  });

  it("breaks inside a word longer than the row", () => {
    expect(texts(wrapText("abcdefghijkl", 5))).toEqual(["abcde", "fghij", "kl"]);
  });

  it("never splits or overhangs a wide character", () => {
    const rows = wrapText("中文中文中", 5);
    expect(texts(rows)).toEqual(["中文", "中文", "中"]);
    for (const r of rows) expect(lineWidth(r)).toBeLessThanOrEqual(5);
    const emoji = wrapText("ab😀😀😀", 5);
    expect(texts(emoji)).toEqual(["ab😀", "😀😀"]);
  });

  it("keeps styles across the break and applies a hanging indent", () => {
    const line: Line = [{ t: "bold words ", b: true }, { t: "and code", s: "code" }];
    const rows = wrapLine(line, 12, { indent: [{ t: "  " }] });
    expect(texts(rows)).toEqual(["bold words", "  and code"]);
    expect(rows[1]![1]).toEqual({ t: "and code", s: "code" });
    expect(rows[0]![0]!.b).toBe(true);
  });

  it("hard mode breaks anywhere and keeps spaces", () => {
    expect(texts(wrapText("a b c d e f", 4, undefined, { hard: true }))).toEqual(["a b ", "c d ", "e f"]);
  });

  it("an empty line stays one empty row", () => {
    expect(wrapText("a\n\nb", 10).map(lineText)).toEqual(["a", "", "b"]);
  });
});

describe("truncate and fit", () => {
  it("ends a cut line with an ellipsis within the width", () => {
    const t = truncate([{ t: "hello world" }], 8);
    expect(lineText(t)).toBe("hello w…");
    expect(lineWidth(truncate([{ t: "中文中文中文" }], 5))).toBeLessThanOrEqual(5);
  });

  it("pads to an exact width", () => {
    expect(lineText(fit([{ t: "ab" }], 5))).toBe("ab   ");
    expect(lineWidth(fit([{ t: "😀😀😀" }], 5))).toBe(5);
  });
});

describe("preserving wrap", () => {
  it("breaks at spaces but loses no character", () => {
    const text = "alpha beta  gamma delta";
    const rows = wrapText(text, 8, undefined, { preserve: true });
    expect(rows.map(lineText).join("")).toBe(text);
    for (const r of rows) expect(lineWidth(r)).toBeLessThanOrEqual(8);
  });
});

describe("grapheme clusters a window at a time", () => {
  // pieces that join across a window's edge if the edge is taken for a break: flags (regional
  // indicator pairs), ZWJ families, skin tones, combining marks, CRLF, Hangul jamo, a letter
  // with a pile of marks
  const PIECES = ["a", " ", "é", "e\u0301", "🇫🇷", "🇩🇪", "👨‍👩‍👧‍👦", "👍🏽", "\r\n", "\n", "中", "\u1100\u1161\u11a8", "x" + "\u0301".repeat(40), "\ufe0f", "\u200d", "🇫"];
  const whole = (s: string): string[] => [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s)].map((g) => g.segment);

  it("gives the clusters of segmenting the whole string, whatever the window", () => {
    const r = prng(29);
    for (let n = 0; n < 300; n++) {
      let s = "";
      const len = 1 + Math.floor(r() * 120);
      for (let i = 0; i < len; i++) s += PIECES[Math.floor(r() * PIECES.length)]!;
      for (const window of [1, 2, 3, 5, 8, 64]) {
        expect(clustersByWindow(s, window), `${JSON.stringify(s)} window ${window}`).toEqual(whole(s));
      }
    }
  });

  it("mixed text (simple characters around others) splits as the whole string's segmentation does", () => {
    // simple letters next to what joins them from either side: marks after, a prepend
    // (U+0600) before, a joiner, flags, CR before LF, and simple runs of every length between
    const mixed = [...PIECES, "\u0600", "\u0600a", "abc", "naïve ", "© ", "\u00ad", "\u0301", "ab\u0301c", "가", "\u11a8", "가\u11a8", "ｶ\uff9e", "か\u3099", "漢字", "Ａ"];
    const r = prng(31);
    for (let n = 0; n < 600; n++) {
      let s = "";
      const len = 1 + Math.floor(r() * 60);
      for (let i = 0; i < len; i++) s += mixed[Math.floor(r() * mixed.length)]!;
      expect(graphemesOf(s), JSON.stringify(s)).toEqual(whole(s));
      if (!s.includes("\n")) expect(graphemes(s), JSON.stringify(s)).toEqual(whole(s));
    }
  });

  it("a one-line answer of 400,000 characters is split into its clusters (one pass, not the segmenter's square)", () => {
    const s = "héllo wörld, ".repeat(400_000 / 13);
    const got = graphemes(s);
    expect(got.length).toBe(s.length);
    expect(got.join("")).toBe(s);
    expect(wrapLine([{ t: s }], 100).length).toBeGreaterThan(4000);
  });
});

describe("wrapping against a model built from whole-string segmentation", () => {
  // the model: every cluster an object with its width (string-width) and style, as the text
  // is segmented whole by Intl.Segmenter; zero-width clusters ride on the cluster before
  const seg = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  interface U { g: string; w: number; s: Seg }
  type Seg = Line[number];
  function model(line: Line, width: number, opts: { hard?: boolean; preserve?: boolean }): string[][] {
    const us: U[] = [];
    for (const s of line)
      for (const { segment: g } of seg.segment(s.t)) {
        const w = Math.min(2, stringWidth(g));
        if (w === 0) {
          if (us.length) us[us.length - 1]!.g += g;
        } else us.push({ g, w, s });
      }
    if (us.length === 0) return [[]];
    const rows: string[][] = [];
    let start = 0;
    while (start < us.length) {
      let used = 0;
      let i = start;
      let lastBreak = -1;
      while (i < us.length && used + us[i]!.w <= width) {
        used += us[i]!.w;
        if (!opts.hard && us[i]!.g === " ") lastBreak = i + 1;
        i++;
      }
      let end = i;
      if (i < us.length) {
        if (i === start) end = start + 1;
        else if (!opts.hard && lastBreak > start && us[i]!.g !== " ") end = lastBreak;
        else if (opts.preserve && us[i]!.g === " " && lastBreak > start) end = lastBreak;
      }
      const soft = !opts.hard && !opts.preserve;
      let row = us.slice(start, end).map((u) => `${u.s.s ?? ""}:${u.g}`);
      if (end < us.length && soft) while (row.length && row[row.length - 1]!.endsWith(": ")) row = row.slice(0, -1);
      rows.push(row);
      start = end;
      if (soft) while (start < us.length && us[start]!.g === " ") start++;
    }
    return rows;
  }
  it("gives the model's rows for random styled lines of every kind of character", () => {
    const PIECES = ["a", "b", " ", "  ", "é", "e\u0301", "漢", "字", "🇫🇷", "👨‍👩‍👧‍👦", "👍🏽", "\u0301", "\u200b", "x", "word ", "naïve ", "\u0600a", "—", "\t"];
    const STYLES = [undefined, "strong", "dim"] as const;
    // and lines of simple characters only (wrapped without per-character arrays), empty segments among them
    const SIMPLE_PIECES = ["a", "b", " ", "  ", "x", "word ", "naïve ", "—", "é"];
    const r = prng(37);
    for (let n = 0; n < 1000; n++) {
      const pieces = n % 2 ? SIMPLE_PIECES : PIECES;
      const line: Line = [];
      const segs = 1 + Math.floor(r() * 4);
      for (let k = 0; k < segs; k++) {
        let t = "";
        const len = Math.floor(r() * 30);
        for (let i = 0; i < len; i++) t += pieces[Math.floor(r() * pieces.length)]!;
        const s = STYLES[Math.floor(r() * STYLES.length)];
        line.push(s ? { t, s } : { t });
      }
      const width = 1 + Math.floor(r() * 25);
      for (const opts of [{}, { hard: true }, { preserve: true }]) {
        const got = wrapLine(line, width, opts);
        const want = model(line, width, opts);
        expect(got.map((row) => row.map((s) => s.t).join("")), JSON.stringify({ line, width, opts })).toEqual(want.map((row) => row.map((c) => c.slice(c.indexOf(":") + 1)).join("")));
        // and the style each UTF-16 unit is drawn in
        const styleOf = (style: string, t: string): string => `${style},`.repeat(t.length);
        expect(got.map((row) => row.map((s) => styleOf(s.s ?? "", s.t)).join(""))).toEqual(want.map((row) => row.map((c) => styleOf(c.slice(0, c.indexOf(":")), c.slice(c.indexOf(":") + 1))).join("")));
        for (const row of got) expect(lineWidth(row)).toBeLessThanOrEqual(Math.max(width, 2));
      }
    }
  });
});
