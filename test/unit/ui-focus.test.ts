import { describe, expect, it } from "vitest";
import { BOX_GRACE_MS, BoxGuard, FocusState, type GraceTimers } from "../../src/ui/focus.js";
import { FrameScheduler } from "../../src/ui/frames.js";

/** the box's timer, fired by the test: the order of a timer and the keys after it is the point */
class HeldTimer implements GraceTimers {
  fn: (() => void) | undefined;
  ms: number | undefined;
  after(_name: "boxGrace", ms: number, fn: () => void): void {
    this.ms = ms;
    this.fn = fn;
  }
  cancel(): void {
    this.fn = undefined;
  }
  fire(): void {
    const f = this.fn;
    this.fn = undefined;
    f?.();
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("FocusState", () => {
  it("typing from the pane lends the keys to the prompt until it is sent, then gives them back", () => {
    const f = new FocusState();
    f.paneOpened();
    expect(f.place).toBe("context");
    f.compose();
    expect(f.place).toBe("input");
    expect(f.composing).toBe(true);
    f.sent(true);
    expect(f.place).toBe("context");
    expect(f.composing).toBe(false);
    // a prompt typed at the prompt stays there after it is sent
    f.toPrompt();
    f.sent(true);
    expect(f.place).toBe("input");
  });

  it("closing the pane, choosing a place, or a pane closed meanwhile ends the loan", () => {
    const f = new FocusState();
    f.paneOpened();
    f.compose();
    f.paneClosed();
    expect(f.place).toBe("input");
    f.sent(false);
    expect(f.place).toBe("input");
    f.paneOpened();
    f.compose();
    f.toTranscript();
    f.sent(true);
    expect(f.place).toBe("transcript");
    f.paneOpened();
    f.compose();
    f.sent(false); // the pane went while the prompt was out
    expect(f.place).toBe("input");
  });

  it("a resize that makes the pane cover a focused transcript gives the focus to the pane; a new session leaves the transcript", () => {
    const f = new FocusState();
    f.toTranscript();
    f.resized(true, false);
    expect(f.place).toBe("transcript");
    f.resized(true, true);
    expect(f.place).toBe("context");
    f.toTranscript();
    f.sessionChanged();
    expect(f.place).toBe("input");
  });
});

describe("BoxGuard", () => {
  it("is ready only after a frame showed the box and the grace passed with no key", async () => {
    const t = new HeldTimer();
    let readied = 0;
    const g = new BoxGuard(t, () => readied++);
    g.reset();
    expect(t.fn).toBeUndefined(); // not drawn yet: no wait started
    g.typed();
    expect(t.fn).toBeUndefined();
    g.drawn();
    expect(t.ms).toBe(BOX_GRACE_MS);
    t.fire();
    await turn();
    expect(g.isReady()).toBe(true);
    expect(readied).toBe(1);
    // a key at a ready box that is not its own (the screen calls typed()): it waits again
    g.typed();
    expect(g.isReady()).toBe(false);
    t.fire();
    await turn();
    expect(g.isReady()).toBe(true);
  });

  it("keys the terminal already held when the wait ended (read after the timer, before the turn ends) count as typed ahead", async () => {
    const t = new HeldTimer();
    const g = new BoxGuard(t, () => undefined);
    g.reset();
    g.drawn();
    t.fire(); // the timer ran first, as after an event loop held up past the wait
    g.typed(); // then the input read of the same turn
    await turn();
    expect(g.isReady()).toBe(false);
    t.fire();
    await turn();
    expect(g.isReady()).toBe(true);
  });

  it("a new box, or the next question, starts unready; the screen's scheduler runs the wait", async () => {
    const frames = new FrameScheduler(() => undefined);
    let readied = 0;
    const g = new BoxGuard(frames, () => readied++, 10);
    g.reset();
    g.drawn();
    await new Promise((r) => setTimeout(r, 200));
    expect(g.isReady()).toBe(true);
    g.reset();
    expect(g.isReady()).toBe(false);
    expect(frames.isSet("boxGrace")).toBe(false);
    // closing the screen stops the wait
    g.drawn();
    frames.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(g.isReady()).toBe(false);
    expect(readied).toBe(1);
  });
});
