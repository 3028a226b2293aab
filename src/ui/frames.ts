// When the screen paints, and every timer it keeps. Frames are coalesced: whatever changes
// asks for one with request(), and at most one is drawn per FRAME_MS while things change,
// none at all while idle. The screen's other waits (a lone Esc, a flash's end, the context
// estimate, the running-tool clock, the pane's "updated" mark, a box's grace) are named
// timers here, so closing the screen stops all of them at once and none fires on a screen
// that is gone.

const FRAME_MS = 20;

/** the screen's timers by what they wait for; setting one replaces the one of that name */
type TimerName =
  /** a lone Esc byte: wait a moment for the rest of a key sequence */
  | "esc"
  /** a flash message expires: repaint without it */
  | "flash"
  /** the context estimate is recomputed at most this often */
  | "status"
  /** the context pane's "updated" mark expires */
  | "paneFlash"
  /** once a second while a tool runs: its line shows the time so far */
  | "ticker"
  /** a box waits this long, with no key typed, before it takes keys (focus.ts, BoxGuard) */
  | "boxGrace"
  /** the screen is idle: lay the transcript out ahead at the context pane's width (prelayout.ts) */
  | "prelayout";

export class FrameScheduler {
  private frameTimer: NodeJS.Timeout | undefined;
  private lastFrame = 0;
  private readonly timers = new Map<TimerName, { handle: NodeJS.Timeout; repeat: boolean }>();
  private closed = false;

  /** `draw` paints one frame; it is never called after close() */
  constructor(
    private readonly draw: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** a frame soon: coalesced with every other request until it is drawn */
  request(): void {
    if (this.closed || this.frameTimer) return;
    const wait = Math.max(0, FRAME_MS - (this.now() - this.lastFrame));
    this.frameTimer = setTimeout(() => {
      this.frameTimer = undefined;
      this.drawNow();
    }, wait);
  }

  /** a frame at once (start-up, a resize, attaching): a pending request is folded into it */
  drawNow(): void {
    if (this.closed) return;
    if (this.frameTimer) {
      clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
    }
    this.lastFrame = this.now();
    this.draw();
  }

  /** runs `fn` once after `ms`, replacing a timer of the same name */
  after(name: TimerName, ms: number, fn: () => void): void {
    this.cancel(name);
    if (this.closed) return;
    const handle = setTimeout(() => {
      this.timers.delete(name);
      if (!this.closed) fn();
    }, ms);
    this.timers.set(name, { handle, repeat: false });
  }

  /** runs `fn` every `ms` until cancelled; does nothing when that timer runs already */
  every(name: TimerName, ms: number, fn: () => void): void {
    if (this.closed || this.timers.has(name)) return;
    const handle = setInterval(() => {
      if (!this.closed) fn();
    }, ms);
    this.timers.set(name, { handle, repeat: true });
  }

  isSet(name: TimerName): boolean {
    return this.timers.has(name);
  }

  cancel(name: TimerName): void {
    const t = this.timers.get(name);
    if (!t) return;
    if (t.repeat) clearInterval(t.handle);
    else clearTimeout(t.handle);
    this.timers.delete(name);
  }

  /** stops every timer; no frame is drawn and no timer fires afterwards */
  close(): void {
    this.closed = true;
    if (this.frameTimer) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
    for (const name of [...this.timers.keys()]) this.cancel(name);
  }
}
