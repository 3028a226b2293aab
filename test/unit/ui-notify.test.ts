// The notices' bytes and their limits (ui/notify.ts) and the title (ui/title.ts), without a terminal.
import { describe, expect, it } from "vitest";
import { Notifier, NOTIFY_MIN_INTERVAL_MS, notifySequence, notifyStyle, tmuxPassthrough } from "../../src/ui/notify.js";
import { titleSequence, TitleKeeper } from "../../src/ui/title.js";

describe("notices", () => {
  it("picks the terminal's own convention in auto, and obeys the config", () => {
    expect(notifyStyle("auto", {})).toBe("bell");
    expect(notifyStyle("auto", { TERM_PROGRAM: "iTerm.app" })).toBe("osc9");
    expect(notifyStyle("auto", { WT_SESSION: "x" })).toBe("osc9");
    expect(notifyStyle("auto", { VTE_VERSION: "7600" })).toBe("osc777");
    expect(notifyStyle("auto", { TERM: "rxvt-unicode-256color" })).toBe("osc777");
    expect(notifyStyle("bell", { TERM_PROGRAM: "iTerm.app" })).toBe("bell");
    expect(notifyStyle("osc9", {})).toBe("osc9");
    expect(notifyStyle("off", { TERM_PROGRAM: "iTerm.app" })).toBe("off");
  });

  it("writes OSC 9, OSC 777 and BEL, wrapped for tmux's passthrough with ESC doubled", () => {
    expect(notifySequence("osc9", "done", {})).toBe("\x1b]9;done\x07");
    expect(notifySequence("osc777", "a;b", {})).toBe("\x1b]777;notify;albedo-tui;a,b\x07");
    expect(notifySequence("bell", "x", { TMUX: "/tmp/t,1,0" })).toBe("\x07");
    expect(notifySequence("osc9", "done", { TMUX: "/tmp/t,1,0" })).toBe("\x1bPtmux;\x1b\x1b]9;done\x07\x1b\\");
    expect(tmuxPassthrough("\x1b]9;x\x1b\\")).toBe("\x1bPtmux;\x1b\x1b]9;x\x1b\x1b\\\x1b\\");
  });

  it("keeps control characters and length out of the text", () => {
    const seq = notifySequence("osc9", `evil \x1b]52;c;aGk=\x07 \x07 bell\nnext ${"y".repeat(500)}`, {});
    const body = seq.slice(4, -1);
    expect(body).not.toMatch(/[\x00-\x1f\x7f]/);
    expect([...body].length).toBeLessThanOrEqual(120);
  });

  it("says nothing while focused or before the terminal reports its focus, and at most once per interval in a flood", () => {
    const out: string[] = [];
    let t = 0;
    const n = new Notifier((b) => out.push(b), "bell", {}, () => t);
    expect(n.notify("x")).toBe(false);
    n.focus(true);
    expect(n.notify("x")).toBe(false);
    n.focus(false);
    for (let i = 0; i < 1000; i++) {
      n.notify(`flood ${i}`);
      t += 1;
    }
    expect(out).toEqual(["\x07"]);
    t += NOTIFY_MIN_INTERVAL_MS;
    expect(n.notify("later")).toBe(true);
    expect(out).toHaveLength(2);
  });
});

describe("the title", () => {
  it("names the session and its state, sanitized and bounded, written only when it changes", () => {
    expect(titleSequence("fix the bug", "working")).toBe("\x1b]2;albedo-tui · fix the bug · working\x07");
    const hostile = titleSequence(`a\x1b]0;x\x07b\x9b31m\n${"z".repeat(200)}`, "idle");
    expect(hostile.slice(4, -1)).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(hostile.length).toBeLessThan(100);
    const out: string[] = [];
    const k = new TitleKeeper((b) => out.push(b));
    k.set("s", "idle");
    k.set("s", "idle");
    k.set("s", "waiting for you");
    expect(out).toEqual(["\x1b[22;2t", "\x1b]2;albedo-tui · s · idle\x07", "\x1b]2;albedo-tui · s · waiting for you\x07"]);
    expect(k.restore()).toBe("\x1b[23;2t");
  });
});
