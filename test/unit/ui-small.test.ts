// Small windows, in-process (src/ui into a headless xterm): the context pane leaves its page
// room at 60×20 and 80×24, and a box's choices all show at 40 columns.
import { afterEach, describe, expect, it } from "vitest";
import { startTui, type Tui } from "../../src/ui/app.js";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { choiceRows, sessionsBox } from "../../src/ui/modal.js";
import { lineText } from "../../src/ui/style.js";
import type { InspectorView, Page } from "../../src/context/types.js";
import type { Session } from "../../src/record/types.js";
import { KEYS } from "../helpers/pty.js";
import { asController, HeadlessTerminal, ScriptedController } from "../helpers/screen.js";

const open: Tui[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function screen(cols: number, rows: number, before?: (c: ScriptedController) => void): Promise<{ term: HeadlessTerminal; c: ScriptedController }> {
  const term = new HeadlessTerminal(cols, rows);
  const tui = startTui({ noColor: false, terminal: term.terminal() });
  open.push(tui);
  const c = new ScriptedController();
  before?.(c);
  void tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [] });
  await term.waitFor(/Type a request|Esc interrupts/);
  return { term, c };
}

const LONG = Array.from({ length: 300 }, (_, i) => `page line ${i + 1}`).join("\n");
const view: Extract<InspectorView, { state: "current" }> = {
  state: "current",
  meta: { provider: "anthropic", model: "claude-sonnet-4-5", capturedAt: "2026-11-30T10:00:00.000Z", iteration: 3, totalBytes: 48_211, contextWindow: 200_000, providerUsage: { inputTokens: 11_800, outputTokens: 420 } },
  sections: [
    { index: 0, kind: "system", source: "system", items: 1, bytes: 4000, estimate: { tokens: 1000, method: "chars/4" }, preview: "", chars: 4000, pages: 1, deltaBytes: null },
    { index: 1, kind: "context", source: "AGENTS.md", items: 1, bytes: 900, estimate: { tokens: 225, method: "chars/4" }, preview: "", chars: 900, pages: 1, deltaBytes: null },
    { index: 2, kind: "history", source: "history", items: 24, bytes: 38_000, estimate: { tokens: 9500, method: "chars/4" }, preview: "", chars: 38_000, pages: 5, deltaBytes: 1200 },
    { index: 3, kind: "tools", source: "tools", items: 7, bytes: 5311, estimate: { tokens: 1328, method: "chars/4" }, preview: "", chars: 5311, pages: 1, deltaBytes: null },
  ],
};

function withCapture(c: ScriptedController): void {
  c.inspectorView = (async () => view) as unknown as ScriptedController["inspectorView"];
  c.inspectorPage = (async (s: number, p: number): Promise<Page> => ({ section: s, page: p, pages: view.sections[s]!.pages, text: LONG })) as unknown as ScriptedController["inspectorPage"];
}

const pageRows = (term: HeadlessTerminal): number[] =>
  term
    .screenText()
    .split("\n")
    .map((l) => /^page line (\d+)$/.exec(l.trimEnd())?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);

describe("small windows", () => {
  it("at 60×20 the pane shows its page, half the pane or more, and PgDn moves through it", async () => {
    const { term } = await screen(60, 20, withCapture);
    term.send(KEYS.ctrl("o"));
    await term.waitFor("page line 1");
    const first = pageRows(term);
    // the pane is the 17 rows above the hint, prompt and status lines; its footer takes one
    expect(first.length).toBeGreaterThanOrEqual(8);
    expect(first[0]).toBe(1);
    term.send(KEYS.pageDown);
    await term.waitFor(() => (pageRows(term)[0] ?? 0) > 1);
    expect(pageRows(term).length).toBe(first.length);
  });

  it("at 80×24 the page gets half the pane or more and the section table stays", async () => {
    const { term } = await screen(80, 24, withCapture);
    term.send(KEYS.ctrl("o"));
    await term.waitFor("page line 1");
    expect(pageRows(term).length).toBeGreaterThanOrEqual(10);
    for (const name of ["system", "AGENTS.md", "history", "tools"]) expect(term.screenText()).toContain(name);
  });

  it("at 40 columns every permission choice is on screen", async () => {
    const { term, c } = await screen(40, 20);
    c.emit({ type: "state", state: "permission", detail: "bash" });
    c.emit({ type: "permission", req: { tool: "bash", kind: "exec", input: { command: "npm test" }, summary: "bash: npm test" }, answer: () => undefined });
    await term.waitFor("Permission needed");
    // the choices come once the box has been seen a moment (type-ahead never answers it)
    await term.waitFor("n deny", 5000);
    const s = term.screenText();
    expect(s).toContain("y allow once");
    expect(s).toContain("a allow for this session");
    // none is cut at the box's edge
    for (const l of s.split("\n")) expect(l).not.toMatch(/allow for th…|allow on…|n den…/);
  });
});

describe("choices laid out in rows", () => {
  const choices = [
    [{ t: "y", s: "key" as const }, { t: " allow once" }],
    [{ t: "a", s: "key" as const }, { t: " allow for this session" }],
    [{ t: "n", s: "key" as const }, { t: " deny" }],
  ];
  it("stay on one row when they fit, wrap whole when they do not, and are never cut", () => {
    expect(choiceRows(choices, 80).map(lineText)).toEqual(["y allow once   a allow for this session   n deny"]);
    expect(choiceRows(choices, 34).map(lineText)).toEqual(["y allow once", "a allow for this session   n deny"]);
    expect(choiceRows(choices, 20).map(lineText)).toEqual(["y allow once", "a allow for this", "session", "n deny"]);
  });

  it("the session picker's choices wrap at 40 columns and its list keeps the selected row", () => {
    const sessions: Session[] = Array.from({ length: 12 }, (_, i) => ({ id: `${String(i).padStart(2, "0")}e55i0n-0000-4000-8000-000000000000`, title: `session ${i}`, workspace: "/w", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" }));
    const box = sessionsBox(sessions, sessions[0]!.id, 11, 40, 12, { move: "↑/↓", choose: "Enter", close: "Esc" });
    const text = box.lines.map(lineText).join("\n");
    for (const c of ["↑/↓ choose", "Enter switch", "Esc cancel"]) expect(text).toContain(c);
    // the selected (last) session is the list's last row, in inverse video
    const selected = box.lines.find((l) => lineText(l).includes("11e55i0n"));
    expect(selected?.some((sg) => sg.inv)).toBe(true);
    expect(box.lines).toHaveLength(10);
    for (const l of box.lines) expect(lineText(l).length).toBe(38);
  });
});
