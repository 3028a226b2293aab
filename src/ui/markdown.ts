// Assistant markdown → styled terminal lines, using marked's lexer only (no HTML renderer).
// The caller passes text that is already inert; everything here is layout.
import { Lexer, type MarkedToken, type Token, type Tokens } from "marked";
import { highlightCode } from "./highlight.js";
import type { Line, Seg, StyleName } from "./style.js";
import { lineWidth, textWidth, truncate, wrapLine } from "./text.js";

interface InlineStyle {
  s?: StyleName;
  b?: boolean;
  u?: boolean;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&nbsp;": " " };

function decode(t: string): string {
  return t.includes("&") ? t.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (m) => ENTITIES[m] ?? m) : t;
}

function mk(t: string, st: InlineStyle): Seg {
  const out: Seg = { t };
  if (st.s) out.s = st.s;
  if (st.b) out.b = true;
  if (st.u) out.u = true;
  return out;
}

function inline(tokens: Token[] | undefined, st: InlineStyle, out: Line): void {
  for (const tok of tokens ?? []) {
    const t = tok as MarkedToken;
    switch (t.type) {
      case "text":
      case "escape":
        if ("tokens" in t && t.tokens && t.tokens.length) inline(t.tokens, st, out);
        else out.push(mk(decode(t.text), st));
        break;
      case "strong":
        inline(t.tokens, { ...st, b: true }, out);
        break;
      case "em":
        inline(t.tokens, { ...st, s: st.s ?? "em" }, out);
        break;
      case "codespan":
        out.push(mk(decode(t.text), { ...st, s: "code" }));
        break;
      case "del": {
        // the terminal cannot strike text out everywhere, so the markers stay, as written:
        // marked reads "~x~" and "~~x~~" alike, so the raw text says which one was typed
        const marker = /^~+/.exec(t.raw)?.[0] ?? "~~";
        out.push(mk(marker, { s: "dim" }));
        inline(t.tokens, { ...st, s: "dim" }, out);
        out.push(mk(marker, { s: "dim" }));
        break;
      }
      case "link": {
        inline(t.tokens, { ...st, s: "link" }, out);
        const label = t.tokens.map((x) => ("text" in x ? String(x.text) : "")).join("");
        if (t.href && t.href !== label && `mailto:${label}` !== t.href) out.push(mk(` (${t.href})`, { s: "dim" }));
        break;
      }
      case "image":
        out.push(mk(`[image: ${decode(t.text) || t.href}]`, { s: "dim" }));
        break;
      case "br":
        out.push({ t: "\n" });
        break;
      case "html":
        out.push(mk(t.text, { ...st, s: "dim" }));
        break;
      case "checkbox":
        out.push(mk(t.checked ? "[x] " : "[ ] ", st));
        break;
      case "blockquote":
      case "code":
      case "def":
      case "heading":
      case "hr":
      case "list":
      case "list_item":
      case "paragraph":
      case "space":
      case "table":
        // block tokens do not occur inline; show their source rather than lose it
        out.push(mk(t.raw, st));
        break;
      default: {
        // not assertNever: a token kind a later marked adds is shown as its source, not thrown
        const unknown: never = t;
        out.push({ t: String((unknown as Token).raw ?? "") });
      }
    }
  }
}

/** splits an inline line at embedded newlines (soft and hard breaks are kept as breaks) */
function splitLines(line: Line): Line[] {
  const out: Line[] = [[]];
  for (const s of line) {
    if (!s.t.includes("\n")) {
      out[out.length - 1]!.push(s);
      continue;
    }
    s.t.split("\n").forEach((part, i) => {
      if (i > 0) out.push([]);
      if (part) out[out.length - 1]!.push({ ...s, t: part });
    });
  }
  return out;
}

function inlineWrapped(tokens: Token[] | undefined, st: InlineStyle, width: number): Line[] {
  const line: Line = [];
  inline(tokens, st, line);
  const out: Line[] = [];
  for (const l of splitLines(line)) out.push(...wrapLine(l, width));
  return out;
}

function prefixed(lines: Line[], first: Line, rest: Line): Line[] {
  return lines.map((l, i) => [...(i === 0 ? first : rest), ...l]);
}

function renderCode(t: Tokens.Code, width: number): Line[] {
  const code = t.text.replace(/\n+$/, "");
  const logical = highlightCode(code, t.codeBlockStyle === "indented" ? undefined : t.lang);
  const indent: Line = [{ t: "  " }];
  const out: Line[] = [];
  for (const l of logical) {
    for (const row of wrapLine(l, Math.max(1, width - 2), { hard: true, keepIndent: true })) out.push([...indent, ...row]);
  }
  return out;
}

function renderTable(t: Tokens.Table, width: number): Line[] {
  const cell = (c: Tokens.TableCell, header: boolean): Line => {
    const l: Line = [];
    inline(c.tokens, header ? { b: true } : {}, l);
    return l.map((s) => ({ ...s, t: s.t.replace(/\n/g, " ") }));
  };
  const head = t.header.map((c) => cell(c, true));
  const rows = t.rows.map((r) => r.map((c) => cell(c, false)));
  const cols = head.length;
  const widths = head.map((h, i) => Math.max(lineWidth(h), ...rows.map((r) => (r[i] ? lineWidth(r[i]!) : 0))));
  const total = widths.reduce((a, b) => a + b, 0) + 3 * Math.max(0, cols - 1);
  if (total > width) {
    // too wide for a grid: one "header: value" line per cell, rows separated by a blank line
    const out: Line[] = [];
    rows.forEach((r, ri) => {
      if (ri > 0) out.push([]);
      r.forEach((c, ci) => {
        const label = head[ci] ?? [];
        out.push(...wrapLine([...label, { t: ": ", s: "dim" }, ...c], width, { indent: [{ t: "  " }] }));
      });
    });
    return out;
  }
  const pad = (l: Line, w: number, align: "center" | "left" | "right" | null): Line => {
    const gap = w - lineWidth(l);
    if (gap <= 0) return l;
    if (align === "right") return [{ t: " ".repeat(gap) }, ...l];
    if (align === "center") return [{ t: " ".repeat(Math.floor(gap / 2)) }, ...l, { t: " ".repeat(gap - Math.floor(gap / 2)) }];
    return [...l, { t: " ".repeat(gap) }];
  };
  const row = (cells: Line[]): Line => {
    const out: Line = [];
    for (let i = 0; i < cols; i++) {
      if (i > 0) out.push({ t: " │ ", s: "dim" });
      out.push(...pad(cells[i] ?? [], widths[i]!, t.align[i] ?? null));
    }
    return out;
  };
  const rule: Line = [{ t: widths.map((w) => "─".repeat(w)).join("─┼─"), s: "dim" }];
  return [row(head), rule, ...rows.map(row)];
}

function renderList(t: Tokens.List, width: number): Line[] {
  const out: Line[] = [];
  let n = typeof t.start === "number" ? t.start : 1;
  const markers = t.items.map(() => (t.ordered ? `${n++}.` : "•"));
  const markerW = Math.max(...markers.map((m) => textWidth(m))) + 1;
  t.items.forEach((item, i) => {
    if (i > 0 && t.loose) out.push([]);
    const marker = markers[i]!;
    const first: Line = [{ t: marker, s: "bullet" }, { t: " ".repeat(markerW - textWidth(marker)) }];
    const rest: Line = [{ t: " ".repeat(markerW) }];
    const innerW = Math.max(1, width - markerW);
    const task: Line = item.task ? [{ t: item.checked ? "[x] " : "[ ] ", s: "bullet" }] : [];
    const tokens = item.tokens.filter((x) => x.type !== "checkbox");
    let body = blocks(tokens, innerW, !item.loose);
    if (task.length) body = body.length ? [[...task, ...body[0]!], ...body.slice(1)] : [task];
    if (body.length === 0) body = [[]];
    out.push(...prefixed(body, first, rest));
  });
  return out;
}

function block(t: MarkedToken, width: number): Line[] {
  switch (t.type) {
    case "paragraph":
      return inlineWrapped(t.tokens, {}, width);
    case "text":
      return inlineWrapped(t.tokens && t.tokens.length ? t.tokens : [{ type: "text", raw: t.raw, text: t.text }], {}, width);
    case "heading": {
      const st: InlineStyle = t.depth <= 2 ? { s: "heading" } : { b: true };
      const lines = inlineWrapped(t.tokens, st, width);
      return t.depth === 1 ? lines.map((l) => l.map((s) => ({ ...s, u: true }))) : lines;
    }
    case "code":
      return renderCode(t, width);
    case "blockquote": {
      const inner = blocks(t.tokens, Math.max(1, width - 2), false);
      return prefixed(inner, [{ t: "│ ", s: "quote" }], [{ t: "│ ", s: "quote" }]).map((l) =>
        l.map((s, i) => (i === 0 ? s : { ...s, s: s.s ?? "quote" })),
      );
    }
    case "list":
      return renderList(t, width);
    case "hr":
      return [[{ t: "─".repeat(Math.max(1, Math.min(width, 40))), s: "rule" }]];
    case "table":
      return renderTable(t, width);
    case "html":
      return t.text
        .replace(/\n+$/, "")
        .split("\n")
        .flatMap((l) => wrapLine(l ? [{ t: l, s: "dim" }] : [], width));
    case "space":
    case "def":
      return [];
    case "br":
    case "checkbox":
    case "codespan":
    case "del":
    case "em":
    case "escape":
    case "image":
    case "link":
    case "list_item":
    case "strong":
      return inlineWrapped([t], {}, width);
    default: {
      // not assertNever: a token kind a later marked adds is shown as its source, not thrown
      const unknown: never = t;
      const raw = String((unknown as Token).raw ?? "");
      return raw.split("\n").flatMap((l) => wrapLine(l ? [{ t: l }] : [], width));
    }
  }
}

function blocks(tokens: Token[], width: number, tight: boolean): Line[] {
  const out: Line[] = [];
  let prev: string | undefined;
  for (const tok of tokens) {
    const t = tok as MarkedToken;
    if (t.type === "space" || t.type === "def") continue;
    const lines = block(t, width);
    if (lines.length === 0) continue;
    // blank line between blocks, except inside tight list items (text followed by a sublist)
    if (prev !== undefined && !(tight && (t.type === "list" || prev === "text"))) out.push([]);
    out.push(...lines);
    prev = t.type;
  }
  return out;
}

/** characters laid out by renderMarkdown so far; tests and benchmarks read it */
export const markdownStats = { chars: 0 };

/** markdown text (already inert) → lines no wider than `width` */
export function renderMarkdown(src: string, width: number): Line[] {
  markdownStats.chars += src.length;
  const w = Math.max(4, width);
  let tokens: Token[];
  try {
    tokens = Lexer.lex(src, { gfm: true });
  } catch {
    return src.split("\n").flatMap((l) => wrapLine(l ? [{ t: l }] : [], w));
  }
  return blocks(tokens, w, false).map((l) => (lineWidth(l) > w ? truncate(l, w) : l));
}

/** a line that opens or closes fenced code: up to 3 spaces, then ``` or ~~~; a backtick fence
 * has no backtick after it on its line (CommonMark, marked): "``` a`b" is text, not a fence */
const FENCE = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
/** a line that may continue the block before it even after a blank line, or whose meaning
 * depends on it: indented (list continuation, indented code), a list item (a loose list), a
 * quote, a table row, a reference definition or footnote */
const CONTINUES = /^(?:[ \t]|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|>|\||\[)/;
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

/**
 * The Markdown of an answer that is still arriving, laid out as it grows. Laying the whole
 * text out again for every frame makes a long answer quadratic: a 200,000-word answer would
 * draw 15 frames in 3 s, each lexing and wrapping all 1.2 MB of it. Here the text before the
 * last block boundary that later text cannot change is laid out once and kept; a frame lays
 * out only what follows it. A boundary is a blank line followed, outside fenced code, by a
 * line that starts a new top-level block and cannot continue the one before (see CONTINUES);
 * top-level blocks are laid out independently with one blank line between them, so the lines
 * are the same as renderMarkdown of the whole text. Anything else (text that is not a
 * continuation of what was laid out, another width, a control character before the boundary)
 * starts again from the whole text, which is never wrong, only slower.
 */
export class GrowingMarkdown {
  private width = -1;
  /** the raw text laid out in `done` */
  private prefix = "";
  private done: Line[] = [];
  /** a reference definition was seen: the whole text is laid out every time */
  private whole = false;

  /**
   * Lines of `raw` at `width`; `prep` makes raw text safe to show (inert) and `deco` decorates
   * each line (a gutter): both run once for the kept part.
   */
  render(raw: string, width: number, prep: (s: string) => string, deco: (l: Line) => Line = (l) => l): Line[] {
    if (width !== this.width || !raw.startsWith(this.prefix)) {
      this.width = width;
      this.prefix = "";
      this.done = [];
    }
    if (!this.whole && DEFINITION.test(this.prefix.length ? raw.slice(this.prefix.length) : raw)) {
      this.whole = true;
      this.prefix = "";
      this.done = [];
    }
    const cut = this.whole ? 0 : lastBoundary(raw, this.prefix.length);
    if (cut > this.prefix.length) {
      const chunk = raw.slice(this.prefix.length, cut);
      if (!CONTROL.test(chunk)) {
        const lines = renderMarkdown(prep(chunk), width);
        if (lines.length) {
          if (this.done.length) this.done.push(deco([]));
          for (const l of lines) this.done.push(deco(l));
        }
        this.prefix = raw.slice(0, cut);
      }
    }
    const tail = renderMarkdown(prep(raw.slice(this.prefix.length)), width);
    if (tail.length === 0) return this.done.slice();
    const out = this.done.slice();
    if (out.length) out.push(deco([]));
    for (const l of tail) out.push(deco(l));
    return out;
  }
}

/** The start of the last line after `from` that begins a block nothing later can change
 * (see GrowingMarkdown), or `from` when there is none. `from` is outside fenced code. */
function lastBoundary(text: string, from: number): number {
  let best = from;
  let fence: string | undefined;
  let blank = false;
  let at = from;
  while (at < text.length) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) {
      // the last line is still growing: a boundary once its start can no longer change what
      // it is (the longest list marker is 11 characters: nine digits, ".", a space)
      if (blank && !fence && text.length - at >= 12 && text.slice(at).trim() && !CONTINUES.test(text.slice(at, at + 12))) best = at;
      break;
    }
    const line = text.slice(at, nl);
    const f = FENCE.exec(line);
    if (fence !== undefined) {
      // a fence closes with at least as many of the same character, and nothing after them
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && !line.slice(f[0].length).trim()) fence = undefined;
    } else {
      if (blank && line.trim() && !CONTINUES.test(line)) best = at;
      if (f) fence = f[1];
      // a cut before the HTML block is still sound; none after it (see HTML_START)
      else if (HTML_START.test(line)) break;
    }
    blank = !line.trim();
    at = nl + 1;
  }
  return best;
}
