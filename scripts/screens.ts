// Writes the text captures in docs/screens/ from the real program: the built albedo-tui runs in
// a pseudo-terminal at 100x30 against the fake provider on 127.0.0.1, doing a small real task
// (a failing test, a one-character fix), and the screen is read back from @xterm/headless the
// way the end-to-end tests read it. What is committed is what a person would have seen.
//
//   npm run build && node --import tsx scripts/screens.ts
//
// Tool durations and the capture clock in the context pane are real, so a rerun differs there.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CLI, makeHome } from "../test/helpers/cli.js";
import { startFakeProvider } from "../test/helpers/fake-provider.js";
import { KEYS, spawnPty, type PtySession } from "../test/helpers/pty.js";

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

async function main(): Promise<void> {
  await fs.access(CLI).catch(() => {
    throw new Error(`${CLI} is missing: run npm run build first`);
  });
  await fs.rm(path.dirname(WORKSPACE), { recursive: true, force: true });
  await fs.mkdir(path.join(WORKSPACE, "src"), { recursive: true });
  await fs.mkdir(path.join(WORKSPACE, "test"), { recursive: true });
  await fs.writeFile(path.join(WORKSPACE, "package.json"), `{ "name": "invoice-app", "type": "module", "private": true }\n`);
  await fs.writeFile(path.join(WORKSPACE, "src", "total.js"), TOTAL_JS);
  await fs.writeFile(path.join(WORKSPACE, "test", "total.test.js"), TEST_JS);

  const fake = await startFakeProvider({ key: KEY });
  const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  // auto: no permission box or "allowed once" notice over the captures; the tools really run
  const args = [CLI, "--provider", "anthropic", "--base-url", fake.anthropicBase, "--model", "claude-sonnet-4-5", "--permission", "auto"];
  const t = spawnPty(process.execPath, args, { cols: COLS, rows: ROWS, cwd: WORKSPACE, env: home.env });
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
    await save("main.txt", t);

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
    await save("tool-expanded.txt", t);
    t.send(KEYS.enter);
    await t.waitFor(/^ {2}▸ edit /m, WAIT);
    t.send(KEYS.escape);
    await t.waitFor("› Type a request", WAIT);

    // the context pane: what the last request sent, section by section
    t.send(KEYS.ctrl("o"));
    await t.waitFor("Context · what the last request sent", WAIT);
    await t.waitFor(/^\d+\s+tools\s+\d/m, WAIT);
    await t.settle(300);
    await save("context-pane.txt", t);
    t.send(KEYS.ctrl("o"));
    await t.waitForGone("Context · what the last request sent", WAIT);

    t.send(KEYS.ctrl("d"));
    const exit = await t.exited();
    if (exit.exitCode !== 0) throw new Error(`albedo-tui exited with ${exit.exitCode}`);
    const rejected = fake.rejections();
    if (rejected.length) throw new Error(`the fake provider rejected requests: ${rejected.join("; ")}`);
  } finally {
    t.kill("SIGKILL");
    await fake.close();
    await fs.rm(path.dirname(WORKSPACE), { recursive: true, force: true });
    await fs.rm(home.root, { recursive: true, force: true });
  }
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

async function save(name: string, t: PtySession): Promise<void> {
  const text = t
    .screenText()
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n");
  await fs.mkdir(OUT, { recursive: true });
  await fs.writeFile(path.join(OUT, name), `${text}\n`);
  console.log(`wrote ${path.relative(process.cwd(), path.join(OUT, name))}`);
}

main().catch((e: unknown) => {
  console.error(`screens: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
