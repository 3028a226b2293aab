// Where a session is open, as the lists show it, through the built CLI in real ptys and a
// strict fake provider: a second screen's /sessions picker marks the session another screen
// has open "open elsewhere"; once that screen's terminal hangs up mid-turn and the turn goes
// on ("hangup": "continue", the default), the picker and `albedo-tui sessions` say "running
// (detached)" (the CLI with its pid) until the turn ends and the process exits; then no mark.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-test-open-marks-6161";
let fake: FakeProvider;
let home: Home;
const running: PtySession[] = [];

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
});
beforeEach(async () => {
  fake = await startFakeProvider({ key: KEY });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
});
afterEach(async () => {
  for (const s of running.splice(0)) s.kill();
  await fake.close();
});

function tui(args: string[] = []): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase, ...args], {
    cols: 110,
    rows: 30,
    cwd: home.workspace,
    env: { ...home.env, TERM: "xterm-256color" },
  });
  running.push(s);
  return s;
}

async function until(ok: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** the /sessions picker's row of the session whose id starts with `id8` */
async function pickerRow(s: PtySession, id8: string): Promise<string> {
  s.send("/sessions");
  await s.waitFor("/sessions");
  s.send(KEYS.enter);
  await s.waitFor(/Sessions \(\d+\)/, 20_000);
  await s.waitFor(id8);
  const row = s.screenText().split("\n").find((l) => l.includes(id8))!;
  // keys reach the picker once it shows its choices (before, they go to the prompt)
  await s.waitFor("Esc cancel");
  s.send(KEYS.escape);
  await s.waitForGone(/Sessions \(\d+\)/);
  return row;
}

describe("the session lists mark where a session is open", () => {
  it("open elsewhere while another screen has it; running (detached) while its turn outlives its terminal; nothing once it ends", async () => {
    // the first answer asks for a command; once the terminal is gone it is answered no, and the
    // second answer streams slowly: the turn runs detached for a few seconds
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo never > ran.txt" } }] }, { text: `${words} DETACHED-DONE`, wordsPerEvent: 1, delayMs: 100 });
    const a = tui(["--sandbox", "off"]);
    await a.waitFor("Type a request", 20_000);
    a.send("do the thing");
    await a.waitFor("do the thing");
    a.send(KEYS.enter);
    await a.waitFor("Permission needed", 20_000);
    // the prompt stored the session: it is listed
    const id8 = (JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string }[])[0]!.id.slice(0, 8);

    const b = tui();
    await b.waitFor("Type a request", 20_000);
    expect(await pickerRow(b, id8)).toContain("open elsewhere");
    const listed = await runCli(["sessions"], home);
    expect(listed.stdout).toContain(`open elsewhere (pid ${a.pid})`);

    a.kill("SIGHUP");
    await until(async () => (await runCli(["sessions"], home)).stdout.includes(`running (detached, pid ${a.pid})`), "detached mark in albedo-tui sessions");
    expect(await pickerRow(b, id8)).toContain("running (detached)");
    const json = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string; open?: { pid: number; detached: boolean } }[];
    expect(json.find((x) => x.id.startsWith(id8))?.open).toEqual({ pid: a.pid, detached: true });

    expect((await a.exited()).exitCode).toBe(129);
    expect(fake.requests).toHaveLength(2);
    const after = await runCli(["sessions"], home);
    expect(after.stdout).toContain(id8);
    expect(after.stdout).not.toMatch(/running \(detached|open elsewhere/);
    expect(await pickerRow(b, id8)).not.toMatch(/running|elsewhere/);
    expect(fs.readdirSync(`${home.db}-open`)).toEqual([expect.stringMatching(/\.draft\.json$/)]);
  }, 120_000);
});
