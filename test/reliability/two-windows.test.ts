// The "two windows" trap: one session opened by a second process while a screen holds it
// (headless --continue and --resume, a second screen, an opener after the holder's kill -9).
// For each: the next turn works, no record is lost, and no request leaves out a turn the
// record holds (an interleaving: two writers on one record, each sending its own history).
import { afterAll, beforeAll, describe, expect } from "vitest";
import { openStore } from "../../src/session/store/store.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, waitUntil, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { anthropicArgs, removeHomes, Tally, textOf, writeFigures, writeTraps } from "./lib.js";

const KEY = "sk-ant-reliability-TWO-WINDOWS-7c1f";
const WAIT = 30_000;
const tally = new Tally();
const homes: Home[] = [];
const ptys: PtySession[] = [];
let fake: FakeProvider;
const figures = { nextTurnWorked: 0, recordsLost: 0, interleavings: 0 };

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  for (const p of ptys) p.kill("SIGKILL");
  await fake.close();
  await removeHomes(homes);
  await writeFigures("two-windows", { ...tally.figures(), ...figures });
  // its row in the traps table, in the same form as every other trap's
  const t = tally.figures();
  await writeTraps("two-windows", [
    {
      trap: "two windows",
      held: t.tried > 0 && t.held === t.tried && figures.recordsLost === 0 && figures.interleavings === 0,
      nextTurnWorks: figures.nextTurnWorked > 0 && t.held === t.tried,
      messagesLost: figures.recordsLost,
      detail: `${t.held}/${t.tried} openings held, ${figures.interleavings} interleavings`,
    },
  ]);
});

const userTexts = (body: { messages: { role: string; content: string | { type: string; text?: string }[] }[] }): string[] =>
  body.messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("")))
    .filter((t) => t.length > 0);

/** A home with one stored session (one turn), and a screen holding it. */
async function held(): Promise<{ home: Home; id: string; screen: PtySession }> {
  const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  homes.push(home);
  fake.script({ text: "FIRST-ANSWER" });
  const r = await runCli([...anthropicArgs(fake), "-p", "first"], home);
  expect(r.code, r.stderr).toBe(0);
  const [s] = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string }[];
  const screen = spawnPty(process.execPath, [CLI, ...anthropicArgs(fake), "--resume", s!.id], {
    cols: 220,
    rows: 40,
    cwd: home.workspace,
    env: { ...home.env, TERM: "xterm-256color" },
  });
  ptys.push(screen);
  await screen.waitFor("FIRST-ANSWER", WAIT);
  return { home, id: s!.id, screen };
}

async function ask(s: PtySession, text: string, answer: string): Promise<void> {
  fake.script({ text: answer });
  s.send(text);
  await s.waitFor(text, WAIT);
  s.send(KEYS.enter);
  await s.waitFor(answer, WAIT);
}

/** What the trap left: records lost (prompts answered but not stored, in their order) and
 * interleavings (requests that leave out a turn the record holds before their prompt). */
async function check(home: Home, id: string, answered: string[], requestsFrom: number): Promise<void> {
  const store = await openStore(home.db);
  let msgs;
  try {
    msgs = (await store.loadHistory(id)).messages;
  } finally {
    await store.close();
  }
  const prompts = msgs.filter((m) => m.role === "user").map(textOf);
  const lost = answered.filter((p) => !prompts.includes(p)).length;
  let inter = 0;
  for (let i = 1; i < msgs.length; i++) if (msgs[i]!.role === msgs[i - 1]!.role) inter++;
  for (const req of fake.requests.slice(requestsFrom)) {
    const sent = userTexts(req.body);
    const last = sent[sent.length - 1];
    const at = last === undefined ? -1 : prompts.indexOf(last);
    if (at < 0) continue; // another session's request (a fork)
    if (JSON.stringify(sent) !== JSON.stringify(prompts.slice(0, at + 1))) inter++;
  }
  figures.recordsLost += lost;
  figures.interleavings += inter;
  expect({ lost, inter }).toEqual({ lost: 0, inter: 0 });
}

describe("two windows on one session", () => {
  for (const flags of [["--continue"], ["--resume"]]) {
    tally.it(
      `headless -p ${flags[0]} while a screen holds the session: refused, exit 1; the screen's next turn works`,
      async () => {
        const from = fake.requests.length;
        const { home, id, screen } = await held();
        const r = await runCli([...anthropicArgs(fake), ...(flags[0] === "--resume" ? ["--resume", id] : flags), "-p", "headless turn"], home);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("a session is open in one place at a time");
        await ask(screen, "screen turn", "SCREEN-ANSWER");
        figures.nextTurnWorked++;
        await check(home, id, ["first", "screen turn"], from);
      },
      120_000,
    );
  }

  tally.it(
    "a second screen on a held session: read-only, Enter refused; both screens' next turns work (the holder's, and the fork's)",
    async () => {
      const from = fake.requests.length;
      const { home, id, screen } = await held();
      const second = spawnPty(process.execPath, [CLI, ...anthropicArgs(fake), "--resume", id], { cols: 220, rows: 40, cwd: home.workspace, env: { ...home.env, TERM: "xterm-256color" } });
      ptys.push(second);
      await second.waitFor("It is shown read-only here", WAIT);
      second.send("second window");
      await second.waitFor("second window", WAIT);
      second.send(KEYS.enter);
      await second.waitFor("Not sent: this session is read-only here.", WAIT);
      await ask(screen, "holder turn", "HOLDER-ANSWER");
      second.send(KEYS.ctrl("u"));
      second.send("/fork");
      await second.waitFor("/fork", WAIT);
      second.send(KEYS.enter);
      await second.waitFor("Forked: session", WAIT);
      await ask(second, "fork turn", "FORK-ANSWER");
      figures.nextTurnWorked++;
      await check(home, id, ["first", "holder turn"], from);
    },
    120_000,
  );

  tally.it(
    "the holder is killed with SIGKILL: the next opener takes the session over and its turn works",
    async () => {
      const from = fake.requests.length;
      const { home, id, screen } = await held();
      await ask(screen, "before the kill", "BEFORE-ANSWER");
      // the answer is on screen a moment before its message is committed; the trap is a holder
      // killed after its turn, so the kill waits for the record (a kill mid-answer is kills.test's)
      await waitUntil(async () => {
        const store = await openStore(home.db);
        try {
          const last = (await store.loadHistory(id)).messages.at(-1);
          return last?.role === "assistant" && last.status === "complete";
        } finally {
          await store.close();
        }
      }, 20_000, "the answer before the kill stored");
      screen.kill("SIGKILL");
      await screen.exited();
      fake.script({ text: "AFTER-ANSWER" });
      const r = await runCli([...anthropicArgs(fake), "--continue", "-p", "after the kill"], home);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("AFTER-ANSWER");
      figures.nextTurnWorked++;
      await check(home, id, ["first", "before the kill", "after the kill"], from);
    },
    120_000,
  );
});
