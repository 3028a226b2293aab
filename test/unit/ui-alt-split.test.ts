// Esc and a letter typed at once reach the program as one Alt-letter. One the keymap binds
// is that key; one bound to nothing is Esc and then the letter, so "think hard" typed right
// after an Esc keeps its "t". Ctrl-D on an empty prompt quits wherever the keys are.
import { describe, expect, it } from "vitest";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { KeyParser, splitAlt, type InputEvent } from "../../src/ui/keys.js";
import { KeyRouter, type Intent, type RouteView } from "../../src/ui/keyrouter.js";

function keys(bytes: string): InputEvent[] {
  const p = new KeyParser();
  return [...p.feed(bytes), ...p.flush()];
}
const VIEW: RouteView = { attached: true, modal: undefined, boxReady: true, focus: "input", paneOpen: false, paneCovers: false, interruptible: false, promptEmpty: true, held: false };
const route = (bytes: string, over: Partial<RouteView> = {}, router = new KeyRouter(defaultKeymap())): Intent[] =>
  keys(bytes).flatMap((ev) => router.route(ev, { ...VIEW, ...over }));

describe("an Alt-letter bound to nothing", () => {
  it("is read as Esc then the letter: with a turn running, it interrupts and the letter is typed", () => {
    // Alt-w: bound to nothing in the default keymap (Alt-t counts tokens)
    const [k] = keys("\x1bw");
    expect(k).toMatchObject({ type: "key", name: "w", meta: true });
    expect(route("\x1bwhy", { interruptible: true })).toEqual([{ type: "interrupt" }, ...[..."why"].map((ch) => ({ type: "type", ch }))]);
    // an upper-case letter, a digit and a space keep what they were
    expect(route("\x1bT", { interruptible: true }).at(-1)).toEqual({ type: "type", ch: "T" });
    expect(route("\x1b7", { interruptible: true }).at(-1)).toEqual({ type: "type", ch: "7" });
    expect(route("\x1b ", { interruptible: true }).at(-1)).toEqual({ type: "type", ch: " " });
    // with nothing running the Esc does what a lone Esc does there, then the letter is typed
    const lone = route("\x1b", { promptEmpty: false });
    expect(route("\x1bx", { promptEmpty: false })).toEqual([...lone, { type: "type", ch: "x" }]);
  });

  it("in the context pane and the transcript too: the Esc, then the letter goes to the prompt", () => {
    const pane = route("\x1bq", { focus: "context", paneOpen: true });
    expect(pane.at(-1)).toEqual({ type: "type", ch: "q" });
    const tr = route("\x1bq", { focus: "transcript" });
    expect(tr.at(-1)).toEqual({ type: "type", ch: "q" });
  });

  it("an Alt-letter bound only to the pane's actions is Esc then the letter outside the pane", () => {
    // Alt-t counts tokens in the context pane; typed fast in the prompt, Esc-t is "t"
    expect(route("\x1bthink", { interruptible: true })).toEqual([{ type: "interrupt" }, ...[..."think"].map((ch) => ({ type: "type", ch }))]);
    expect(route("\x1bt", { focus: "context", paneOpen: true })).toEqual([{ type: "pane", op: "count" }]);
  });

  it("a bound Alt-key keeps its action (Alt-Enter, and a bound Alt-letter)", () => {
    expect(route("\x1b\r")).toEqual([{ type: "edit", op: "newline" }]);
    // the default keymap binds Alt-b to a word left
    expect(route("\x1bb", { promptEmpty: false })).toEqual([{ type: "edit", op: "wordLeft" }]);
  });

  it("splitAlt leaves keys that are not Alt with one character alone", () => {
    const [ctrlAlt] = keys("\x1b\x01");
    expect(ctrlAlt && ctrlAlt.type === "key" ? splitAlt(ctrlAlt) : "no key").toBeUndefined();
    const [plain] = keys("a");
    expect(plain && plain.type === "key" ? splitAlt(plain) : "no key").toBeUndefined();
    const [up] = keys("\x1b[1;3A");
    expect(up && up.type === "key" ? splitAlt(up) : "no key").toBeUndefined();
  });
});

describe("Ctrl-D on an empty prompt", () => {
  it("quits while the context pane or the transcript has the keys; with text in the prompt it does not", () => {
    expect(route("\x04", { focus: "context", paneOpen: true })).toEqual([{ type: "quit" }]);
    expect(route("\x04", { focus: "transcript" })).toEqual([{ type: "quit" }]);
    expect(route("\x04", { focus: "context", paneOpen: true, promptEmpty: false })).not.toContainEqual({ type: "quit" });
  });
});
