// The stream's idle timer on vitest's fake clock: what restarts the wait (content), what does
// not (pings, dripped bytes), how far pings inside an open tool input stretch it, and that a
// stopped timer never fires. Time is advanced by hand; nothing here waits on the wall clock.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IdleTimer, TOOL_INPUT_IDLE_PERIODS } from "../../src/provider/idle-timer.js";

const IDLE = 1000;

function timer(opts: { toolInputOpen?: () => boolean } = {}) {
  let expired = 0;
  const t = new IdleTimer({
    idleMs: IDLE,
    toolInputOpen: opts.toolInputOpen ?? (() => false),
    onExpire: () => expired++,
  });
  return { t, expired: () => expired };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("IdleTimer", () => {
  it("runs out one idle period after start when nothing comes, once", () => {
    const { t, expired } = timer();
    t.start();
    vi.advanceTimersByTime(IDLE - 1);
    expect(expired()).toBe(0);
    expect(t.expiredAfterMs).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(expired()).toBe(1);
    expect(t.expiredAfterMs).toBe(IDLE);
    vi.advanceTimersByTime(10 * IDLE);
    expect(expired()).toBe(1);
  });

  it("content restarts the wait: it runs out one idle period after the last content", () => {
    const { t, expired } = timer();
    t.start();
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(IDLE - 100);
      t.reset();
    }
    vi.advanceTimersByTime(IDLE - 1);
    expect(expired()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(expired()).toBe(1);
    expect(t.expiredAfterMs).toBe(IDLE);
  });

  it("keeps one pending timer however much content comes", () => {
    const { t } = timer();
    t.start();
    for (let i = 0; i < 1000; i++) t.reset();
    expect(vi.getTimerCount()).toBe(1);
  });

  it("pings and dripped bytes do not restart it, and are counted since the last content", () => {
    const { t, expired } = timer();
    t.start();
    for (let i = 0; i < 9; i++) {
      vi.advanceTimersByTime(100);
      t.bytes(20);
      t.line();
    }
    t.bytes(3);
    expect(t.quiet).toEqual({ lines: 9, trickled: 3 });
    vi.advanceTimersByTime(100);
    expect(expired()).toBe(1);
    expect(t.expiredAfterMs).toBe(IDLE);
    t.reset();
    expect(t.quiet).toEqual({ lines: 0, trickled: 0 });
  });

  it("inside an open tool input, pings that keep coming stretch the wait to ten idle periods", () => {
    const { t, expired } = timer({ toolInputOpen: () => true });
    t.start();
    const ping = setInterval(() => t.line(), IDLE / 4);
    vi.advanceTimersByTime(TOOL_INPUT_IDLE_PERIODS * IDLE - 1);
    expect(expired()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(expired()).toBe(1);
    expect(t.expiredAfterMs).toBe(TOOL_INPUT_IDLE_PERIODS * IDLE);
    clearInterval(ping);
  });

  it("inside an open tool input, content restarts the stretched wait too", () => {
    const { t, expired } = timer({ toolInputOpen: () => true });
    t.start();
    const ping = setInterval(() => t.line(), IDLE / 4);
    vi.advanceTimersByTime(5 * IDLE);
    t.reset();
    vi.advanceTimersByTime(TOOL_INPUT_IDLE_PERIODS * IDLE - 1);
    expect(expired()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(expired()).toBe(1);
    clearInterval(ping);
  });

  it("inside an open tool input, silence without pings still runs out at one idle period", () => {
    const { t, expired } = timer({ toolInputOpen: () => true });
    t.start();
    vi.advanceTimersByTime(IDLE);
    expect(expired()).toBe(1);
    expect(t.expiredAfterMs).toBe(IDLE);
  });

  it("pings stretch nothing while no tool input is open", () => {
    const { t, expired } = timer({ toolInputOpen: () => false });
    t.start();
    const ping = setInterval(() => t.line(), IDLE / 4);
    vi.advanceTimersByTime(IDLE);
    expect(expired()).toBe(1);
    clearInterval(ping);
  });

  it("a stopped timer never runs out, and content after stop does not start it again", () => {
    const { t, expired } = timer();
    t.start();
    vi.advanceTimersByTime(IDLE - 1);
    t.stop();
    t.reset();
    vi.advanceTimersByTime(100 * IDLE);
    expect(expired()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
