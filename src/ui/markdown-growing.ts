// The Markdown of an answer that is still arriving, laid out as it grows, at a cost linear in
// the answer whatever its shape. Laying the whole text out again for every frame makes a long
// answer quadratic: a 200,000-word answer would lex and wrap all 1.2 MB of it per frame.
//
// Two kinds of cut keep that from happening, both giving exactly the lines renderMarkdown gives
// for the whole text (test/unit/ui-markdown-growing.test.ts checks every prefix):
//
// - Between top-level blocks (Boundaries): the text before the last blank line after which
//   nothing can continue the block before it is laid out once and kept. Top-level blocks are
//   laid out independently with one blank line between them.
// - Inside the block still open (a paragraph, a quote, a list, fenced code, a table): the lines
//   (or, in a paragraph, the wrapped rows) that later text cannot change are laid out once as
//   a piece and kept; a frame lays out only the open tail, the line or row still growing. A
//   piece is cut only where the rules of its kind say the whole block's lines are the pieces'
//   lines one after the other (a paragraph's plain text wraps row by row; a tight list's items,
//   a table's rows, plain code's lines are laid out each on its own), the cut is checked against
//   the tail's layout when it is made, and every frame checks that the tail still continues the
//   pieces as laid out (a setext underline, a list turning loose): when it does not, the block
//   is laid out again from its start. A table's column widths and a list's marker width,
//   which depend on every row, are carried as hints; when a row needs more, the block is laid
//   out again once with the new widths.
//
// Anything else (a reference definition, another width, text that does not continue the last)
// starts again from the whole text, which is never wrong, only slower.
import type { Token, Tokens } from "marked";
import { highlighterLoaded, MAX_HIGHLIGHT } from "./highlight.js";
import { layOutMarkdown, type LayoutHints } from "./markdown.js";
import type { Line } from "./style.js";
import { widthsExact } from "./text.js";

/** a line that opens or closes fenced code: up to 3 spaces, then ``` or ~~~; a backtick fence
 * has no backtick after it on its line (CommonMark, marked): "``` a`b" is text, not a fence */
const FENCE = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
/** a reference definition (or footnote): it may define a link anywhere above it, so text that
 * has one is laid out whole */
const DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;
/** a line that may start an HTML block (CommonMark's seven kinds). Kinds 1-5 run on across
 * blank lines to an end marker, and whether such a line opens one depends on whether a kind 6/7
 * block (running to a blank line) is already open around it: rather than follow that, no cut is
 * taken after such a line, which is never wrong, only slower for an answer with raw HTML */
const HTML_START = /^ {0,3}<[A-Za-z/!?]/;
/** what inert() removes: a cut must not fall inside a control sequence */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** a line that looks like a list item at any depth: after a blank line it may continue a list */
const LISTISH = /^\s*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
/** an indented line: after a blank line it continues a list item or indented code */
const INDENTED = /^[ \t]/;
/** characters whose meaning may reach across a line or a row (emphasis, code spans, links,
 * HTML, escapes, tables, entities): a piece of a paragraph has none of them */
const UNSAFE = /[*_`~[\]<>\\|&]/;
/** text that starts a paragraph line and nothing else: a letter, or digits not making a list marker */
const PARA_START = /^(?:\p{L}|\p{N}{1,9}[^\p{N}.)])/u;
const QUOTE = /^(?:> ?)+/;
/** how much of a long line's start is kept to know what block it begins */
const HEAD = 1100;
const BULLET = /^([-*+]) +\S/;
const NUMBERED = /^\d{1,9}([.)]) +\S/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const TABLE_RULE = /^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

type Kind = "para" | "quote" | "list" | "olist" | "code" | "table" | "other";

/** the top-level block still open: its kept pieces, and how its tail is laid out after them */
interface Open {
  /** where the block starts in the raw text */
  start: number;
  /** where its tail starts: the pieces are raw[start, end) */
  end: number;
  kind: Kind;
  /** the pieces' lines, decorated */
  lines: Line[];
  /** text put before the tail so that it lexes as the same block (code's fence, a table's header) */
  reopen: string;
  /** lines of the tail's layout that are the reopen text's own */
  drop: number;
  /** the quote's markers; the list's bullet or delimiter; the code's fence line */
  mark: string;
  tableWidths?: number[] | undefined;
  markerW?: number | undefined;
  /** the code is shown plain: it has no language, or the whole is longer than is coloured */
  plain: boolean;
  /** the characters of code in the pieces (each piece's code and the line break after it) */
  codeLen: number;
  /** no more pieces are cut from this block */
  stuck: boolean;
}

export class GrowingMarkdown {
  private width = -1;
  /** the length of the raw text laid out in `done` */
  private prefix = 0;
  private done: Line[] = [];
  private open: Open | undefined;
  private bounds = new Boundaries();
  /** a reference definition was seen: the whole text is laid out every time */
  private whole = false;
  /** where to look for a reference definition next time (the start of the last line seen) */
  private defFrom = 0;
  /** how far the last line was searched for its end */
  private defEnd = 0;
  /** the highlighter was there when what is kept was laid out (else code in it may be plain) */
  private coloured = false;
  /** string-width was there when what is kept was laid out (else some widths were estimates) */
  private exact = false;
  private prep: (s: string) => string = (s) => s;
  private deco: (l: Line) => Line = (l) => l;

  /** the text the caller says goes on from the last one laid out (see grew), and the window of it */
  private grown: string | undefined;
  private grownWin: string | undefined;
  /** the last text laid out */
  private seen: string | undefined;
  /**
   * The part of the text still read: from `base` on. Offsets here (prefix, the open block's,
   * the scanners') count from `base`. Reading a long answer's text at all (a slice, a search)
   * makes V8 copy the whole string it was built into by appending, so each frame reads only
   * this window, kept up to date from the deltas (grew).
   */
  private base = 0;
  private win = "";
  /** how far offsets have moved up as the window widened (see widen) */
  private moved = 0;

  /**
   * The caller's word that `after` is `before` with `delta` added at its end. When `before` is
   * the text laid out last (or said to have grown from it), the next render of `after` reads
   * only the delta instead of the whole text.
   */
  grew(before: string, after: string, delta: string): void {
    if (this.seen === undefined) return;
    if (before === this.grown) {
      this.grown = after;
      this.grownWin += delta;
    } else if (before === this.seen) {
      this.grown = after;
      this.grownWin = this.win + delta;
    }
  }

  /**
   * Lines of `raw` at `width`; `prep` makes raw text safe to show (inert) and `deco` decorates
   * each line (a gutter): both run once for the kept part.
   */
  render(raw: string, width: number, prep: (s: string) => string, deco: (l: Line) => Line = (l) => l): Line[] {
    this.prep = prep;
    this.deco = deco;
    // code laid out plain while the highlighter was loading is laid out again once it is there
    const coloured = highlighterLoaded();
    // and what was laid out with estimated widths, once the exact ones are there
    const exact = widthsExact();
    const same = width === this.width && coloured === this.coloured && exact === this.exact;
    let text: string;
    if (same && raw === this.grown && this.grownWin !== undefined) text = this.grownWin;
    else if (same && this.seen !== undefined && raw.startsWith(this.seen)) text = raw.slice(this.base);
    else {
      this.width = width;
      this.coloured = coloured;
      this.exact = exact;
      this.base = 0;
      this.prefix = 0;
      this.done = [];
      this.open = undefined;
      this.defFrom = 0;
      this.defEnd = 0;
      this.bounds = new Boundaries();
      text = raw;
    }
    this.grown = undefined;
    this.grownWin = undefined;
    this.seen = raw;
    this.win = text;
    if (!this.whole && this.definitions(text)) {
      this.whole = true;
      this.prefix = 0;
      this.done = [];
      this.open = undefined;
    }
    if (this.whole) {
      this.base = 0;
      this.win = raw;
      return layOutMarkdown(prep(raw), width).lines.map(deco);
    }

    const cut = this.bounds.last(text);
    if (cut > this.prefix) {
      const moved = this.moved;
      const lines = this.layChunk(cut);
      if (lines) {
        if (lines.length) {
          if (this.done.length) this.done.push(deco([]));
          for (const l of lines) this.done.push(l);
        }
        this.prefix = cut + (this.moved - moved);
        this.open = undefined;
      }
    }
    if (!this.open) this.open = { start: this.prefix, end: this.prefix, kind: "other", lines: [], reopen: "", drop: 0, mark: "", plain: false, codeLen: 0, stuck: false };
    let tail = this.layTail(this.win.length);
    tail = this.advance(tail);
    this.rebase();

    const gap = this.done.length && (this.open.lines.length || tail.length) ? [deco([])] : [];
    return this.done.concat(gap, this.open.lines, tail.map(deco));
  }

  /** the window again from the open block's start (rare: its pieces are laid out again) */
  private widen(upTo: number): number {
    const o = this.open!;
    const back = -o.start;
    const end = upTo + back;
    this.base -= back;
    this.win = this.seen!.slice(this.base);
    this.prefix += back;
    o.start += back;
    o.end += back;
    this.defFrom += back;
    this.defEnd += back;
    this.bounds.shift(-back);
    this.moved += back;
    return end;
  }

  /** drops from the window what no later frame reads */
  private rebase(): void {
    const o = this.open!;
    const need = Math.min(o.end > o.start ? o.end : o.start, this.bounds.need(), this.defFrom === -Infinity ? this.defEnd : this.defFrom);
    // moving a short way is not worth the copy
    if (need < 4096) return;
    this.win = this.win.slice(need);
    this.base += need;
    this.prefix -= need;
    o.start -= need;
    o.end -= need;
    this.defFrom -= need;
    this.defEnd -= need;
    this.bounds.shift(need);
  }

  /** whether a line read since the last call starts a reference definition; each line is read once, and only its start */
  private definitions(raw: string): boolean {
    for (;;) {
      // a definition's label is at most 999 characters: the start of a line says it all, and a
      // line longer than that is not read again until it ends
      if (this.defFrom >= 0 && DEFINITION.test(raw.slice(this.defFrom, this.defFrom + 1100).split("\n", 1)[0]!)) return true;
      const nl = raw.indexOf("\n", Math.max(this.defFrom, this.defEnd));
      if (nl === -1) {
        this.defEnd = raw.length;
        if (this.defEnd - this.defFrom > 1100) this.defFrom = -Infinity;
        return false;
      }
      this.defFrom = nl + 1;
      this.defEnd = nl + 1;
    }
  }

  /** the decorated lines of raw[prefix, cut), the open block's pieces reused; undefined when a control sequence may straddle the cut */
  private layChunk(cut: number): Line[] | undefined {
    const raw = this.win;
    const o = this.open;
    const from = o && o.end > o.start ? o.end : this.prefix;
    if (CONTROL.test(raw.slice(from, cut))) return undefined;
    if (!o || o.end === o.start) return layOutMarkdown(this.prep(raw.slice(this.prefix, cut)), this.width).lines.map(this.deco);
    const tail = this.layTail(cut);
    return [...o.lines, ...tail.map(this.deco)];
  }

  private hints(o: Open): LayoutHints & { facts: NonNullable<LayoutHints["facts"]> } {
    return { tableWidths: o.tableWidths, markerW: o.markerW, plainCode: o.plain, facts: {} };
  }

  /** the open block's tail up to `upTo`, laid out (undecorated); the pieces are dropped when the tail no longer continues them */
  private layTail(upTo: number): Line[] {
    const o = this.open!;
    for (;;) {
      const raw = this.win;
      const pieces = o.end > o.start;
      const src = pieces ? o.reopen + raw.slice(o.end, upTo) : raw.slice(o.start, upTo);
      const hints = this.hints(o);
      const r = layOutMarkdown(this.prep(src), this.width, hints);
      if (!pieces) {
        this.facts = hints.facts;
        this.first = firstBlock(r.tokens);
        return r.lines;
      }
      const first = firstBlock(r.tokens);
      let fit = fits(o, first, hints.facts);
      if (fit === "ok" && o.kind === "code" && !o.plain && o.codeLen + (first as Tokens.Code).text.replace(/\n+$/, "").length > MAX_HIGHLIGHT) {
        // the whole is now longer than is coloured: it is all shown plain, the pieces too
        o.plain = true;
        fit = "wider";
      }
      if (fit === "ok") {
        this.facts = hints.facts;
        return r.lines.slice(o.drop);
      }
      // lay the block out again from its start: with the wider columns or markers it needs now,
      // or, when it has turned into something else, as a whole from now on
      if (fit === "wider") {
        const tw = hints.facts.tableWidths ?? [];
        o.tableWidths = tw.map((w, i) => Math.max(w, o.tableWidths?.[i] ?? 0));
        o.markerW = Math.max(o.markerW ?? 0, hints.facts.markerW ?? 0);
      } else {
        o.stuck = true;
      }
      o.end = o.start;
      o.lines = [];
      o.reopen = "";
      o.drop = 0;
      o.codeLen = 0;
      // the block's start may have left the window: read it again from the whole text
      if (o.start < 0) upTo = this.widen(upTo);
    }
  }

  /** what the last tail's layout found its block needs (a table's widths, a list's markers) */
  private facts: NonNullable<LayoutHints["facts"]> = {};
  /** the first block of the last tail laid out from the block's start */
  private first: Token | undefined;

  /** cuts a piece off the open block's tail when one can be; the tail's lines after it */
  private advance(tail: Line[]): Line[] {
    const raw = this.win;
    const o = this.open!;
    if (o.stuck) return tail;
    const pieces = o.end > o.start;
    if (!pieces && !classify(raw, o)) return tail;
    if (o.kind === "other") return tail;
    const t = raw.slice(o.end);
    const c = o.kind === "para" ? rowCut(t, tail) : lineCut(o, t, pieces);
    if (c <= 0) return tail;
    if (!pieces) {
      // code longer than is coloured is shown plain as a whole: so are its pieces
      if (o.kind === "code" && this.first?.type === "code" && (this.first as Tokens.Code).text.replace(/\n+$/, "").length > MAX_HIGHLIGHT) o.plain = true;
      // the widths the whole block needs so far: the pieces are laid out with them
      if (o.kind === "table") o.tableWidths = this.facts.tableWidths;
      if (o.kind === "olist") o.markerW = this.facts.markerW;
    }
    const head = pieces ? o.reopen : "";
    const pieceText = o.kind === "para" ? t.slice(0, c).replace(/\s+$/, "") : t.slice(0, c);
    const hp = this.hints(o);
    const piece = layOutMarkdown(this.prep(head + pieceText), this.width, hp);
    const blocks = (piece.tokens ?? []).filter((x) => x.type !== "space");
    if (blocks.length !== 1 || fits(o, blocks[0], hp.facts) !== "ok") {
      o.stuck = true;
      return tail;
    }
    const pieceLines = piece.lines.slice(head ? o.drop : 0);
    const reopen = o.kind === "code" ? `${o.mark}\n` : o.kind === "table" ? tableHead(o.mark) : "";
    const drop = o.kind === "table" ? 2 : 0;
    const hr = this.hints(o);
    const rest = layOutMarkdown(this.prep(reopen + t.slice(c)), this.width, hr);
    const restLines = rest.lines.slice(drop);
    // the cut must give the lines the tail gives now; if not, this block is not cut again
    if (pieceLines.length + restLines.length !== tail.length || !pieceLines.every((l, i) => sameLine(l, tail[i]!)) || !restLines.every((l, i) => sameLine(l, tail[pieceLines.length + i]!))) {
      o.stuck = true;
      return tail;
    }
    for (const l of pieceLines) o.lines.push(this.deco(l));
    if (o.kind === "code") o.codeLen += (blocks[0] as Tokens.Code).text.length + 1;
    o.end += c;
    o.reopen = reopen;
    o.drop = drop;
    return restLines;
  }
}

/** the first block a layout's tokens hold */
function firstBlock(tokens: Token[] | undefined): Token | undefined {
  return tokens?.find((x) => x.type !== "space");
}

/** whether a tail's (or piece's) first block continues the open block as its pieces were laid out */
function fits(o: Open, tok: Token | undefined, facts: NonNullable<LayoutHints["facts"]>): "ok" | "wider" | "other" {
  if (!tok) return "other";
  switch (o.kind) {
    case "para":
      return tok.type === "paragraph" ? "ok" : "other";
    case "quote":
      return quoteDepth(tok) === o.mark.replace(/ /g, "").length ? "ok" : "other";
    case "list":
    case "olist": {
      const l = tok as Tokens.List;
      if (tok.type !== "list" || l.loose || l.ordered !== (o.kind === "olist")) return "other";
      return o.kind === "olist" && (facts.markerW ?? 0) > (o.markerW ?? 0) ? "wider" : "ok";
    }
    case "code":
      return tok.type === "code" && (tok as Tokens.Code).codeBlockStyle !== "indented" ? "ok" : "other";
    case "table": {
      if (tok.type !== "table" || !facts.grid) return "other";
      const tw = facts.tableWidths ?? [];
      if (tw.length !== (o.tableWidths ?? []).length) return "other";
      return tw.some((w, i) => w > (o.tableWidths?.[i] ?? 0)) ? "wider" : "ok";
    }
    case "other":
      return "other";
  }
}

/** how many quotes deep a paragraph sits, each holding only the next (0: not such a quote) */
function quoteDepth(tok: Token): number {
  let depth = 0;
  let t: Token | undefined = tok;
  while (t && t.type === "blockquote") {
    depth++;
    const inner: Token[] = (t as Tokens.Blockquote).tokens.filter((x) => x.type !== "space");
    t = inner[0];
  }
  return t && t.type === "paragraph" ? depth : 0;
}

/** The open block's kind, from its first lines; false while they are too short to tell. */
function classify(raw: string, o: Open): boolean {
  const nl = raw.indexOf("\n", o.start);
  const first = raw.slice(o.start, nl === -1 ? raw.length : nl);
  o.kind = "other";
  const fence = FENCE.exec(first);
  if (fence) {
    if (nl === -1) return false;
    o.kind = "code";
    o.mark = first;
    o.plain = !first.slice(fence[0].length).trim();
    return true;
  }
  const q = QUOTE.exec(first);
  if (q) {
    if (PARA_START.test(first.slice(q[0].length))) {
      o.kind = "quote";
      o.mark = q[0];
    }
    return true;
  }
  if (nl !== -1 && HR.test(first)) return true;
  const b = BULLET.exec(first) ?? NUMBERED.exec(first);
  if (b) {
    if (nl === -1) return false;
    o.kind = BULLET.test(first) ? "list" : "olist";
    o.mark = b[1]!;
    return true;
  }
  if (first.startsWith("|")) {
    const nl2 = nl === -1 ? -1 : raw.indexOf("\n", nl + 1);
    if (nl2 === -1) return false;
    if (TABLE_RULE.test(raw.slice(nl + 1, nl2))) {
      o.kind = "table";
      o.mark = raw.slice(o.start, nl2 + 1);
    }
    return true;
  }
  if (PARA_START.test(first)) o.kind = "para";
  return true;
}

/**
 * In a paragraph's tail `t`, laid out as `rows`: the start of the last row that later text
 * cannot change, with only plain text before it, or 0. A row starts after a space or a line
 * break, and its text is the source's from there: greedy wrapping lays out each row from where
 * the last ended, so rows before it stay as they are.
 */
function rowCut(t: string, rows: Line[]): number {
  let pos = 0;
  let best = 0;
  for (const row of rows) {
    const text = row.map((s) => s.t).join("");
    if (!text) break;
    if (pos > 0 && (t[pos - 1] === " " || t[pos - 1] === "\n") && PARA_START.test(t.slice(pos, pos + 11))) best = pos;
    if (!t.startsWith(text, pos) || UNSAFE.test(text) || CONTROL.test(text)) break;
    pos += text.length;
    let spaces = 0;
    while (t[pos] === " ") {
      pos++;
      spaces++;
    }
    if (t[pos] === "\n") {
      // a line ending in spaces may be a hard break: no cut after it
      if (spaces > 0) break;
      pos++;
    }
  }
  return best;
}

/** In the tail `t` of a quote, list, code or table: the start of the last line a piece can end before, or 0. */
function lineCut(o: Open, t: string, pieces: boolean): number {
  let best = 0;
  let at = 0;
  let i = 0;
  let prevBlank = true;
  while (at < t.length) {
    const nl = t.indexOf("\n", at);
    if (nl === -1) break;
    const line = t.slice(at, nl);
    const blank = !line.trim();
    // a candidate: line i starts a piece's successor and the lines before it make a piece
    if (i > 0 && !prevBlank && startsLine(o, line, i, pieces)) best = at;
    if (!pieceLine(o, line, i, pieces)) break;
    prevBlank = blank;
    at = nl + 1;
    i++;
  }
  // the growing line may start the next piece when its start already says so
  // (a line of code once it has something no closing fence has)
  const growing = t.slice(at);
  if (at < t.length && i > 0 && !prevBlank && (o.kind !== "code" || /[^`~ ]/.test(growing)) && startsLine(o, growing, i, pieces)) best = at;
  return best;
}

/** whether a line can start the tail after a cut */
function startsLine(o: Open, line: string, i: number, pieces: boolean): boolean {
  switch (o.kind) {
    case "quote": {
      const q = QUOTE.exec(line);
      return q !== null && q[0] === o.mark && PARA_START.test(line.slice(q[0].length));
    }
    case "list": {
      const b = BULLET.exec(line);
      return b !== null && b[1] === o.mark;
    }
    case "olist": {
      const b = NUMBERED.exec(line);
      return b !== null && b[1] === o.mark;
    }
    case "code":
      // a blank line may be the last before the fence closes (trailing blank lines are not shown)
      return (pieces || i >= 2) && line.trim() !== "" && !closes(o, line);
    case "table":
      return (pieces || i >= 3) && line.startsWith("|");
    default:
      return false;
  }
}

/** whether a whole line may be part of a piece */
function pieceLine(o: Open, line: string, i: number, pieces: boolean): boolean {
  if (CONTROL.test(line)) return false;
  switch (o.kind) {
    case "quote": {
      const q = QUOTE.exec(line);
      if (q === null || q[0] !== o.mark) return false;
      const content = line.slice(q[0].length);
      return content.trim() !== "" && !UNSAFE.test(content) && !/ $/.test(content);
    }
    case "list":
    case "olist":
      // the item's own lines (indented or lazy text) and items; no blank line (a loose list),
      // nothing that runs across lines (fences, HTML, definitions), nothing that ends the list
      if (!line.trim() || /^\s*(?:`{3,}|~{3,}|<|\[)/.test(line)) return false;
      if (startsLine(o, line, i, pieces) || (i === 0 && !pieces)) return true;
      return INDENTED.test(line) || /^\p{L}/u.test(line);
    case "code":
      // the opening fence is the first piece's first line; a closing one ends the block
      return (i === 0 && !pieces) || !closes(o, line);
    case "table":
      return line.startsWith("|") || (!pieces && i < 2);
    default:
      return false;
  }
}

/** A table's header for laying out its later rows: one letter a column and its alignment row.
 * The rows are laid out with the whole table's widths (hints), and the header's lines are dropped. */
function tableHead(head: string): string {
  const rule = head.slice(head.indexOf("\n") + 1);
  const cols = rule.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").length;
  return `|${"a|".repeat(cols)}\n${rule}`;
}

/** whether a line closes the open code's fence: at least as many of its character, nothing after */
function closes(o: Open, line: string): boolean {
  const open = FENCE.exec(o.mark)![1]!;
  const f = FENCE.exec(line);
  return f !== null && f[1]![0] === open[0] && f[1]!.length >= open.length && !line.slice(f[0].length).trim();
}

function sameLine(a: Line, b: Line): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.t !== y.t || x.s !== y.s || !x.b !== !y.b || !x.u !== !y.u || !x.inv !== !y.inv) return false;
  }
  return true;
}

/**
 * Finds the start of the last line that begins a top-level block nothing later can change (see
 * GrowingMarkdown): a line after a blank one, outside fenced code, that cannot continue the
 * block before it. It reads each complete line once, keeping where it was between calls: the
 * text it is given must extend the text it read (GrowingMarkdown checks that).
 */
class Boundaries {
  /** the start of the first line not read yet */
  pos = 0;
  private best = 0;
  private fence: string | undefined;
  private blank = false;
  // what may follow a blank line and still belong to the block before it: a list's items and
  // indented lines, indented code's indented lines
  private listy = false;
  private indented = false;
  /** an HTML line was read: no cut after it (see HTML_START) */
  private halted = false;
  /** how far the line at `pos` was searched for its end */
  private searched = 0;
  /** the first characters of the line at `pos` once it is long: the rest of it is not read again */
  private head: string | undefined;

  /** where the window must start for the next call */
  need(): number {
    return this.head === undefined ? this.pos : this.searched;
  }

  private startsNew(line: string): boolean {
    if (line.startsWith("[")) return false;
    if (INDENTED.test(line)) return !this.listy && !this.indented;
    if (LISTISH.test(line)) return !this.listy;
    return true;
  }

  /** the text now starts `n` characters later */
  shift(n: number): void {
    this.pos -= n;
    this.best -= n;
    this.searched -= n;
  }

  last(text: string): number {
    while (!this.halted && this.pos < text.length) {
      const at = this.pos;
      const nl = text.indexOf("\n", Math.max(at, this.searched));
      if (nl === -1) {
        this.searched = text.length;
        if (this.head === undefined && this.searched - at > HEAD) this.head = text.slice(at, at + HEAD);
        if (this.head !== undefined) break;
        // the last line is still growing: a boundary once its start can no longer change what
        // it is (the longest list marker is 11 characters: nine digits, ".", a space)
        const start = text.slice(at, at + 12);
        if (this.blank && !this.fence && start.length === 12 && start.trim() && this.startsNew(start)) return at;
        break;
      }
      // a long line is known by its start: what decides a block is there (a line of spaces
      // longer than that is taken for text that may hide anything: no cut after it)
      const line = this.head ?? text.slice(at, nl);
      this.head = undefined;
      if (line.length >= HEAD && !line.trim()) this.halted = true;
      const f = FENCE.exec(line);
      if (this.fence !== undefined) {
        // a fence closes with at least as many of the same character, and nothing after them
        if (f && f[1]![0] === this.fence[0] && f[1]!.length >= this.fence.length && !line.slice(f[0].length).trim()) this.fence = undefined;
      } else {
        if (this.blank && line.trim() && this.startsNew(line)) {
          this.best = at;
          this.listy = false;
          this.indented = false;
        }
        // indented code may start after a blank line or after a heading: any indented line counts
        if (line.trim() && INDENTED.test(line)) this.indented = true;
        if (LISTISH.test(line)) this.listy = true;
        if (f) this.fence = f[1];
        // a cut before the HTML block is still sound; none after it (see HTML_START)
        else if (HTML_START.test(line)) this.halted = true;
      }
      this.blank = !line.trim();
      this.pos = nl + 1;
      this.searched = nl + 1;
    }
    return this.best;
  }
}
