// Writes the captures in docs/screens/ from the real program: the built albedo-tui runs in a
// pseudo-terminal at 100x30 against the fake provider on 127.0.0.1, doing a small real task (a
// failing test, a one-character fix), and the screen is read back from @xterm/headless the way
// the end-to-end tests read it. What is committed is what a person would have seen.
//
//   npm run build && node --import tsx scripts/screens.ts
//
// The task runs three times: on a terminal that answers the background query (OSC 11) with
// black, one that answers with white, and an 8-colour one (TERM=xterm) that does not answer.
// Each screen is saved as text (NAME.txt) and with its colours (NAME.ansi: SGR codes with
// palette indices, `cat` shows it); colours.json lists the .ansi files with the theme they were
// drawn in, and test/unit/ui-contrast.test.ts checks every cell of them for contrast.
//
// Tool durations and the capture clock in the context pane are real, so a rerun differs there.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CLI, makeHome } from "../test/helpers/cli.js";
import { startFakeProvider } from "../test/helpers/fake-provider.js";
import { KEYS, headlessTerminal, spawnPty, type PtySession } from "../test/helpers/pty.js";
import { readCells, toAnsi, type Cell } from "../test/helpers/cells.js";
import { BACKGROUND_QUERY, type Background } from "../src/ui/background.js";

const COLS = 100;
const ROWS = 30;
const KEY = "sk-ant-screens-fake-0001";
const OUT = path.resolve(import.meta.dirname, "../docs/screens");
// a fixed folder name, because the welcome line shows the workspace path
const WORKSPACE = path.join(os.tmpdir(), "albedo-screens", "invoice-app");
const WAIT = 20_000;

const TOTAL_JS = `// The amount due for an invoice: price times quantity, summed over its lines.
export function total(lines) {
  return lines.reduce((sum, line) => sum + line.price * line.qty, 1);
}
`;

const TEST_JS = `import { test } from "node:test";
import assert from "node:assert/strict";
import { total } from "../src/total.js";

test("total adds price × qty over the lines", () => {
  assert.equal(total([{ price: 5, qty: 2 }, { price: 3, qty: 1 }]), 13);
});

test("an empty invoice costs nothing", () => {
  assert.equal(total([]), 0);
});
`;

const ANSWER = `## Why the test fails

\`total()\` starts its sum at **1** instead of 0, so every invoice is one too high:

\`\`\`js
return lines.reduce((sum, line) => sum + line.price * line.qty, 1);
\`\`\`

- \`total([])\` returns *1*, not 0
- the two-line invoice comes to 14, not 13

The fix is the initial value of \`reduce\`: \`0\`.`;

interface Run {
  /** added to each capture's name: "" for the dark run */
  suffix: string;
  term: string;
  /** what the terminal answers to OSC 11; undefined: it does not answer */
  answer?: Background;
  /** the theme the screen should then be in */
  theme: Background;
  /** which captures this run writes */
  only?: string[];
}

const RUNS: Run[] = [
  { suffix: "", term: "xterm-256color", answer: "dark", theme: "dark" },
  { suffix: "-light", term: "xterm-256color", answer: "light", theme: "light" },
  { suffix: "-8colour", term: "xterm", theme: "dark", only: ["main"] },
];

interface Capture {
  file: string;
  text: string;
  term: string;
  answered: Background | null;
  theme: Background;
}

async function main(): Promise<void> {
  await fs.access(CLI).catch(() => {
    throw new Error(`${CLI} is missing: run npm run build first`);
  });
  const captures: Capture[] = [];
  for (const run of RUNS) captures.push(...(await task(run)));
  await fs.writeFile(
    path.join(OUT, "colours.json"),
    JSON.stringify({ note: "written by scripts/screens.ts; checked by test/unit/ui-contrast.test.ts", captures }, null, 2) + "\n",
  );
  console.log(`wrote ${path.relative(process.cwd(), path.join(OUT, "colours.json"))}`);
}

/** answers the background query as a terminal of that background would, once it is asked */
function answerBackground(t: PtySession, bg: Background): () => void {
  const colour = bg === "dark" ? "0000/0000/0000" : "ffff/ffff/ffff";
  const timer = setInterval(() => {
    if (!t.rawOutput().includes(BACKGROUND_QUERY)) return;
    clearInterval(timer);
    t.send(`\x1b]11;rgb:${colour}\x1b\\`);
  }, 10);
  return () => clearInterval(timer);
}

async function task(run: Run): Promise<Capture[]> {
  const written: Capture[] = [];
  const save = async (name: string, t: PtySession): Promise<void> => {
    if (run.only && !run.only.includes(name)) return;
    const file = `${name}${run.suffix}`;
    await saveText(`${file}.txt`, t);
    const cells = await saveColours(`${file}.ansi`, t);
    // the screen is in the theme this run is for: its greys tell (243 dark, 242 light, none in 8 colours)
    const fgs = new Set(cells.flat().map((c) => c.fg));
    const grey = run.term === "xterm" ? undefined : run.theme === "dark" ? 243 : 242;
    const other = run.theme === "dark" ? 242 : 243;
    if ((grey !== undefined && !fgs.has(grey)) || fgs.has(other) || (run.term === "xterm" && [...fgs].some((f) => f !== "default" && f >= 8))) {
      throw new Error(`${file}: not drawn in the ${run.theme} theme for ${run.term} (foregrounds ${[...fgs].join(", ")})`);
    }
    written.push({ file: `${file}.ansi`, text: `${file}.txt`, term: run.term, answered: run.answer ?? null, theme: run.theme });
  };
  await fs.rm(path.dirname(WORKSPACE), { recursive: true, force: true });
  await fs.mkdir(path.join(WORKSPACE, "src"), { recursive: true });
  await fs.mkdir(path.join(WORKSPACE, "test"), { recursive: true });
  await fs.writeFile(path.join(WORKSPACE, "package.json"), `{ "name": "invoice-app", "type": "module", "private": true }\n`);
  await fs.writeFile(path.join(WORKSPACE, "src", "total.js"), TOTAL_JS);
  await fs.writeFile(path.join(WORKSPACE, "test", "total.test.js"), TEST_JS);

  const fake = await startFakeProvider({ key: KEY });
  const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  // auto: no permission box or "allowed once" notice over the captures; the tools really run
  const args = [CLI, "--provider", "anthropic", "--base-url", fake.anthropicBase, "--model", "claude-sonnet-4-6", "--permission", "auto"];
  const t = spawnPty(process.execPath, args, { cols: COLS, rows: ROWS, cwd: WORKSPACE, env: { ...home.env, TERM: run.term } });
  const stopAnswering = run.answer ? answerBackground(t, run.answer) : () => undefined;
  try {
    await t.waitFor("Type a request", WAIT);

    // turn 1: run the tests (they fail), then explain in markdown
    fake.script(
      { text: "Let me run the tests first.", toolCalls: [{ name: "bash", input: { command: "node --test test/" } }] },
      { text: ANSWER, delayMs: 5 },
    );
    await ask(t, "Why does the invoice total test fail?");
    await t.waitFor("The fix is the initial value", WAIT);
    await idle(t);
    await save("main", t);

    // turn 2: the edit, and the tests again
    fake.script(
      { toolCalls: [{ name: "edit", input: { path: "src/total.js", old_string: "line.qty, 1);", new_string: "line.qty, 0);" } }] },
      { toolCalls: [{ name: "bash", input: { command: "node --test test/ 2>&1 | grep -E '^# (pass|fail)'" } }] },
      { text: "Fixed: the sum now starts at **0**, and both tests pass." },
    );
    await ask(t, "Fix it and run the tests again.");
    await t.waitFor("both tests pass.", WAIT);
    await idle(t);
    const file = await fs.readFile(path.join(WORKSPACE, "src", "total.js"), "utf8");
    if (!file.includes("line.qty, 0);")) throw new Error("the edit did not reach src/total.js");

    // the edit expanded: Shift-Tab selects the last tool call (the test run), Up the edit
    t.send(KEYS.shiftTab);
    await t.waitFor("transcript:", WAIT);
    t.send(KEYS.up);
    await t.settle();
    t.send(KEYS.enter);
    await t.waitFor(/^ {2}▾ edit /m, WAIT);
    await t.waitFor("+  return lines.reduce((sum, line) => sum + line.price * line.qty, 0);", WAIT);
    await t.settle(300);
    await save("tool-expanded", t);
    t.send(KEYS.enter);
    await t.waitFor(/^ {2}▸ edit /m, WAIT);
    t.send(KEYS.escape);
    await t.waitFor("› Type a request", WAIT);

    // the context pane: what the last request sent, section by section
    t.send(KEYS.ctrl("o"));
    await t.waitFor("Context · what the last request sent", WAIT);
    await t.waitFor(/^\d+\s+tools\s+\d/m, WAIT);
    await t.settle(300);
    await save("context-pane", t);
    t.send(KEYS.ctrl("o"));
    await t.waitForGone("Context · what the last request sent", WAIT);

    t.send(KEYS.ctrl("d"));
    const exit = await t.exited();
    if (exit.exitCode !== 0) throw new Error(`albedo-tui exited with ${exit.exitCode}`);
    const rejected = fake.rejections();
    if (rejected.length) throw new Error(`the fake provider rejected requests: ${rejected.join("; ")}`);
  } finally {
    stopAnswering();
    t.kill("SIGKILL");
    await fake.close();
    await fs.rm(path.dirname(WORKSPACE), { recursive: true, force: true });
    await fs.rm(home.root, { recursive: true, force: true });
  }
  return written;
}

async function ask(t: PtySession, text: string): Promise<void> {
  t.send(text);
  await t.waitFor(`› ${text}`, WAIT);
  t.send(KEYS.enter);
  // sent once the prompt row (above the status line) no longer holds it
  const end = Date.now() + WAIT;
  while (t.line(t.rows - 2).includes(text)) {
    if (Date.now() > end) throw new Error(`the prompt was not sent. Screen:\n${t.screenText()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function idle(t: PtySession): Promise<void> {
  await t.waitFor(/^ idle · /m, WAIT);
  await t.settle(300);
}

async function saveText(name: string, t: PtySession): Promise<void> {
  const text = t
    .screenText()
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n");
  await fs.mkdir(OUT, { recursive: true });
  await fs.writeFile(path.join(OUT, name), `${text}\n`);
  console.log(`wrote ${path.relative(process.cwd(), path.join(OUT, name))}`);
}

/** the same screen with its colours: everything the program wrote, replayed into a fresh xterm */
async function saveColours(name: string, t: PtySession): Promise<Cell[][]> {
  const x = headlessTerminal(COLS, ROWS);
  await new Promise<void>((resolve) => x.write(t.rawOutput(), resolve));
  const cells = readCells(x);
  await fs.writeFile(path.join(OUT, name), `${toAnsi(cells)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), path.join(OUT, name))}`);
  return cells;
}

main().catch((e: unknown) => {
  console.error(`screens: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
