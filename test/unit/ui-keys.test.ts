import { describe, expect, it } from "vitest";
import { KeyParser, type InputEvent } from "../../src/ui/keys.js";

const fulls = (evs: InputEvent[]): string[] => evs.map((e) => (e.type === "key" ? e.full : `paste:${e.text}`));

describe("KeyParser", () => {
  it("reads typed characters, Enter, Tab, Backspace and control keys", () => {
    const p = new KeyParser();
    expect(fulls(p.feed("aZ 1\r\t\x7f\x0f\x03\n"))).toEqual(["a", "S-z", "space", "1", "enter", "tab", "backspace", "C-o", "C-c", "C-j"]);
    const [z] = p.feed("Z");
    expect(z).toMatchObject({ type: "key", ch: "Z" });
  });

  it("reads arrows in normal and application mode, with modifiers", () => {
    const p = new KeyParser();
    expect(fulls(p.feed("\x1b[A\x1bOB\x1b[1;5C\x1b[1;3D\x1b[5~\x1b[6~\x1b[Z\x1b[H\x1bOF"))).toEqual([
      "up",
      "down",
      "C-right",
      "M-left",
      "pageup",
      "pagedown",
      "S-tab",
      "home",
      "end",
    ]);
  });

  it("reads Alt-Enter (ESC CR) and Alt+letter", () => {
    const p = new KeyParser();
    expect(fulls(p.feed("\x1b\r"))).toEqual(["M-enter"]);
    expect(fulls(p.feed("\x1bb"))).toEqual(["M-b"]);
    // kitty/foot CSI u and xterm modifyOtherKeys spellings of Alt-Enter
    expect(fulls(p.feed("\x1b[13;3u\x1b[27;3;13~"))).toEqual(["M-enter", "M-enter"]);
  });

  it("holds a lone ESC until flushed, then it is Escape", () => {
    const p = new KeyParser();
    expect(p.feed("\x1b")).toEqual([]);
    expect(p.hasPending()).toBe(true);
    expect(fulls(p.flush())).toEqual(["escape"]);
    expect(p.hasPending()).toBe(false);
  });

  it("joins a sequence split across chunks", () => {
    const p = new KeyParser();
    expect(p.feed("\x1b[")).toEqual([]);
    expect(fulls(p.feed("B"))).toEqual(["down"]);
  });

  it("turns a bracketed paste into one event, even across chunks, Enter included", () => {
    const p = new KeyParser();
    expect(p.feed("x\x1b[200~line 1\r\nline")).toEqual([{ type: "key", name: "x", full: "x", ch: "x", ctrl: false, meta: false, shift: false }]);
    expect(p.feed(" 2\x1b[20")).toEqual([]);
    expect(fulls(p.feed("1~y"))).toEqual(["paste:line 1\r\nline 2", "y"]);
  });

  it("takes a long unbracketed chunk as a paste rather than thousands of keys", () => {
    const p = new KeyParser();
    const text = "a\rb".repeat(200);
    expect(fulls(p.feed(text))).toEqual([`paste:${text}`]);
  });

  it("ignores focus reports and mouse reports", () => {
    const p = new KeyParser();
    expect(fulls(p.feed("\x1b[I\x1b[O\x1b[<0;10;5Mq"))).toEqual(["q"]);
  });
});

describe("waiting for the rest of a sequence", () => {
  it("waits briefly after a lone ESC, longer after a started sequence", () => {
    const p = new KeyParser();
    p.feed("\x1b");
    const lone = p.pendingWaitMs();
    p.flush();
    p.feed("\x1b[20");
    expect(p.pendingWaitMs()).toBeGreaterThan(lone);
    // the paste marker completes after the wait: still a paste
    expect(fulls(p.feed("0~big text\x1b[201~"))).toEqual(["paste:big text"]);
  });
});
