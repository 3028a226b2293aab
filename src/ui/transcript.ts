// The transcript: what the record says plus what is arriving live, as items (transcript-item.ts)
// shown through a window. Pure (no blessed): the screen asks for the visible window at a width
// and height and paints it. Each item's wrapped lines are cached by its version and the width
// (transcript-lines.ts), and a frame only lays out the items it actually shows, so a
// 5,000-message session costs the same per frame as a short one. Scrolling is an anchor
// (item, line) or "follow the bottom".
//
// A streamed answer is one item from its answer_start to the end: live text while it streams
// (its checkpoints are noted, not shown, since they lag behind the deltas), the stored
// message once that is complete or the turn ends. Its events and stored messages all carry
// its AnswerId, so nothing here has to guess which item a stored message belongs to.
import type { StoredMessage, ToolUseBlock } from "../record/types.js";
import type { StoredSummary } from "../compaction/types.js";
import { summariesInOrder } from "../compaction/heading.js";
import type { AnswerId } from "../session/turn/events.js";
import { GrowingMarkdown } from "./markdown-growing.js";
import type { Line } from "./style.js";
import { ToolCalls, type ToolCallState } from "./toolcall.js";
import { isOpenLive, type Body, type Item, type LiveBody, type NoticeLevel } from "./transcript-item.js";
import { layOutItem, LineCache, type ItemLines } from "./transcript-lines.js";

interface Anchor {
  index: number;
  offset: number;
}

export class Transcript {
  private items: Item[] = [];
  private byUid = new Map<number, Item>();
  private byMsgId = new Map<number, Item>();
  /** every answer's item, by its id (live until its message is complete or the turn ends) */
  private answers = new Map<AnswerId, Item>();
  private readonly laidOut = new LineCache();
  private nextUid = 1;
  private readonly calls = new ToolCalls();
  private expanded = new Set<string>();
  private selected: { uid: number; id: string } | undefined;
  private waitingForPermission = false;
  private turnRunning = false;

  follow = true;
  private anchor: Anchor = { index: 0, offset: 0 };
  private lastW = 80;
  private lastH = 24;

  constructor(private readonly now: () => number = Date.now) {}

  /** how many times an item was laid out (a cache miss); tests and benchmarks read it */
  get renders(): number {
    return this.laidOut.renders;
  }

  // ---- content -------------------------------------------------------------------------

  /** replaces everything with the record (start-up, /new, /sessions), each /compact summary
   * after the last message it replaced */
  load(history: readonly StoredMessage[], summaries: readonly StoredSummary[] = []): void {
    this.items = [];
    this.byUid.clear();
    this.byMsgId.clear();
    this.laidOut.clear();
    this.answers.clear();
    this.calls.clear();
    this.selected = undefined;
    this.follow = true;
    const waiting = summariesInOrder(summaries);
    for (const m of history) {
      while (waiting[0] && waiting[0].toSeq < m.seq) this.add({ kind: "summary", summary: waiting.shift()! });
      this.upsert(m);
    }
    for (const s of waiting) this.add({ kind: "summary", summary: s });
  }

  /** drops what is on screen; the record is untouched (/clear-screen) */
  clearView(): void {
    // an answer that is streaming keeps its live text on screen
    this.items = this.items.filter(isOpenLive);
    this.byUid = new Map(this.items.map((i) => [i.uid, i]));
    this.byMsgId.clear();
    for (const i of this.items) if (i.body.kind === "live" && i.body.stored) this.byMsgId.set(i.body.stored.id, i);
    this.laidOut.clear((uid) => this.byUid.has(uid));
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
    // a settled answer not shown since (scrolled away) lets its streaming state go too
    for (const item of this.answers.values()) if (item.body.kind === "message") delete item.md;
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
    const before = l.body.text;
    l.body.text += t;
    // the layout reads only what was added, not the whole answer again
    l.item.md?.grew(before, l.body.text, t);
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
    this.laidOut.forget(item.uid);
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

  toolOutput(id: string, tail: string, bytes: number): void {
    this.bump(this.calls.output(id, tail, bytes));
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
    return this.laidOut.awaitingColour();
  }

  /** lays out again (at the next frame) the items whose code was shown plain; true when any */
  recolour(): boolean {
    const plain = this.laidOut.takeUncoloured();
    for (const uid of plain) this.bump(uid);
    return plain.length > 0;
  }

  /** lays out every item again (at the next frame): widths were estimated until string-width came */
  widthsArrived(): void {
    for (const item of this.items) item.version++;
  }

  /** an answer streamed since the session was shown: the screen makes the pane's opening ready
   * while idle only then (or once a key came), so that a start left untouched stays idle */
  answered(): boolean {
    return this.answers.size > 0;
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

  /** what /copy takes: the selected tool call or message, else the last answer */
  copySource(): { tool: ToolUseBlock; state: ToolCallState } | { msg: StoredMessage } | undefined {
    const sel = this.selected;
    const item = sel ? this.byUid.get(sel.uid) : undefined;
    const msgOf = (i: Item | undefined): StoredMessage | undefined => (i?.body.kind === "message" ? i.body.msg : i?.body.kind === "live" ? i.body.stored : undefined);
    if (sel && item) {
      const msg = msgOf(item);
      if (sel.id.startsWith("t:")) {
        const block = msg?.blocks.find((b): b is ToolUseBlock => b.type === "tool_use" && `t:${b.id}` === sel.id);
        if (block) return { tool: block, state: this.calls.state(block.id) };
      }
      if (msg) return { msg };
    }
    for (let i = this.items.length - 1; i >= 0; i--) {
      const msg = msgOf(this.items[i]);
      if (msg?.role === "assistant" && msg.blocks.some((b) => b.type === "text" && b.text.trim() !== "")) return { msg };
    }
    return undefined;
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

  // ---- layout -------------------------------------------------------------------------------

  private rendered(item: Item, width: number): ItemLines {
    return this.laidOut.get(item, width, () => {
      const r = layOutItem(item, width, {
        expanded: this.expanded,
        selected: this.selected?.uid === item.uid ? this.selected.id : undefined,
        toolCall: (id) => this.calls.state(id),
        waitingForPermission: this.waitingForPermission,
        now: this.now(),
      });
      // a settled answer's streaming state has given its last lines: it goes, so that a long
      // session does not keep every answer's layout twice (a later layout reads the message)
      if (item.body.kind === "message") delete item.md;
      return r;
    });
  }

  /** answers still holding their streaming layout state, and layouts held: tests read them */
  retained(): { growing: number; layouts: number; lookups: number } {
    let growing = 0;
    for (const i of this.items) if (i.md) growing++;
    return { growing, layouts: this.laidOut.size, lookups: this.laidOut.lookups };
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

  /** Lines from the top of the window (its anchor) down to `line` of item `index`. */
  private linesBetween(top: Anchor, index: number, line: number): number {
    if (top.index === index) return line - top.offset;
    let dist = this.lineCount(top.index) - top.offset;
    for (let i = top.index + 1; i < index; i++) dist += this.lineCount(i);
    return dist + line;
  }

  /** the anchor of the top line of the current window */
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

  /** lays out (into the cache) what the window would show at another size, changing nothing
   * shown: the screen does it while idle for the width the context pane leaves it */
  prepare(width: number, height: number): void {
    const { lastW, lastH, follow, anchor } = this;
    this.view(width, height);
    Object.assign(this, { lastW, lastH, follow, anchor });
  }

  /** lays out (into the cache) the page a PageUp would show, changing nothing shown: a reader
   * scrolled back who pauses finds the page above ready */
  preparePageUp(): void {
    if (this.follow) return;
    const { lastW, lastH, follow, anchor } = this;
    this.pageUp();
    this.view(lastW, lastH);
    Object.assign(this, { lastW, lastH, follow, anchor });
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
