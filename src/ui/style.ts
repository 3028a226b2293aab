// Styled text as the screen draws it. Everything the UI shows is a list of Lines made of
// Segs; a Seg names a semantic style, and the theme turns that into a blessed cell attribute
// at paint time. Keeping colours out of the content means NO_COLOR is one switch, and no
// text ever passes through blessed's tag or escape parsing.

import type { Background, ThemeChoice } from "./background.js";
import { assertNever } from "../record/types.js";

export type StyleName =
  | "plain"
  | "dim"
  | "strong"
  | "em"
  | "user"
  | "userGutter"
  | "heading"
  | "code"
  | "codeBlock"
  | "codeGutter"
  | "link"
  | "quote"
  | "bullet"
  | "toolName"
  | "toolArg"
  | "ok"
  | "err"
  | "warn"
  | "info"
  | "running"
  | "diffAdd"
  | "diffDel"
  | "diffHunk"
  | "diffHeader"
  | "rule"
  | "hint"
  | "key"
  | "status"
  | "statusAccent"
  | "statusWarn"
  | "border"
  | "title"
  | "reasoning"
  | "hl.keyword"
  | "hl.string"
  | "hl.number"
  | "hl.comment"
  | "hl.function"
  | "hl.type"
  | "hl.literal"
  | "hl.meta"
  | "hl.attr"
  | "hl.tag"
  | "hl.variable"
  | "hl.regexp";

export interface Seg {
  /** the text: already inert (sanitized), one line, no control characters */
  t: string;
  s?: StyleName;
  /** bold */
  b?: boolean;
  /** underline */
  u?: boolean;
  /** inverse video (selection) */
  inv?: boolean;
}

export type Line = Seg[];

export function lineText(line: Line): string {
  let out = "";
  for (const s of line) out += s.t;
  return out;
}

/**
 * A style as colours and flags. Colours are xterm palette indices: the 256-colour palettes use
 * 16–255 only, the 8/16-colour ones 0–7 only, so blessed passes them through unchanged and what
 * is emitted is what the palette says. Unset colours are the terminal's own.
 */
interface StyleDef {
  fg?: number;
  bg?: number;
  bold?: boolean;
  underline?: boolean;
  inverse?: boolean;
  /**
   * never bold: xterm draws bold text in colours 0–7 in the bright colour 8–15 (its boldColors
   * resource, on by default), which for these styles would lose the contrast chosen here
   */
  noBold?: boolean;
}

type Palette = Record<StyleName, StyleDef>;

/** the styles drawn as lines and frames rather than read: these need 3:1, text 4.5:1 */
export const DECORATION: ReadonlySet<StyleName> = new Set<StyleName>(["rule", "border"]);

// The palettes. Their contrast against xterm's default dark (gray90 on black) and light (black
// on white) backgrounds is checked by test/unit/ui-contrast.test.ts, cell by cell as xterm
// shows them: WCAG 4.5:1 for every style that is read, 3:1 for rules and borders.
//
// "dark" is also what a terminal that does not say its background gets, so its text must read
// on white as well as on black: body text and code blocks are the terminal's own foreground,
// and every colour lies in the narrow band of luminance (0.175–0.183) that keeps 4.5:1 to both
// black and white: 29 #00875f, 63 #5f5fff, 98 #875fd7, 131 #af5f5f, 163 #d700af, 243 #767676.
// Nothing is drawn faint (SGR 2): faint gray90 on black falls under 4.5:1.
const DARK_256: Palette = {
  plain: {},
  dim: { fg: 243 },
  strong: { bold: true },
  em: { fg: 98 },
  user: { bold: true },
  userGutter: { fg: 63, bold: true },
  heading: { fg: 63, bold: true },
  code: { fg: 29 },
  codeBlock: {},
  codeGutter: { fg: 243 },
  link: { fg: 63, underline: true },
  quote: { fg: 243 },
  bullet: { fg: 63 },
  toolName: { fg: 98, bold: true },
  toolArg: {},
  ok: { fg: 29 },
  err: { fg: 131 },
  warn: { fg: 163 },
  info: { fg: 243 },
  running: { fg: 98 },
  diffAdd: { fg: 29 },
  diffDel: { fg: 131 },
  diffHunk: { fg: 63 },
  diffHeader: { bold: true },
  rule: { fg: 243 },
  hint: { fg: 243 },
  key: { fg: 63, bold: true },
  // the status bar brings its own background, so it reads the same on any terminal
  status: { fg: 252, bg: 237 },
  statusAccent: { fg: 81, bg: 237, bold: true },
  statusWarn: { fg: 214, bg: 237, bold: true },
  border: { fg: 63 },
  title: { fg: 63, bold: true },
  reasoning: { fg: 243 },
  "hl.keyword": { fg: 98 },
  "hl.string": { fg: 29 },
  "hl.number": { fg: 131 },
  "hl.comment": { fg: 243 },
  "hl.function": { fg: 63 },
  "hl.type": { fg: 163 },
  "hl.literal": { fg: 131 },
  "hl.meta": { fg: 243 },
  "hl.attr": { fg: 131 },
  "hl.tag": { fg: 63 },
  "hl.variable": {},
  "hl.regexp": { fg: 163 },
};

// On a light background: darker, more saturated colours, 4.7:1 to 8:1 on white.
const LIGHT_256: Palette = {
  plain: {},
  dim: { fg: 242 },
  strong: { bold: true },
  em: { fg: 91 },
  user: { bold: true },
  userGutter: { fg: 25, bold: true },
  heading: { fg: 25, bold: true },
  code: { fg: 24 },
  codeBlock: {},
  codeGutter: { fg: 242 },
  link: { fg: 25, underline: true },
  quote: { fg: 242 },
  bullet: { fg: 25 },
  toolName: { fg: 91, bold: true },
  toolArg: {},
  ok: { fg: 22 },
  err: { fg: 124 },
  warn: { fg: 130 },
  info: { fg: 242 },
  running: { fg: 91 },
  diffAdd: { fg: 22 },
  diffDel: { fg: 124 },
  diffHunk: { fg: 25 },
  diffHeader: { bold: true },
  rule: { fg: 242 },
  hint: { fg: 242 },
  key: { fg: 25, bold: true },
  status: { fg: 235, bg: 254 },
  statusAccent: { fg: 25, bg: 254, bold: true },
  statusWarn: { fg: 124, bg: 254, bold: true },
  border: { fg: 25 },
  title: { fg: 25, bold: true },
  reasoning: { fg: 242 },
  "hl.keyword": { fg: 91 },
  "hl.string": { fg: 22 },
  "hl.number": { fg: 94 },
  "hl.comment": { fg: 242 },
  "hl.function": { fg: 25 },
  "hl.type": { fg: 24 },
  "hl.literal": { fg: 94 },
  "hl.meta": { fg: 242 },
  "hl.attr": { fg: 94 },
  "hl.tag": { fg: 25 },
  "hl.variable": {},
  "hl.regexp": { fg: 124 },
};

// 8 and 16 colours, for both backgrounds: none of xterm's 16 colours reads at 4.5:1 on black
// and on white alike (magenta3 comes closest, 4.48 on black), so text keeps the terminal's
// foreground and styles differ by weight, underline and inverse. Inline code, errors and
// diffs sit on a background of their own (black on gray90, gray90 on red3: 16.7 and 4.6:1),
// which reads the same on any terminal. No red for code or emphasis.
const DARK_16: Palette = {
  plain: {},
  dim: {},
  strong: { bold: true },
  em: { underline: true },
  user: { bold: true },
  userGutter: { bold: true },
  heading: { bold: true },
  code: { fg: 0, bg: 7, noBold: true },
  codeBlock: {},
  codeGutter: {},
  link: { underline: true },
  quote: {},
  bullet: {},
  toolName: { bold: true },
  toolArg: {},
  ok: {},
  err: { fg: 7, bg: 1 },
  warn: { bold: true },
  info: {},
  running: {},
  diffAdd: { fg: 0, bg: 2, noBold: true },
  diffDel: { fg: 7, bg: 1 },
  diffHunk: { bold: true },
  diffHeader: { bold: true },
  rule: {},
  hint: {},
  key: { bold: true },
  status: { inverse: true },
  statusAccent: { inverse: true, bold: true },
  statusWarn: { inverse: true, bold: true },
  border: {},
  title: { bold: true },
  reasoning: {},
  "hl.keyword": { bold: true },
  "hl.string": {},
  "hl.number": {},
  "hl.comment": {},
  "hl.function": {},
  "hl.type": {},
  "hl.literal": {},
  "hl.meta": {},
  "hl.attr": {},
  "hl.tag": {},
  "hl.variable": {},
  "hl.regexp": {},
};

// 8 and 16 colours on a light background: blue2 (9.4:1 on white, 4.7:1 as the bright blue that
// bold gives), red3 (5.9:1) and magenta3 (4.7:1), the last two never bold.
const LIGHT_16: Palette = {
  ...DARK_16,
  userGutter: { fg: 4, bold: true },
  heading: { fg: 4, bold: true },
  link: { fg: 4, underline: true },
  bullet: { fg: 4 },
  toolName: { fg: 4, bold: true },
  err: { fg: 1, noBold: true },
  warn: { fg: 5, noBold: true },
  diffDel: { fg: 1, noBold: true },
  diffHunk: { fg: 4 },
  key: { fg: 4, bold: true },
  border: { fg: 4 },
  title: { fg: 4, bold: true },
  "hl.keyword": { fg: 4, bold: true },
  "hl.string": { fg: 5, noBold: true },
  "hl.number": { fg: 1, noBold: true },
  "hl.function": { fg: 4 },
  "hl.literal": { fg: 1, noBold: true },
};

// 8 and 16 colours on a background known to be dark (the config says so, or the terminal
// answered): the code gets colours that read on black, cyan3 (10.6:1), green3 (9.7:1) and
// yellow3 (12.3:1). Not while dark is only a guess: none of them reads on white.
const DARK_16_KNOWN: Palette = {
  ...DARK_16,
  "hl.keyword": { fg: 6, bold: true },
  "hl.string": { fg: 2 },
  "hl.number": { fg: 3 },
  "hl.function": { fg: 6 },
  "hl.type": { fg: 2 },
  "hl.literal": { fg: 3 },
  "hl.attr": { fg: 3 },
  "hl.tag": { fg: 6 },
  "hl.regexp": { fg: 2 },
};

// Without colour the status bar still needs to stand out, and selection must stay visible.
const MONO: Partial<Record<StyleName, StyleDef>> = {
  status: { inverse: true },
  statusAccent: { inverse: true, bold: true },
  statusWarn: { inverse: true, bold: true },
  heading: { bold: true },
  userGutter: { bold: true },
  link: { underline: true },
  toolName: { bold: true },
  key: { bold: true },
  title: { bold: true },
  diffHeader: { bold: true },
  strong: { bold: true },
  user: { bold: true },
};

/** the palette for a background and a terminal's number of colours; `guess`: the background
 * is not known (dark is assumed), so the palette must read on light too */
export function paletteFor(bg: Background, colors: number, guess = false): Palette {
  const deep = colors >= 256;
  switch (bg) {
    case "dark":
      return deep ? DARK_256 : guess ? DARK_16 : DARK_16_KNOWN;
    case "light":
      return deep ? LIGHT_256 : LIGHT_16;
    default:
      return assertNever(bg, "background");
  }
}

const DEFAULT_COLOR = 0x1ff;

/**
 * Turns styles into cell attributes for the palette in force: the config's choice ("dark",
 * "light"), or with "auto" the background the terminal reported (background.ts), "dark" until
 * it does. Changing either clears the attributes worked out so far; the caller repaints.
 */
export class Theme {
  private cache = new Map<string, number>();
  private colors = 256;
  private choice: ThemeChoice = "auto";
  private detected: Background | undefined;
  private palette: Palette = DARK_256;

  constructor(readonly noColor: boolean) {}

  /** the background the palette is for */
  get background(): Background {
    return this.choice === "auto" ? (this.detected ?? "dark") : this.choice;
  }

  /** the terminal's number of colours (terminfo's, as blessed read it) */
  setColors(n: number): void {
    this.colors = n;
    this.update();
  }

  /** the config's "theme" */
  setChoice(c: ThemeChoice): void {
    this.choice = c;
    this.update();
  }

  /** what the terminal says its background is (used with "auto") */
  setDetected(bg: Background | undefined): void {
    this.detected = bg;
    this.update();
  }

  private update(): void {
    this.palette = paletteFor(this.background, this.colors, this.choice === "auto" && this.detected === undefined);
    this.cache.clear();
  }

  def(name: StyleName): StyleDef {
    // below 8 colours there is nothing to choose from: attributes only
    if (this.noColor || this.colors < 8) return MONO[name] ?? {};
    return this.palette[name];
  }

  /** blessed's cell attribute: flags << 18 | fg << 9 | bg */
  attr(s: Seg): number {
    const key = `${s.s ?? ""}|${s.b ? 1 : 0}${s.u ? 1 : 0}${s.inv ? 1 : 0}`;
    const have = this.cache.get(key);
    if (have !== undefined) return have;
    const d = this.def(s.s ?? "plain");
    let flags = 0;
    if ((d.bold || s.b) && !d.noBold) flags |= 1;
    if (d.underline || s.u) flags |= 2;
    // inverse on an already-inverse style (the status bar) would cancel out; keep it inverse
    if (d.inverse || s.inv) flags |= 8;
    const fg = d.fg ?? DEFAULT_COLOR;
    const bg = d.bg ?? DEFAULT_COLOR;
    const a = (flags << 18) | (fg << 9) | bg;
    this.cache.set(key, a);
    return a;
  }

  /** the attribute of an empty cell in a given style (status bar background, selection) */
  fillAttr(s: StyleName | undefined, inv = false): number {
    return this.attr(inv ? { t: "", ...(s ? { s } : {}), inv: true } : { t: "", ...(s ? { s } : {}) });
  }
}
