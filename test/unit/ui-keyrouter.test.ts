import { describe, expect, it } from "vitest";
import { ACTIONS, defaultKeymap, PLACES, type Action, type Keymap, type Place } from "../../src/ui/bindings.js";
import { KeyParser, type InputEvent, type KeyEvent } from "../../src/ui/keys.js";
import { KeyRouter, QUIT_WINDOW_MS, REWIND_WINDOW_MS, type Intent, type RouteView } from "../../src/ui/keyrouter.js";
import { assertNever } from "../../src/record/types.js";
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
  boxReady: true,
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
    expect(route(KEYS.paste("x\ny"))).toEqual([{ type: "paste", text: "x\ny" }]);
    // Esc with nothing running clears a flash (and on an empty prompt says what a second one
    // does); Ctrl-D quits only an empty prompt
    expect(route(KEYS.escape, { promptEmpty: false })).toEqual([{ type: "dismissFlash" }]);
    expect(route(KEYS.escape)).toEqual([{ type: "dismissFlash" }, { type: "flash", text: "Esc again: rewind to an earlier prompt", style: "dim", ms: REWIND_WINDOW_MS }]);
    expect(route(KEYS.ctrl("d"))).toEqual([{ type: "quit" }]);
    expect(route(KEYS.ctrl("d"), { promptEmpty: false })).toEqual([{ type: "edit", op: "deleteForward" }]);
  });

  it("Esc Esc on an empty prompt with no turn running rewinds; a lone Esc during a turn only interrupts", () => {
    let t = 0;
    const r = new KeyRouter(defaultKeymap(), () => t);
    const at = (bytes: string, over: Partial<RouteView> = {}): Intent[] => route(bytes, over, r);
    expect(at(KEYS.escape).map((i) => i.type)).toEqual(["dismissFlash", "flash"]);
    t += REWIND_WINDOW_MS - 1;
    expect(at(KEYS.escape)).toEqual([{ type: "rewind" }]);
    // too slow: the second Esc arms again instead
    t += 10;
    expect(at(KEYS.escape).map((i) => i.type)).toEqual(["dismissFlash", "flash"]);
    t += REWIND_WINDOW_MS;
    expect(at(KEYS.escape).map((i) => i.type)).toEqual(["dismissFlash", "flash"]);
    // another key between the two lets go of the first
    t += 1;
    at("x");
    expect(at(KEYS.escape).map((i) => i.type)).toEqual(["dismissFlash", "flash"]);
    // while a turn runs every Esc interrupts, and never counts toward a rewind
    expect(at(KEYS.escape, { interruptible: true })).toEqual([{ type: "interrupt" }]);
    expect(at(KEYS.escape, { interruptible: true })).toEqual([{ type: "interrupt" }]);
    // an interrupt then an Esc once the turn has ended: the first Esc after it only arms
    expect(at(KEYS.escape, { interruptible: true })).toEqual([{ type: "interrupt" }]);
    expect(at(KEYS.escape).map((i) => i.type)).toEqual(["dismissFlash", "flash"]);
    // with text in the prompt, or before the session is open: no rewind
    expect(at(KEYS.escape, { promptEmpty: false })).toEqual([{ type: "dismissFlash" }]);
    expect(at(KEYS.escape, { promptEmpty: false })).toEqual([{ type: "dismissFlash" }]);
    expect(at(KEYS.escape, { attached: false })).toEqual([{ type: "dismissFlash" }]);
    expect(at(KEYS.escape, { attached: false })).toEqual([{ type: "dismissFlash" }]);
    // over a narrow screen the first Esc closes the pane: it does not count
    expect(at(KEYS.escape, { paneOpen: true })).toEqual([{ type: "pane", op: "close" }, { type: "dismissFlash" }]);
    expect(at(KEYS.escape).map((i) => i.type)).toEqual(["dismissFlash", "flash"]);
    // typed ahead of a box, Esc stays what it was: it neither arms nor warns
    expect(at(KEYS.escape, { modal: "sessions", boxReady: false })).toEqual([{ type: "typedAhead" }, { type: "dismissFlash" }]);
  });

  it("the rewind box takes the pickers' keys, d for diffs, and a row's number", () => {
    const rw: Partial<RouteView> = { modal: "rewind" };
    expect(route(KEYS.down, rw)).toEqual([{ type: "pickerMove", by: 1 }]);
    expect(route(KEYS.enter, rw)).toEqual([{ type: "pickerChoose" }]);
    expect(route("2", rw)).toEqual([{ type: "pickerChoose", index: 1 }]);
    expect(route("d", rw)).toEqual([{ type: "rewindDiff" }]);
    expect(route(KEYS.escape, rw)).toEqual([{ type: "pickerClose" }]);
    // not ready: typed ahead, never chosen
    expect(route(KEYS.enter, { ...rw, boxReady: false }).map((i) => i.type)).toEqual(["typedAhead", "flash"]);
    expect(route("d", { ...rw, boxReady: false })).toEqual([{ type: "typedAhead" }, { type: "type", ch: "d" }]);
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

  it("a ready box takes its keys; typing on is the prompt's and the box waits again; quit still works", () => {
    const q = { modal: "permission" as const };
    expect(route("y", q)).toEqual([{ type: "answer", answer: "once" }]);
    expect(route("a", q)).toEqual([{ type: "answer", answer: "session" }]);
    expect(route(KEYS.escape, q)).toEqual([{ type: "answer", answer: "deny" }]);
    expect(route(KEYS.pageDown, q)).toEqual([{ type: "scrollQuestion", by: 10 }]);
    // Enter ends every prompt typed: it does not answer
    expect(route(KEYS.enter, q)).toEqual([]);
    expect(route("x", q)).toEqual([{ type: "typedAhead" }, { type: "type", ch: "x" }]);
    expect(route(KEYS.paste("text"), q)).toEqual([{ type: "typedAhead" }, { type: "paste", text: "text" }]);
    expect(route(KEYS.ctrl("c"), q)[0]!.type).toBe("flash");
    expect(route(KEYS.ctrl("z"), q)).toEqual([{ type: "suspend" }]);
    const s = { modal: "sessions" as const };
    expect(route(KEYS.end, s)).toEqual([{ type: "pickerMove", by: Infinity }]);
    expect(route("q", s)).toEqual([{ type: "pickerClose" }]);
    expect(route(KEYS.enter, s)).toEqual([{ type: "pickerChoose" }]);
  });

  it("a box not ready yet takes no key: each goes where it was going, never sends or interrupts, and the box waits again", () => {
    const q = { modal: "permission" as const, boxReady: false };
    // "and then summarize" typed into a question that just opened: every letter is the prompt's
    const typed = keys("and then summarize").flatMap((ev) => new KeyRouter(defaultKeymap()).route(ev, { ...VIEW, ...q }));
    expect(typed.filter((i) => i.type === "answer")).toEqual([]);
    expect(typed.filter((i) => i.type === "type").map((i) => (i.type === "type" ? i.ch : "")).join("")).toBe("and then summarize");
    expect(typed.filter((i) => i.type === "typedAhead")).toHaveLength(18);
    for (const k of ["y", "a", "n"]) expect(route(k, q)).toEqual([{ type: "typedAhead" }, { type: "type", ch: k }]);
    // Enter would send, Esc would interrupt the turn: held back, said so
    const enter = route(KEYS.enter, q);
    expect(enter.map((i) => i.type)).toEqual(["typedAhead", "flash"]);
    expect(enter[1]).toMatchObject({ style: "warn", text: expect.stringContaining("Enter held back") });
    expect(route(KEYS.escape, { ...q, interruptible: true }).map((i) => i.type)).toEqual(["typedAhead", "flash"]);
    expect(route(KEYS.escape, q)).toEqual([{ type: "typedAhead" }, { type: "dismissFlash" }]);
    expect(route(KEYS.ctrl("d"), q).map((i) => i.type)).toEqual(["typedAhead", "flash"]);
    // editing and moving still work as they would have
    expect(route(KEYS.backspace, q)).toEqual([{ type: "typedAhead" }, { type: "edit", op: "backspace" }]);
    expect(route("j", { ...q, focus: "transcript" })).toEqual([{ type: "typedAhead" }, { type: "transcript", op: "selectNext" }]);
    expect(route(KEYS.down, { ...q, focus: "context", paneOpen: true })).toEqual([{ type: "typedAhead" }, { type: "pane", op: "nextSection" }]);
    // the session picker the same: Enter typed ahead never switches sessions
    const s = { modal: "sessions" as const, boxReady: false };
    expect(route(KEYS.enter, s).map((i) => i.type)).toEqual(["typedAhead", "flash"]);
    expect(route("q", s)).toEqual([{ type: "typedAhead" }, { type: "type", ch: "q" }]);
    expect(route("j", s)).toEqual([{ type: "typedAhead" }, { type: "type", ch: "j" }]);
  });

  it("the wheel scrolls what is under the pointer, whatever has the focus; a box at once, but never answers one before it is ready", () => {
    const wheelUp = (x: number, y: number): string => `\x1b[<64;${x + 1};${y + 1}M`;
    const pane = { paneOpen: true, paneRect: { x: 60, y: 0, w: 50, h: 20 } };
    expect(route(wheelUp(10, 3), pane)).toEqual([{ type: "transcript", op: "scrollUp" }]);
    expect(route(wheelUp(70, 3), pane)).toEqual([{ type: "pane", op: "scrollUp" }]);
    expect(route(wheelUp(70, 3), { ...pane, focus: "transcript" })).toEqual([{ type: "pane", op: "scrollUp" }]);
    expect(route(wheelUp(10, 3), { ...pane, focus: "context" })).toEqual([{ type: "transcript", op: "scrollUp" }]);
    expect(route(wheelUp(10, 3), { modal: "permission", boxReady: false })).toEqual([{ type: "scrollQuestion", by: -1 }]);
    expect(route(wheelUp(10, 3), { modal: "sessions", boxReady: false })).toEqual([{ type: "pickerMove", by: -1 }]);
    const km = defaultKeymap();
    km.bindings["permission.allowOnce"] = ["wheelup"];
    const r = new KeyRouter(km);
    expect(route(wheelUp(10, 3), { modal: "permission", boxReady: false }, r)).toEqual([]);
    expect(route(wheelUp(10, 3), { modal: "permission", boxReady: true }, r)).toEqual([{ type: "answer", answer: "once" }]);
  });

  it("before the session is open: Enter holds, Esc lets go, editing works, the rest waits", () => {
    const starting = { attached: false };
    expect(route(KEYS.enter, starting)).toEqual([{ type: "hold" }]);
    expect(route(KEYS.escape, { ...starting, held: true })).toEqual([{ type: "release" }]);
    expect(route(KEYS.escape, starting)).toEqual([{ type: "dismissFlash" }]);
    expect(route("a", starting)).toEqual([{ type: "type", ch: "a" }]);
    expect(route(KEYS.up, starting)).toEqual([{ type: "history", dir: -1 }]);
    expect(route(KEYS.ctrl("l"), starting)).toEqual([{ type: "redraw" }]);
    // ^O asks for the pane, which opens with the session; no transcript yet: Shift-Tab does nothing
    expect(route(KEYS.ctrl("o"), starting)).toEqual([{ type: "toggleContext" }]);
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
    // typing goes to the prompt, which keeps the keys until it is sent (then the pane has them again)
    expect(route("h", c)).toEqual([{ type: "compose" }, { type: "type", ch: "h" }]);
    expect(route("q", c)).toEqual([{ type: "compose" }, { type: "type", ch: "q" }]);
    expect(route(KEYS.paste("p"), c)).toEqual([{ type: "compose" }, { type: "paste", text: "p" }]);
    expect(route(KEYS.tab, c)).toEqual([{ type: "focus", to: "input" }]);
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

/** a keymap with nothing bound */
function unbound(): Keymap {
  const km = defaultKeymap();
  for (const a of ACTIONS) km.bindings[a] = [];
  return km;
}

/** the view in which a place reads its keys */
function viewFor(place: Place): Partial<RouteView> {
  switch (place) {
    case "prompt":
      return { focus: "input", interruptible: true, queued: 1 };
    case "transcript":
      return { focus: "transcript", interruptible: true };
    case "context":
      return { focus: "context", paneOpen: true };
    case "permission":
      return { modal: "permission" };
    case "sessions":
      return { modal: "sessions" };
    case "rewind":
      return { modal: "rewind" };
    default:
      return assertNever(place, "place");
  }
}

describe("every key goes through the keymap", () => {
  // every key a terminal sends that is not a character
  const SPECIAL = [
    KEYS.enter, KEYS.escape, KEYS.tab, KEYS.shiftTab, KEYS.backspace, KEYS.up, KEYS.down, KEYS.left, KEYS.right,
    KEYS.pageUp, KEYS.pageDown, KEYS.home, KEYS.end, KEYS.altEnter, "\x1b[3~", "\x1b[1;5D", "\x1b[1;3C", "\x1b\x7f",
    "\x1b[<64;1;1M", "\x1b[<65;1;1M",
    ..."abcdefghijklmnopqrstuvwxyz".split("").map((c) => KEYS.ctrl(c)),
  ];

  it.each(Object.keys(PLACES) as Place[])("with nothing bound, no key does anything in %s but type a character", (place) => {
    const r = new KeyRouter(unbound());
    for (const k of SPECIAL) {
      const intents = route(k, { ...viewFor(place), paneRect: { x: 0, y: 0, w: 100, h: 30 } }, r).filter((i) => i.type !== "typedAhead");
      expect(intents, JSON.stringify(k)).toEqual([]);
    }
    expect(route("x", viewFor(place), r).filter((i) => i.type === "type")).toEqual([{ type: "type", ch: "x" }]);
    // an Alt-letter bound to nothing is Esc (bound to nothing here) and then the letter
    expect(route("\x1bb", viewFor(place), r).filter((i) => i.type === "type")).toEqual([{ type: "type", ch: "b" }]);
  });

  it.each(Object.entries(PLACES).flatMap(([place, spec]) => spec.actions.map((a) => [place as Place, a] as const)))(
    "in %s, %s acts on the key it is bound to",
    (place, action: Action) => {
      const km = unbound();
      km.bindings[action] = ["f9"];
      const intents = route("\x1b[20~", { ...viewFor(place), promptEmpty: false, held: true }, new KeyRouter(km));
      expect(intents.length).toBeGreaterThan(0);
      expect(intents.some((i) => i.type === "typedAhead")).toBe(false);
    },
  );

  it("rebinding moves prompt editing and the boxes' keys", () => {
    const km = defaultKeymap();
    km.bindings["input.killToEnd"] = ["C-x"];
    km.bindings["permission.allowOnce"] = ["o"];
    km.bindings["sessions.choose"] = ["space"];
    const r = new KeyRouter(km);
    expect(route(KEYS.ctrl("x"), {}, r)).toEqual([{ type: "edit", op: "killToEnd" }]);
    expect(route(KEYS.ctrl("k"), {}, r)).toEqual([]);
    expect(route("o", { modal: "permission" }, r)).toEqual([{ type: "answer", answer: "once" }]);
    expect(route("y", { modal: "permission" }, r)).toEqual([{ type: "typedAhead" }, { type: "type", ch: "y" }]);
    expect(route(" ", { modal: "sessions" }, r)).toEqual([{ type: "pickerChoose" }]);
    expect(route(KEYS.enter, { modal: "sessions" }, r)).toEqual([]);
  });
});

describe("Ctrl-C, steering, the queue and focus reports", () => {
  it("Ctrl-C interrupts a running turn, else empties a typed prompt, else quits when pressed twice", () => {
    const r = new KeyRouter(defaultKeymap(), () => 1000);
    expect(route(KEYS.ctrl("c"), { attached: true, interruptible: true, promptEmpty: false }, r).map((i) => i.type)).toEqual(["interrupt", "flash"]);
    // pressed again while the turn winds down: quit
    expect(route(KEYS.ctrl("c"), { attached: true, interruptible: true, promptEmpty: true }, r)).toEqual([{ type: "quit" }]);
    expect(route(KEYS.ctrl("c"), { attached: true, interruptible: false, promptEmpty: false }, r)).toEqual([{ type: "clearPrompt" }]);
    // the prompt just emptied: the next press quits (what it held is kept as the draft)
    expect(route(KEYS.ctrl("c"), { attached: true, interruptible: false, promptEmpty: true }, r)).toEqual([{ type: "quit" }]);
    // with a box open it is the quit key as before (the question is answered no)
    const b = new KeyRouter(defaultKeymap(), () => 1000);
    expect(route(KEYS.ctrl("c"), { attached: true, interruptible: true, modal: "permission" }, b)[0]!.type).toBe("flash");
    expect(route(KEYS.ctrl("c"), { attached: true, interruptible: true, modal: "permission" }, b)).toEqual([{ type: "quit" }]);
  });

  it("Ctrl-S steers; Alt-E and Alt-D act on the queue only when something is queued", () => {
    expect(route(KEYS.ctrl("s"), { attached: true })).toEqual([{ type: "steer" }]);
    expect(route("\x1be", { attached: true, queued: 2 })).toEqual([{ type: "queue", op: "edit" }]);
    expect(route("\x1bd", { attached: true, queued: 1 })).toEqual([{ type: "queue", op: "remove" }]);
    expect(route("\x1be", { attached: true, queued: 0 })).toEqual([]);
  });

  it("focus reports become termFocus, never typing, even over a box", () => {
    expect(route("\x1b[O", { attached: true })).toEqual([{ type: "termFocus", focused: false }]);
    expect(route("\x1b[I", { attached: true, modal: "permission" })).toEqual([{ type: "termFocus", focused: true }]);
  });
});
