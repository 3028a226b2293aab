// Every glyph in the sources is one column wide on every terminal the screen is drawn on:
// a glyph the screen counts as one column and a terminal draws as two (an emoji-capable
// symbol such as a warning sign or a stop square, a wide character) leaves a stale cell at
// the line's end after a scroll, in tmux and xterm. The scan reads every file of src/ and
// keymaps/, comments included (text moves from comments into strings), and refuses:
//   - a glyph string-width and a wcwidth-like rule (East Asian Wide and Fullwidth, and
//     emoji presentation, are two columns) disagree on;
//   - an emoji-capable symbol (Extended_Pictographic): terminals draw some of them two wide;
//   - an East Asian Ambiguous glyph that is not on the list below, of the ones drawn one
//     column wide outside CJK locales by xterm, tmux, VTE, iTerm2 and Windows Terminal.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import stringWidth from "string-width";
import { eastAsianWidthType } from "get-east-asian-width";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Ambiguous glyphs the screen uses on purpose: punctuation, arrows, box drawing. */
const AMBIGUOUS_OK = new Set([..."±·×–—“”•…←↑→↓≈≤≥─│┌┐└┘├┤┬┴┼╭╮╯╰"]);

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (/\.(ts|json|mjs|cjs|js)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** a wcwidth-like width: wide and fullwidth, and emoji shown as emoji, take two columns */
function wcwidthLike(ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  const t = eastAsianWidthType(cp);
  if (t === "wide" || t === "fullwidth" || /\p{Emoji_Presentation}/u.test(ch)) return 2;
  if (/^[\p{Mn}\p{Me}\p{Cf}]$/u.test(ch)) return 0;
  return 1;
}

/** why a glyph is refused, or undefined */
function glyphProblem(ch: string): string | undefined {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return undefined;
  const sw = stringWidth(ch);
  const wc = wcwidthLike(ch);
  if (sw !== wc) return `string-width says ${sw} column(s), a wcwidth-like rule ${wc}`;
  if (/\p{Extended_Pictographic}/u.test(ch)) return "an emoji-capable symbol: some terminals draw it two columns wide";
  if (wc !== 1 && cp !== 0xfe0f && cp !== 0x200d) return `${wc} columns wide`;
  if (eastAsianWidthType(cp) === "ambiguous" && !AMBIGUOUS_OK.has(ch)) return "East Asian Ambiguous: two columns wide in CJK locales; not on the list of the screen's own";
  return undefined;
}

describe("glyph widths in the sources", () => {
  it("the rule refuses the glyphs that left stale cells, and lets the screen's own through", () => {
    for (const bad of ["⚠", "⏹", "⏸", "↪", "✂", "📎", "☑", "🖼", "✅", "■", "°"]) expect(glyphProblem(bad), bad).toBeDefined();
    for (const ok of ["·", "…", "─", "›", "▸", "✓", "✗", "≈"]) expect(glyphProblem(ok), ok).toBeUndefined();
  });

  it("every glyph in src/ and keymaps/ is single-width and safe", () => {
    const found: string[] = [];
    for (const f of [...files(path.join(ROOT, "src")), ...files(path.join(ROOT, "keymaps"))]) {
      const lines = fs.readFileSync(f, "utf8").split("\n");
      lines.forEach((line, i) => {
        for (const ch of line) {
          const why = glyphProblem(ch);
          if (why) found.push(`${path.relative(ROOT, f)}:${i + 1}: ${JSON.stringify(ch)} U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase()}: ${why}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});
