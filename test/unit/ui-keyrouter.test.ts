import { describe, expect, it } from "vitest";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { KeyParser, type InputEvent, type KeyEvent } from "../../src/ui/keys.js";
import { KeyRouter, QUIT_WINDOW_MS, type Intent, type RouteView } from "../../src/ui/keyrouter.js";
import { KEYS } from "../helpers/pty.js";

/** the key events a terminal's bytes make */
function keys(bytes: string): InputEvent[] {
  const p = new KeyParser();
  return [...p.feed(bytes), ...p.flush()];
}
function key(bytes: string): KeyEvent {
  const [k] = keys(bytes);
  if (k?.type !== "key") throw new Error(`no key in ${JSON.stringify(bytes)}`);
  return k;
}

const VIEW: RouteView = {
  attached: true,
  modal: undefined,
  focus: "input",
  paneOpen: false,
  paneCovers: true,
  interruptible: false,
  promptEmpty: true,
  held: false,
};

function route(bytes: string, over: Partial<RouteView> = {}, router = new KeyRouter(defaultKeymap())): Intent[] {
  return keys(bytes).flatMap((ev) => router.route(ev, { ...VIEW, ...over }));
}

describe("the key router", () => {
  it("edits the prompt: typing, cursor keys, deletion, newline, history, completion, submit", () => {
    expect(route("a")).toEqual([{ type: "type", ch: "a" }]);
    expect(route(KEYS.left)).toEqual([{ type: "edit", op: "left" }]);
    expect(route(KEYS.ctrl("w"))).toEqual([{ type: "edit", op: "deleteWordBack" }]);
    expect(route(KEYS.altEnter)).toEqual([{ type: "edit", op: "newline" }]);
    expect(route(KEYS.up)).toEqual([{ type: "history", dir: -1 }]);
    expect(route(KEYS.tab)).toEqual([{ type: "complete" }]);
    expect(route(KEYS.enter)).toEqual([{ type: "submit" }]);
    expect(route(KEYS.paste("x\ny"))).toEqual([{ type: "focus", to: "input" }, { type: "paste", text: "x\ny" }]);
    // Esc with nothing running clears a flash; Ctrl-D quits only an empty prompt
    expect(route(KEYS.escape)).toEqual([{ type: "dismissFlash" }]);
    expect(route(KEYS.ctrl("d"))).toEqual([{ type: "quit" }]);
    expect(route(KEYS.ctrl("d"), { promptEmpty: false })).toEqual([{ type: "edit", op: "deleteForward" }]);
  });

  it("quits on a second Ctrl-C within the window, and only then", () => {
    let now = 1000;
    const r = new KeyRouter(defaultKeymap(), () => now);
    expect(route(KEYS.ctrl("c"), {}, r)).toEqual([{ type: "flash", text: "press ^C again to quit", style: "warn", ms: QUIT_WINDOW_MS }]);
    now += QUIT_WINDOW_MS + 1;
    expect(route(KEYS.ctrl("c"), {}, r)[0]!.type).toBe("flash");
    now += 10;
    expect(route(KEYS.ctrl("c"), {}, r)).toEqual([{ type: "quit" }]);
    // another key in between disarms it
    now += 10_000;
    route(KEYS.ctrl("c"), {}, r);
    route("x", {}, r);
    expect(route(KEYS.ctrl("c"), {}, r)[0]!.type).toBe("flash");
  });

  it("a modal box takes every key but quit", () => {
    const q = { modal: "permission" as const };
    expect(route("y", q)).toEqual([{ type: "answer", answer: "once" }]);
    expect(route("a", q)).toEqual([{ type: "answer", answer: "session" }]);
    expect(route(KEYS.escape, q)).toEqual([{ type: "answer", answer: "deny" }]);
    expect(route(KEYS.pageDown, q)).toEqual([{ type: "scrollQuestion", by: 10 }]);
    expect(route("x", q)).toEqual([]);
    expect(route(KEYS.paste("text"), q)).toEqual([]);
    expect(route(KEYS.ctrl("c"), q)[0]!.type).toBe("flash");
    const s = { modal: "sessions" as const };
    expect(route(KEYS.end, s)).toEqual([{ type: "pickerMove", by: Infinity }]);
    expect(route("q", s)).toEqual([{ type: "pickerClose" }]);
    expect(route(KEYS.enter, s)).toEqual([{ type: "pickerChoose" }]);
  });

  it("before the session is open: Enter holds, Esc lets go, editing works, the rest waits", () => {
    const starting = { attached: false };
    expect(route(KEYS.enter, starting)).toEqual([{ type: "hold" }]);
    expect(route(KEYS.escape, { ...starting, held: true })).toEqual([{ type: "release" }]);
    expect(route(KEYS.escape, starting)).toEqual([{ type: "dismissFlash" }]);
    expect(route("a", starting)).toEqual([{ type: "type", ch: "a" }]);
    expect(route(KEYS.up, starting)).toEqual([{ type: "history", dir: -1 }]);
    expect(route(KEYS.ctrl("l"), starting)).toEqual([{ type: "redraw" }]);
    // no pane, no transcript yet: ^O and Shift-Tab do nothing
    expect(route(KEYS.ctrl("o"), starting)).toEqual([]);
    expect(route(KEYS.shiftTab, starting)).toEqual([]);
  });

  it("Esc interrupts a running turn before anything else takes it", () => {
    expect(route(KEYS.escape, { interruptible: true })).toEqual([{ type: "interrupt" }]);
    expect(route(KEYS.escape, { interruptible: true, focus: "transcript" })).toEqual([{ type: "interrupt" }]);
    // a focused pane's own Esc (close) comes first
    expect(route(KEYS.escape, { interruptible: true, focus: "context", paneOpen: true })).toEqual([{ type: "toggleContext" }]);
  });

  it("the transcript takes its keys and hands typing on to the prompt", () => {
    const t = { focus: "transcript" as const };
    expect(route(KEYS.up, t)).toEqual([{ type: "transcript", op: "selectPrev" }]);
    expect(route(KEYS.enter, t)).toEqual([{ type: "transcript", op: "toggleExpand" }]);
    expect(route("g", t)).toEqual([{ type: "transcript", op: "top" }]);
    expect(route("x", t)).toEqual([
      { type: "focus", to: "input" },
      { type: "transcript", op: "clearSelection" },
      { type: "type", ch: "x" },
    ]);
    expect(route(KEYS.escape, t)).toEqual([
      { type: "focus", to: "input" },
      { type: "transcript", op: "clearSelection" },
    ]);
    expect(route(KEYS.ctrl("x"), t)).toEqual([]);
  });

  it("the context pane pages with the arrows, closes on Esc, and hands typing on to the prompt", () => {
    const c = { focus: "context" as const, paneOpen: true };
    expect(route(KEYS.right, c)).toEqual([{ type: "pane", op: "nextPage" }]);
    expect(route(KEYS.down, c)).toEqual([{ type: "pane", op: "nextSection" }]);
    expect(route(KEYS.escape, c)).toEqual([{ type: "toggleContext" }]);
    expect(route("h", c)).toEqual([
      { type: "focus", to: "input" },
      { type: "type", ch: "h" },
    ]);
    // to the transcript: over a narrow screen the pane closes first, beside a wide one it stays
    expect(route(KEYS.shiftTab, c)).toEqual([{ type: "pane", op: "close" }, { type: "focusTranscript" }]);
    expect(route(KEYS.shiftTab, { ...c, paneCovers: false })).toEqual([{ type: "focusTranscript" }]);
    // Esc in the prompt closes a pane that covers the transcript
    expect(route(KEYS.escape, { paneOpen: true })).toEqual([{ type: "pane", op: "close" }, { type: "dismissFlash" }]);
  });

  it("follows the keymap in force", () => {
    const km = defaultKeymap();
    km.bindings["context.toggle"] = ["f2"];
    km.bindings["input.submit"] = ["C-s"];
    const r = new KeyRouter(defaultKeymap());
    r.setKeymap(km);
    expect(r.route(key("\x1bOQ"), VIEW)).toEqual([{ type: "toggleContext" }]);
    expect(r.route(key(KEYS.ctrl("o")), VIEW)).toEqual([]);
    expect(r.route(key(KEYS.ctrl("s")), VIEW)).toEqual([{ type: "submit" }]);
  });
});
