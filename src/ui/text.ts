// Measuring and wrapping styled lines in terminal cells. Widths come from string-width per
// grapheme cluster (CJK and emoji take two cells, combining marks none), which is what
// terminals draw; blessed's own width tables are older and get emoji wrong.
//
// Start-up: no frame waits for string-width (its module builds an ICU segmenter, ~12 ms and a
// few MB). Text made only of printable ASCII and of the SIMPLE characters below (Latin-1 and
// Latin Extended letters, general punctuation, arrows, box drawing, and the context pane's
// "≈") is measured and split here, one cell and one cluster per UTF-16 unit; a unit test
// checks that against string-width and Intl.Segmenter for every such character. A session's
// frame of such text never loads string-width; the screen loads it at the first key, or when
// a frame asked for a width sooner: that width is estimated, and takeEstimated() tells the
// screen to load string-width and draw the frame again.
import type { Line, Seg } from "./style.js";

const ASCII_PRINTABLE = /^[\x20-\x7e]*$/;
/** the characters that are one cell wide and a grapheme cluster each, in any sequence */
export const SIMPLE_CHARS =
  "\\x20-\\x7e\\u00a0-\\u00a8\\u00aa-\\u00ac\\u00af-\\u02ff\\u2010-\\u2027\\u2030-\\u203b\\u203d-\\u2048\\u204a-\\u205e" +
  "\\u2190-\\u2193\\u219a-\\u21a8\\u21ab-\\u21ff\\u2248\\u2500-\\u25a9\\u25ac-\\u25b5\\u25b7-\\u25bf\\u25c1-\\u25fa\\u25ff";
const SIMPLE = new RegExp(`^[${SIMPLE_CHARS}]*$`);
/** the same with newlines, which are clusters of their own too (the prompt's text has them) */
const SIMPLE_LINES = new RegExp(`^[\\n${SIMPLE_CHARS}]*$`);

let segmenter: Intl.Segmenter | undefined;
let exactWidth: ((s: string) => number) | undefined;
let widthLoad: Promise<void> | undefined;
let estimated = false;

/** imports string-width (once); widths are exact from when this resolves */
export function loadWidths(): Promise<void> {
  widthLoad ??= import("string-width").then((m) => {
    exactWidth = m.default;
  });
  return widthLoad;
}

/** whether widths are exact (string-width is loaded): a layout made before may hold estimates */
export function widthsExact(): boolean {
  return exactWidth !== undefined;
}

/** true once since the last call when a width was estimated (string-width had not arrived) */
export function takeEstimated(): boolean {
  const was = estimated;
  estimated = false;
  return was;
}

export function isAsciiPrintable(s: string): boolean {
  return ASCII_PRINTABLE.test(s);
}

/** one cell per UTF-16 unit, one cluster per unit: no measuring or segmenting needed */
function isSimple(s: string): boolean {
  return ASCII_PRINTABLE.test(s) || SIMPLE.test(s);
}

export function graphemes(s: string): string[] {
  if (isSimple(s)) return s.split("");
  return collect(s, NOT_SIMPLE, SIMPLE_PAIR);
}

/** grapheme clusters of any text, newlines included (the prompt editor moves over them) */
export function graphemesOf(s: string): string[] {
  if (SIMPLE_LINES.test(s)) return s.split("");
  return collect(s, NOT_SIMPLE_LINES, SIMPLE_LINES_PAIR);
}

/**
 * Two cells wide and, like the simple characters, a grapheme cluster each in any sequence:
 * kana, Han ideographs, Hangul syllables, fullwidth forms (no combining kana marks, no jamo,
 * no halfwidth forms; a unit test checks each against string-width and Intl.Segmenter). CJK
 * text is mostly these, and they need no segmenter either.
 */
export const WIDE_CHARS = "\\u3041-\\u3096\\u30a1-\\u30fa\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7a3\\uf900-\\ufa6d\\ufa70-\\ufad9\\uff01-\\uff60\\uffe0-\\uffe6";

/** the cells of a character of SIMPLE_CHARS or WIDE_CHARS (checked by the caller) */
function unitWidth(c: number): number {
  return c >= 0x3041 && c <= 0xffe6 && (c <= 0x30fa || c >= 0x3400) ? 2 : 1;
}

const NOT_SIMPLE = new RegExp(`[^${SIMPLE_CHARS}${WIDE_CHARS}]`, "g");
const SIMPLE_PAIR = new RegExp(`[${SIMPLE_CHARS}${WIDE_CHARS}]{2}`, "g");
const NOT_SIMPLE_LINES = new RegExp(`[^\\n${SIMPLE_CHARS}${WIDE_CHARS}]`, "g");
const SIMPLE_LINES_PAIR = new RegExp(`[\\n${SIMPLE_CHARS}${WIDE_CHARS}]{2}`, "g");

/** called with each cluster's start and end (UTF-16 offsets) */
type OnCluster = (start: number, end: number) => void;

function collect(s: string, other: RegExp, pair: RegExp): string[] {
  const out: string[] = [];
  eachCluster(s, other, pair, (a, b) => out.push(b - a === 1 ? s[a]! : s.slice(a, b)));
  return out;
}

/**
 * The grapheme clusters of text that mixes standalone characters (simple and wide) with
 * others: only the stretches around the others go to the segmenter, which costs ~100 times a
 * split. Between two standalone characters there is always a break (none of them joins with
 * what follows or precedes it: no marks, joiners, prepends, jamo, regional indicators or
 * pictographs), so every stretch that starts after such a pair and ends before one is
 * segmented on its own. A standalone character just before another may carry it (a letter
 * and its combining mark), so it goes with the stretch.
 */
function eachCluster(s: string, other: RegExp, pair: RegExp, on: OnCluster): void {
  for (let p = 0; p < s.length; ) {
    other.lastIndex = p;
    const q = other.exec(s)?.index ?? s.length;
    // the standalone characters before the last one ahead of the other are clusters of their own
    const start = q === s.length ? q : Math.max(p, q - 1);
    for (let i = p; i < start; i++) on(i, i + 1);
    if (start === s.length) return;
    // the stretch ends where two standalone characters meet
    pair.lastIndex = q + 1;
    const m = pair.exec(s);
    const end = m ? m.index + 1 : s.length;
    eachClusterByWindow(s, start, end, SEGMENT_WINDOW, on);
    p = end;
  }
}

/** how much of a string the segmenter is handed at once */
const SEGMENT_WINDOW = 4096;

/** the clusters of `s` a window at a time (see eachClusterByWindow); exported for its test */
export function clustersByWindow(s: string, window: number): string[] {
  const out: string[] = [];
  eachClusterByWindow(s, 0, s.length, window, (a, b) => out.push(s.slice(a, b)));
  return out;
}

/**
 * The clusters of s[from, to), which starts and ends on breaks, segmented a window at a time:
 * Node's Intl.Segmenter takes time that grows with the square of the string (80,000
 * characters: 3.4 s), so a one-line answer of a megabyte would take minutes. A break between
 * two clusters depends only on what comes before it, so every break inside a window that
 * starts on a break is a break of the whole string; the window's last cluster may go on past
 * it, and the next window starts there.
 */
function eachClusterByWindow(s: string, from: number, to: number, window: number, on: OnCluster): void {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let w = window;
  for (let p = from; p < to; ) {
    let end = Math.min(to, p + w);
    // a window never ends between the two halves of a surrogate pair
    const c = s.charCodeAt(end - 1);
    if (end < to && c >= 0xd800 && c <= 0xdbff) end++;
    let lastAt = -1;
    let lastEnd = 0;
    for (const g of segmenter.segment(p === 0 && end === s.length ? s : s.slice(p, end))) {
      if (lastAt >= 0) on(p + lastAt, p + lastEnd);
      lastAt = g.index;
      lastEnd = g.index + g.segment.length;
    }
    if (end === to) {
      on(p + lastAt, p + lastEnd);
      p = end;
    } else if (lastAt > 0) {
      p += lastAt;
      w = window;
    } else if (w < MAX_CLUSTER_WINDOW) {
      // one cluster fills the window: read it again in a wider one
      w *= 2;
    } else {
      // marks piled on one letter past any real text: cut where the window ends
      on(p + lastAt, p + lastEnd);
      p = end;
    }
  }
}

/** the widest window one cluster is read in (a hostile pile of marks is cut there) */
const MAX_CLUSTER_WINDOW = 1 << 16;

/** cells one grapheme cluster takes: 0, 1 or 2 */
export function graphemeWidth(g: string): number {
  if (g.length === 1) {
    const c = g.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) return 1;
    if (c < 0x20 || c === 0x7f) return 0;
    if (SIMPLE.test(g)) return 1;
  }
  if (!exactWidth) return Math.min(2, estimateWidth(g));
  let w = widths.get(g);
  if (w === undefined) {
    // string-width segments and classifies every cluster it is given: a CJK answer repeats
    // the same few hundred, so each is measured once
    if (widths.size >= MAX_WIDTHS) widths.clear();
    w = Math.min(2, exactWidth(g));
    widths.set(g, w);
  }
  return w;
}

/** the exact widths of clusters met so far, other than the simple ones */
const widths = new Map<string, number>();
const MAX_WIDTHS = 4096;

/**
 * A width without string-width, for a frame drawn before it arrives: marks and format
 * characters take none, East Asian wide ranges and emoji two, the rest one. Flagged, so the
 * frame is drawn again with exact widths.
 */
function estimateWidth(g: string): number {
  estimated = true;
  if (/^[\p{M}\p{Cf}\p{Cc}]+$/u.test(g)) return 0;
  const cp = g.codePointAt(0) ?? 0;
  if (g.includes("\ufe0f") || (cp >= 0x1f000 && /\p{Extended_Pictographic}/u.test(g))) return 2;
  const wide =
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
}

export function textWidth(s: string): number {
  if (isSimple(s)) return s.length;
  let w = 0;
  eachCluster(s, NOT_SIMPLE, SIMPLE_PAIR, (a, b) => {
    w += clusterWidth(s, a, b);
  });
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

/**
 * A line's grapheme clusters, each with its width and segment, as offsets into the line's
 * joined text: flat arrays rather than an object and a string per character, because a long
 * streamed line is laid out as it grows and its garbage was most of the stream's.
 */
interface Units {
  text: string;
  segs: Line;
  n: number;
  /** each unit's text is text.slice(at(i), at(i + 1)): units are contiguous. Undefined when
   * every segment is simple: unit i is then character i, one cell wide */
  at: Int32Array | undefined;
  w: Uint8Array | undefined;
  seg: Int32Array | undefined;
  /** where each segment starts in text (for a simple line's units' segments) */
  starts: number[];
}

const atOf = (us: Units, i: number): number => (us.at ? us.at[i]! : i);
const widthOf = (us: Units, i: number): number => (us.w ? us.w[i]! : 1);

/** the segment unit i is in: a simple line's by its offset (units are asked for in order, so the search starts near) */
function segOf(us: Units, i: number): number {
  if (us.seg) return us.seg[i]!;
  let k = 0;
  let hi = us.starts.length - 1;
  while (k < hi) {
    const mid = (k + hi + 1) >> 1;
    if (us.starts[mid]! <= i) k = mid;
    else hi = mid - 1;
  }
  // an empty segment starts where the next does: the unit is the later one's
  while (k + 1 < us.starts.length && us.starts[k + 1] === us.starts[k] && us.starts[k + 1]! <= i) k++;
  return k;
}

function units(line: Line): Units {
  let total = 0;
  const starts: number[] = [];
  let allSimple = true;
  for (const s of line) {
    starts.push(total);
    total += s.t.length;
    if (allSimple && !isSimple(s.t)) allSimple = false;
  }
  const text = line.length === 1 ? line[0]!.t : line.map((s) => s.t).join("");
  // a line of simple characters needs no arrays: a long one (an answer on one line) would
  // otherwise take 9 bytes a character for each layout
  if (allSimple) return { text, segs: line, n: total, at: undefined, w: undefined, seg: undefined, starts };
  const at = new Int32Array(total + 1);
  const w = new Uint8Array(total);
  const seg = new Int32Array(total);
  let n = 0;
  let off = 0;
  for (let si = 0; si < line.length; si++) {
    const t = line[si]!.t;
    if (isSimple(t)) {
      for (let i = 0; i < t.length; i++) {
        at[n] = off + i;
        w[n] = 1;
        seg[n++] = si;
      }
    } else {
      eachCluster(t, NOT_SIMPLE, SIMPLE_PAIR, (a, b) => {
        const width = clusterWidth(t, a, b);
        // a zero-width cluster rides along with the unit before it (none: it is left out)
        if (width === 0) return;
        at[n] = off + a;
        w[n] = width;
        seg[n++] = si;
      });
    }
    off += t.length;
  }
  at[n] = total;
  return { text, segs: line, n, at, w, seg, starts };
}

/** the cells of the cluster s[a, b) */
function clusterWidth(s: string, a: number, b: number): number {
  if (b - a === 1) {
    const c = s.charCodeAt(a);
    if (c >= 0x20 && c < 0x7f) return 1;
    if (STANDALONE.test(s[a]!)) return unitWidth(c);
  }
  return graphemeWidth(s.slice(a, b));
}
const STANDALONE = new RegExp(`[${SIMPLE_CHARS}${WIDE_CHARS}]`);

function isSpace(us: Units, i: number): boolean {
  const a = atOf(us, i);
  return atOf(us, i + 1) - a === 1 && us.text.charCodeAt(a) === 32;
}

function build(us: Units, from: number, to: number): Line {
  const out: Line = [];
  let i = from;
  while (i < to) {
    const si = segOf(us, i);
    const style = us.segs[si]!;
    let j = i + 1;
    if (us.seg) {
      while (j < to && (us.seg[j] === si || sameStyle(style, us.segs[us.seg[j]!]!))) j++;
    } else {
      // a simple line's units run segment by segment: jump to the next segment's start
      let k = si + 1;
      for (;;) {
        const next = k < us.starts.length ? us.starts[k]! : us.n;
        if (next >= to) {
          j = to;
          break;
        }
        const empty = (k + 1 < us.starts.length ? us.starts[k + 1]! : us.n) === next;
        if (next > i && !empty && !sameStyle(style, us.segs[k]!)) {
          j = Math.max(i + 1, next);
          break;
        }
        k++;
      }
    }
    out.push(withText(style, us.text.slice(atOf(us, i), atOf(us, j))));
    i = j;
  }
  return out;
}

interface WrapOptions {
  /** put in front of every line after the first (a hanging indent) */
  indent?: Line;
  /** break anywhere rather than at spaces (code, tool output) */
  hard?: boolean;
  /** break at spaces but keep every character, spaces included (exact text such as inspector pages) */
  preserve?: boolean;
  /** rows after the first start under the line's own leading spaces (code keeps its indent) */
  keepIndent?: boolean;
}

/**
 * Wraps one logical line (no newlines) to `width` cells. Breaks at spaces when it can, inside
 * a word when a word is longer than the line; never splits a grapheme cluster, and never lets
 * a wide character hang over the edge.
 */
export function wrapLine(line: Line, width: number, opts: WrapOptions = {}): Line[] {
  const w = Math.max(1, width);
  const us = units(line);
  if (us.n === 0) return [[]];
  let indent = opts.indent ?? [];
  if (opts.keepIndent) {
    let lead = 0;
    while (lead < us.n && isSpace(us, lead)) lead++;
    // an indent of half the width or more would leave too little room to be worth keeping
    if (lead > 0 && lead < us.n && lead * 2 < w) indent = [...indent, { t: " ".repeat(lead) }];
  }
  const indentW = lineWidth(indent);
  const out: Line[] = [];
  let start = 0;
  let first = true;
  while (start < us.n) {
    const avail = Math.max(1, first ? w : w - indentW);
    let used = 0;
    let i = start;
    let lastBreak = -1; // index just after a space inside this row
    while (i < us.n) {
      const uw = widthOf(us, i);
      if (used + uw > avail) break;
      used += uw;
      i++;
      if (!opts.hard && isSpace(us, i - 1)) lastBreak = i;
    }
    let end = i;
    if (i < us.n) {
      if (i === start) end = start + 1; // a wide char on a 1-cell line: place it anyway
      else if (!opts.hard && lastBreak > start && !isSpace(us, i)) end = lastBreak;
      // kept exactly, a row must not start with the space that did not fit: the break goes
      // at the space before it
      else if (opts.preserve && isSpace(us, i) && lastBreak > start) end = lastBreak;
    }
    const row = build(us, start, end);
    const soft = !opts.hard && !opts.preserve;
    // trailing spaces at a soft break are noise
    if (end < us.n && soft) trimEnd(row);
    out.push(first ? row : [...indent, ...row]);
    first = false;
    start = end;
    // spaces that caused the break don't start the next row
    if (soft) while (start < us.n && isSpace(us, start)) start++;
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
  while (i < us.n && used + widthOf(us, i) <= room) used += widthOf(us, i++);
  const out = build(us, 0, i);
  const lastStyle = us.n > 0 ? us.segs[segOf(us, Math.max(0, i - 1))] : undefined;
  out.push(lastStyle ? withText(lastStyle, ellipsis) : { t: ellipsis });
  return out;
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

/** the lines of `s`: one more than its newlines */
export function countLines(s: string): number {
  let n = 1;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** the first `lines` lines of `s`, at most `maxChars` of it, without the last newline */
export function firstLines(s: string, lines: number, maxChars: number): string {
  let end = 0;
  for (let k = 0; k < lines; k++) {
    const i = s.indexOf("\n", end);
    if (i < 0) {
      end = s.length;
      break;
    }
    end = i + 1;
  }
  return s.slice(0, Math.min(end, maxChars)).replace(/\n$/, "");
}

/** `s` cut to its first `maxLines` lines, and how many more it had */
export function capText(s: string, maxLines: number): { text: string; more: number } {
  const all = countLines(s);
  if (all <= maxLines) return { text: s, more: 0 };
  return { text: firstLines(s, maxLines, Number.MAX_SAFE_INTEGER), more: all - maxLines };
}

export { formatInt } from "../record/numbers.js";
