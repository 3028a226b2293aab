// The transcript: what the record says plus what is arriving live, laid out in terminal lines.
// Pure (no blessed): the screen asks for the visible window at a width and height and paints
// it. Each item keeps a cache of its wrapped lines keyed by its version and the width, and a
// frame only wraps the items it actually shows, so a 5,000-message session costs the same per
// frame as a short one. Scrolling is an anchor (item, line) or "follow the bottom".
//
// A streamed answer is one item from its answer_start to the end: live text while it streams
// (its checkpoints are noted, not shown, since they lag behind the deltas), the stored
// message once that is complete or the turn ends. Its events and stored messages all carry
// its AnswerId, so nothing here has to guess which item a stored message belongs to.
import type { Block, StoredMessage } from "../record/types.js";
import type { AnswerId } from "../session/turn/events.js";
import { plainMisses } from "./highlight.js";
import { inert } from "./inert.js";
import { GrowingMarkdown, renderMarkdown } from "./markdown.js";
import type { Line, StyleName } from "./style.js";
import { countLines, firstLines, formatBytes, formatInt, restyle, wrapLine, wrapText } from "./text.js";
import { ToolCalls } from "./toolcall.js";
import { formatToolLine, toolCallLines } from "./toolline.js";

export type NoticeLevel = "error" | "warning" | "info";

type Body =
  | { kind: "message"; msg: StoredMessage }
  | { kind: "notice"; level: NoticeLevel; text: string }
  | { kind: "lines"; lines: Line[] }
  | {
      kind: "live";
      answer: AnswerId;
      reasoning: string;
      text: string;
      /** tool calls whose input is still arriving, by their index in the answer */
      toolInputs: Map<number, { name: string; bytes: number }>;
      /** the answer's latest checkpoint: shown in place of the live text when the turn ends */
      stored?: StoredMessage;
      /** the turn ended before anything of it was stored: shown as it was, marked not saved */
      closed: boolean;
    };

type LiveBody = Extract<Body, { kind: "live" }>;

interface Item {
  uid: number;
  version: number;
  body: Body;
  /** an answer's text laid out as it streamed: kept when its message settles, so the stored
   * text (the same, unless redaction changed it) is not laid out again from the start */
  md?: GrowingMarkdown;
}

interface Rendered {
  version: number;
  width: number;
  lines: Line[];
  /** expandable parts (tool calls, reasoning, long user text) and the line each starts on */
  targets: { id: string; line: number }[];
}

export interface Anchor {
  index: number;
  offset: number;
}

/** user text longer than this many lines is folded to its first lines until expanded */
const USER_FOLD_LINES = 12;
const USER_FOLD_CHARS = 4000;
/** even expanded, one user message shows at most this many lines (a 2 MB paste is 40k lines) */
const USER_MAX_LINES = 2000;
const GUTTER = 2;

export class Transcript {
  private items: Item[] = [];
  private byUid = new Map<number, Item>();
  private byMsgId = new Map<number, Item>();
  /** every answer's item, by its id (live until its message is complete or the turn ends) */
  private answers = new Map<AnswerId, Item>();
  private cache = new Map<number, Rendered>();
  /** items laid out with code shown plain because the highlighter was still loading */
  private uncoloured = new Set<number>();
  private nextUid = 1;
  private readonly calls = new ToolCalls();
  private expanded = new Set<string>();
  private selected: { uid: number; id: string } | undefined;
  private waitingForPermission = false;
  private turnRunning = false;

  follow = true;
  /** how many times an item was laid out (a cache miss); tests and benchmarks read it */
  renders = 0;
  private anchor: Anchor = { index: 0, offset: 0 };
  private lastW = 80;
  private lastH = 24;

  constructor(private readonly now: () => number = Date.now) {}

  // ---- content -------------------------------------------------------------------------

  /** replaces everything with the record (start-up, /new, /sessions) */
  load(history: readonly StoredMessage[]): void {
    this.items = [];
    this.byUid.clear();
    this.byMsgId.clear();
    this.cache.clear();
    this.uncoloured.clear();
    this.answers.clear();
    this.calls.clear();
    this.selected = undefined;
    this.follow = true;
    for (const m of history) this.upsert(m);
  }

  /** drops what is on screen; the record is untouched (/clear-screen) */
  clearView(): void {
    // an answer that is streaming keeps its live text on screen
    this.items = this.items.filter(isOpenLive);
    this.byUid = new Map(this.items.map((i) => [i.uid, i]));
    this.byMsgId.clear();
    for (const i of this.items) if (i.body.kind === "live" && i.body.stored) this.byMsgId.set(i.body.stored.id, i);
    this.cache.clear();
    for (const uid of this.uncoloured) if (!this.byUid.has(uid)) this.uncoloured.delete(uid);
    this.selected = undefined;
    this.follow = true;
  }

  private add(body: Body): Item {
    const item: Item = { uid: this.nextUid++, version: 0, body };
    this.byUid.set(item.uid, item);
    // the answer streaming stays last; everything else goes before it
    const last = this.items[this.items.length - 1];
    if (last && isOpenLive(last) && body.kind !== "live") {
      this.items.splice(this.items.length - 1, 0, item);
    } else {
      this.items.push(item);
    }
    return item;
  }

  private bump(uid: number | undefined): void {
    if (uid === undefined) return;
    const item = this.byUid.get(uid);
    if (item) item.version++;
  }

  /** the message's tool calls are shown by `item`; `made`: the running turn just made them */
  private indexBlocks(item: Item, msg: StoredMessage, made: boolean): void {
    for (const b of msg.blocks) {
      if (b.type === "tool_use") this.calls.shown(b.id, item.uid, made);
      if (b.type === "tool_result") this.bump(this.calls.result(b));
    }
  }

  private upsert(msg: StoredMessage, made = false): Item {
    const have = this.byMsgId.get(msg.id);
    if (have) {
      have.body = { kind: "message", msg };
      have.version++;
      this.indexBlocks(have, msg, made);
      return have;
    }
    const item = this.add({ kind: "message", msg });
    this.byMsgId.set(msg.id, item);
    this.indexBlocks(item, msg, made);
    return item;
  }

  /**
   * A stored message appeared or changed. `answer` says which streamed answer it is: a
   * checkpoint is noted on that answer's item (the live text is ahead of it), the complete
   * message takes the item's place.
   */
  message(msg: StoredMessage, answer?: AnswerId): void {
    // until they run, the calls the running turn makes show "queued", not "no result"
    const made = this.turnRunning && msg.role === "assistant";
    const item = answer === undefined ? undefined : this.answers.get(answer);
    if (item && item.body.kind === "live") {
      this.byMsgId.set(msg.id, item);
      this.indexBlocks(item, msg, made);
      if (msg.status === "complete" || item.body.closed) this.settle(item, msg);
      else item.body.stored = msg;
      return;
    }
    this.upsert(msg, made);
  }

  /** an answer's item shows its stored message from now on */
  private settle(item: Item, msg: StoredMessage): void {
    item.body = { kind: "message", msg };
    item.version++;
  }

  /** a new answer starts streaming: its item goes last, below everything else */
  answerStart(answer: AnswerId): void {
    this.closeLive();
    this.liveFor(answer);
  }

  /** the answer's item, made when a delta comes first (a screen attached mid-answer) */
  private liveFor(answer: AnswerId): { item: Item; body: LiveBody } | undefined {
    let item = this.answers.get(answer);
    if (!item) {
      item = this.add({ kind: "live", answer, reasoning: "", text: "", toolInputs: new Map(), closed: false });
      item.md = new GrowingMarkdown();
      this.answers.set(answer, item);
    }
    // deltas after the answer was settled (none are sent) change nothing
    return item.body.kind === "live" ? { item, body: item.body } : undefined;
  }

  textDelta(answer: AnswerId, t: string): void {
    const l = this.liveFor(answer);
    if (!l) return;
    l.body.text += t;
    l.item.version++;
  }

  reasoningDelta(answer: AnswerId, t: string): void {
    const l = this.liveFor(answer);
    if (!l) return;
    l.body.reasoning += t;
    l.item.version++;
  }

  /** the model is writing a tool call's input: a pending line under the answer until its message is complete */
  toolInput(answer: AnswerId, index: number, name: string, bytes: number): void {
    const l = this.liveFor(answer);
    if (!l) return;
    l.body.toolInputs.set(index, { name, bytes });
    l.item.version++;
  }

  /**
   * The turn ended (or a new answer starts): each answer still live shows its last stored
   * checkpoint; one with nothing stored stays as it was, marked not saved, and one with
   * nothing in it goes.
   */
  closeLive(): void {
    for (const item of this.items.filter(isOpenLive)) {
      const body = item.body as LiveBody;
      if (body.stored) this.settle(item, body.stored);
      else if (!body.text && !body.reasoning) {
        this.drop(item);
        this.answers.delete(body.answer);
      } else {
        body.closed = true;
        body.toolInputs.clear();
        item.version++;
      }
    }
  }

  private drop(item: Item): void {
    this.items = this.items.filter((i) => i !== item);
    this.byUid.delete(item.uid);
    this.cache.delete(item.uid);
    this.uncoloured.delete(item.uid);
    if (this.selected?.uid === item.uid) this.selected = undefined;
  }

  turnState(running: boolean, waitingForPermission: boolean): void {
    const changed = running !== this.turnRunning || waitingForPermission !== this.waitingForPermission;
    this.turnRunning = running;
    this.waitingForPermission = waitingForPermission;
    if (!running) this.calls.turnEnded();
    // a running call's line says whether it waits for permission
    if (changed) for (const uid of this.calls.runningOwners()) this.bump(uid);
    if (changed) for (const item of this.items) if (item.body.kind === "message" && item.body.msg.role === "assistant") item.version++;
  }

  toolStart(id: string): void {
    this.bump(this.calls.started(id, this.now()));
  }

  toolEnd(r: { id: string; output: string; isError: boolean; ms: number; diff?: string | undefined }): void {
    this.bump(this.calls.ended(r));
  }

  /** lays out again the tool lines that show a running time; false once none runs */
  tick(): boolean {
    for (const uid of this.calls.runningOwners()) this.bump(uid);
    return this.calls.anyRunning();
  }

  notice(level: NoticeLevel, text: string): void {
    this.add({ kind: "notice", level, text });
  }

  lines(lines: Line[]): void {
    this.add({ kind: "lines", lines });
  }

  /** whether some item shows code plain only until the highlighter has loaded */
  awaitingColour(): boolean {
    return this.uncoloured.size > 0;
  }

  /** lays out again (at the next frame) the items whose code was shown plain; true when any */
  recolour(): boolean {
    if (this.uncoloured.size === 0) return false;
    for (const uid of this.uncoloured) this.bump(uid);
    this.uncoloured.clear();
    return true;
  }

  itemCount(): number {
    return this.items.length;
  }

  // ---- expansion and selection -------------------------------------------------------------

  isExpanded(id: string): boolean {
    return this.expanded.has(id);
  }

  /** toggles the selected part; false when nothing is selected */
  toggleSelected(): boolean {
    const sel = this.selected;
    if (!sel) return false;
    if (this.expanded.has(sel.id)) this.expanded.delete(sel.id);
    else this.expanded.add(sel.id);
    this.bump(sel.uid);
    this.reveal(sel.uid, sel.id);
    if (this.expanded.has(sel.id)) this.revealBody(sel.uid, sel.id);
    return true;
  }

  /** after expanding: scroll so as much of the opened part shows as fits, its first line kept */
  private revealBody(uid: number, id: string): void {
    const index = this.items.findIndex((i) => i.uid === uid);
    if (index < 0) return;
    const r = this.rendered(this.items[index]!, this.lastW);
    const at = r.targets.findIndex((t) => t.id === id);
    const line = r.targets[at]?.line ?? 0;
    const end = r.targets[at + 1]?.line ?? r.lines.length;
    const top = this.topAnchor();
    const dist = this.linesBetween(top, index, line);
    const overflow = dist + (end - line) - this.lastH;
    if (overflow > 0) this.scroll(Math.min(overflow, dist));
  }

  selection(): string | undefined {
    return this.selected?.id;
  }

  clearSelection(): void {
    if (this.selected) this.bump(this.selected.uid);
    this.selected = undefined;
  }

  private setSelection(uid: number, id: string): void {
    if (this.selected) this.bump(this.selected.uid);
    this.selected = { uid, id };
    this.bump(uid);
    this.reveal(uid, id);
  }

  /** moves the selection to the previous (-1) or next (+1) expandable part */
  select(dir: -1 | 1): boolean {
    const w = this.lastW;
    const start = this.selected ? this.items.findIndex((i) => i.uid === this.selected!.uid) : -1;
    if (start < 0) {
      // nothing selected yet: the last part visible on screen, else the last part at all
      const top = this.topAnchor();
      const seen: { uid: number; id: string }[] = [];
      let remaining = this.lastH;
      for (let i = top.index; i < this.items.length && remaining > 0; i++) {
        const r = this.rendered(this.items[i]!, w);
        const from = i === top.index ? top.offset : 0;
        for (const t of r.targets) if (t.line >= from && t.line < from + remaining) seen.push({ uid: this.items[i]!.uid, id: t.id });
        remaining -= r.lines.length - from;
      }
      const pick = dir < 0 ? seen[seen.length - 1] : seen[0];
      if (pick) {
        this.setSelection(pick.uid, pick.id);
        return true;
      }
      for (let i = this.items.length - 1; i >= 0; i--) {
        const r = this.rendered(this.items[i]!, w);
        const t = r.targets[r.targets.length - 1];
        if (t) {
          this.setSelection(this.items[i]!.uid, t.id);
          return true;
        }
      }
      return false;
    }
    const cur = this.rendered(this.items[start]!, w);
    const pos = cur.targets.findIndex((t) => t.id === this.selected!.id);
    const inItem = cur.targets[pos + dir];
    if (pos >= 0 && inItem) {
      this.setSelection(this.items[start]!.uid, inItem.id);
      return true;
    }
    for (let i = start + dir; i >= 0 && i < this.items.length; i += dir) {
      const r = this.rendered(this.items[i]!, w);
      const t = dir < 0 ? r.targets[r.targets.length - 1] : r.targets[0];
      if (t) {
        this.setSelection(this.items[i]!.uid, t.id);
        return true;
      }
    }
    return false;
  }

  /** scrolls so the given part's first line is on screen */
  private reveal(uid: number, id: string): void {
    const index = this.items.findIndex((i) => i.uid === uid);
    if (index < 0) return;
    const r = this.rendered(this.items[index]!, this.lastW);
    const line = r.targets.find((t) => t.id === id)?.line ?? 0;
    const top = this.topAnchor();
    const before = top.index > index || (top.index === index && top.offset > line);
    if (before) {
      this.setAnchor({ index, offset: line });
      return;
    }
    // below the window? count lines from the top of the window to the target
    const dist = this.linesBetween(top, index, line);
    if (dist >= this.lastH) {
      const moved = this.moveAnchor({ index, offset: line }, -(this.lastH - 1));
      this.setAnchor(moved);
    }
  }

  // ---- rendering ----------------------------------------------------------------------------

  private rendered(item: Item, width: number): Rendered {
    const have = this.cache.get(item.uid);
    if (have && have.version === item.version && have.width === width) return have;
    this.renders++;
    const misses = plainMisses();
    const r = this.renderItem(item, width);
    if (plainMisses() !== misses) this.uncoloured.add(item.uid);
    else this.uncoloured.delete(item.uid);
    const out: Rendered = { version: item.version, width, lines: r.lines, targets: r.targets };
    this.cache.set(item.uid, out);
    return out;
  }

  private renderItem(item: Item, width: number): { lines: Line[]; targets: { id: string; line: number }[] } {
    const lines: Line[] = [];
    const targets: { id: string; line: number }[] = [];
    const inner = Math.max(4, width - GUTTER);
    const pad: Line = [{ t: " ".repeat(GUTTER) }];
    const sel = this.selected?.uid === item.uid ? this.selected.id : undefined;
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
        if (msg.role === "user") this.renderUser(item, msg, inner, lines, targets, sel);
        else this.renderAssistant(item, msg.blocks, msg.status === "interrupted", inner, push, target);
        break;
      }
      case "live": {
        const blocks: Block[] = [];
        if (body.reasoning) blocks.push({ type: "reasoning", text: body.reasoning });
        if (body.text) blocks.push({ type: "text", text: body.text });
        this.renderAssistant(item, blocks, body.closed, inner, push, target);
        // a tool call being written: one pending line each, until the message brings the call
        for (const i of [...body.toolInputs.keys()].sort((a, b) => a - b)) {
          const t = body.toolInputs.get(i)!;
          if (lines.length) push([[]]);
          push([formatToolLine({ name: inert(t.name), summary: "", state: "receiving", bytes: t.bytes, expanded: false, width: inner })]);
        }
        break;
      }
      case "notice": {
        const [mark, style]: [string, StyleName] = body.level === "error" ? ["✗ ", "err"] : body.level === "warning" ? ["⚠ ", "warn"] : ["· ", "info"];
        const text = wrapText(inert(body.text), Math.max(1, inner - 2), style);
        text.forEach((l, i) => lines.push([...pad, { t: i === 0 ? mark : "  ", s: style }, ...l]));
        break;
      }
      case "lines":
        for (const l of body.lines) lines.push(...wrapLine([...pad, ...l], width, { indent: pad }));
        break;
      default: {
        const never: never = body;
        throw new Error(`unknown transcript item ${JSON.stringify(never)}`);
      }
    }
    // a blank line separates items; empty items (tool results shown on their calls) take none
    if (lines.length) lines.unshift([]);
    return { lines, targets: targets.map((t) => ({ id: t.id, line: t.line + 1 })) };
  }

  private renderUser(
    item: Item,
    msg: StoredMessage,
    inner: number,
    lines: Line[],
    targets: { id: string; line: number }[],
    sel: string | undefined,
  ): void {
    const body: Line[] = [];
    for (const b of msg.blocks) {
      switch (b.type) {
        case "text": {
          const id = `u:${item.uid}:${body.length}`;
          const text = inert(b.text);
          const nLines = countLines(text);
          const long = nLines > USER_FOLD_LINES || text.length > USER_FOLD_CHARS;
          const open = long && this.expanded.has(id);
          // only the part that can be shown is wrapped: a 2 MB paste must not cost 40k lines
          const shown = long ? firstLines(text, open ? USER_MAX_LINES : 6, open ? USER_MAX_LINES * 200 : 1200) : text;
          const wrapped = wrapText(shown, inner, "user");
          if (long) {
            targets.push({ id, line: body.length + wrapped.length });
            const more = open ? Math.max(0, nLines - USER_MAX_LINES) : nLines - countLines(shown);
            const label = open
              ? more > 0
                ? `▾ ${formatInt(more)} more lines not shown (${formatBytes(Buffer.byteLength(text))} in the record)`
                : "▾ fold"
              : `▸ … ${formatInt(Math.max(0, more))} more lines (${formatBytes(Buffer.byteLength(text))})`;
            wrapped.push([{ t: label, s: "dim" }]);
          }
          body.push(...wrapped);
          break;
        }
        case "image":
          body.push([{ t: `📎 ${imageLabel(b)}`, s: "dim" }]);
          break;
        case "tool_result":
        case "tool_use":
        case "reasoning":
          // results are drawn on their calls; the others do not occur in user messages
          break;
        default: {
          const never: never = b;
          throw new Error(`unknown block ${JSON.stringify(never)}`);
        }
      }
    }
    if (body.length === 0) return;
    const base = lines.length;
    body.forEach((l, i) => {
      const t = targets.find((x) => x.line === i);
      const line = t && sel === t.id ? restyle(l, { inv: true }) : l;
      lines.push([{ t: i === 0 ? "› " : "  ", s: "userGutter" }, ...line]);
    });
    for (const t of targets) t.line += base;
  }

  private renderAssistant(
    item: Item,
    blocks: Block[],
    interrupted: boolean,
    inner: number,
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
          const open = this.expanded.has(id);
          const label = text ? `${formatInt(text.length)} chars` : b.opaque ? "redacted" : "empty";
          target(id, [{ t: open ? "▾ " : "▸ ", s: "dim" }, { t: "thinking", s: "reasoning" }, { t: ` · ${label}`, s: "dim" }]);
          if (open && text) push(wrapText(text, Math.max(1, inner - 2), "reasoning"), [{ t: "    " }]);
          break;
        }
        case "tool_use": {
          gap();
          const id = `t:${b.id}`;
          const call = toolCallLines(b, this.calls.state(b.id), { expanded: this.expanded.has(id), waitingForPermission: this.waitingForPermission, now: this.now(), width: inner });
          target(id, call.line);
          // expanded, its body comes indented
          push(call.body, []);
          break;
        }
        case "image":
          gap();
          push([[{ t: `📎 ${imageLabel(b)}`, s: "dim" }]]);
          break;
        case "tool_result":
          break;
        default: {
          const never: never = b;
          throw new Error(`unknown block ${JSON.stringify(never)}`);
        }
      }
    });
    if (interrupted && item.body.kind !== "live") push([[{ t: "⏹ interrupted", s: "dim" }]]);
    else if (interrupted && item.body.kind === "live") push([[{ t: "⏹ not saved: the turn ended before this was stored", s: "dim" }]]);
  }

  // ---- scrolling ----------------------------------------------------------------------------

  private lineCount(index: number): number {
    const item = this.items[index];
    return item ? this.rendered(item, this.lastW).lines.length : 0;
  }

  /** the anchor `delta` lines away (negative: up), clamped to the content */
  private moveAnchor(a: Anchor, delta: number): Anchor {
    let { index, offset } = a;
    if (this.items.length === 0) return { index: 0, offset: 0 };
    index = Math.min(Math.max(0, index), this.items.length - 1);
    offset += delta;
    while (offset < 0) {
      if (index === 0) return { index: 0, offset: 0 };
      index--;
      offset += this.lineCount(index);
    }
    while (offset >= this.lineCount(index)) {
      if (index >= this.items.length - 1) return { index, offset: Math.max(0, this.lineCount(index) - 1) };
      offset -= this.lineCount(index);
      index++;
    }
    return { index, offset };
  }

  /** the anchor of the top line of the current window */
  /** Lines from the top of the window (its anchor) down to `line` of item `index`. */
  private linesBetween(top: Anchor, index: number, line: number): number {
    if (top.index === index) return line - top.offset;
    let dist = this.lineCount(top.index) - top.offset;
    for (let i = top.index + 1; i < index; i++) dist += this.lineCount(i);
    return dist + line;
  }

  topAnchor(): Anchor {
    if (!this.follow) return this.anchor;
    // bottom-aligned: walk up from the end by the window height
    let remaining = this.lastH;
    for (let i = this.items.length - 1; i >= 0; i--) {
      const n = this.lineCount(i);
      if (n >= remaining) return { index: i, offset: n - remaining };
      remaining -= n;
    }
    return { index: 0, offset: 0 };
  }

  private linesBelow(a: Anchor): number {
    let n = this.lineCount(a.index) - a.offset;
    for (let i = a.index + 1; i < this.items.length && n <= this.lastH; i++) n += this.lineCount(i);
    return n;
  }

  private setAnchor(a: Anchor): void {
    this.anchor = a;
    // at (or past) the end: follow the bottom again
    this.follow = this.linesBelow(a) <= this.lastH;
  }

  scroll(delta: number): void {
    const top = this.topAnchor();
    this.setAnchor(this.moveAnchor(top, delta));
  }

  pageUp(): void {
    this.scroll(-Math.max(1, this.lastH - 2));
  }

  pageDown(): void {
    this.scroll(Math.max(1, this.lastH - 2));
  }

  top(): void {
    this.setAnchor({ index: 0, offset: 0 });
  }

  bottom(): void {
    this.follow = true;
  }

  /** the visible window: exactly `height` lines or fewer when the content is shorter */
  view(width: number, height: number): { lines: Line[]; following: boolean } {
    this.lastW = Math.max(8, width);
    this.lastH = Math.max(1, height);
    const out: Line[] = [];
    if (this.follow) {
      for (let i = this.items.length - 1; i >= 0 && out.length < this.lastH; i--) {
        const ls = this.rendered(this.items[i]!, this.lastW).lines;
        const need = this.lastH - out.length;
        const take = ls.length > need ? ls.slice(ls.length - need) : ls;
        out.unshift(...take);
      }
      return { lines: out, following: true };
    }
    let { index, offset } = this.anchor;
    if (index >= this.items.length) {
      this.follow = true;
      return this.view(width, height);
    }
    for (let i = index; i < this.items.length && out.length < this.lastH; i++) {
      const ls = this.rendered(this.items[i]!, this.lastW).lines;
      const from = i === index ? Math.min(offset, ls.length) : 0;
      out.push(...ls.slice(from, from + (this.lastH - out.length)));
      offset = 0;
    }
    if (out.length < this.lastH && (this.anchor.index > 0 || this.anchor.offset > 0)) {
      // the content ends inside the window (after a resize or collapse): align to the bottom
      this.follow = true;
      return this.view(width, height);
    }
    return { lines: out, following: false };
  }
}

function imageLabel(b: { mediaType: string; bytes: number; width?: number; height?: number }): string {
  const dims = b.width && b.height ? ` · ${b.width}×${b.height}` : "";
  return `image ${inert(b.mediaType)} · ${formatBytes(b.bytes)}${dims}`;
}

function isOpenLive(i: Item): boolean {
  return i.body.kind === "live" && !i.body.closed;
}
