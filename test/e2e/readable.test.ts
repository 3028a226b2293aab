// Readable everywhere, on the real program: the built CLI in a pseudo-terminal, its output read
// by a headless xterm, talking to the strict fake provider on 127.0.0.1. The colours are read
// cell by cell from everything the program wrote (replayed into a fresh xterm) and judged as
// xterm shows them on its default dark (gray90 on black) and light (black on white) backgrounds.
import { describe, expect, it } from "vitest";
import fsp from "node:fs/promises";
import path from "node:path";
import { BACKGROUND_QUERY, type Background } from "../../src/ui/background.js";
import { CLI } from "../helpers/cli.js";
import { cellContrast, isDecoration, readCells, type Cell } from "../helpers/cells.js";
import { headlessTerminal, KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { ptyFrame } from "../helpers/pty-frame.js";

const KEY = "sk-test-readable-e2e-7070";
// a fresh home and fake per test; ptys killed after it
const e2e = ptyFrame(KEY);

function tui(opts: { cols?: number; rows?: number; env?: NodeJS.ProcessEnv; args?: string[] } = {}): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", e2e.fake.anthropicBase, ...(opts.args ?? [])], {
    cols: opts.cols ?? 100,
    rows: opts.rows ?? 30,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color", ...opts.env },
  });
  e2e.running.push(s);
  return s;
}

async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 30));
  s.send(KEYS.enter);
}

/** the screen's cells: everything the program wrote, replayed into a fresh xterm of its size */
async function cells(s: PtySession): Promise<Cell[][]> {
  const x = headlessTerminal(s.cols, s.rows);
  await new Promise<void>((r) => x.write(s.rawOutput(), r));
  return readCells(x);
}

async function unreadable(s: PtySession, on: Background): Promise<string[]> {
  const out: string[] = [];
  (await cells(s)).forEach((row, y) =>
    row.forEach((c, x) => {
      if (c.ch === " ") return;
      const r = cellContrast(c, on);
      if (r < (isDecoration(c.ch) ? 3 : 4.5)) out.push(`${x},${y} "${c.ch}" ${r.toFixed(2)} (fg ${c.fg}, bg ${c.bg})`);
    }),
  );
  return out;
}

async function foregrounds(s: PtySession): Promise<Set<Cell["fg"]>> {
  return new Set((await cells(s)).flat().filter((c) => c.ch !== " ").map((c) => c.fg));
}

const ANSWER = "`total()` starts at **1**, so *every* invoice is ***one too high***:\n\n> the test expects 13\n\n```js\nreturn lines.reduce((s, l) => s + l.price * l.qty, 1);\n```";

describe("colours on the terminal's background", () => {
  it("a terminal that answers OSC 11 with white gets the light theme, readable on white, and nothing is typed", async () => {
    e2e.fake.script({ text: ANSWER });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    expect(s.rawOutput()).toContain(BACKGROUND_QUERY);
    await ask(s, "why does it fail");
    await s.waitFor("one too high");
    await s.waitFor(/^ idle · /m);
    s.send("\x1b]11;rgb:ffff/ffff/ffff\x1b\\");
    await s.settle(300);
    const fg = await foregrounds(s);
    expect(fg.has(242)).toBe(true); // the light theme's grey
    expect(fg.has(243)).toBe(false);
    expect(await unreadable(s, "light")).toEqual([]);
    expect(s.screenText()).not.toContain("rgb:");
    expect(s.line(s.rows - 2)).toMatch(/^› Type a request/);
  });

  it("with no answer, the dark theme reads on black and on white", async () => {
    e2e.fake.script({ text: ANSWER });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await ask(s, "why does it fail");
    await s.waitFor("one too high");
    await s.waitFor(/^ idle · /m);
    await s.settle(300);
    expect((await foregrounds(s)).has(243)).toBe(true);
    expect(await unreadable(s, "dark")).toEqual([]);
    expect(await unreadable(s, "light")).toEqual([]);
  });

  it("on an 8-colour terminal (TERM=xterm) with no answer, it reads on black and on white and code is not red", async () => {
    e2e.fake.script({ text: ANSWER });
    const s = tui({ env: { TERM: "xterm" } });
    await s.waitFor("Type a request", 20_000);
    await ask(s, "why does it fail");
    await s.waitFor("one too high");
    await s.waitFor(/^ idle · /m);
    await s.settle(300);
    expect(await unreadable(s, "dark")).toEqual([]);
    expect(await unreadable(s, "light")).toEqual([]);
    const grid = await cells(s);
    const y = s.screenText().split("\n").findIndex((l) => l.includes("total() starts at"));
    const code = grid[y]!.find((c) => c.ch === "t")!;
    expect([code.fg, code.bg]).not.toContain(1);
  });

  it('"theme": "light" in the config file gives the light theme without asking anything of the terminal', async () => {
    await fsp.mkdir(path.join(e2e.home.root, "config", "albedo"), { recursive: true });
    await fsp.writeFile(path.join(e2e.home.root, "config", "albedo", "config.json"), JSON.stringify({ theme: "light" }));
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await s.settle(300);
    expect((await foregrounds(s)).has(242)).toBe(true);
    expect(await unreadable(s, "light")).toEqual([]);
  });

  it('a bad "theme" is named', async () => {
    await fsp.mkdir(path.join(e2e.home.root, "config", "albedo"), { recursive: true });
    await fsp.writeFile(path.join(e2e.home.root, "config", "albedo", "config.json"), JSON.stringify({ theme: "solarized" }));
    const s = tui();
    const e = await s.exited();
    expect(e.exitCode).not.toBe(0);
    // the message as printed, unwrapped from the terminal's rows
    expect(s.screenText().replace(/\n/g, "")).toMatch(/field "theme": .*"dark"\|"light"\|"auto"/);
  });
});

describe("small windows", () => {
  it("at 60×20 the context pane shows the request's text", async () => {
    e2e.fake.script({ text: "Done." });
    const s = tui({ cols: 60, rows: 20 });
    await s.waitFor("Type a request", 20_000);
    await ask(s, "hello");
    await s.waitFor("Done.");
    await s.waitFor(/^ idle · /m);
    s.send(KEYS.ctrl("o"));
    await s.waitFor("page 1 of 1");
    // the system prompt, the first section's page, in its first lines
    await s.waitFor("You are albedo, a coding agent");
    const rows = s.screenText().split("\n");
    const from = rows.findIndex((l) => l.includes("page 1 of 1"));
    const to = rows.findIndex((l) => l.includes("close ·"));
    expect(to - from - 1).toBeGreaterThanOrEqual(8);
  });

  it("at 40 columns the permission box shows every choice", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "echo hi" } }] }, { text: "ok" });
    const s = tui({ cols: 40, rows: 20, args: ["--permission", "ask", "--sandbox", "off"] });
    await s.waitFor("Type a request", 20_000);
    await ask(s, "run it");
    await s.waitFor("Permission needed");
    await s.waitFor("n deny");
    const text = s.screenText();
    expect(text).toContain("y allow once");
    expect(text).toContain("a allow for this session");
    s.send("n");
    await s.waitFor("ok");
  });
});
