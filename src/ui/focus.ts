// Where keys go, as explicit state: the focus (the prompt, the transcript or the context pane)
// and, over it, a box (permission question, session picker) that takes keys only once it has
// been seen. Pure but for the box's timer, which the screen's scheduler runs (frames.ts).
//
// The focus changes only through the named transitions below, each called by the screen on
// one kind of event, so every event leaves it in a state that was chosen, not one that was
// left over. A box never changes the focus: when it closes, keys go where they went before.
import type { Focus } from "./keyrouter.js";

export class FocusState {
  private at: Focus = "input";
  /** typing moved the focus from the pane to the prompt: it goes back once the prompt is sent */
  private back: "context" | undefined;

  /** where keys go when no box is open */
  get place(): Focus {
    return this.at;
  }

  /** the prompt has the keys only until what is typed there is sent (it came from the pane) */
  get composing(): boolean {
    return this.back !== undefined;
  }

  /** the person moved to the prompt (a key for it, or typing in the transcript) */
  toPrompt(): void {
    this.at = "input";
    this.back = undefined;
  }

  /** typing or pasting while the pane has the focus: the prompt takes it until it is sent */
  compose(): void {
    if (this.at === "context") this.back = "context";
    this.at = "input";
  }

  toTranscript(): void {
    this.at = "transcript";
    this.back = undefined;
  }

  paneOpened(): void {
    this.at = "context";
    this.back = undefined;
  }

  paneClosed(): void {
    if (this.at === "context") this.at = "input";
    this.back = undefined;
  }

  /**
   * The prompt went out (or ran as a command): the pane's keys come back to it if the prompt
   * was typed from it and it is still open, so ↑/↓/Esc page and close it after the turn.
   */
  sent(paneOpen: boolean): void {
    if (this.back === "context" && this.at === "input" && paneOpen) this.at = "context";
    this.back = undefined;
  }

  /** another session is shown: what was selected in the transcript is gone with it */
  sessionChanged(): void {
    if (this.at === "transcript") this.at = "input";
  }

  /** the terminal's size changed: a focused transcript the pane now covers hands the focus to the pane */
  resized(paneOpen: boolean, paneCovers: boolean): void {
    if (this.at === "transcript" && paneOpen && paneCovers) this.at = "context";
  }
}

/**
 * How long a box must have been on screen, with no key typed meanwhile, before it takes a key.
 * 400 ms is longer than the gap between keys of someone typing (100–300 ms) and shorter than
 * reading a box and deciding (a second or more), so it costs a deliberate answer nothing.
 */
export const BOX_GRACE_MS = 400;

export interface GraceTimers {
  after(name: "boxGrace", ms: number, fn: () => void): void;
  cancel(name: "boxGrace"): void;
}

/**
 * Keeps a box from acting on keys typed before it was seen. A box is ready only once a frame
 * showing it has been drawn and BOX_GRACE_MS have passed with no key for it; a key before
 * that was typed ahead (the screen sends it to the prompt) and starts the wait again, so
 * someone typing on through the box's arrival never answers it. Keys the terminal already
 * held when the wait ended are read before the box becomes ready (see arm()).
 */
export class BoxGuard {
  private shown = false;
  private ready = false;
  private gen = 0;

  constructor(
    private readonly timers: GraceTimers,
    /** the box became ready: draw it with its choices */
    private readonly onReady: () => void,
    private readonly graceMs = BOX_GRACE_MS,
  ) {}

  /** a box opened, or its next question came to the front: not ready until it has been seen */
  reset(): void {
    this.gen++;
    this.shown = false;
    this.ready = false;
    this.timers.cancel("boxGrace");
  }

  /** a frame showing the box was drawn: the wait starts, the first time */
  drawn(): void {
    if (this.shown) return;
    this.shown = true;
    this.arm();
  }

  /** a key went to the prompt instead of the box: the wait starts again */
  typed(): void {
    this.ready = false;
    if (this.shown) this.arm();
  }

  isReady(): boolean {
    return this.ready;
  }

  private arm(): void {
    const gen = ++this.gen;
    this.timers.after("boxGrace", this.graceMs, () => {
      // A timer runs before the event loop reads input: were the loop held up past the wait,
      // keys typed meanwhile would be read just after it. Becoming ready in setImmediate (after
      // that read) makes them count as typed ahead, as they were.
      setImmediate(() => {
        if (gen !== this.gen) return;
        this.ready = true;
        this.onReady();
      });
    });
  }
}
