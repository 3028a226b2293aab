// The painter without a terminal: the screen's state and a layout in, each rectangle's lines
// out (paint.ts). The in-process screen tests (ui-screen.test.ts) read the same frames off a
// headless xterm; these read what is painted where.
import { PromptQueue } from "../../src/ui/queue.js";
import { describe, expect, it } from "vitest";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { ContextPane } from "../../src/ui/context-pane.js";
import { InputEditor } from "../../src/ui/input.js";
import { layout, promptWidth, type Layout, type Rect } from "../../src/ui/layout.js";
import * as boxes from "../../src/ui/modal.js";
import { paintScreen, type PaintedSession, type Painted, type ScreenState } from "../../src/ui/paint.js";
import * as run from "../../src/ui/run-command.js";
import { lineText } from "../../src/ui/style.js";
import { Transcript } from "../../src/ui/transcript.js";
import { asController, ScriptedController } from "../helpers/screen.js";

function state(editor: InputEditor, over: Partial<ScreenState> = {}): ScreenState {
  return {
    km: defaultKeymap(),
    now: Date.now(),
    session: undefined,
    focus: "input",
    flash: undefined,
    held: false,
    attachments: 0,
    prompt: { text: editor.text, empty: editor.isEmpty(), layout: editor.layout(promptWidth(80)) },
    turn: { state: "idle" },
    retry: undefined,
    usage: undefined,
    context: undefined,
    modal: undefined,
    boxReady: true,
    ...over,
  };
}

function at(editor: InputEditor, cols: number, rows: number, paneOpen = false): Layout {
  return layout({ cols, rows, promptRows: editor.layout(promptWidth(cols)).rows.length, paneOpen })!;
}

/** the text painted into `r`, one string per line */
function textIn(p: Painted, r: Rect | undefined): string[] {
  const a = p.areas.find((x) => r && x.rect.x === r.x && x.rect.y === r.y && x.rect.w === r.w && x.rect.h === r.h);
  return a ? a.lines.map(lineText) : [];
}

function session(): PaintedSession & { c: ScriptedController } {
  const c = new ScriptedController();
  const controller = asController(c);
  return { c, controller, transcript: new Transcript(), pane: new ContextPane(controller, () => undefined), boxes, run, queue: new PromptQueue() };
}

describe("the painter", () => {
  it("paints the starting frame: a blank transcript area, the prompt's placeholder, the cursor in the prompt", () => {
    const e = new InputEditor();
    const l = at(e, 80, 24);
    const p = paintScreen(state(e), l);
    // blank, but painted: what was there before is cleared
    expect(p.areas.find((a) => a.rect === l.main)?.lines).toEqual([]);
    expect(textIn(p, l.prompt)[0]).toBe("› Starting… type away; what you type is kept");
    expect(textIn(p, l.status)[0]).toContain("starting…");
    expect(p.areas.find((a) => a.rect === l.status)?.fill).toEqual({ t: "", s: "status" });
    expect(p.cursor).toEqual({ x: 2, y: l.prompt.y });
    expect(p.box).toBeUndefined();
  });

  it("puts the cursor after what is typed, and hides it when the keys go elsewhere", () => {
    const e = new InputEditor();
    e.insert("hello");
    const l = at(e, 80, 24);
    const typed = paintScreen(state(e), l);
    expect(textIn(typed, l.prompt)).toEqual(["› hello"]);
    expect(typed.cursor).toEqual({ x: 7, y: l.prompt.y });
    expect(paintScreen(state(e, { focus: "transcript" }), l).cursor).toBeUndefined();
  });

  it("paints the session's transcript and the status line once the session is open", () => {
    const e = new InputEditor();
    const s = session();
    s.transcript.load([s.c.stored("user", [{ type: "text", text: "what is the plan?" }])]);
    const l = at(e, 100, 30);
    const p = paintScreen(state(e, { session: s }), l);
    expect(textIn(p, l.transcript).join("\n")).toContain("› what is the plan?");
    expect(textIn(p, l.status)[0]).toMatch(/^ idle · anthropic\/scripted-model/);
  });

  it("draws an open question last, over the rest, hides the cursor and says how far it scrolls", () => {
    const e = new InputEditor();
    const s = session();
    const command = Array.from({ length: 80 }, (_, i) => `echo ${i}`).join("\n");
    const modal = { kind: "permission" as const, queue: [{ req: { tool: "bash", kind: "exec" as const, input: { command }, summary: "bash: echo" }, answer: () => undefined }], scroll: 0, maxScroll: 0 };
    const l = at(e, 100, 30);
    const p = paintScreen(state(e, { session: s, modal }), l);
    const last = p.areas[p.areas.length - 1]!;
    expect(last.lines.map(lineText).join("\n")).toContain("Permission needed");
    expect(p.cursor).toBeUndefined();
    expect(p.box?.maxScroll).toBeGreaterThan(0);
    // a picker's box has no scroll to report
    const picker = paintScreen(state(e, { session: s, modal: { kind: "sessions", list: [], index: 0 } }), l);
    expect(picker.box).toEqual({ maxScroll: undefined });
  });
});
