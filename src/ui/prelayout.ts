// While the screen is idle with the context pane closed, what the pane's key will show is made
// ahead: the transcript's window laid out at the width it has beside the pane (the transcript
// keeps both widths' layouts, transcript-lines.ts), and the pane's view and first page read.
// The key then draws the pane in its first frame, instead of waiting for a long answer to be
// laid out again at the new width and for two reads through the store. A reader scrolled back
// finds the page above laid out as well.
import type { ContextPane } from "./context-pane.js";
import { layout, sideBySide } from "./layout.js";
import type { Transcript } from "./transcript.js";

/** after this long with no frame, the screen counts as idle */
export const PRELAYOUT_IDLE_MS = 400;

export interface PrelayoutInput {
  cols: number;
  rows: number;
  paneOpen: boolean;
  turnIdle: boolean;
}

/** whether there is anything to make ahead: the pane is closed and no turn runs (and one ran) */
export function wantsPrelayout(i: PrelayoutInput): boolean {
  return i.turnIdle && !i.paneOpen;
}

/** lays out the transcript's window as the pane's opening would show it, and reads the pane's view */
export function prelayout(t: Transcript, pane: ContextPane, i: PrelayoutInput & { promptRows: number }): void {
  void pane.prefetch().catch(() => undefined);
  // near the window too: the page above, for a reader scrolled back
  t.preparePageUp();
  if (!sideBySide(i.cols)) return;
  const l = layout({ cols: i.cols, rows: i.rows, promptRows: i.promptRows, paneOpen: true });
  if (!l?.transcript || l.transcript.h <= 0) return;
  t.prepare(l.transcriptTextWidth, l.transcript.h);
}
