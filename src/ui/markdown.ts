// Assistant markdown → styled terminal lines, using marked's lexer only (no HTML renderer).
// The caller passes text that is already inert; everything here is layout.
import { Lexer, type MarkedToken, type Token, type Tokens } from "marked";
import { highlightCode } from "./highlight.js";
import type { Line, Seg, StyleName } from "./style.js";
import { lineWidth, textWidth, truncate, wrapLine } from "./text.js";

/**
 * What a piece of a streaming block must be laid out with to give the lines the whole block
 * would (markdown-growing.ts): the widths of a table's columns and of a list's markers depend
 * on every row or item, and code is coloured as a whole. Applied to the top-level block only;
 * `facts` receives the widths the piece itself needs.
 */
export interface LayoutHints {
  tableWidths?: number[] | undefined;
  markerW?: number | undefined;
  plainCode?: boolean | undefined;
  facts?: { tableWidths?: number[]; grid?: boolean; markerW?: number };
}

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

function renderCode(t: Tokens.Code, width: number, plain = false): Line[] {
  const code = t.text.replace(/\n+$/, "");
  const logical = highlightCode(code, t.codeBlockStyle === "indented" || plain ? undefined : t.lang);
  const indent: Line = [{ t: "  " }];
  const out: Line[] = [];
  for (const l of logical) {
    for (const row of wrapLine(l, Math.max(1, width - 2), { hard: true, keepIndent: true })) out.push([...indent, ...row]);
  }
  return out;
}

function renderTable(t: Tokens.Table, width: number, hints?: LayoutHints): Line[] {
  const cell = (c: Tokens.TableCell, header: boolean): Line => {
    const l: Line = [];
    inline(c.tokens, header ? { b: true } : {}, l);
    return l.map((s) => ({ ...s, t: s.t.replace(/\n/g, " ") }));
  };
  const head = t.header.map((c) => cell(c, true));
  const rows = t.rows.map((r) => r.map((c) => cell(c, false)));
  const cols = head.length;
  const natural = head.map((h, i) => {
    let w = lineWidth(h);
    for (const r of rows) if (r[i]) w = Math.max(w, lineWidth(r[i]!));
    return w;
  });
  const widths = natural.map((w, i) => Math.max(w, hints?.tableWidths?.[i] ?? 0));
  const total = widths.reduce((a, b) => a + b, 0) + 3 * Math.max(0, cols - 1);
  if (hints?.facts) {
    hints.facts.tableWidths = natural;
    hints.facts.grid = total <= width;
  }
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

function renderList(t: Tokens.List, width: number, hints?: LayoutHints): Line[] {
  const out: Line[] = [];
  let n = typeof t.start === "number" ? t.start : 1;
  const markers = t.items.map(() => (t.ordered ? `${n++}.` : "•"));
  const natural = Math.max(...markers.map((m) => textWidth(m))) + 1;
  if (hints?.facts) hints.facts.markerW = natural;
  const markerW = Math.max(natural, hints?.markerW ?? 0);
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

function block(t: MarkedToken, width: number, hints?: LayoutHints): Line[] {
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
      return renderCode(t, width, hints?.plainCode);
    case "blockquote": {
      const inner = blocks(t.tokens, Math.max(1, width - 2), false);
      return prefixed(inner, [{ t: "│ ", s: "quote" }], [{ t: "│ ", s: "quote" }]).map((l) =>
        l.map((s, i) => (i === 0 ? s : { ...s, s: s.s ?? "quote" })),
      );
    }
    case "list":
      return renderList(t, width, hints);
    case "hr":
      return [[{ t: "─".repeat(Math.max(1, Math.min(width, 40))), s: "rule" }]];
    case "table":
      return renderTable(t, width, hints);
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

function blocks(tokens: Token[], width: number, tight: boolean, hints?: LayoutHints): Line[] {
  const out: Line[] = [];
  let prev: string | undefined;
  for (const tok of tokens) {
    const t = tok as MarkedToken;
    if (t.type === "space" || t.type === "def") continue;
    // the hints are for the block a piece of a stream is part of: the first
    const lines = block(t, width, prev === undefined ? hints : undefined);
    if (lines.length === 0) continue;
    // blank line between blocks, except inside tight list items (text followed by a sublist)
    if (prev !== undefined && !(tight && (t.type === "list" || prev === "text"))) out.push([]);
    out.push(...lines);
    prev = t.type;
  }
  return out;
}

/** characters laid out (lexed and wrapped) so far; tests and benchmarks read it */
export const markdownStats = { chars: 0 };

/** markdown text (already inert) → lines no wider than `width` */
export function renderMarkdown(src: string, width: number): Line[] {
  return layOutMarkdown(src, width).lines;
}

/** renderMarkdown, with the top-level tokens (undefined when the lexer failed) and hints for the top-level block */
export function layOutMarkdown(src: string, width: number, hints?: LayoutHints): { tokens: Token[] | undefined; lines: Line[] } {
  markdownStats.chars += src.length;
  const w = Math.max(4, width);
  let tokens: Token[];
  try {
    tokens = Lexer.lex(src, { gfm: true });
  } catch {
    return { tokens: undefined, lines: src.split("\n").flatMap((l) => wrapLine(l ? [{ t: l }] : [], w)) };
  }
  return { tokens, lines: blocks(tokens, w, false, hints).map((l) => (lineWidth(l) > w ? truncate(l, w) : l)) };
}

