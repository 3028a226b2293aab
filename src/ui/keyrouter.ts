// How a key becomes an action. Every key and paste the parser reads comes through route(),
// editing keys and modal boxes included, and leaves as a list of intents that the screen
// carries out (app.ts, act()). Pure but for the double Ctrl-C, whose first press it keeps:
// what the screen looks like goes in as a RouteView, so every path can be tested without one.
//
// The order of the checks is the order of precedence: a modal box takes every key but quit;
// quit works everywhere; before the session is open only the prompt takes keys; then the
// pane toggle and redraw; the context pane (when focused); interrupting a running turn; the
// transcript (when focused); and last the prompt. A focused pane or transcript hands typing
// on to the prompt.
import type { PermissionAnswer } from "../tools/types.js";
import { keyLabel, type Action, type Keymap } from "./bindings.js";
import type { InputEvent, KeyEvent } from "./keys.js";
import type { StyleName } from "./style.js";

/** a second Ctrl-C within this long quits */
export const QUIT_WINDOW_MS = 2000;

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

export type TranscriptOp = "selectPrev" | "selectNext" | "toggleExpand" | "top" | "bottom" | "pageUp" | "pageDown" | "clearSelection";

export type PaneOp = "nextPage" | "prevPage" | "nextSection" | "prevSection" | "scrollUp" | "scrollDown" | "close";

export type Intent =
  | { type: "quit" }
  | { type: "flash"; text: string; style: StyleName; ms?: number }
  /** Ctrl-L: forget what the terminal shows and paint all of it */
  | { type: "redraw" }
  | { type: "toggleContext" }
  | { type: "pane"; op: PaneOp }
  | { type: "focus"; to: "input" }
  /** to the transcript, selecting the last part on screen when nothing is selected */
  | { type: "focusTranscript" }
  | { type: "transcript"; op: TranscriptOp }
  | { type: "interrupt" }
  | { type: "submit" }
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
  | { type: "answer"; answer: PermissionAnswer }
  /** scroll the permission question by `by` rows */
  | { type: "scrollQuestion"; by: number }
  /** move the session picker's selection by `by` (±Infinity: first, last) */
  | { type: "pickerMove"; by: number }
  | { type: "pickerClose" }
  | { type: "pickerChoose" };

/** what the router needs to know of the screen */
export interface RouteView {
  /** the session is open (before that only the prompt takes keys) */
  attached: boolean;
  modal: "permission" | "sessions" | undefined;
  focus: Focus;
  paneOpen: boolean;
  /** the pane covers the transcript (the screen is narrower than SIDE_BY_SIDE_COLS) */
  paneCovers: boolean;
  /** a turn runs, or a /compact reports its state: Esc interrupts it */
  interruptible: boolean;
  promptEmpty: boolean;
  /** Enter was pressed before the session was open */
  held: boolean;
}

const EDIT_KEYS: Record<string, EditOp> = {
  left: "left",
  "C-b": "left",
  right: "right",
  "C-f": "right",
  "M-left": "wordLeft",
  "C-left": "wordLeft",
  "M-b": "wordLeft",
  "M-right": "wordRight",
  "C-right": "wordRight",
  "M-f": "wordRight",
  home: "home",
  "C-a": "home",
  end: "end",
  "C-e": "end",
  backspace: "backspace",
  "M-backspace": "deleteWordBack",
  "C-w": "deleteWordBack",
  delete: "deleteForward",
  "C-k": "killToEnd",
  "C-u": "killToStart",
};

function printable(k: KeyEvent): k is KeyEvent & { ch: string } {
  return k.ch !== undefined && !k.ctrl && !k.meta;
}

export class KeyRouter {
  /** when Ctrl-C was pressed once, if it was */
  private quitArmedAt: number | undefined;

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

  route(ev: InputEvent, view: RouteView): Intent[] {
    if (ev.type === "paste") {
      if (view.modal) return [];
      const out: Intent[] = view.focus === "transcript" ? [{ type: "transcript", op: "clearSelection" }] : [];
      return [...out, { type: "focus", to: "input" }, { type: "paste", text: ev.text }];
    }
    const k = ev;
    // quitting works everywhere, even with a question open (it is then answered "deny")
    if (view.modal && !this.is("app.quit", k)) return this.modalKey(view.modal, k);
    if (this.is("app.quit", k)) {
      const now = this.now();
      if (this.quitArmedAt !== undefined && now - this.quitArmedAt < QUIT_WINDOW_MS) return [{ type: "quit" }];
      this.quitArmedAt = now;
      return [{ type: "flash", text: `press ${keyLabel(this.km, "app.quit")} again to quit`, style: "warn", ms: QUIT_WINDOW_MS }];
    }
    this.quitArmedAt = undefined;
    if (!view.attached) return this.startingKey(k, view);
    if (this.is("context.toggle", k)) return [{ type: "toggleContext" }];
    if (this.is("app.redraw", k)) return [{ type: "redraw" }];
    const out: Intent[] = [];
    let focus = view.focus;
    if (focus === "context" && view.paneOpen) {
      const r = this.contextKey(k, view);
      if (r.done) return r.intents;
      // typing goes on to the prompt
      out.push(...r.intents);
      focus = "input";
    }
    if (this.is("turn.interrupt", k) && view.interruptible) return [...out, { type: "interrupt" }];
    if (focus === "transcript") {
      const r = this.transcriptKey(k);
      if (r.done) return [...out, ...r.intents];
      out.push(...r.intents);
    }
    return [...out, ...this.promptKey(k, view)];
  }

  private modalKey(modal: "permission" | "sessions", k: KeyEvent): Intent[] {
    switch (modal) {
      case "permission":
        if (this.is("permission.allowOnce", k)) return [{ type: "answer", answer: "once" }];
        if (this.is("permission.allowSession", k)) return [{ type: "answer", answer: "session" }];
        if (this.is("permission.deny", k)) return [{ type: "answer", answer: "deny" }];
        if (k.full === "up" || k.full === "k") return [{ type: "scrollQuestion", by: -1 }];
        if (k.full === "down" || k.full === "j") return [{ type: "scrollQuestion", by: 1 }];
        if (k.full === "pageup") return [{ type: "scrollQuestion", by: -10 }];
        if (k.full === "pagedown") return [{ type: "scrollQuestion", by: 10 }];
        return [];
      case "sessions":
        if (k.full === "up" || k.full === "k") return [{ type: "pickerMove", by: -1 }];
        if (k.full === "down" || k.full === "j") return [{ type: "pickerMove", by: 1 }];
        if (k.full === "pageup") return [{ type: "pickerMove", by: -10 }];
        if (k.full === "pagedown") return [{ type: "pickerMove", by: 10 }];
        if (k.full === "home") return [{ type: "pickerMove", by: -Infinity }];
        if (k.full === "end") return [{ type: "pickerMove", by: Infinity }];
        if (k.full === "escape" || k.full === "q") return [{ type: "pickerClose" }];
        if (k.full === "enter") return [{ type: "pickerChoose" }];
        return [];
      default: {
        const never: never = modal;
        throw new Error(`unknown modal ${String(never)}`);
      }
    }
  }

  /**
   * Keys before the session is open: the prompt edits as it always does, Tab completes a
   * command, Enter is held (the prompt goes out once the session is open) and Esc lets go of
   * it again. History, the transcript and the context pane come with the session.
   */
  private startingKey(k: KeyEvent, view: RouteView): Intent[] {
    if (this.is("app.redraw", k)) return [{ type: "redraw" }];
    if (this.is("input.submit", k)) return [{ type: "hold" }];
    if (view.held && this.is("turn.interrupt", k)) return [{ type: "release" }];
    return this.promptKey(k, view);
  }

  /** the context pane has the focus: `done` false hands the key on to the prompt */
  private contextKey(k: KeyEvent, view: RouteView): { done: boolean; intents: Intent[] } {
    const done = (...intents: Intent[]): { done: boolean; intents: Intent[] } => ({ done: true, intents });
    if (this.is("context.close", k)) return done({ type: "toggleContext" });
    if (this.is("context.nextPage", k)) return done({ type: "pane", op: "nextPage" });
    if (this.is("context.prevPage", k)) return done({ type: "pane", op: "prevPage" });
    if (this.is("context.nextSection", k)) return done({ type: "pane", op: "nextSection" });
    if (this.is("context.prevSection", k)) return done({ type: "pane", op: "prevSection" });
    if (this.is("context.scrollUp", k)) return done({ type: "pane", op: "scrollUp" });
    if (this.is("context.scrollDown", k)) return done({ type: "pane", op: "scrollDown" });
    if (this.is("transcript.focus", k)) {
      // over a narrow screen the pane hides the transcript: close it to show what gets focus
      return done(...(view.paneCovers ? [{ type: "pane", op: "close" } as const] : []), { type: "focusTranscript" });
    }
    if (this.is("input.focus", k)) return done({ type: "focus", to: "input" });
    if (printable(k)) return { done: false, intents: [{ type: "focus", to: "input" }] };
    return done(); // other keys do nothing here
  }

  /** the transcript has the focus: `done` false hands the key on to the prompt */
  private transcriptKey(k: KeyEvent): { done: boolean; intents: Intent[] } {
    const done = (...intents: Intent[]): { done: boolean; intents: Intent[] } => ({ done: true, intents });
    const back: Intent[] = [{ type: "focus", to: "input" }, { type: "transcript", op: "clearSelection" }];
    if (this.is("transcript.selectPrev", k)) return done({ type: "transcript", op: "selectPrev" });
    if (this.is("transcript.selectNext", k)) return done({ type: "transcript", op: "selectNext" });
    if (this.is("transcript.toggleExpand", k)) return done({ type: "transcript", op: "toggleExpand" });
    if (this.is("transcript.top", k)) return done({ type: "transcript", op: "top" });
    if (this.is("transcript.bottom", k)) return done({ type: "transcript", op: "bottom" });
    if (this.is("transcript.pageUp", k)) return done({ type: "transcript", op: "pageUp" });
    if (this.is("transcript.pageDown", k)) return done({ type: "transcript", op: "pageDown" });
    if (this.is("input.focus", k) || this.is("transcript.focus", k)) return done(...back);
    if (printable(k)) return { done: false, intents: back };
    return done();
  }

  /** the prompt: submitting, history, completion, and (before the session) the same editing */
  private promptKey(k: KeyEvent, view: RouteView): Intent[] {
    if (view.attached) {
      if (this.is("input.submit", k)) return [{ type: "submit" }];
    }
    if (this.is("input.newline", k)) return [{ type: "edit", op: "newline" }];
    if (this.is("input.historyPrev", k)) return [{ type: "history", dir: -1 }];
    if (this.is("input.historyNext", k)) return [{ type: "history", dir: 1 }];
    if (this.is("input.complete", k)) return [{ type: "complete" }];
    if (view.attached) {
      if (this.is("transcript.focus", k)) return [{ type: "focusTranscript" }];
      if (this.is("transcript.pageUp", k)) return [{ type: "transcript", op: "pageUp" }];
      if (this.is("transcript.pageDown", k)) return [{ type: "transcript", op: "pageDown" }];
    }
    if (this.is("app.quitIfEmpty", k)) return view.promptEmpty ? [{ type: "quit" }] : [{ type: "edit", op: "deleteForward" }];
    const out: Intent[] = [];
    // Esc over a narrow screen also closes the context pane that hides the transcript
    if (view.attached && k.full === "escape" && view.paneOpen && view.paneCovers) out.push({ type: "pane", op: "close" });
    return [...out, ...this.editKey(k)];
  }

  /** cursor movement, deletion and typing in the prompt */
  private editKey(k: KeyEvent): Intent[] {
    const op = EDIT_KEYS[k.full];
    if (op) return [{ type: "edit", op }];
    if (k.full === "escape") return [{ type: "dismissFlash" }];
    if (printable(k)) return [{ type: "type", ch: k.ch }];
    return [];
  }
}
