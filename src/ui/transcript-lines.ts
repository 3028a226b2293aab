// One transcript item laid out as terminal lines at a width, and the cache of those layouts.
// An item's layout depends on the item (its version changes whenever what it shows does),
// the width, and the context: which parts are expanded and selected, and its tool calls'
// states. The transcript bumps an item's version when any of those change for it, so a
// layout cached for (version, width) is the one that would be made again.
//
// Every line starts with a gutter: "› " on a user message, two spaces elsewhere. An item
// that shows anything starts with a blank line, which separates it from the one above.
import { assertNever, type Block, type StoredMessage } from "../record/types.js";
import { plainMisses } from "./highlight.js";
import { inert } from "./inert.js";
import { summaryHeading } from "../compaction/heading.js";
import { renderMarkdown } from "./markdown.js";
import type { Line, StyleName } from "./style.js";
import { countLines, firstLines, formatBytes, formatInt, restyle, textWidth, wrapLine, wrapText } from "./text.js";
import type { ToolCallState } from "./toolcall.js";
import { formatToolLine, toolCallLines } from "./toolline.js";
import type { Item } from "./transcript-item.js";

/** an expandable part (a tool call, reasoning, long user text) and the line it starts on */
interface Target {
  id: string;
  line: number;
}

export interface ItemLines {
  lines: Line[];
  targets: Target[];
}

interface LayoutContext {
  /** the parts open now, by their target id */
  expanded: ReadonlySet<string>;
  /** the selected part, when it is in this item: drawn inverted */
  selected: string | undefined;
  toolCall(id: string): ToolCallState;
  /** the turn waits for a permission answer: a running call says so */
  waitingForPermission: boolean;
  now: number;
}

/** user text longer than this many lines is folded to its first lines until expanded */
const USER_FOLD_LINES = 12;
const USER_FOLD_CHARS = 4000;
/** a folded long prompt shows at most this many rows */
const USER_FOLD_ROWS = 6;
/** even expanded, one user message shows at most this many lines (a 2 MB paste is 40k lines) */
const USER_MAX_LINES = 2000;
const GUTTER = 2;

/** the item's lines at `width`, and where each part that expands starts */
export function layOutItem(item: Item, width: number, ctx: LayoutContext): ItemLines {
  const lines: Line[] = [];
  const targets: Target[] = [];
  const inner = Math.max(4, width - GUTTER);
  const pad: Line = [{ t: " ".repeat(GUTTER) }];
  const sel = ctx.selected;
  const push = (ls: Line[], gutter: Line = pad): void => {
    // no gutter: the lines come with theirs (and are shared with a cache)
    if (gutter.length === 0) for (const l of ls) lines.push(l);
    else for (const l of ls) lines.push([...gutter, ...l]);
  };
  const target = (id: string, first: Line): void => {
    targets.push({ id, line: lines.length });
    lines.push([...pad, ...(sel === id ? restyle(first, { inv: true }) : first)]);
  };
  const body = item.body;
  switch (body.kind) {
    case "message": {
      const msg = body.msg;
      if (msg.role === "user") layOutUser(item, msg, inner, lines, targets, ctx);
      else layOutAssistant(item, msg.blocks, msg.status === "interrupted", inner, ctx, push, target);
      break;
    }
    case "live": {
      const blocks: Block[] = [];
      if (body.reasoning) blocks.push({ type: "reasoning", text: body.reasoning });
      if (body.text) blocks.push({ type: "text", text: body.text });
      layOutAssistant(item, blocks, body.closed, inner, ctx, push, target);
      // a tool call being written: one pending line each, until the message brings the call
      for (const i of [...body.toolInputs.keys()].sort((a, b) => a - b)) {
        const t = body.toolInputs.get(i)!;
        if (lines.length) push([[]]);
        push([formatToolLine({ name: inert(t.name), summary: "", state: "receiving", bytes: t.bytes, expanded: false, width: inner })]);
      }
      break;
    }
    case "notice": {
      const [mark, style]: [string, StyleName] = body.level === "error" ? ["✗ ", "err"] : body.level === "warning" ? ["! ", "warn"] : ["· ", "info"];
      const text = wrapText(inert(body.text), Math.max(1, inner - 2), style);
      text.forEach((l, i) => lines.push([...pad, { t: i === 0 ? mark : "  ", s: style }, ...l]));
      break;
    }
    case "summary": {
      const id = `s:${item.uid}`;
      const text = inert(body.summary.text);
      const open = ctx.expanded.has(id);
      const n = countLines(text);
      const label = `${open ? "▾" : "▸"} ${summaryHeading(body.summary)} · ${inert(body.summary.model)} · ${formatInt(n)} line${n === 1 ? "" : "s"}`;
      target(id, [{ t: label, s: "dim" }]);
      if (open) for (const l of wrapText(text, inner, "dim")) lines.push([...pad, ...l]);
      break;
    }
    case "lines":
      for (const l of body.lines) lines.push(...wrapLine([...pad, ...l], width, { indent: [...pad, ...hangUnder(l, width)] }));
      break;
    default:
      assertNever(body, "transcript item");
  }
  // a blank line separates items; empty items (tool results shown on their calls) take none
  if (lines.length) lines.unshift([]);
  return { lines, targets: targets.map((t) => ({ id: t.id, line: t.line + 1 })) };
}

/**
 * Where a row of a table-like line (a label padded with two spaces or more, then its text, as
 * /help and /api write them) goes on when it wraps: under the text, not under the label.
 */
function hangUnder(l: Line, width: number): Line {
  const label = l[0];
  if (l.length < 2 || !label || !/\S {2,}$/.test(label.t)) return [];
  const w = textWidth(label.t);
  return w * 2 < width ? [{ t: " ".repeat(w) }] : [];
}

/** an open long prompt's last line: what is still not shown, or how to fold it */
function openLabel(text: string, nLines: number): string {
  const more = Math.max(0, nLines - USER_MAX_LINES);
  return more > 0 ? `▾ ${formatInt(more)} more lines not shown (${formatBytes(Buffer.byteLength(text))} in the record)` : "▾ fold";
}

/**
 * A folded prompt's last line: the lines not shown and, where the rows shown end inside a line
 * (one long line), the rest of that line's characters; never "0 more lines".
 */
function foldedLabel(text: string, rows: Line[]): string {
  const size = formatBytes(Buffer.byteLength(text));
  // where the rows shown end in the text: they hold its characters but for the blanks the wrap took
  const kept = rows.reduce((n, r) => n + r.reduce((m, seg) => m + seg.t.replace(/\s+/g, "").length, 0), 0);
  let seen = 0;
  let at = 0;
  while (at < text.length && seen < kept) {
    const ch = String.fromCodePoint(text.codePointAt(at) ?? 0);
    at += ch.length;
    if (!/\s/.test(ch)) seen++;
  }
  // the blanks and the break right after the last shown character belong to it
  while (at < text.length && /[^\S\n]/.test(text[at]!)) at++;
  if (text[at] === "\n") at++;
  const rest = text.slice(at);
  const midLine = at > 0 && text[at - 1] !== "\n" && rest.length > 0;
  const newlines = (rest.match(/\n/g) ?? []).length;
  const lines = rest.length === 0 ? 0 : midLine ? newlines : countLines(rest);
  const lineWords = lines > 0 ? `${formatInt(lines)} more line${lines === 1 ? "" : "s"}` : "";
  if (!midLine) return `▸ … ${lineWords || "more"} (${size})`;
  const lineRest = newlines > 0 ? rest.indexOf("\n") : rest.length;
  const chars = `${formatInt([...rest.slice(0, lineRest)].length)} more characters on the line`;
  return `▸ … ${chars}${lineWords ? ` and ${lineWords}` : ""} (${size})`;
}

function layOutUser(item: Item, msg: StoredMessage, inner: number, lines: Line[], targets: Target[], ctx: LayoutContext): void {
  const body: Line[] = [];
  for (const b of msg.blocks) {
    switch (b.type) {
      case "text": {
        const id = `u:${item.uid}:${body.length}`;
        const text = inert(b.text);
        const nLines = countLines(text);
        const long = nLines > USER_FOLD_LINES || text.length > USER_FOLD_CHARS;
        const open = long && ctx.expanded.has(id);
        // only the part that can be shown is wrapped: a 2 MB paste must not cost 40k lines
        const shown = long ? firstLines(text, open ? USER_MAX_LINES : 6, open ? USER_MAX_LINES * 200 : 1200) : text;
        let wrapped = wrapText(shown, inner, "user");
        if (long) {
          // folded, it is as many rows as six short lines would be, however long its lines are
          if (!open && wrapped.length > USER_FOLD_ROWS) wrapped = wrapped.slice(0, USER_FOLD_ROWS);
          targets.push({ id, line: body.length + wrapped.length });
          const label = open ? openLabel(text, nLines) : foldedLabel(text, wrapped);
          wrapped.push([{ t: label, s: "dim" }]);
        }
        body.push(...wrapped);
        break;
      }
      case "image":
        body.push([{ t: `[image] ${imageLabel(b)}`, s: "dim" }]);
        break;
      case "tool_result":
      case "tool_use":
      case "reasoning":
        // results are drawn on their calls; the others do not occur in user messages
        break;
      default:
        assertNever(b, "block");
    }
  }
  if (body.length === 0) return;
  const base = lines.length;
  body.forEach((l, i) => {
    const t = targets.find((x) => x.line === i);
    const line = t && ctx.selected === t.id ? restyle(l, { inv: true }) : l;
    lines.push([{ t: i === 0 ? "› " : "  ", s: "userGutter" }, ...line]);
  });
  for (const t of targets) t.line += base;
}

function layOutAssistant(
  item: Item,
  blocks: Block[],
  interrupted: boolean,
  inner: number,
  ctx: LayoutContext,
  push: (ls: Line[], gutter?: Line) => void,
  target: (id: string, first: Line) => void,
): void {
  let first = true;
  const gap = (): void => {
    if (!first) push([[]]);
    first = false;
  };
  // the answer's first text is the one that streamed (GrowingMarkdown); others are laid out whole
  const grown = blocks.findIndex((b) => b.type === "text");
  blocks.forEach((b, bi) => {
    switch (b.type) {
      case "text": {
        if (item.md && bi === grown) {
          // the gutter goes on once, with the lines that are kept
          const lines = item.md.render(b.text, inner, inert, (l) => [{ t: " ".repeat(GUTTER) }, ...l]);
          if (lines.length === 0) return;
          gap();
          push(lines, []);
          return;
        }
        const text = inert(b.text);
        if (!text.trim()) return;
        gap();
        push(renderMarkdown(text, inner));
        break;
      }
      case "reasoning": {
        gap();
        const id = `r:${item.uid}:${bi}`;
        const text = inert(b.text).trim();
        const open = ctx.expanded.has(id);
        const label = text ? `${formatInt(text.length)} chars` : b.opaque ? "redacted" : "empty";
        target(id, [{ t: open ? "▾ " : "▸ ", s: "dim" }, { t: "thinking", s: "reasoning" }, { t: ` · ${label}`, s: "dim" }]);
        if (open && text) push(wrapText(text, Math.max(1, inner - 2), "reasoning"), [{ t: "    " }]);
        break;
      }
      case "tool_use": {
        gap();
        const id = `t:${b.id}`;
        const call = toolCallLines(b, ctx.toolCall(b.id), { expanded: ctx.expanded.has(id), waitingForPermission: ctx.waitingForPermission, now: ctx.now, width: inner });
        target(id, call.line);
        // expanded, its body comes indented
        push(call.body, []);
        break;
      }
      case "image":
        gap();
        push([[{ t: `[image] ${imageLabel(b)}`, s: "dim" }]]);
        break;
      case "tool_result":
        break;
      default:
        assertNever(b, "block");
    }
  });
  if (interrupted && item.body.kind !== "live") push([[{ t: "[interrupted]", s: "dim" }]]);
  else if (interrupted && item.body.kind === "live") push([[{ t: "[not saved: the turn ended before this was stored]", s: "dim" }]]);
}

function imageLabel(b: { mediaType: string; bytes: number; width?: number; height?: number }): string {
  const dims = b.width && b.height ? ` · ${b.width}×${b.height}` : "";
  return `image ${inert(b.mediaType)} · ${formatBytes(b.bytes)}${dims}`;
}

/** layouts kept: a screen shows far fewer items, and a PageUp walks over fewer again */
const LAYOUTS_KEPT = 300;

interface Cached extends ItemLines {
  version: number;
  width: number;
  /** the same version's layout at the width used before: the context pane opening and
   * closing beside the transcript switches between two widths, and a long answer laid out
   * again at each switch would make the key wait for it */
  other?: Cached | undefined;
}

/**
 * Each item's last layouts (at the last two widths), by its uid; a frame lays out again only
 * what changed. Only the layouts used most recently are kept (what is on screen and what
 * scrolling walked over): a long session's transcript does not hold every item's lines, which
 * would grow the live heap (and every collection) by the whole record's layout; an item laid
 * out long ago and shown again is laid out again.
 */
export class LineCache {
  private readonly cache = new Map<number, Cached>();
  /** items laid out with code shown plain because the highlighter was still loading */
  private readonly uncoloured = new Set<number>();
  /** how many times an item was laid out (a cache miss); tests and benchmarks read it */
  renders = 0;
  /** how many times an item's layout was asked for, cached or not; tests read it */
  lookups = 0;

  constructor(private readonly keep = LAYOUTS_KEPT) {}

  /** how many items' layouts are held */
  get size(): number {
    return this.cache.size;
  }

  /** the item's lines at `width`, from the cache when its version and the width are the same */
  get(item: Item, width: number, layOut: () => ItemLines): ItemLines {
    this.lookups++;
    const have = this.cache.get(item.uid);
    const same = (c: Cached | undefined): boolean => c !== undefined && c.version === item.version && c.width === width;
    // the most recently used go last, so that the oldest are the first to go
    if (have && same(have)) {
      this.cache.delete(item.uid);
      this.cache.set(item.uid, have);
      return have;
    }
    if (have?.other && same(have.other)) {
      const back: Cached = { ...have.other, other: { ...have, other: undefined } };
      this.cache.delete(item.uid);
      this.cache.set(item.uid, back);
      return back;
    }
    this.renders++;
    const misses = plainMisses();
    const r = layOut();
    if (plainMisses() !== misses) this.uncoloured.add(item.uid);
    else this.uncoloured.delete(item.uid);
    const kept = have && have.version === item.version ? { ...have, other: undefined } : undefined;
    const out: Cached = { version: item.version, width, lines: r.lines, targets: r.targets, other: kept };
    this.cache.delete(item.uid);
    this.cache.set(item.uid, out);
    if (this.cache.size > this.keep) {
      for (const uid of this.cache.keys()) {
        if (this.cache.size <= this.keep) break;
        this.forget(uid);
      }
    }
    return out;
  }

  /** the item is gone */
  forget(uid: number): void {
    this.cache.delete(uid);
    this.uncoloured.delete(uid);
  }

  /** every layout goes; `stays` says which items remain (their plain code is still to colour) */
  clear(stays: (uid: number) => boolean = () => false): void {
    this.cache.clear();
    for (const uid of this.uncoloured) if (!stays(uid)) this.uncoloured.delete(uid);
  }

  /** whether some item shows code plain only until the highlighter has loaded */
  awaitingColour(): boolean {
    return this.uncoloured.size > 0;
  }

  /** the items whose code was shown plain, forgotten as such */
  takeUncoloured(): number[] {
    const out = [...this.uncoloured];
    this.uncoloured.clear();
    return out;
  }
}
