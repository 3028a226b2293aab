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

  it("reads focus reports as focusin/focusout and ignores mouse clicks", () => {
    const p = new KeyParser();
    expect(fulls(p.feed("\x1b[I\x1b[O\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<2;1;1M\x1b[<32;3;3Mq"))).toEqual(["focusin", "focusout", "q"]);
  });

  it("reads the mouse wheel as keys with the cell under the pointer (SGR and X10 reports)", () => {
    const p = new KeyParser();
    const evs = p.feed("\x1b[<64;10;5M\x1b[<65;1;1M\x1b[<69;3;4M\x1b[<80;2;2M");
    expect(fulls(evs)).toEqual(["wheelup", "wheeldown", "S-wheeldown", "C-wheelup"]);
    expect(evs[0]).toMatchObject({ name: "wheelup", at: { x: 9, y: 4 } });
    expect(evs[1]).toMatchObject({ at: { x: 0, y: 0 } });
    // the release of a wheel "button" and wheel left/right are not keys
    expect(fulls(p.feed("\x1b[<64;10;5m\x1b[<66;1;1M\x1b[<67;1;1M"))).toEqual([]);
    // X10: ESC [ M then the button, x and y bytes, each + 32 (wheel up is 64 + 32)
    const x10 = p.feed(`\x1b[M${String.fromCharCode(96, 32 + 7, 32 + 2)}\x1b[M${String.fromCharCode(32, 40, 40)}z`);
    expect(fulls(x10)).toEqual(["wheelup", "z"]);
    expect(x10[0]).toMatchObject({ at: { x: 6, y: 1 } });
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
