// No tool process outlives the agent: a real albedo-tui (headless, and the screen in a pty) runs
// a bash command that leaves one process of each background form (`&`, nohup, setsid, disown),
// then ends by SIGINT, SIGTERM, SIGHUP, or normally (the turn ends, then the program). Every
// process the command started carries a marker in its environment; /proc is scanned for it
// before the end (tried) and after the program has exited (left).
import { afterAll, afterEach, expect } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider, type Step } from "../helpers/fake-provider.js";
import { CLI, makeHome, startCli, waitUntil, type Home } from "../helpers/cli.js";
import { spawnPty, KEYS } from "../helpers/pty.js";
import { BACKGROUND_FORMS, backgroundForms, cmdline, killMarked, markedPids, newMark} from "../helpers/procs.js";
import { anthropicArgs, removeHomes, Tally, writeFigures } from "./lib.js";

const KEY = "sk-ant-reliability-PROCS-7c31";
const tally = new Tally();
const homes: Home[] = [];
const marks: string[] = [];
/** background processes started (exit paths × background forms) */
let tried = 0;
/** every marked process seen running before the end (the foreground sleep of a signalled run too) */
let seen = 0;
let left = 0;
const leftNamed: string[] = [];
const runs: string[] = [];

afterEach(() => {
  for (const m of marks.splice(0)) killMarked(m);
});
afterAll(async () => {
  // tried/left count processes; cases/held/failed count the exit paths (Tally's figures)
  const cases = tally.figures();
  await writeFigures("processes", { tried, left, seen, cases: cases.tried, held: cases.held, failed: cases.failed, paths: runs, leftProcesses: leftNamed });
  await removeHomes(homes);
});

/** a marker for the processes of one case */
function mark(): string {
  const m = newMark("rel");
  marks.push(m);
  return m;
}

async function setup(steps: Step[]): Promise<{ fake: FakeProvider; home: Home }> {
  const fake = await startFakeProvider({ key: KEY });
  fake.script(...steps);
  const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  homes.push(home);
  return { fake, home };
}

/** waits until the command's processes are all up; tried counts its background forms */
async function countStarted(m: string, expected: number): Promise<void> {
  await waitUntil(() => markedPids(m).length >= expected, 20_000, `${expected} marked processes`);
  tried += BACKGROUND_FORMS;
  seen += markedPids(m).length;
}

/** what is left once the program has ended (given a moment: a SIGKILLed process ends asynchronously) */
async function countLeft(m: string): Promise<number> {
  await waitUntil(() => markedPids(m).length === 0, 10_000, "no marked process").catch(() => undefined);
  const pids = markedPids(m);
  left += pids.length;
  leftNamed.push(...pids.map((p) => `${p}: ${cmdline(p)}`));
  return pids.length;
}

const EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  tally.it(
    `headless, ${sig} while the command runs`,
    async () => {
      const m = mark();
      const { fake, home } = await setup([{ toolCalls: [{ name: "bash", input: { command: backgroundForms(m) } }] }]);
      try {
        const run = startCli(["-p", "go", "--permission", "auto", "--sandbox", "off", ...anthropicArgs(fake)], home);
        await countStarted(m, BACKGROUND_FORMS + 1);
        run.child.kill(sig);
        const r = await run.done;
        runs.push(`headless ${sig}`);
        expect(r.code, r.stderr).toBe(EXIT[sig]);
        expect(await countLeft(m)).toBe(0);
      } finally {
        await fake.close();
      }
    },
    60_000,
  );
}

/** round 1 leaves the background forms; round 2 holds the turn open until `go` exists */
function leaveThenWait(m: string, go: string): Step[] {
  return [
    { toolCalls: [{ name: "bash", input: { command: backgroundForms(m, false) } }] },
    { toolCalls: [{ name: "bash", input: { command: `while [ ! -e '${go}' ]; do sleep 0.05; done` } }] },
    { text: "all done" },
  ];
}

tally.it(
  "headless, normal end: the turn ends, then the program",
  async () => {
    const m = mark();
    const { fake, home } = await setup([]);
    const go = path.join(home.root, "go");
    fake.script(...leaveThenWait(m, go));
    try {
      const run = startCli(["-p", "go", "--permission", "auto", "--sandbox", "off", ...anthropicArgs(fake)], home);
      await countStarted(m, BACKGROUND_FORMS);
      await fs.writeFile(go, "");
      const r = await run.done;
      runs.push("headless normal end");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe("all done\n");
      expect(await countLeft(m)).toBe(0);
    } finally {
      await fake.close();
    }
  },
  60_000,
);

tally.it(
  "screen, SIGHUP while the command runs: the turn goes on detached, then the program ends",
  async () => {
    const m = mark();
    const { fake, home } = await setup([]);
    const go = path.join(home.root, "go");
    fake.script(...leaveThenWait(m, go));
    const t = spawnPty(process.execPath, [CLI, "--permission", "auto", "--sandbox", "off", ...anthropicArgs(fake)], {
      cols: 100,
      rows: 30,
      cwd: home.workspace,
      env: { ...home.env, TERM: "xterm-256color" },
    });
    try {
      await t.waitFor("Type a request", 20_000);
      t.send("go");
      await t.waitFor("go");
      t.send(KEYS.enter);
      await countStarted(m, BACKGROUND_FORMS);
      // the terminal is gone; the turn (held by its second command) must still be running
      t.kill("SIGHUP");
      await waitUntil(() => fake.requests.length >= 2, 20_000, "the turn's second round after the hang-up");
      await fs.writeFile(go, "");
      const r = await t.exited();
      runs.push("screen SIGHUP");
      expect(r.exitCode).toBe(EXIT.SIGHUP);
      expect(await countLeft(m)).toBe(0);
    } finally {
      t.kill("SIGKILL");
      await fake.close();
    }
  },
  60_000,
);

for (const sig of ["SIGTERM"] as const) {
  tally.it(
    `screen, ${sig} while the command runs`,
    async () => {
      const m = mark();
      const { fake, home } = await setup([{ toolCalls: [{ name: "bash", input: { command: backgroundForms(m) } }] }]);
      const t = spawnPty(process.execPath, [CLI, "--permission", "auto", "--sandbox", "off", ...anthropicArgs(fake)], {
        cols: 100,
        rows: 30,
        cwd: home.workspace,
        env: { ...home.env, TERM: "xterm-256color" },
      });
      try {
        await t.waitFor("Type a request", 20_000);
        t.send("go");
        await t.waitFor("go");
        t.send(KEYS.enter);
        await countStarted(m, BACKGROUND_FORMS + 1);
        t.kill(sig);
        const r = await t.exited();
        runs.push(`screen ${sig}`);
        expect(r.exitCode).toBe(EXIT[sig]);
        expect(await countLeft(m)).toBe(0);
      } finally {
        t.kill("SIGKILL");
        await fake.close();
      }
    },
    60_000,
  );
}

tally.it(
  "screen, normal end: the turn ends (its background work with it), then a quit",
  async () => {
    const m = mark();
    const { fake, home } = await setup([]);
    const go = path.join(home.root, "go");
    fake.script(...leaveThenWait(m, go));
    const t = spawnPty(process.execPath, [CLI, "--permission", "auto", "--sandbox", "off", ...anthropicArgs(fake)], {
      cols: 100,
      rows: 30,
      cwd: home.workspace,
      env: { ...home.env, TERM: "xterm-256color" },
    });
    try {
      await t.waitFor("Type a request", 20_000);
      t.send("go");
      await t.waitFor("go");
      t.send(KEYS.enter);
      await countStarted(m, BACKGROUND_FORMS);
      await fs.writeFile(go, "");
      await t.waitFor("all done", 20_000);
      // the turn is over and the screen still open: its background work is already gone
      await waitUntil(() => markedPids(m).length === 0, 10_000, "the turn's end to stop its background work").catch(() => undefined);
      expect(markedPids(m).map(cmdline)).toEqual([]);
      t.send(KEYS.ctrl("c"));
      await t.waitFor("again to quit");
      t.send(KEYS.ctrl("c"));
      const r = await t.exited();
      runs.push("screen normal end");
      expect(r.exitCode).toBe(0);
      expect(await countLeft(m)).toBe(0);
    } finally {
      t.kill("SIGKILL");
      await fake.close();
    }
  },
  60_000,
);
