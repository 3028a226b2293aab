// What each of the key router's ops (keyrouter.ts) does to the part it names: the prompt's
// editor, the transcript, the context pane. The screen carries out the other intents itself.
import { assertNever } from "../record/types.js";
import type { ContextPane } from "./context-pane.js";
import type { InputEditor } from "./input.js";
import type { EditOp, PaneOp, TranscriptOp } from "./keyrouter.js";
import type { Transcript } from "./transcript.js";

export function paneOp(p: ContextPane, op: PaneOp): void {
  switch (op) {
    case "nextPage":
      return p.stepPage(1);
    case "prevPage":
      return p.stepPage(-1);
    case "nextSection":
      return p.stepSection(1);
    case "prevSection":
      return p.stepSection(-1);
    case "scrollUp":
      return p.scrollPage(-1);
    case "scrollDown":
      return p.scrollPage(1);
    case "count":
      return void p.countExact();
    case "close":
      p.open = false;
      return;
    default:
      assertNever(op, "pane op");
  }
}

export function transcriptOp(t: Transcript, op: TranscriptOp): void {
  switch (op) {
    case "selectPrev":
      t.select(-1);
      return;
    case "selectNext":
      t.select(1);
      return;
    case "toggleExpand":
      if (!t.toggleSelected()) t.select(-1);
      return;
    case "top":
      return t.top();
    case "bottom":
      return t.bottom();
    case "pageUp":
      return t.pageUp();
    case "pageDown":
      return t.pageDown();
    case "scrollUp":
      return t.scroll(-WHEEL_LINES);
    case "scrollDown":
      return t.scroll(WHEEL_LINES);
    case "clearSelection":
      return t.clearSelection();
    default:
      assertNever(op, "transcript op");
  }
}

/** lines the transcript moves per wheel step, as most terminals scroll their own history */
const WHEEL_LINES = 3;

export function editOp(e: InputEditor, op: EditOp): void {
  switch (op) {
    case "left":
      return e.left();
    case "right":
      return e.right();
    case "wordLeft":
      return e.wordLeft();
    case "wordRight":
      return e.wordRight();
    case "home":
      return e.home();
    case "end":
      return e.end();
    case "backspace":
      return e.backspace();
    case "deleteWordBack":
      return e.deleteWordBack();
    case "deleteForward":
      return e.deleteForward();
    case "killToEnd":
      return e.killToEnd();
    case "killToStart":
      return e.killToStart();
    case "newline":
      return e.newline();
    default:
      assertNever(op, "edit op");
  }
}
