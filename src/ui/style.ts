// Styled text as the screen draws it. Everything the UI shows is a list of Lines made of
// Segs; a Seg names a semantic style, and the theme turns that into a blessed cell attribute
// at paint time. Keeping colours out of the content means NO_COLOR is one switch, and no
// text ever passes through blessed's tag or escape parsing.

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

export function seg(t: string, s?: StyleName, extra?: { b?: boolean; u?: boolean; inv?: boolean }): Seg {
  const out: Seg = { t };
  if (s && s !== "plain") out.s = s;
  if (extra?.b) out.b = true;
  if (extra?.u) out.u = true;
  if (extra?.inv) out.inv = true;
  return out;
}

export function plainLine(text: string, s?: StyleName): Line {
  return text ? [seg(text, s)] : [];
}

export function lineText(line: Line): string {
  let out = "";
  for (const s of line) out += s.t;
  return out;
}

/** A style as colours and flags; colours are xterm-256 indices (blessed reduces them for 8/16-colour terminals). */
export interface StyleDef {
  fg?: number;
  bg?: number;
  bold?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

// Greys at 244 and above: blessed reduces them to white on 8/16-colour terminals, where darker
// greys would become black and vanish on a black background.
const PALETTE: Record<StyleName, StyleDef> = {
  plain: {},
  dim: { fg: 245 },
  strong: { bold: true },
  em: { fg: 223 },
  user: { bold: true },
  userGutter: { fg: 75, bold: true },
  heading: { fg: 81, bold: true },
  code: { fg: 180 },
  codeBlock: { fg: 252 },
  codeGutter: { fg: 245 },
  link: { fg: 75, underline: true },
  quote: { fg: 249 },
  bullet: { fg: 75 },
  toolName: { fg: 110, bold: true },
  toolArg: {},
  ok: { fg: 114 },
  err: { fg: 203 },
  warn: { fg: 214 },
  info: { fg: 249 },
  running: { fg: 221 },
  diffAdd: { fg: 114 },
  diffDel: { fg: 203 },
  diffHunk: { fg: 80 },
  diffHeader: { bold: true },
  rule: { fg: 245 },
  hint: { fg: 245 },
  key: { fg: 81, bold: true },
  status: { fg: 252, bg: 237 },
  statusAccent: { fg: 81, bg: 237, bold: true },
  statusWarn: { fg: 214, bg: 237, bold: true },
  border: { fg: 75 },
  title: { fg: 81, bold: true },
  reasoning: { fg: 245 },
  "hl.keyword": { fg: 170 },
  "hl.string": { fg: 114 },
  "hl.number": { fg: 173 },
  "hl.comment": { fg: 245 },
  "hl.function": { fg: 75 },
  "hl.type": { fg: 80 },
  "hl.literal": { fg: 173 },
  "hl.meta": { fg: 245 },
  "hl.attr": { fg: 180 },
  "hl.tag": { fg: 75 },
  "hl.variable": { fg: 223 },
  "hl.regexp": { fg: 209 },
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

const DEFAULT_COLOR = 0x1ff;

export class Theme {
  private cache = new Map<string, number>();
  constructor(readonly noColor: boolean) {}

  def(name: StyleName): StyleDef {
    if (this.noColor) return MONO[name] ?? {};
    return PALETTE[name];
  }

  /** blessed's cell attribute: flags << 18 | fg << 9 | bg */
  attr(s: Seg): number {
    const key = `${s.s ?? ""}|${s.b ? 1 : 0}${s.u ? 1 : 0}${s.inv ? 1 : 0}`;
    const have = this.cache.get(key);
    if (have !== undefined) return have;
    const d = this.def(s.s ?? "plain");
    let flags = 0;
    if (d.bold || s.b) flags |= 1;
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
