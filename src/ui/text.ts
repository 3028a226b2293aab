// Measuring and wrapping styled lines in terminal cells. Widths come from string-width per
// grapheme cluster (CJK and emoji take two cells, combining marks none), which is what
// terminals draw; blessed's own width tables are older and get emoji wrong.
import stringWidth from "string-width";
import type { Line, Seg } from "./style.js";

const ASCII_PRINTABLE = /^[\x20-\x7e]*$/;
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

export function isAsciiPrintable(s: string): boolean {
  return ASCII_PRINTABLE.test(s);
}

export function graphemes(s: string): string[] {
  if (isAsciiPrintable(s)) return s.split("");
  const out: string[] = [];
  for (const g of segmenter.segment(s)) out.push(g.segment);
  return out;
}

/** cells one grapheme cluster takes: 0, 1 or 2 */
export function graphemeWidth(g: string): number {
  if (g.length === 1) {
    const c = g.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) return 1;
    if (c < 0x20 || c === 0x7f) return 0;
  }
  const w = stringWidth(g);
  return w > 2 ? 2 : w;
}

export function textWidth(s: string): number {
  if (isAsciiPrintable(s)) return s.length;
  let w = 0;
  for (const g of graphemes(s)) w += graphemeWidth(g);
  return w;
}

export function lineWidth(line: Line): number {
  let w = 0;
  for (const s of line) w += textWidth(s.t);
  return w;
}

function sameStyle(a: Seg, b: Seg): boolean {
  return a.s === b.s && !!a.b === !!b.b && !!a.u === !!b.u && !!a.inv === !!b.inv;
}

function withText(style: Seg, t: string): Seg {
  const out: Seg = { t };
  if (style.s) out.s = style.s;
  if (style.b) out.b = true;
  if (style.u) out.u = true;
  if (style.inv) out.inv = true;
  return out;
}

/** merges neighbouring segments of the same style and drops empty ones */
export function compact(line: Line): Line {
  const out: Line = [];
  for (const s of line) {
    if (!s.t) continue;
    const last = out[out.length - 1];
    if (last && sameStyle(last, s)) out[out.length - 1] = withText(last, last.t + s.t);
    else out.push(s);
  }
  return out;
}

interface Unit {
  g: string;
  w: number;
  style: Seg;
}

function units(line: Line): Unit[] {
  const out: Unit[] = [];
  for (const s of line) {
    if (isAsciiPrintable(s.t)) {
      for (let i = 0; i < s.t.length; i++) out.push({ g: s.t[i]!, w: 1, style: s });
      continue;
    }
    for (const g of graphemes(s.t)) {
      const w = graphemeWidth(g);
      if (w === 0) {
        // a zero-width cluster rides along with the previous one
        const prev = out[out.length - 1];
        if (prev) prev.g += g;
        continue;
      }
      out.push({ g, w, style: s });
    }
  }
  return out;
}

function build(us: Unit[], from: number, to: number): Line {
  const out: Line = [];
  let cur: Seg | undefined;
  let text = "";
  for (let i = from; i < to; i++) {
    const u = us[i]!;
    if (cur && sameStyle(cur, u.style)) {
      text += u.g;
      continue;
    }
    if (cur && text) out.push(withText(cur, text));
    cur = u.style;
    text = u.g;
  }
  if (cur && text) out.push(withText(cur, text));
  return out;
}

export interface WrapOptions {
  /** put in front of every line after the first (a hanging indent) */
  indent?: Line;
  /** break anywhere rather than at spaces (code, tool output) */
  hard?: boolean;
  /** break at spaces but keep every character, spaces included (exact text such as inspector pages) */
  preserve?: boolean;
}

/**
 * Wraps one logical line (no newlines) to `width` cells. Breaks at spaces when it can, inside
 * a word when a word is longer than the line; never splits a grapheme cluster, and never lets
 * a wide character hang over the edge.
 */
export function wrapLine(line: Line, width: number, opts: WrapOptions = {}): Line[] {
  const w = Math.max(1, width);
  const indent = opts.indent ?? [];
  const indentW = lineWidth(indent);
  const us = units(line);
  if (us.length === 0) return [[]];
  const out: Line[] = [];
  let start = 0;
  let first = true;
  while (start < us.length) {
    const avail = Math.max(1, first ? w : w - indentW);
    let used = 0;
    let i = start;
    let lastBreak = -1; // index just after a space inside this row
    while (i < us.length) {
      const u = us[i]!;
      if (used + u.w > avail) break;
      used += u.w;
      i++;
      if (!opts.hard && u.g === " ") lastBreak = i;
    }
    let end = i;
    if (i < us.length) {
      if (i === start) end = start + 1; // a wide char on a 1-cell line: place it anyway
      else if (!opts.hard && lastBreak > start && us[i]!.g !== " ") end = lastBreak;
    }
    const row = build(us, start, end);
    const soft = !opts.hard && !opts.preserve;
    // trailing spaces at a soft break are noise
    if (end < us.length && soft) trimEnd(row);
    out.push(first ? row : [...indent, ...row]);
    first = false;
    start = end;
    // spaces that caused the break don't start the next row
    if (soft) while (start < us.length && us[start]!.g === " ") start++;
  }
  return out;
}

function trimEnd(line: Line): void {
  while (line.length) {
    const last = line[line.length - 1]!;
    const t = last.t.replace(/ +$/, "");
    if (t) {
      line[line.length - 1] = withText(last, t);
      return;
    }
    line.pop();
  }
}

/** wraps text that may contain newlines */
export function wrapText(text: string, width: number, style?: Seg["s"], opts: WrapOptions = {}): Line[] {
  const out: Line[] = [];
  for (const l of text.split("\n")) {
    const base: Line = l ? [style ? { t: l, s: style } : { t: l }] : [];
    out.push(...wrapLine(base, width, opts));
  }
  return out;
}

/** cuts a line to `width` cells, ending in "…" when something was cut */
export function truncate(line: Line, width: number, ellipsis = "…"): Line {
  if (width <= 0) return [];
  if (lineWidth(line) <= width) return line;
  const us = units(line);
  const ew = textWidth(ellipsis);
  const room = Math.max(0, width - ew);
  let used = 0;
  let i = 0;
  while (i < us.length && used + us[i]!.w <= room) used += us[i++]!.w;
  const out = build(us, 0, i);
  const lastStyle = us[Math.max(0, i - 1)]?.style;
  out.push(lastStyle ? withText(lastStyle, ellipsis) : { t: ellipsis });
  return out;
}

export function truncateText(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  return truncate([{ t: text }], width).map((s) => s.t).join("");
}

/** pads with spaces (in `fill`'s style) to exactly `width` cells, truncating if longer */
export function fit(line: Line, width: number, fill?: Seg): Line {
  const cut = truncate(line, width);
  const w = lineWidth(cut);
  if (w >= width) return cut;
  return [...cut, fill ? withText(fill, " ".repeat(width - w)) : { t: " ".repeat(width - w) }];
}

/** applies extra flags (selection) to every segment */
export function restyle(line: Line, extra: { inv?: boolean; b?: boolean }): Line {
  return line.map((s) => ({ ...s, ...(extra.inv ? { inv: true } : {}), ...(extra.b ? { b: true } : {}) }));
}

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

export function formatInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
