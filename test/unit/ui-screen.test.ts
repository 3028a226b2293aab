// The whole screen in-process: src/ui painting into a headless xterm through an injected
// terminal, driven by a scripted controller's SessionEvents. What is read is the screen a
// person would see; the pty suite (test/e2e/tui.test.ts) does the same with the real program.
import { afterEach, describe, expect, it } from "vitest";
import { startTui, type Tui } from "../../src/ui/app.js";
import { defaultKeymap } from "../../src/ui/bindings.js";
import type { PermissionAnswer } from "../../src/tools/types.js";
import { KEYS } from "../helpers/pty.js";
import { asController, HeadlessTerminal, ScriptedController } from "../helpers/screen.js";

const open: Tui[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function screen(cols = 100, rows = 30): Promise<{ term: HeadlessTerminal; c: ScriptedController; tui: Tui; done: Promise<number> }> {
  const term = new HeadlessTerminal(cols, rows);
  const tui = startTui({ noColor: false, terminal: term.terminal() });
  open.push(tui);
  const c = new ScriptedController();
  const done = tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [] });
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
    term.send("y");
    await term.waitFor("$ echo second-one");
    term.send(KEYS.escape); // Esc denies
    await term.waitForGone("Permission needed");
    expect(answers).toEqual([
      ["echo first-one", "once"],
      ["echo second-one", "deny"],
    ]);
    await term.waitFor("bash: denied");
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
