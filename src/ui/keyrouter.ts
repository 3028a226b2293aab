// How a key becomes an action. Every key and paste the parser reads comes through route(),
// editing keys and boxes included, and leaves as a list of intents that the screen carries
// out (app.ts, act()). Every key it acts on is looked up in the keymap by action, in the
// places and order of bindings.ts (PLACES); only typing a character is not an action. Pure but
// for the double Ctrl-C, whose first press it keeps: what the screen looks like goes in as a
// RouteView, so every path can be tested without one.
//
// The order of the checks is the order of precedence: quit and suspend work everywhere; an
// open box takes keys once it is ready, and until then they are typed ahead to where they
// were going (never answering it); before the session is open only the prompt takes keys; then
// the pane toggle and redraw; the wheel scrolls what is under the pointer; then the focus: the
// context pane, the transcript, or the prompt. A focused pane or transcript hands typing on
// to the prompt.
import type { PermissionAnswer } from "../tools/types.js";
import {
  CONTEXT_ACTIONS,
  DECIDING_ACTIONS,
  EDIT_ACTIONS,
  keyLabel,
  prettyKey,
  PERMISSION_ACTIONS,
  PROMPT_ACTIONS,
  REWIND_ACTIONS,
  SESSIONS_ACTIONS,
  TRANSCRIPT_ACTIONS,
  type Action,
  type Keymap,
} from "./bindings.js";
import { splitAlt, type InputEvent, type KeyEvent } from "./keys.js";
import type { StyleName } from "./style.js";
import { assertNever } from "../record/types.js";

/** a second Ctrl-C within this long quits */
export const QUIT_WINDOW_MS = 2000;
/** a second Esc on an empty prompt within this long, no turn running, opens the rewind */
export const REWIND_WINDOW_MS = 1500;

export type Focus = "input" | "transcript" | "context";

export type EditOp =
  | "left"
  | "right"
  | "wordLeft"
  | "wordRight"
  | "home"
  | "end"
  | "backspace"
  | "deleteWordBack"
  | "deleteForward"
  | "killToEnd"
  | "killToStart"
  | "newline";

export type TranscriptOp =
  | "selectPrev"
  | "selectNext"
  | "toggleExpand"
  | "top"
  | "bottom"
  | "pageUp"
  | "pageDown"
  /** a few lines (the wheel) */
  | "scrollUp"
  | "scrollDown"
  | "clearSelection";

export type PaneOp = "nextPage" | "prevPage" | "nextSection" | "prevSection" | "scrollUp" | "scrollDown" | "count" | "close";

export type Intent =
  | { type: "quit" }
  | { type: "flash"; text: string; style: StyleName; ms?: number }
  /** Ctrl-L: forget what the terminal shows and paint all of it */
  | { type: "redraw" }
  /** Ctrl-Z: give the terminal back and stop until the shell's fg */
  | { type: "suspend" }
  | { type: "toggleContext" }
  | { type: "showTasks" }
  /** the next permission mode (mode-cycle.ts) */
  | { type: "cycleMode" }
  | { type: "pane"; op: PaneOp }
  /** the person moved to the prompt */
  | { type: "focus"; to: "input" }
  /** typing while the pane has the focus: the prompt takes it until it is sent, then the pane */
  | { type: "compose" }
  /** to the transcript, selecting the last part on screen when nothing is selected */
  | { type: "focusTranscript" }
  | { type: "transcript"; op: TranscriptOp }
  | { type: "interrupt" }
  | { type: "submit" }
  /** during a turn: the prompt joins it at its next model call (no turn: as submit) */
  | { type: "steer" }
  /** the queued messages: the last one back into the prompt, or dropped */
  | { type: "queue"; op: "edit" | "remove" }
  /** Ctrl-C with no turn running: the prompt is emptied */
  | { type: "clearPrompt" }
  /** the terminal gained or lost the focus (mode 1004) */
  | { type: "termFocus"; focused: boolean }
  /** Enter before the session is open: send the prompt once it is */
  | { type: "hold" }
  /** Esc before the session is open: keep the prompt instead */
  | { type: "release" }
  | { type: "edit"; op: EditOp }
  /** Up/Down: a row in the prompt, else the prompt history (once there is one) */
  | { type: "history"; dir: -1 | 1 }
  | { type: "complete" }
  | { type: "type"; ch: string }
  | { type: "paste"; text: string }
  | { type: "dismissFlash" }
  /** a key went past an open box that was not ready for it: the box waits again */
  | { type: "typedAhead" }
  | { type: "answer"; answer: PermissionAnswer }
  /** scroll the permission question by `by` rows */
  | { type: "scrollQuestion"; by: number }
  /** move the session picker's selection by `by` (±Infinity: first, last) */
  | { type: "pickerMove"; by: number }
  | { type: "pickerClose" }
  /** `index`: the row chosen by its number (the model list), instead of the selected one */
  | { type: "pickerChoose"; index?: number }
  /** Esc Esc on an empty prompt: pick a prompt to rewind to (as /rewind) */
  | { type: "rewind" }
  /** in the rewind box's preview: show or hide the diffs */
  | { type: "rewindDiff" };

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** what the router needs to know of the screen */
export interface RouteView {
  /** the session is open (before that only the prompt takes keys) */
  attached: boolean;
  modal: "permission" | "sessions" | "models" | "rewind" | undefined;
  /** the open box has been on screen long enough, with no key typed, to take keys (focus.ts) */
  boxReady: boolean;
  focus: Focus;
  paneOpen: boolean;
  /** the pane covers the transcript (the screen is narrower than SIDE_BY_SIDE_COLS) */
  paneCovers: boolean;
  /** where the pane is drawn, when it is: the wheel over it scrolls it */
  paneRect?: Rect | undefined;
  /** a turn runs, or a /compact reports its state: Esc interrupts it */
  interruptible: boolean;
  promptEmpty: boolean;
  /** Enter was pressed before the session was open */
  held: boolean;
  /** how many messages wait in the queue (0 when none) */
  queued?: number;
}

const EDIT_OPS: Record<(typeof EDIT_ACTIONS)[number], EditOp> = {
  "input.left": "left",
  "input.right": "right",
  "input.wordLeft": "wordLeft",
  "input.wordRight": "wordRight",
  "input.home": "home",
  "input.end": "end",
  "input.backspace": "backspace",
  "input.deleteWordBack": "deleteWordBack",
  "input.deleteForward": "deleteForward",
  "input.killToEnd": "killToEnd",
  "input.killToStart": "killToStart",
};

function printable(k: KeyEvent): k is KeyEvent & { ch: string } {
  return k.ch !== undefined && !k.ctrl && !k.meta;
}

function inside(r: Rect, p: { x: number; y: number }): boolean {
  return p.x >= r.x && p.x < r.x + r.w && p.y >= r.y && p.y < r.y + r.h;
}

/**
 * What a key typed ahead of a box may still do: edit the prompt, move the focus, scroll. Not
 * send, interrupt or quit: the person did not see the box when they pressed it, so it is not
 * known what they meant by it.
 */
function typeAheadSafe(i: Intent): boolean {
  switch (i.type) {
    case "type":
    case "edit":
    case "paste":
    case "complete":
    case "history":
    case "focus":
    case "compose":
    case "focusTranscript":
    case "transcript":
    case "pane":
    case "toggleContext":
    case "showTasks":
    case "redraw":
    case "dismissFlash":
    case "typedAhead":
    case "termFocus":
      return true;
    case "quit":
    case "cycleMode":
    case "flash":
    case "suspend":
    case "interrupt":
    case "submit":
    case "steer":
    case "queue":
    case "clearPrompt":
    case "hold":
    case "release":
    case "answer":
    case "scrollQuestion":
    case "pickerMove":
    case "pickerClose":
    case "pickerChoose":
    case "rewind":
    case "rewindDiff":
      return false;
    default:
      return assertNever(i, "intent");
  }
}

export class KeyRouter {
  /** when Ctrl-C was pressed once, if it was */
  private quitArmedAt: number | undefined;
  /** when Esc was pressed once on an empty prompt with no turn running, if it was */
  private rewindArmedAt: number | undefined;

  constructor(
    private km: Keymap,
    private readonly now: () => number = Date.now,
  ) {}

  setKeymap(km: Keymap): void {
    this.km = km;
  }

  private is(action: Action, k: KeyEvent): boolean {
    return this.km.bindings[action].includes(k.full);
  }

  /** the first action of a place's list bound to the key (and applying now) */
  private first<A extends Action>(actions: readonly A[], k: KeyEvent, applies: (a: A) => boolean = () => true): A | undefined {
    for (const a of actions) if (this.is(a, k) && applies(a)) return a;
    return undefined;
  }

  route(ev: InputEvent, view: RouteView): Intent[] {
    // only an Esc right after an Esc counts as the double; any other key lets go of the first
    const rewindArmed = this.rewindArmedAt;
    this.rewindArmedAt = undefined;
    if (ev.type === "paste") {
      // a paste is text for the prompt: it never answers a box, and one that is open waits again
      return view.modal ? [{ type: "typedAhead" }, ...this.pasteTo(ev.text, view)] : this.pasteTo(ev.text, view);
    }
    const k = ev;
    // the terminal's focus reports are not keys: they change nothing a key would
    if (k.name === "focusin" || k.name === "focusout") {
      this.rewindArmedAt = rewindArmed;
      return [{ type: "termFocus", focused: k.name === "focusin" }];
    }
    // with no box open, the quit key interrupts a running turn, then empties the prompt; only
    // on an empty prompt with nothing running does it quit (pressed twice: a prompt just
    // emptied by it counts as the first press, and what it held is kept as the draft)
    if (this.is("app.quit", k) && !view.modal && view.attached) {
      if (view.interruptible) {
        // a second press while the turn winds down quits, as with no turn
        const now = this.now();
        if (this.quitArmedAt !== undefined && now - this.quitArmedAt < QUIT_WINDOW_MS) return [{ type: "quit" }];
        this.quitArmedAt = now;
        return [{ type: "interrupt" }, { type: "flash", text: `interrupting… what arrived is kept · press ${keyLabel(this.km, "app.quit")} again to quit`, style: "warn", ms: QUIT_WINDOW_MS }];
      }
      if (!view.promptEmpty) {
        this.quitArmedAt = this.now();
        return [{ type: "clearPrompt" }];
      }
    }
    // quitting works everywhere, even with a question open (it is then answered "deny")
    if (this.is("app.quit", k)) {
      const now = this.now();
      if (this.quitArmedAt !== undefined && now - this.quitArmedAt < QUIT_WINDOW_MS) return [{ type: "quit" }];
      this.quitArmedAt = now;
      return [{ type: "flash", text: `press ${keyLabel(this.km, "app.quit")} again to quit`, style: "warn", ms: QUIT_WINDOW_MS }];
    }
    this.quitArmedAt = undefined;
    // suspending answers nothing: a box is still there when the shell's fg brings the screen back
    if (this.is("app.suspend", k)) return [{ type: "suspend" }];
    // Esc and a letter typed at once arrive as one Alt-letter: one the keymap binds is that
    // key; one bound to nothing is the Esc and then the letter ("think" stays "think")
    const split = this.unboundAlt(k, view);
    if (split) return [...this.route(split[0], view), ...this.route(split[1], view)];
    if (view.modal) return this.boxKey(view.modal, k, view);
    return this.placeKey(k, view, { armedAt: rewindArmed });
  }

  /** an Alt-character no action binds where the keys are, as Esc and the character; else
   * undefined. A key bound only to the pane's or the transcript's actions is Esc and the
   * letter elsewhere: Alt-t counts tokens in the pane, and in the prompt Esc-t stays "t". */
  private unboundAlt(k: KeyEvent, view: RouteView): [KeyEvent, KeyEvent] | undefined {
    if (!k.meta || k.at) return undefined;
    const parts = splitAlt(k);
    if (!parts) return undefined;
    for (const [action, keys] of Object.entries(this.km.bindings) as [Action, string[]][]) {
      if (keys.includes(k.full) && actsHere(action, view)) return undefined;
    }
    return parts;
  }

  private pasteTo(text: string, view: RouteView): Intent[] {
    const paste: Intent = { type: "paste", text };
    switch (view.focus) {
      case "transcript":
        return [{ type: "transcript", op: "clearSelection" }, { type: "focus", to: "input" }, paste];
      case "context":
        return view.paneOpen ? [{ type: "compose" }, paste] : [paste];
      case "input":
        return [paste];
      default:
        return assertNever(view.focus, "focus");
    }
  }

  /** keys with no box open: the focus decides */
  /** `esc`: when an Esc may count toward Esc Esc (not for a key typed ahead of a box) */
  private placeKey(k: KeyEvent, view: RouteView, esc?: { armedAt: number | undefined }): Intent[] {
    if (this.is("app.redraw", k)) return [{ type: "redraw" }];
    // the pane is asked for even while the session opens: it opens with the session
    if (this.is("context.toggle", k)) return [{ type: "toggleContext" }];
    // before the session is open only the prompt takes keys
    if (!view.attached) return this.promptKey(k, view);
    if (this.is("tasks.show", k)) return [{ type: "showTasks" }];
    if (this.is("permission.cycle", k)) return [{ type: "cycleMode" }];
    if (k.at) return this.wheel(k, k.at, view);
    if (view.focus === "context" && view.paneOpen) return this.contextKey(k, view);
    if (view.focus === "transcript") return this.transcriptKey(k, view);
    return this.promptKey(k, view, esc);
  }

  /** the wheel scrolls what is under the pointer, whatever has the focus */
  private wheel(k: KeyEvent, at: { x: number; y: number }, view: RouteView): Intent[] {
    if (view.paneOpen && view.paneRect && inside(view.paneRect, at)) {
      const a = this.first(CONTEXT_ACTIONS, k);
      return a ? this.contextAction(a, view) : [];
    }
    const a = this.first(TRANSCRIPT_ACTIONS, k, (x) => x !== "turn.interrupt" || view.interruptible);
    return a ? this.transcriptAction(a) : [];
  }

  /**
   * An open box. Until it is ready every key is typed ahead: it goes where it would have gone
   * without the box (the prompt, mostly), so typed text is kept and the box is not answered.
   * Once ready, its own keys act; typing on (a character it does not bind) is still the
   * prompt's, and the box waits again.
   */
  private boxKey(box: "permission" | "sessions" | "models" | "rewind", k: KeyEvent, view: RouteView): Intent[] {
    // the model list and the rewind box are pickers like the sessions': the same keys move,
    // choose and close them
    const a = box === "permission" ? this.first(PERMISSION_ACTIONS, k) : box === "rewind" ? this.first(REWIND_ACTIONS, k) : this.first(SESSIONS_ACTIONS, k);
    // a person may look at what the model was sent before answering
    if (box === "permission" && this.is("context.toggle", k)) return [{ type: "toggleContext" }];
    // and a row's number chooses it, once the list is ready (until then a digit is typed ahead)
    if ((box === "models" || box === "rewind") && view.boxReady && !k.at && printable(k) && /^[1-9]$/.test(k.ch)) return [{ type: "pickerChoose", index: Number(k.ch) - 1 }];
    const deciding = a !== undefined && DECIDING_ACTIONS.has(a);
    // the wheel is not typing: it scrolls a box at once, and answers one only when it is ready
    if (k.at) return a && (!deciding || view.boxReady) ? this.boxAction(a) : [];
    if (!view.boxReady) return this.typedAhead(k, view);
    if (a) return this.boxAction(a);
    if (printable(k)) return this.typedAhead(k, view);
    return [];
  }

  /** a key that reached an open box before it was ready, routed as if the box were not there */
  private typedAhead(k: KeyEvent, view: RouteView): Intent[] {
    const under = this.placeKey(k, { ...view, modal: undefined });
    const kept = under.filter(typeAheadSafe);
    const out: Intent[] = [{ type: "typedAhead" }, ...kept];
    if (kept.length < under.length) {
      out.push({ type: "flash", text: `${prettyKey(k.full)} held back: a box opened as you typed · what you typed stays in the prompt`, style: "warn" });
    }
    return out;
  }

  private boxAction(a: (typeof PERMISSION_ACTIONS)[number] | (typeof REWIND_ACTIONS)[number]): Intent[] {
    switch (a) {
      case "permission.allowOnce":
        return [{ type: "answer", answer: "once" }];
      case "permission.allowSession":
        return [{ type: "answer", answer: "session" }];
      case "permission.allowTool":
        return [{ type: "answer", answer: "tool" }];
      case "permission.deny":
        return [{ type: "answer", answer: "deny" }];
      case "permission.scrollUp":
        return [{ type: "scrollQuestion", by: -1 }];
      case "permission.scrollDown":
        return [{ type: "scrollQuestion", by: 1 }];
      case "permission.pageUp":
        return [{ type: "scrollQuestion", by: -10 }];
      case "permission.pageDown":
        return [{ type: "scrollQuestion", by: 10 }];
      case "sessions.prev":
        return [{ type: "pickerMove", by: -1 }];
      case "sessions.next":
        return [{ type: "pickerMove", by: 1 }];
      case "sessions.pageUp":
        return [{ type: "pickerMove", by: -10 }];
      case "sessions.pageDown":
        return [{ type: "pickerMove", by: 10 }];
      case "sessions.first":
        return [{ type: "pickerMove", by: -Infinity }];
      case "sessions.last":
        return [{ type: "pickerMove", by: Infinity }];
      case "sessions.choose":
        return [{ type: "pickerChoose" }];
      case "sessions.close":
        return [{ type: "pickerClose" }];
      case "rewind.diff":
        return [{ type: "rewindDiff" }];
      default:
        return assertNever(a, "box action");
    }
  }

  /** the context pane has the focus; typing goes on to the prompt until it is sent */
  private contextKey(k: KeyEvent, view: RouteView): Intent[] {
    const a = this.first(CONTEXT_ACTIONS, k);
    if (a) return this.contextAction(a, view);
    if (printable(k)) return [{ type: "compose" }, ...this.promptKey(k, { ...view, focus: "input" })];
    // quitting on an empty prompt works wherever the keys are
    if (this.is("app.quitIfEmpty", k) && view.promptEmpty) return [{ type: "quit" }];
    return []; // other keys do nothing here
  }

  private contextAction(a: (typeof CONTEXT_ACTIONS)[number], view: RouteView): Intent[] {
    switch (a) {
      case "context.close":
        return [{ type: "toggleContext" }];
      case "context.nextPage":
        return [{ type: "pane", op: "nextPage" }];
      case "context.prevPage":
        return [{ type: "pane", op: "prevPage" }];
      case "context.nextSection":
        return [{ type: "pane", op: "nextSection" }];
      case "context.prevSection":
        return [{ type: "pane", op: "prevSection" }];
      case "context.scrollUp":
        return [{ type: "pane", op: "scrollUp" }];
      case "context.scrollDown":
        return [{ type: "pane", op: "scrollDown" }];
      case "context.countTokens":
        return [{ type: "pane", op: "count" }];
      case "transcript.focus":
        // over a narrow screen the pane hides the transcript: close it to show what gets focus
        return [...(view.paneCovers ? [{ type: "pane", op: "close" } as const] : []), { type: "focusTranscript" }];
      case "context.focusPrompt":
        return [{ type: "focus", to: "input" }];
      default:
        return assertNever(a, "pane action");
    }
  }

  /** the transcript has the focus: typing leaves it for the prompt */
  private transcriptKey(k: KeyEvent, view: RouteView): Intent[] {
    const a = this.first(TRANSCRIPT_ACTIONS, k, (x) => x !== "turn.interrupt" || view.interruptible);
    if (a) return this.transcriptAction(a);
    if (printable(k)) return [...LEAVE_TRANSCRIPT, ...this.promptKey(k, { ...view, focus: "input" })];
    if (this.is("app.quitIfEmpty", k) && view.promptEmpty) return [{ type: "quit" }];
    return [];
  }

  private transcriptAction(a: (typeof TRANSCRIPT_ACTIONS)[number]): Intent[] {
    switch (a) {
      case "turn.interrupt":
        return [{ type: "interrupt" }];
      case "transcript.selectPrev":
        return [{ type: "transcript", op: "selectPrev" }];
      case "transcript.selectNext":
        return [{ type: "transcript", op: "selectNext" }];
      case "transcript.toggleExpand":
        return [{ type: "transcript", op: "toggleExpand" }];
      case "transcript.top":
        return [{ type: "transcript", op: "top" }];
      case "transcript.bottom":
        return [{ type: "transcript", op: "bottom" }];
      case "transcript.pageUp":
        return [{ type: "transcript", op: "pageUp" }];
      case "transcript.pageDown":
        return [{ type: "transcript", op: "pageDown" }];
      case "transcript.scrollUp":
        return [{ type: "transcript", op: "scrollUp" }];
      case "transcript.scrollDown":
        return [{ type: "transcript", op: "scrollDown" }];
      case "input.focus":
      case "transcript.focus":
        return [...LEAVE_TRANSCRIPT];
      default:
        return assertNever(a, "transcript action");
    }
  }

  /**
   * The prompt: submitting, history, completion and editing. Before the session is open Enter
   * is held (the prompt goes out once it is open) and Esc lets go of it again; history, the
   * transcript and the context pane come with the session.
   */
  private promptKey(k: KeyEvent, view: RouteView, esc?: { armedAt: number | undefined }): Intent[] {
    const a = this.first(PROMPT_ACTIONS, k, (x) => {
      if (x === "turn.interrupt") return view.attached ? view.interruptible : view.held;
      if (x === "queue.edit" || x === "queue.remove") return view.attached && (view.queued ?? 0) > 0;
      if (x === "transcript.focus" || x === "transcript.pageUp" || x === "transcript.pageDown") return view.attached;
      return true;
    });
    if (!a) return printable(k) ? [{ type: "type", ch: k.ch }] : [];
    switch (a) {
      case "turn.interrupt":
        return [view.attached ? { type: "interrupt" } : { type: "release" }];
      case "input.submit":
        return [view.attached ? { type: "submit" } : { type: "hold" }];
      case "input.steer":
        return [view.attached ? { type: "steer" } : { type: "hold" }];
      case "queue.edit":
        return [{ type: "queue", op: "edit" }];
      case "queue.remove":
        return [{ type: "queue", op: "remove" }];
      case "input.newline":
        return [{ type: "edit", op: "newline" }];
      case "input.historyPrev":
        return [{ type: "history", dir: -1 }];
      case "input.historyNext":
        return [{ type: "history", dir: 1 }];
      case "input.complete":
        return [{ type: "complete" }];
      case "transcript.focus":
        return [{ type: "focusTranscript" }];
      case "transcript.pageUp":
        return [{ type: "transcript", op: "pageUp" }];
      case "transcript.pageDown":
        return [{ type: "transcript", op: "pageDown" }];
      case "app.quitIfEmpty":
        return view.promptEmpty ? [{ type: "quit" }] : [{ type: "edit", op: "deleteForward" }];
      case "input.cancel": {
        // over a narrow screen it also closes the context pane that hides the transcript
        const closesPane = view.attached && view.paneOpen && view.paneCovers;
        // twice on an empty prompt, with no turn to interrupt: rewind (the first Esc of an
        // interrupt never counts, so a lone Esc during a turn only ever interrupts)
        if (esc && view.attached && view.promptEmpty && !view.interruptible && !closesPane) {
          const now = this.now();
          if (esc.armedAt !== undefined && now - esc.armedAt < REWIND_WINDOW_MS) return [{ type: "rewind" }];
          this.rewindArmedAt = now;
          return [{ type: "dismissFlash" }, { type: "flash", text: `${prettyKey(k.full)} again: rewind to an earlier prompt`, style: "dim", ms: REWIND_WINDOW_MS }];
        }
        return [...(closesPane ? [{ type: "pane", op: "close" } as const] : []), { type: "dismissFlash" }];
      }
      case "input.left":
      case "input.right":
      case "input.wordLeft":
      case "input.wordRight":
      case "input.home":
      case "input.end":
      case "input.backspace":
      case "input.deleteWordBack":
      case "input.deleteForward":
      case "input.killToEnd":
      case "input.killToStart":
        return [{ type: "edit", op: EDIT_OPS[a] }];
      default:
        return assertNever(a, "prompt action");
    }
  }
}

/** leaving the transcript: back to the prompt, nothing selected */
const LEAVE_TRANSCRIPT: readonly Intent[] = [
  { type: "focus", to: "input" },
  { type: "transcript", op: "clearSelection" },
];

const PROMPT_OR_EDIT: ReadonlySet<Action> = new Set<Action>([...PROMPT_ACTIONS, ...EDIT_ACTIONS]);
const PANE_ONLY: ReadonlySet<Action> = new Set<Action>(CONTEXT_ACTIONS.filter((a) => !PROMPT_OR_EDIT.has(a) && !(TRANSCRIPT_ACTIONS as readonly Action[]).includes(a)));
const TRANSCRIPT_ONLY: ReadonlySet<Action> = new Set<Action>(TRANSCRIPT_ACTIONS.filter((a) => !PROMPT_OR_EDIT.has(a) && !(CONTEXT_ACTIONS as readonly Action[]).includes(a)));

/** whether an action can act where the keys are now: with a box open every binding counts
 * (the box decides); else the pane's own actions only in the pane, the transcript's only
 * in the transcript */
function actsHere(action: Action, view: RouteView): boolean {
  if (view.modal) return true;
  if (PANE_ONLY.has(action)) return view.focus === "context" && view.paneOpen;
  if (TRANSCRIPT_ONLY.has(action)) return view.focus === "transcript";
  return true;
}
