// The whole screen in-process: src/ui painting into a headless xterm through an injected
// terminal, driven by a scripted controller's SessionEvents. What is read is the screen a
// person would see; the pty suite (test/e2e/tui.test.ts) does the same with the real program.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTui, type Tui } from "../../src/ui/app.js";
import { defaultKeymap, type Keymap } from "../../src/ui/bindings.js";
import { NOT_READY } from "../../src/ui/modal.js";
import type { PermissionAnswer } from "../../src/tools/types.js";
import { KEYS } from "../helpers/pty.js";
import { asController, HeadlessTerminal, ScriptedController } from "../helpers/screen.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { requestEstimate } from "../../src/context/format.js";

const open: Tui[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function screen(
  cols = 100,
  rows = 30,
  o: { keymap?: Keymap; setup?: (t: HeadlessTerminal) => void } = {},
): Promise<{ term: HeadlessTerminal; c: ScriptedController; tui: Tui; done: Promise<number> }> {
  const term = new HeadlessTerminal(cols, rows);
  o.setup?.(term);
  const tui = startTui({ noColor: false, terminal: term.terminal() });
  open.push(tui);
  const c = new ScriptedController();
  const done = tui.attach(asController(c), { keymap: o.keymap ?? defaultKeymap(), keymapWarnings: [] });
  await term.waitFor("Type a request");
  return { term, c, tui, done };
}

async function ask(term: HeadlessTerminal, text: string): Promise<void> {
  term.send(text);
  await term.waitFor(`› ${text}`);
  term.send(KEYS.enter);
}

describe("the screen in-process", () => {
  it("status line and transcript across a streamed turn", async () => {
    // wide enough for every part of the status line
    const { term, c } = await screen(200, 30);
    await term.waitFor(/≈ 1,234 \/ 200,000 tokens/);
    expect(term.lastRow()).toMatch(/^ idle · anthropic\/scripted-model · .*\^O context/);
    await ask(term, "what is the plan?");
    await term.waitFor("› what is the plan?");
    expect(c.submitted.map((s) => s.text)).toEqual(["what is the plan?"]);

    c.emit({ type: "state", state: "streaming" });
    c.emit({ type: "answer_start", answer: 1 });
    // nothing of the answer yet: the provider's time, not streaming
    await term.waitFor(/^ waiting for anthropic · /m);
    c.emit({ type: "text_delta", answer: 1, text: "First the tests, " });
    await term.waitFor("First the tests,");
    expect(term.lastRow()).toContain(" streaming ·");
    expect(term.screenText()).toContain("› Esc interrupts · type your next request");
    // a checkpoint lags behind the deltas: the live text stays
    const checkpoint = c.stored("assistant", [{ type: "text", text: "First the tests, " }], "interrupted");
    c.emit({ type: "message", msg: checkpoint, answer: 1 });
    c.emit({ type: "text_delta", answer: 1, text: "then the fix." });
    await term.waitFor("First the tests, then the fix.");
    c.emit({ type: "usage", usage: { inputTokens: 1200, outputTokens: 34 } });
    c.emit({ type: "message", msg: { ...checkpoint, blocks: [{ type: "text", text: "First the tests, then the fix. END" }], status: "complete" }, answer: 1 });
    c.finish();
    await term.waitFor(/^ idle · /m);
    await term.waitFor("then the fix. END");
    const text = term.screenText();
    expect(text.match(/First the tests/g)).toHaveLength(1);
    expect(text).not.toContain("interrupted");
    expect(term.lastRow()).toContain("provider usage: 1,200 in / 34 out");
  });

  it("a tool call's input shows as it arrives, then as the call, its run and its result", async () => {
    const { term, c } = await screen();
    await ask(term, "write the notes");
    c.emit({ type: "state", state: "streaming" });
    c.emit({ type: "answer_start", answer: 2 });
    c.emit({ type: "text_delta", answer: 2, text: "Writing them now." });
    c.emit({ type: "tool_input", answer: 2, index: 0, name: "write", bytes: 0 });
    await term.waitFor("▸ write  receiving input… 0 B");
    c.emit({ type: "tool_input", answer: 2, index: 0, name: "write", bytes: 12_000 });
    await term.waitFor("▸ write  receiving input… 12.0 kB");
    const call = { type: "tool_use" as const, id: "call-1", name: "write", input: { path: "notes.txt", content: "x".repeat(12_000) } };
    c.emit({ type: "message", msg: c.stored("assistant", [{ type: "text", text: "Writing them now." }, call]), answer: 2 });
    await term.waitForGone("receiving input");
    c.emit({ type: "state", state: "tool", detail: "write" });
    c.emit({ type: "tool_start", id: "call-1", name: "write", input: call.input });
    await term.waitFor(/▸ write {2}notes\.txt .*… running/);
    expect(term.lastRow()).toContain(" running write ·");
    c.emit({ type: "tool_end", id: "call-1", name: "write", output: "wrote notes.txt", isError: false, ms: 40 });
    c.emit({ type: "message", msg: c.stored("user", [{ type: "tool_result", toolUseId: "call-1", name: "write", output: "wrote notes.txt", isError: false }]) });
    c.finish();
    await term.waitFor(/▸ write {2}notes\.txt .*✓ 40ms/);
    expect(term.screenText().match(/▸ write/g)).toHaveLength(1);
  });

  it("a permission question takes its answer from the keyboard; a second one waits its turn", async () => {
    const { term, c } = await screen();
    await ask(term, "run it");
    const answers: [string, PermissionAnswer][] = [];
    c.emit({ type: "state", state: "permission", detail: "bash" });
    for (const cmd of ["echo first-one", "echo second-one"]) {
      c.emit({
        type: "permission",
        req: { tool: "bash", kind: "exec", input: { command: cmd }, summary: `bash: ${cmd}` },
        answer: (a) => answers.push([cmd, a]),
      });
    }
    await term.waitFor("Permission needed");
    expect(term.screenText()).toContain("$ echo first-one");
    expect(term.lastRow()).toContain("waiting for permission (bash)");
    // the choices show once the box takes keys (BOX_GRACE_MS after it is seen)
    await term.waitFor("y allow once");
    term.send("y");
    await term.waitFor("$ echo second-one");
    await term.waitFor("y allow once");
    term.send(KEYS.escape); // Esc denies
    await term.waitForGone("Permission needed");
    expect(answers).toEqual([
      ["echo first-one", "once"],
      ["echo second-one", "deny"],
    ]);
    await term.waitFor("bash: denied");
  });

  it("hands the first frame to the terminal before start returns, not at the next turn of the event loop", () => {
    // the session loads right after start(), in the same turn of the event loop (config,
    // store): a frame blessed held until setImmediate would wait for all of that
    const term = new HeadlessTerminal(100, 30);
    const tui = startTui({ noColor: false, terminal: term.terminal() });
    open.push(tui);
    const out = term.rawOutput();
    expect(out).toContain("starting\u2026");
    expect(out).toContain("\u203a");
    // the whole frame, synchronized output closed
    expect(out.lastIndexOf("\x1b[?2026l")).toBeGreaterThan(out.indexOf("starting\u2026"));
  });

  it("before the session is open the prompt takes keys and holds Enter; attach sends it", async () => {
    const term = new HeadlessTerminal(100, 30);
    const tui = startTui({ noColor: false, terminal: term.terminal() });
    open.push(tui);
    await term.waitFor("Starting… type away");
    expect(term.lastRow()).toContain("starting…");
    term.send("an early question");
    await term.waitFor("› an early question");
    term.send(KEYS.enter);
    await term.waitFor("sent once the session is open");
    const c = new ScriptedController();
    void tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [] });
    await term.waitFor(() => c.submitted.length === 1);
    expect(c.submitted[0]!.text).toBe("an early question");
    await term.waitFor(/^ working · /m);
  });

  it("Esc interrupts a running turn; Ctrl-C twice quits, answering an open question no", async () => {
    const { term, c, done } = await screen();
    await ask(term, "long job");
    c.emit({ type: "state", state: "streaming" });
    term.send(KEYS.escape);
    await term.waitFor("interrupting… what arrived is kept");
    expect(c.interrupts).toBe(1);
    let answer: PermissionAnswer | undefined;
    c.emit({ type: "permission", req: { tool: "bash", kind: "exec", input: { command: "rm -r x" }, summary: "bash: rm -r x" }, answer: (a) => (answer = a) });
    await term.waitFor("Permission needed");
    term.send(KEYS.ctrl("c"));
    await term.waitFor("again to quit");
    term.send(KEYS.ctrl("c"));
    expect(await done).toBe(0);
    expect(answer).toBe("deny");
    // the alternate screen was left and bracketed paste turned off
    expect(term.rawOutput().slice(-400)).toContain("\x1b[?2004l");
    await term.waitFor(() => term.xterm.buffer.active.type === "normal");
  });

  it("lays the context pane beside the transcript when wide and over it when narrow", async () => {
    const { term } = await screen(120, 30);
    term.send(KEYS.ctrl("o"));
    await term.waitFor("pending:");
    // side by side: the welcome line is still on screen, left of a rule
    expect(term.screenText()).toContain("albedo-tui · anthropic/scripted-model");
    expect(term.screenText()).toMatch(/│/);
    term.resize(80, 24);
    // narrow: the pane covers the transcript from the first column
    await term.waitFor(/^pending:/m);
    expect(term.screenText()).not.toContain("albedo-tui · anthropic/scripted-model");
    expect(term.screenText()).not.toMatch(/│/);
    term.send(KEYS.escape);
    await term.waitFor("albedo-tui · anthropic/scripted-model");
  });
});

/** The status line's figure: "≈ 1,226 / 200,000 tokens (chars/4)", or "next request ≈ …". */
function statusFigure(term: HeadlessTerminal): { next: boolean; tokens: number; method: string } | undefined {
  const m = /(next request )?≈ ([\d,]+) \/ 200,000 tokens \(([^)]+)\)/.exec(term.lastRow());
  return m ? { next: m[1] !== undefined, tokens: Number(m[2]!.replace(/,/g, "")), method: m[3]! } : undefined;
}

/** The pane's figure of one basis: the last request's total, or the next request's estimate
 * (shown while pending, and between turns under the total). */
function paneFigure(term: HeadlessTerminal, next: boolean): { next: boolean; tokens: number; method: string } | undefined {
  const rows = term.screenText().split("\n").slice(0, -1).join("\n");
  const m = next ? /next request ≈ ([\d,]+) tokens \(([^)]+)\)/.exec(rows) : /total [\d,]+ bytes · ≈ ([\d,]+) tokens \(([^)]+)\)/.exec(rows);
  return m ? { next, tokens: Number(m[1]!.replace(/,/g, "")), method: m[2]! } : undefined;
}

const words = (n: number, w: string): string => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");

describe("the screen on the real controller", () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider({ key: TEST_KEY });
  });
  afterAll(() => fake.close());

  it("the status line gives a figure the context pane gives too: before the first request, after a turn, after /compact", async () => {
    const { app } = await makeApp(fake, { headless: false });
    try {
      const term = new HeadlessTerminal(200, 50);
      const tui = startTui({ noColor: false, terminal: term.terminal() });
      open.push(tui);
      void tui.attach(app, { keymap: defaultKeymap(), keymapWarnings: [] });
      await term.waitFor("Type a request");

      // both read off the screen, the pane opened and closed with the key a person uses
      // the status's figure, the pane's figure of the same basis, and the pane's last-request total
      const both = async (
        pane: string | RegExp,
      ): Promise<{ status: ReturnType<typeof statusFigure>; pane: ReturnType<typeof paneFigure>; total: ReturnType<typeof paneFigure> }> => {
        const status = statusFigure(term);
        term.send(KEYS.ctrl("o"));
        await term.waitFor(pane);
        await term.waitFor(() => paneFigure(term, status?.next ?? false) !== undefined);
        const shown = paneFigure(term, status?.next ?? false);
        const total = paneFigure(term, false);
        term.send(KEYS.escape);
        await term.waitForGone(pane);
        return { status, pane: shown, total };
      };

      // before the first request: the estimate of what would be sent, marked as such
      await term.waitFor(() => statusFigure(term)?.next === true);
      const first = await both("pending:");
      expect(first.status).toEqual(first.pane);
      expect(first.status).toMatchObject({ next: true, method: "chars/4" });
      // system, context and tools alone are hundreds of tokens: not the empty record's 0
      expect(first.status!.tokens).toBeGreaterThan(300);

      // after a turn: the last request's total, every section of it
      fake.script({ text: words(600, "answer") });
      await ask(term, "tell me everything");
      await term.waitFor("answer599");
      // between turns the status gives the next request's estimate (the answer is in it), and
      // the pane gives that figure under the last request's total
      await term.waitFor(/^ idle · /m);
      await term.waitFor(() => statusFigure(term)?.next === true);
      const afterTurn = await both(/total [\d,]+ bytes/);
      expect(afterTurn.status).toEqual(afterTurn.pane);
      const view = await app.inspectorView();
      if (view.state !== "current") throw new Error("expected the turn's request to be current");
      expect(afterTurn.total!.tokens).toBe(requestEstimate(view.sections).tokens);
      // 600 words answered: the next request weighs more than the one that asked for them
      expect(afterTurn.status!.tokens).toBeGreaterThan(afterTurn.total!.tokens + 600);

      // a second turn, so that /compact has a turn to keep after what it summarises
      fake.script({ text: "SECOND-ANSWER" });
      await ask(term, "and then?");
      await term.waitFor("SECOND-ANSWER");
      // a short answer: by the time it shows, the status may already give the next request's
      // estimate (idle) rather than the one sent; either has grown by the second turn
      await term.waitFor(/^ idle · /m);
      await term.waitFor(() => (statusFigure(term)?.tokens ?? 0) > afterTurn.status!.tokens);
      const second = { status: statusFigure(term) };

      // /compact: the next request carries the summary; the pane is pending and both give its estimate
      fake.script({ text: "SHORT-SUMMARY of the talk." });
      await ask(term, "/compact");
      await term.waitFor("Compaction: summarised messages 1–2");
      await term.waitFor(() => statusFigure(term)?.next === true);
      const afterCompact = await both("pending: history compacted by /compact");
      expect(afterCompact.status).toEqual(afterCompact.pane);
      // the 600-word answer the last request carried is now a short summary
      expect(afterCompact.status!.tokens).toBeLessThan(second.status!.tokens);
      expect(term.screenText()).not.toContain("Nothing to compact");

      // the estimate is the request the next turn sends, before its prompt ("next1" is 5 characters: 2 tokens by chars/4)
      fake.script({ text: "NEXT-ANSWER" });
      await ask(term, "next1");
      await term.waitFor("NEXT-ANSWER");
      await term.waitFor(/^ idle · /m);
      const sent = await app.inspectorView();
      if (sent.state !== "current") throw new Error("expected the next turn's request to be current");
      expect(requestEstimate(sent.sections).tokens).toBe(afterCompact.status!.tokens + 2);
      const afterNext = await both(/total [\d,]+ bytes/);
      expect(afterNext.total!.tokens).toBe(afterCompact.status!.tokens + 2);
    } finally {
      await app.close();
    }
  }, 30_000);

  it("a prompt sent before the turn's code is in: Esc takes it back: the text returns to the prompt, nothing is sent, and Enter sends it once the code is in", async () => {
    const { app } = await makeApp(fake, { headless: false, partsAfterFrame: true });
    // the fake serves this describe's other tests too: count from here
    const before = fake.requests.length;
    try {
      // the turn's code held back, as on a slow machine
      const real = app.ready.bind(app);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      app.ready = () => held.then(real);
      const term = new HeadlessTerminal(120, 30);
      const tui = startTui({ noColor: false, terminal: term.terminal() });
      open.push(tui);
      void tui.attach(app, { keymap: defaultKeymap(), keymapWarnings: [] });
      await term.waitFor("Type a request");
      await ask(term, "sent too early");
      await term.waitFor(/^ working · /m);
      term.send(KEYS.escape);
      await term.waitFor("Interrupted before it was sent: nothing was stored or sent.");
      await term.waitFor(/^ idle · /m);
      // the text is back in the prompt, where typing goes on from its end
      term.send(", and more");
      await term.waitFor("› sent too early, and more");
      expect(fake.requests).toHaveLength(before);
      release();
      fake.script({ text: "answered after all" });
      term.send(KEYS.enter);
      await term.waitFor("answered after all");
      expect(fake.requests).toHaveLength(before + 1);
    } finally {
      await app.close();
    }
  });
});

/** a bash question the test can see answered */

function question(c: ScriptedController, cmd: string, answers: string[]): void {
  c.emit({ type: "state", state: "permission", detail: "bash" });
  c.emit({ type: "permission", req: { tool: "bash", kind: "exec", input: { command: cmd }, summary: `bash: ${cmd}` }, answer: (a) => answers.push(a) });
}

/** the hint line, where the keys of the place with the focus are named */
function hint(term: HeadlessTerminal): string {
  return term.line(term.xterm.rows - 3);
}

const PANE_HINT = "context pane · typing goes to the prompt";

describe("type-ahead never answers a box", () => {
  it("keys typed as a question opens go to the prompt, Enter included; the choices show once typing pauses", async () => {
    const { term, c } = await screen();
    await ask(term, "run it");
    const answers: string[] = [];
    question(c, "echo typed-ahead", answers);
    // typed before the box's first frame, in one chunk as a fast typist's keys arrive
    term.send("and then summarize\r");
    await term.waitFor("Permission needed");
    await term.waitFor("› and then summarize");
    expect(term.screenText()).toContain(NOT_READY);
    expect(answers).toEqual([]);
    await term.waitFor("Enter held back");
    // typing on after the box is ready: still the prompt's, and the box waits again
    await term.waitFor("y allow once");
    term.send("!");
    await term.waitFor("› and then summarize!");
    await term.waitFor(NOT_READY);
    expect(answers).toEqual([]);
    await term.waitFor("y allow once");
    term.send("n");
    await term.waitFor("bash: denied");
    expect(answers).toEqual(["deny"]);
    // the typed text is all there, nothing was sent
    expect(term.screenText()).toContain("› and then summarize!");
    expect(c.submitted.map((x) => x.text)).toEqual(["run it"]);
  });

  it("the next question in the box waits to be seen like the first; a paste never answers", async () => {
    const { term, c } = await screen();
    await ask(term, "two");
    const answers: string[] = [];
    question(c, "echo one", answers);
    question(c, "echo two", answers);
    await term.waitFor("y allow once");
    // a double press: the second y lands on a question nobody has seen
    term.send("y");
    term.send("y");
    await term.waitFor("$ echo two");
    await term.waitFor("› y");
    expect(answers).toEqual(["once"]);
    term.send(KEYS.paste("a"));
    await term.waitFor("› ya");
    await term.waitFor("y allow once");
    term.send("a");
    await term.waitForGone("Permission needed");
    expect(answers).toEqual(["once", "session"]);
  });
});

describe("focus is one state every event restores", () => {
  it("after a turn sent with the pane open, and after a permission answer, ↓/↑/Esc act on the pane", async () => {
    const { term, c } = await screen(120, 30);
    term.send(KEYS.ctrl("o"));
    await term.waitFor("pending:");
    await term.waitFor(() => hint(term).includes(PANE_HINT));
    term.send("hello there");
    await term.waitFor("› hello there");
    // while typing, the prompt has the keys (its hints show)
    expect(hint(term)).toContain("Enter send");
    term.send(KEYS.enter);
    await term.waitFor(() => c.submitted.length === 1);
    await term.waitFor(() => hint(term).includes(PANE_HINT));
    c.finish();
    // ↑ is the pane's, not the prompt history's
    term.send(KEYS.up);
    await term.waitFor(/^ idle/m);
    expect(term.line(term.xterm.rows - 2)).not.toContain("hello there");
    // a question comes and is answered: the pane still has the keys
    const answers: string[] = [];
    question(c, "echo ok", answers);
    await term.waitFor("y allow once");
    term.send("y");
    await term.waitForGone("Permission needed");
    await term.waitFor(() => hint(term).includes(PANE_HINT));
    term.send(KEYS.escape);
    await term.waitForGone("pending:");
    expect(answers).toEqual(["once"]);
    await term.waitFor("Type a request");
  });

  it("/commands: one typed from the pane gives the keys back to it; /context closes it and the prompt has them", async () => {
    const { term } = await screen(120, 30);
    term.send(KEYS.ctrl("o"));
    await term.waitFor(() => hint(term).includes(PANE_HINT));
    await ask(term, "/help");
    await term.waitFor("sessions.close");
    await term.waitFor(() => hint(term).includes(PANE_HINT));
    await ask(term, "/context");
    await term.waitForGone("pending:");
    await term.waitFor("Type a request");
    await ask(term, "/context");
    await term.waitFor("pending:");
    await term.waitFor(() => hint(term).includes(PANE_HINT));
  });

  it("resizes: a focused transcript the pane comes to cover hands the focus to the pane; the pane keeps it back and forth", async () => {
    const { term, c } = await screen(120, 30);
    c.messages.push(c.stored("user", [{ type: "text", text: "earlier" }]));
    term.send(KEYS.ctrl("o"));
    await term.waitFor("pending:");
    term.send(KEYS.altUp);
    await term.waitFor(() => hint(term).includes("transcript:"));
    term.resize(80, 24);
    await term.waitFor(/^pending:/m);
    await term.waitFor(() => hint(term).includes(PANE_HINT));
    term.resize(120, 30);
    await term.waitFor(() => hint(term).includes(PANE_HINT));
    term.send(KEYS.escape);
    await term.waitForGone("pending:");
    await term.waitFor("Type a request");
  });
});

describe("Ctrl-Z and the mouse", () => {
  it("Ctrl-Z gives the terminal back as it was, then takes it again and repaints; an open question stays unanswered", async () => {
    let during = "";
    let rawDuring: boolean | undefined;
    const { term, c } = await screen(100, 30, {
      setup: (t) => {
        t.onSuspend = () => {
          during = t.rawOutput();
          rawDuring = t.rawModes[t.rawModes.length - 1];
          return true;
        };
      },
    });
    await ask(term, "run it");
    const answers: string[] = [];
    question(c, "echo later", answers);
    await term.waitFor("y allow once");
    const before = term.rawOutput().length;
    term.send(KEYS.ctrl("z"));
    await term.waitFor(() => during !== "");
    const given = during.slice(before);
    // the normal screen, the cursor shown, bracketed paste off, cooked mode
    expect(given).toContain("\x1b[?1049l");
    expect(given).toContain("\x1b[?25h");
    expect(given).toContain("\x1b[?2004l");
    expect(rawDuring).toBe(false);
    // back: raw mode, the alternate screen, paste on, everything painted again
    await term.waitFor(() => !term.onNormalScreen());
    expect(term.rawModes[term.rawModes.length - 1]).toBe(true);
    const after = term.rawOutput().slice(during.length);
    expect(after).toContain("\x1b[?1049h");
    expect(after).toContain("\x1b[?2004h");
    await term.waitFor("$ echo later");
    await term.waitFor("› run it");
    expect(answers).toEqual([]);
    // the box waits to be seen again before it takes keys
    await term.waitFor("y allow once");
    term.send("n");
    await term.waitFor("bash: denied");
  });

  it("says so when nothing stopped the process, and when this terminal cannot suspend", async () => {
    const { term } = await screen(100, 30, { setup: (t) => (t.onSuspend = () => false) });
    term.send(KEYS.ctrl("z"));
    await term.waitFor("not suspended: no job control here");
    await term.waitFor("Type a request");
    const plain = await screen();
    plain.term.send(KEYS.ctrl("z"));
    await plain.term.waitFor("^Z: suspending is not available here");
  });

  it("the wheel is reported by default and scrolls the transcript; the keymap's mouse off asks for no reports; the modes are undone at the end", async () => {
    const km = defaultKeymap();
    km.mouse = false;
    const off = await screen(100, 20, { keymap: km });
    expect(off.term.rawOutput()).not.toContain("\x1b[?1000h");
    const { term, c, done } = await screen(100, 20);
    await term.waitFor(() => term.rawOutput().includes("\x1b[?1000h\x1b[?1006h"));
    for (let i = 0; i < 30; i++) c.messages.push(c.stored("assistant", [{ type: "text", text: `line number ${i}` }]));
    c.emit({ type: "session" });
    await term.waitFor("line number 29");
    term.send("\x1b[<64;5;5M".repeat(4));
    await term.waitFor("more below");
    expect(term.screenText()).not.toContain("line number 29");
    term.send("\x1b[<65;5;5M".repeat(10));
    await term.waitFor("line number 29");
    term.send(KEYS.ctrl("c"));
    term.send(KEYS.ctrl("c"));
    expect(await done).toBe(0);
    expect(term.rawOutput().slice(-400)).toContain("\x1b[?1006l\x1b[?1000l");
  });
});
