// Where each part of the screen goes: the terminal's size and a little state in, rectangles
// out. Pure, so every size can be checked without a terminal.
//
//   ┌ transcript ──────────────┬─┬ context pane ───┐   rows 0 … main.h-1
//   │                          │ │                 │   (the pane covers the transcript
//   │                          │ │                 │    below SIDE_BY_SIDE_COLS columns)
//   ├ hint line ───────────────┴─┴─────────────────┤
//   │ › prompt (1 to 12 rows)                      │
//   └ status line ─────────────────────────────────┘   the last row

/** the context pane sits beside the transcript from this many columns, over it below */
export const SIDE_BY_SIDE_COLS = 110;
/** the prompt grows to at most this many rows (and 40% of the screen) */
const MAX_INPUT_ROWS = 12;
/** the prompt's gutter: "› " */
const PROMPT_GUTTER = 2;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface LayoutInput {
  cols: number;
  rows: number;
  /** how many rows the prompt's text takes at promptWidth(cols) */
  promptRows: number;
  paneOpen: boolean;
}

export interface Layout {
  cols: number;
  rows: number;
  /** the area above the hint line that the transcript and the pane share */
  main: Rect;
  /** the transcript, unless the pane covers it */
  transcript?: Rect;
  /** the width the transcript lays its text out at (one column short of its rectangle) */
  transcriptTextWidth: number;
  /** the rule between transcript and pane, and the blank column right of it (side by side) */
  divider?: Rect;
  gap?: Rect;
  pane?: Rect;
  /** the rule above the prompt, when there is a row for it */
  hint?: Rect;
  prompt: Rect;
  status: Rect;
}

export function sideBySide(cols: number): boolean {
  return cols >= SIDE_BY_SIDE_COLS;
}

/** the width the prompt's text wraps at */
export function promptWidth(cols: number): number {
  return Math.max(2, cols - PROMPT_GUTTER);
}

/** undefined for a terminal with no cells (it reports 0×0 while it is being resized) */
export function layout(i: LayoutInput): Layout | undefined {
  const { cols, rows } = i;
  if (cols <= 0 || rows <= 0) return undefined;
  const maxInput = Math.max(1, Math.min(MAX_INPUT_ROWS, Math.floor((rows - 3) * 0.4)));
  const inputH = Math.max(1, Math.min(i.promptRows, maxInput, rows - 2));
  const statusY = rows - 1;
  const inputY = Math.max(0, statusY - inputH);
  const hintY = inputY - 1;
  const mainH = Math.max(0, hintY);
  const out: Layout = {
    cols,
    rows,
    main: { x: 0, y: 0, w: cols, h: mainH },
    transcriptTextWidth: Math.max(8, cols - 1),
    prompt: { x: 0, y: inputY, w: cols, h: inputH },
    status: { x: 0, y: statusY, w: cols, h: 1 },
  };
  if (hintY >= 0) out.hint = { x: 0, y: hintY, w: cols, h: 1 };
  const side = i.paneOpen && sideBySide(cols);
  if (!i.paneOpen) {
    out.transcript = { x: 0, y: 0, w: cols, h: mainH };
  } else if (!side) {
    out.pane = { x: 0, y: 0, w: cols, h: mainH };
  } else {
    const paneW = Math.max(50, Math.min(Math.floor(cols * 0.45), cols - 50));
    const tw = cols - paneW - 1;
    out.transcript = { x: 0, y: 0, w: tw, h: mainH };
    out.transcriptTextWidth = Math.max(8, tw - 1);
    out.divider = { x: tw, y: 0, w: 1, h: mainH };
    out.gap = { x: tw + 1, y: 0, w: 1, h: mainH };
    out.pane = { x: tw + 2, y: 0, w: paneW - 1, h: mainH };
  }
  return out;
}

/** the first of the prompt's text rows shown, so that the cursor's row is in view */
export function promptScroll(cursorRow: number, totalRows: number, height: number): number {
  return Math.min(Math.max(0, cursorRow - height + 1), Math.max(0, totalRows - height));
}

/** the largest box a modal may be: the whole width, every row but the status line */
export function modalLimit(l: Pick<Layout, "cols" | "rows">): { w: number; h: number } {
  return { w: l.cols, h: Math.max(6, l.rows - 1) };
}

/** a modal box of w×h, centred above the status line */
export function centred(l: Pick<Layout, "cols" | "rows">, w: number, h: number): Rect {
  return { x: Math.max(0, Math.floor((l.cols - w) / 2)), y: Math.max(0, Math.floor((l.rows - 1 - h) / 2)), w, h };
}
