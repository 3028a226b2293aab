// The prompt editor (pure): text, cursor, grapheme-aware editing, visual-row movement, and
// large pastes kept out of the editable text. A paste above PASTE_FOLD_* is stored aside and
// shown as one atom "[pasted #1 · 2.0 MB · 51,234 lines]" that moves and deletes as a unit;
// value() puts the full text back. That keeps every keystroke and frame cheap however much
// was pasted.
import type { Line } from "./style.js";
import { formatBytes, formatInt, graphemes, graphemesOf, graphemeWidth } from "./text.js";

export const PASTE_FOLD_CHARS = 2000;
const PASTE_FOLD_LINES = 20;

const ATOM = /\[pasted #(\d+) · [^\]\n]*\]/g;

interface Span {
  start: number;
  end: number;
}

export interface InputLayout {
  rows: Line[];
  cursorRow: number;
  cursorCol: number;
}

interface Row {
  start: number;
  end: number;
  line: Line;
  /** cell offset where each grapheme starts, plus the end, for cursor placement */
  cols: { i: number; col: number }[];
}

/** normalises pasted or typed text: CRLF/CR → LF, other control characters dropped (tabs → spaces) */
function cleanInput(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\r\n?/g, "\n").replace(/\t/g, "    ").replace(/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g, "");
}

/** the prompt as the person saw it: the editable text with its atoms, and what they stand for */
export interface EditorShape {
  text: string;
  pastes: ReadonlyArray<readonly [number, string]>;
}

/** a recalled prompt with no shape known (from the record) folds only past this: typed text comes back as typed */
const RECALL_FOLD_CHARS = 20_000;
const RECALL_FOLD_LINES = 400;

export class InputEditor {
  text = "";
  cursor = 0;
  private pastes = new Map<number, string>();
  private seq = 0;
  private goalCol: number | undefined;
  /** the width of the last layout, for Up/Down over wrapped rows */
  width = 80;

  isEmpty(): boolean {
    return this.text.length === 0;
  }

  /** the text to send: atoms replaced by what was pasted */
  value(): string {
    if (this.pastes.size === 0) return this.text;
    return this.text.replace(ATOM, (m, id: string) => this.pastes.get(Number(id)) ?? m);
  }

  clear(): void {
    this.text = "";
    this.cursor = 0;
    this.pastes.clear();
    this.goalCol = undefined;
  }

  /** replaces the content (history recall); long text folds into an atom like a paste */
  set(text: string): void {
    this.clear();
    this.paste(text);
    this.cursor = this.text.length;
  }

  /** the prompt as it is shown now, to be recalled so */
  shape(): EditorShape {
    return { text: this.text, pastes: [...this.pastes] };
  }

  /**
   * A prompt from the history: in the shape it was sent in when it is known (typed lines as
   * lines, a paste as its atom); else as typed text, folded only when very long.
   */
  recall(text: string, shape?: EditorShape): void {
    this.clear();
    if (shape) {
      this.text = shape.text;
      for (const [id, t] of shape.pastes) {
        this.pastes.set(id, t);
        this.seq = Math.max(this.seq, id);
      }
    } else if (text.length > RECALL_FOLD_CHARS || countLinesUpTo(text, RECALL_FOLD_LINES + 1) > RECALL_FOLD_LINES) {
      this.paste(text);
    } else {
      this.insert(text);
    }
    this.cursor = this.text.length;
  }

  pasteCount(): number {
    return this.pastes.size;
  }

  private atoms(): Span[] {
    if (this.pastes.size === 0) return [];
    const out: Span[] = [];
    for (const m of this.text.matchAll(ATOM)) {
      if (this.pastes.has(Number(m[1]))) out.push({ start: m.index, end: m.index + m[0].length });
    }
    return out;
  }

  private atomAt(i: number, strict: boolean): Span | undefined {
    return this.atoms().find((a) => (strict ? a.start < i && i < a.end : a.start <= i && i <= a.end));
  }

  insert(s: string): void {
    const t = cleanInput(s);
    if (!t) return;
    this.text = this.text.slice(0, this.cursor) + t + this.text.slice(this.cursor);
    this.cursor += t.length;
    this.goalCol = undefined;
  }

  /** a paste: inserted as is when small, as an atom when large */
  paste(s: string): void {
    const t = cleanInput(s);
    if (!t) return;
    let lines = 1;
    for (let i = t.indexOf("\n"); i >= 0 && lines <= PASTE_FOLD_LINES; i = t.indexOf("\n", i + 1)) lines++;
    if (t.length <= PASTE_FOLD_CHARS && lines <= PASTE_FOLD_LINES) {
      this.insert(t);
      return;
    }
    let all = 1;
    for (let i = t.indexOf("\n"); i >= 0; i = t.indexOf("\n", i + 1)) all++;
    const id = ++this.seq;
    this.pastes.set(id, t);
    const label = `[pasted #${id} · ${formatBytes(Buffer.byteLength(t))} · ${formatInt(all)} line${all === 1 ? "" : "s"}]`;
    this.text = this.text.slice(0, this.cursor) + label + this.text.slice(this.cursor);
    this.cursor += label.length;
    this.goalCol = undefined;
  }

  newline(): void {
    this.insert("\n");
  }

  private prevBoundary(i: number): number {
    if (i <= 0) return 0;
    const atom = this.atomAt(i, false);
    if (atom && atom.end === i) return atom.start;
    const from = Math.max(0, i - 64);
    const gs = graphemesOf(this.text.slice(from, i));
    return i - (gs[gs.length - 1]?.length ?? i - from);
  }

  private nextBoundary(i: number): number {
    if (i >= this.text.length) return this.text.length;
    const atom = this.atomAt(i, false);
    if (atom && atom.start === i) return atom.end;
    const first = graphemesOf(this.text.slice(i, i + 64))[0];
    return first === undefined ? this.text.length : i + first.length;
  }

  left(): void {
    this.cursor = this.prevBoundary(this.cursor);
    this.goalCol = undefined;
  }

  right(): void {
    this.cursor = this.nextBoundary(this.cursor);
    this.goalCol = undefined;
  }

  backspace(): void {
    if (this.cursor === 0) return;
    const from = this.prevBoundary(this.cursor);
    this.removeRange(from, this.cursor);
  }

  deleteForward(): void {
    if (this.cursor >= this.text.length) return;
    this.removeRange(this.cursor, this.nextBoundary(this.cursor));
  }

  private removeRange(from: number, to: number): void {
    const removed = this.text.slice(from, to);
    for (const m of removed.matchAll(ATOM)) this.pastes.delete(Number(m[1]));
    this.text = this.text.slice(0, from) + this.text.slice(to);
    this.cursor = from;
    this.goalCol = undefined;
    // cutting into an atom leaves broken text that no longer matches; drop its paste too
    for (const id of [...this.pastes.keys()]) if (!this.text.includes(`[pasted #${id} · `)) this.pastes.delete(id);
  }

  home(): void {
    this.cursor = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
    this.goalCol = undefined;
  }

  end(): void {
    const i = this.text.indexOf("\n", this.cursor);
    this.cursor = i < 0 ? this.text.length : i;
    this.goalCol = undefined;
  }

  private isWordChar(i: number): boolean {
    const c = this.text[i];
    return c !== undefined && !/[\s]/.test(c) && !/[.,;:!?()[\]{}"'`/\\<>=+*&|^%$#@~-]/.test(c);
  }

  wordLeft(): void {
    let i = this.cursor;
    while (i > 0 && !this.isWordChar(i - 1)) i--;
    while (i > 0 && this.isWordChar(i - 1)) i--;
    const atom = this.atomAt(i, true);
    this.cursor = atom ? atom.start : i;
    this.goalCol = undefined;
  }

  wordRight(): void {
    let i = this.cursor;
    const n = this.text.length;
    while (i < n && !this.isWordChar(i)) i++;
    while (i < n && this.isWordChar(i)) i++;
    const atom = this.atomAt(i, true);
    this.cursor = atom ? atom.end : i;
    this.goalCol = undefined;
  }

  deleteWordBack(): void {
    const end = this.cursor;
    this.wordLeft();
    this.removeRange(this.cursor, end);
  }

  killToEnd(): void {
    const i = this.text.indexOf("\n", this.cursor);
    const end = i < 0 ? this.text.length : i === this.cursor ? i + 1 : i;
    this.removeRange(this.cursor, end);
  }

  killToStart(): void {
    const start = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
    this.removeRange(start === this.cursor && start > 0 ? start - 1 : start, this.cursor);
  }

  // ---- layout ---------------------------------------------------------------------------------

  private rows(width: number): Row[] {
    const w = Math.max(2, width);
    const atoms = this.atoms();
    const rows: Row[] = [];
    let lineStart = 0;
    for (const logical of this.text.split("\n")) {
      const base = lineStart;
      lineStart += logical.length + 1;
      // units: graphemes, with atoms kept whole (an atom wider than a row is cut when drawn)
      const units: { i: number; g: string; w: number; atom: boolean }[] = [];
      let k = 0;
      while (k < logical.length) {
        const abs = base + k;
        const atom = atoms.find((a) => a.start === abs);
        if (atom) {
          const g = this.text.slice(atom.start, atom.end);
          units.push({ i: abs, g, w: Math.min(w, g.length), atom: true });
          k += g.length;
          continue;
        }
        const next = atoms.find((a) => a.start > abs && a.start < base + logical.length);
        const stop = next ? next.start - base : logical.length;
        for (const g of graphemes(logical.slice(k, stop))) {
          units.push({ i: base + k, g, w: Math.max(graphemeWidth(g), g === "" ? 0 : 1), atom: false });
          k += g.length;
        }
      }
      let row: Row = { start: base, end: base, line: [], cols: [] };
      let used = 0;
      const flush = (end: number): void => {
        row.end = end;
        row.cols.push({ i: end, col: used });
        rows.push(row);
      };
      for (const u of units) {
        if (used + u.w > w && used > 0) {
          flush(u.i);
          row = { start: u.i, end: u.i, line: [], cols: [] };
          used = 0;
        }
        row.cols.push({ i: u.i, col: used });
        const text = u.atom && u.g.length > w ? u.g.slice(0, Math.max(1, w - 1)) + "…" : u.g;
        if (u.atom) row.line.push({ t: text, s: "hint" });
        else {
          const last = row.line[row.line.length - 1];
          if (last && !last.s) last.t += text;
          else row.line.push({ t: text });
        }
        used += u.w;
      }
      flush(base + logical.length);
    }
    return rows;
  }

  private cursorPos(rows: Row[]): { row: number; col: number } {
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const next = rows[r + 1];
      // the boundary of a wrapped row belongs to the next row
      if (this.cursor >= row.start && (this.cursor < row.end || (this.cursor === row.end && !(next && next.start === row.end)))) {
        const c = row.cols.find((x) => x.i === this.cursor) ?? row.cols[row.cols.length - 1]!;
        return { row: r, col: c.col };
      }
    }
    const last = rows[rows.length - 1]!;
    return { row: rows.length - 1, col: last.cols[last.cols.length - 1]!.col };
  }

  layout(width: number): InputLayout {
    this.width = width;
    const rows = this.rows(width);
    const pos = this.cursorPos(rows);
    return { rows: rows.map((r) => r.line), cursorRow: pos.row, cursorCol: pos.col };
  }

  /** moves one visual row up (-1) or down (+1); false when already on the first/last row */
  vertical(dir: -1 | 1): boolean {
    const rows = this.rows(this.width);
    const pos = this.cursorPos(rows);
    const target = rows[pos.row + dir];
    if (!target) return false;
    const goal = this.goalCol ?? pos.col;
    let best = target.cols[0]!;
    for (const c of target.cols) {
      if (c.col <= goal) best = c;
      else break;
    }
    // the end entry of a wrapped row is the next row's start: stay on this row
    const next = rows[pos.row + dir + 1];
    if (best.i === target.end && next && next.start === target.end && target.cols.length > 1) best = target.cols[target.cols.length - 2]!;
    this.cursor = best.i;
    this.goalCol = goal;
    return true;
  }
}

/** earlier prompts for Up/Down, with the unfinished draft kept while browsing */
/** lines of `s`, counted up to `cap` */
function countLinesUpTo(s: string, cap: number): number {
  let n = 1;
  for (let i = s.indexOf("\n"); i >= 0 && n < cap; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

export class PromptHistory {
  private entries: string[];
  private pos: number;
  private draft = "";
  private draftShape: EditorShape | undefined;
  /** the shapes the prompts sent in this run were typed in, by their text */
  private shapes = new Map<string, EditorShape>();

  constructor(entries: string[] = [], private readonly max = 500) {
    this.entries = entries.slice(-max);
    this.pos = this.entries.length;
  }

  /** the prompts of another session (or of the whole record, once it has loaded) */
  replace(entries: string[]): void {
    this.entries = entries.slice(-this.max);
    this.pos = this.entries.length;
    this.draft = "";
  }

  add(text: string, shape?: EditorShape): void {
    if (!text.trim()) return;
    if (shape) {
      this.shapes.delete(text);
      this.shapes.set(text, shape);
      // the oldest shapes go with their entries
      while (this.shapes.size > this.max) this.shapes.delete(this.shapes.keys().next().value!);
    }
    if (this.entries[this.entries.length - 1] !== text) this.entries.push(text);
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
    this.pos = this.entries.length;
    this.draft = "";
  }

  /** the previous prompt, or undefined at the oldest; `current` is kept as the draft */
  prev(current: string, shape?: EditorShape): string | undefined {
    if (this.pos === 0) return undefined;
    if (this.pos === this.entries.length) {
      this.draft = current;
      this.draftShape = shape;
    }
    this.pos--;
    return this.entries[this.pos];
  }

  /** the next prompt, the draft after the newest, or undefined when not browsing */
  next(): string | undefined {
    if (this.pos >= this.entries.length) return undefined;
    this.pos++;
    return this.pos === this.entries.length ? this.draft : this.entries[this.pos];
  }

  reset(): void {
    this.pos = this.entries.length;
    this.draft = "";
    this.draftShape = undefined;
  }

  /** the shape `text` was typed in, when it was sent (or left as the draft) in this run */
  shapeOf(text: string): EditorShape | undefined {
    if (this.pos === this.entries.length && text === this.draft && this.draftShape) return this.draftShape;
    return this.shapes.get(text);
  }

  size(): number {
    return this.entries.length;
  }
}
