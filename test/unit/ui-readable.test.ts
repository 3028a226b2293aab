// The screen readable on any background, in-process (src/ui into a headless xterm): the theme
// follows the background the terminal reports (OSC 11), or COLORFGBG, or the config, and every
// cell then reads at WCAG 4.5:1 on it (3:1 for lines and frames).
import { afterEach, describe, expect, it } from "vitest";
import { startTui, type Tui } from "../../src/ui/app.js";
import { BACKGROUND_QUERY, type Background, type ThemeChoice } from "../../src/ui/background.js";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { cellContrast, isDecoration, readCells } from "../helpers/cells.js";
import { asController, HeadlessTerminal, ScriptedController } from "../helpers/screen.js";

const open: Tui[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

interface ScreenOptions {
  theme?: ThemeChoice;
  /** the terminfo name (the helper's is xterm-256color) */
  termName?: string;
  before?: (c: ScriptedController) => void;
}

async function screen(cols: number, rows: number, o: ScreenOptions = {}): Promise<{ term: HeadlessTerminal; c: ScriptedController }> {
  const term = new HeadlessTerminal(cols, rows);
  const t = term.terminal();
  if (o.termName) t.name = o.termName;
  const tui = startTui({ noColor: false, terminal: t });
  open.push(tui);
  const c = new ScriptedController();
  o.before?.(c);
  void tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [], ...(o.theme ? { theme: o.theme } : {}) });
  await term.waitFor(/Type a request|Esc interrupts/);
  return { term, c };
}

const ANSWER = `## Why the test fails

\`total()\` starts its sum at **1** instead of 0, so *every* invoice is ***one too high***:

\`\`\`js
return lines.reduce((sum, line) => sum + line.price * line.qty, 1); // the bug
\`\`\`

> The test expects 13.

- \`total([])\` returns 1, see [the docs](https://example.com/docs)`;

/** a conversation with most of what the screen styles: markdown, code, a quote, tools, a diff, notices */
function conversation(c: ScriptedController): void {
  c.messages.push(
    c.stored("user", [{ type: "text", text: "Why does the invoice total test fail?" }]),
    c.stored("assistant", [
      { type: "text", text: "Let me run the tests." },
      { type: "tool_use", id: "t1", name: "bash", input: { command: "node --test test/" } },
      { type: "tool_use", id: "t2", name: "edit", input: { path: "src/total.js", old_string: "qty, 1);", new_string: "qty, 0);" } },
    ]),
    c.stored("user", [
      { type: "tool_result", toolUseId: "t1", name: "bash", output: "# fail 2", isError: true },
      { type: "tool_result", toolUseId: "t2", name: "edit", output: "edited src/total.js", isError: false },
    ]),
    c.stored("assistant", [{ type: "text", text: ANSWER }]),
  );
}

/** every visible character's contrast on a terminal of that background; the ones under the bar */
function unreadable(term: HeadlessTerminal, on: Background): string[] {
  const out: string[] = [];
  readCells(term.xterm).forEach((row, y) =>
    row.forEach((cell, x) => {
      if (cell.ch === " ") return;
      const need = isDecoration(cell.ch) ? 3 : 4.5;
      const r = cellContrast(cell, on);
      if (r < need) out.push(`${x},${y} "${cell.ch}" ${r.toFixed(2)} (fg ${cell.fg}, bg ${cell.bg}, bold ${cell.bold})`);
    }),
  );
  return out;
}

/** the palette index most cells of the welcome/hint grey use: 243 in the dark theme, 242 in the light one */
function usesIndex(term: HeadlessTerminal, index: number): boolean {
  return readCells(term.xterm).some((row) => row.some((c) => c.fg === index));
}

describe("the theme and the terminal's background", () => {
  it("asks the terminal for its background; with no answer the dark theme reads on black and on white", async () => {
    const { term } = await screen(100, 30, { before: conversation });
    await term.waitFor("one too high");
    expect(term.rawOutput()).toContain(BACKGROUND_QUERY);
    // highlighted code too, once the highlighter is in
    await term.waitFor(() => usesIndex(term, 98));
    expect(usesIndex(term, 243)).toBe(true);
    expect(unreadable(term, "dark")).toEqual([]);
    expect(unreadable(term, "light")).toEqual([]);
  });

  it("takes the light theme when the terminal answers with a light background; the answer never reaches the prompt", async () => {
    const { term } = await screen(100, 30, { before: conversation });
    await term.waitFor("one too high");
    term.send("\x1b]11;rgb:ffff/ffff/ffff\x1b\\");
    await term.waitFor(() => usesIndex(term, 242) && !usesIndex(term, 243));
    expect(unreadable(term, "light")).toEqual([]);
    // the prompt still shows its placeholder: nothing was typed
    expect(term.line(28)).toMatch(/^› Type a request/);
    expect(term.screenText()).not.toContain("rgb:");
  });

  it("an answer cut in two still counts; a dark answer keeps the dark theme", async () => {
    const { term } = await screen(80, 24);
    term.send("\x1b]11;rgb:1e1e/1e1e/1e1e");
    term.send("\x07");
    // the same frames as without an answer: nothing to repaint, nothing typed
    term.send("ok");
    await term.waitFor("› ok");
    expect(usesIndex(term, 243)).toBe(true);
    expect(term.screenText()).not.toContain("rgb:");
  });

  it('"theme": "light" in the config is taken over what the terminal says', async () => {
    const { term } = await screen(100, 30, { theme: "light", before: conversation });
    await term.waitFor("one too high");
    await term.waitFor(() => usesIndex(term, 242));
    expect(usesIndex(term, 243)).toBe(false);
    expect(unreadable(term, "light")).toEqual([]);
    // a dark answer does not override the config
    term.send("\x1b]11;rgb:0000/0000/0000\x07");
    term.send("x");
    await term.waitFor("› x");
    expect(usesIndex(term, 243)).toBe(false);
  });

  it("COLORFGBG says light before any answer", async () => {
    const saved = process.env.COLORFGBG;
    process.env.COLORFGBG = "0;15";
    try {
      const { term } = await screen(100, 30, { before: conversation });
      await term.waitFor("one too high");
      await term.waitFor(() => usesIndex(term, 242));
      expect(unreadable(term, "light")).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.COLORFGBG;
      else process.env.COLORFGBG = saved;
    }
  });

  it("on an 8-colour terminal (TERM=xterm) the screen reads on black and on white, and code is not red", async () => {
    const { term } = await screen(100, 30, { termName: "xterm", before: conversation });
    await term.waitFor("one too high");
    expect(unreadable(term, "dark")).toEqual([]);
    expect(unreadable(term, "light")).toEqual([]);
    const cells = readCells(term.xterm);
    const y = term.screenText().split("\n").findIndex((l) => l.includes("total() starts its sum"));
    const code = cells[y]!.find((c) => c.ch === "t")!;
    expect([code.fg, code.bg]).not.toContain(1);
  });
});
