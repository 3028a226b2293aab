// A session is open in one place at a time (the second opener is told where, and may read it
// or fork it; a killed holder locks nothing), and a /compact summary is shown wherever the
// record is: the export and the resumed screen. Real CLI processes on one database.
import { describe, expect, it } from "vitest";
import os from "node:os";
import { ptyFrame } from "../helpers/pty-frame.js";
import { CLI, runCli, waitUntil } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { openStore } from "../../src/session/store/store.js";
import type { StoredMessage } from "../../src/record/types.js";

const KEY = "sk-test-session-open-2626";
const WAIT = 30_000;
const e2e = ptyFrame(KEY);
const ARGS = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", e2e.fake.anthropicBase];

function tui(args: string[], cols = 220, rows = 40): PtySession {
  const s = spawnPty(process.execPath, [CLI, ...ARGS(), ...args], { cols, rows, cwd: e2e.home.workspace, env: { ...e2e.home.env, TERM: "xterm-256color" } });
  e2e.running.push(s);
  return s;
}

async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 40), WAIT);
  s.send(KEYS.enter);
}

async function quit(s: PtySession): Promise<number> {
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit", WAIT);
  s.send(KEYS.ctrl("c"));
  return (await s.exited()).exitCode;
}

const textOf = (m: StoredMessage): string => m.blocks.map((b) => (b.type === "text" ? b.text : "")).join("");

async function record(id: string): Promise<{ role: string; text: string }[]> {
  const store = await openStore(e2e.home.db);
  try {
    return (await store.loadHistory(id)).messages.map((m) => ({ role: m.role, text: textOf(m) }));
  } finally {
    await store.close();
  }
}

/** the user texts of a request the fake received, in order */
const userTexts = (i: number): string[] =>
  (e2e.fake.requests[i]?.body.messages as { role: string; content: string | { type: string; text?: string }[] }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("")))
    .filter((t) => t.length > 0);

async function onlySession(): Promise<string> {
  const r = await runCli(["sessions", "--json"], e2e.home);
  const list = JSON.parse(r.stdout) as { id: string }[];
  expect(list).toHaveLength(1);
  return list[0]!.id;
}

describe("a session is open in one place at a time", () => {
  it("the second opener is told where it is open and may read or fork it; after a kill -9 the next opener takes over; the record never interleaves", async () => {
    e2e.fake.script({ text: "ANSWER-ONE" });
    const first = await runCli([...ARGS(), "-p", "first prompt"], e2e.home);
    expect(first.code, first.stderr).toBe(0);
    const id = await onlySession();

    e2e.fake.script({ text: "ANSWER-A" });
    const a = tui(["--resume", id]);
    await a.waitFor("ANSWER-ONE", WAIT);
    await ask(a, "from window A");
    await a.waitFor("ANSWER-A", WAIT);
    const sent = e2e.fake.requests.length;

    // headless: refused with where it is open, exit 1, nothing sent or stored
    for (const flags of [["--resume", id], ["--continue"]]) {
      const r = await runCli([...ARGS(), ...flags, "-p", "from headless"], e2e.home);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`Session ${id} is open in another albedo-tui (pid ${a.pid} on ${os.hostname()}, since 20`);
      expect(r.stderr).toContain("running); a session is open in one place at a time, so nothing was sent");
    }
    expect(e2e.fake.requests).toHaveLength(sent);

    // a second screen: shown read-only, Enter refuses with a sentence and keeps the text
    const b = tui(["--resume", id]);
    await b.waitFor("ANSWER-A", WAIT);
    await b.waitFor(`is open in another albedo-tui (pid ${a.pid} on ${os.hostname()}`, WAIT);
    await b.waitFor("It is shown read-only here", WAIT);
    await ask(b, "from window B");
    await b.waitFor("Not sent: this session is read-only here.", WAIT);
    expect(e2e.fake.requests).toHaveLength(sent);
    // the text came back into the prompt; it goes to the fork
    s_clear(b);
    await ask(b, "/fork");
    await b.waitFor(`holds a copy of ${id}'s 4 messages and is open here`, WAIT);
    e2e.fake.script({ text: "ANSWER-FORK" });
    await ask(b, "in the fork");
    await b.waitFor("ANSWER-FORK", WAIT);
    // the fork's request carries the copied record
    expect(userTexts(e2e.fake.requests.length - 1)).toEqual(["first prompt", "from window A", "in the fork"]);

    // /sessions back to the held one: read-only again, Enter refused again
    await ask(b, "/sessions");
    // the box takes keys once it has been seen: its footer then names them
    await b.waitFor("Enter switch", WAIT);
    b.send(KEYS.down);
    await b.settle();
    b.send(KEYS.enter);
    await b.waitFor("switched to", WAIT);
    await b.waitFor("It is shown read-only here", WAIT);
    await b.waitForGone("ANSWER-FORK", WAIT);
    const before = e2e.fake.requests.length;
    await ask(b, "still held");
    await b.waitFor("Not sent: this session is read-only here.", WAIT);
    expect(e2e.fake.requests).toHaveLength(before);
    s_clear(b);

    // window A is killed: it never gave the lease back, and the next opener takes it over
    a.kill("SIGKILL");
    await a.exited();
    e2e.fake.script({ text: "ANSWER-AFTER" });
    const after = await runCli([...ARGS(), "--resume", id, "-p", "after the kill"], e2e.home);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain("ANSWER-AFTER");
    expect(userTexts(e2e.fake.requests.length - 1)).toEqual(["first prompt", "from window A", "after the kill"]);

    expect(await record(id)).toEqual([
      { role: "user", text: "first prompt" },
      { role: "assistant", text: "ANSWER-ONE" },
      { role: "user", text: "from window A" },
      { role: "assistant", text: "ANSWER-A" },
      { role: "user", text: "after the kill" },
      { role: "assistant", text: "ANSWER-AFTER" },
    ]);
    expect(await quit(b)).toBe(0);
    // b quit: its fork is free for the next opener
    const sessions = JSON.parse((await runCli(["sessions", "--json"], e2e.home)).stdout) as { id: string }[];
    const fork = sessions.find((s) => s.id !== id)!.id;
    e2e.fake.script({ text: "ANSWER-FORK-2" });
    const again = await runCli([...ARGS(), "--resume", fork, "-p", "fork again"], e2e.home);
    expect(again.code, again.stderr).toBe(0);
  }, 180_000);
});

/** empties the prompt box (Ctrl-U clears the line in the editor) */
function s_clear(s: PtySession): void {
  s.send(KEYS.ctrl("u"));
}

describe("a /compact summary is shown wherever the record is", () => {
  it("export md and json carry the summary and the messages it replaced; the resumed screen shows it at its place", async () => {
    // a long first answer: a short history has nothing to compact
    const words = Array.from({ length: 600 }, (_, i) => `long${i}`).join(" ");
    e2e.fake.script({ text: `${words} ANSWER-ONE` }, { text: "ANSWER-TWO" });
    expect((await runCli([...ARGS(), "-p", "first prompt"], e2e.home)).code).toBe(0);
    const id = await onlySession();
    expect((await runCli([...ARGS(), "--resume", id, "-p", "second prompt"], e2e.home)).code).toBe(0);

    e2e.fake.script({ text: "SUMMARY-TEXT of the talk so far." });
    const s = tui(["--resume", id]);
    await s.waitFor("ANSWER-TWO", WAIT);
    await ask(s, "/compact");
    await s.waitFor(/Compaction: summarised messages 1–\d/, WAIT);
    expect(await quit(s)).toBe(0);

    const store = await openStore(e2e.home.db);
    const [sum] = await store.loadSummaries(id);
    await store.close();
    expect(sum).toBeDefined();
    const heading = `Summary of messages ${sum!.fromSeq}–${sum!.toSeq} (compact)`;

    const md = await runCli(["export", id], e2e.home);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain(`## ${heading}`);
    expect(md.stdout).toContain("> SUMMARY-TEXT of the talk so far.");
    // at its place: after the last message it replaced
    const after = md.stdout.indexOf(`## ${sum!.toSeq}. `);
    expect(after).toBeGreaterThan(0);
    expect(md.stdout.indexOf(`## ${heading}`)).toBeGreaterThan(after);

    const json = await runCli(["export", id, "--format", "json"], e2e.home);
    const doc = JSON.parse(json.stdout) as { summaries: { fromSeq: number; toSeq: number; text: string }[] };
    expect(doc.summaries).toEqual([expect.objectContaining({ fromSeq: sum!.fromSeq, toSeq: sum!.toSeq, text: "SUMMARY-TEXT of the talk so far." })]);

    // the resumed screen: the summary line after the messages it replaced; its text folds under it
    const r = tui(["--resume", id]);
    await r.waitFor(`▸ ${heading}`, WAIT);
    await waitUntil(() => r.screenText().includes("ANSWER-TWO"), WAIT, "the record on screen");
    const screen = r.screenText();
    expect(screen.indexOf(`▸ ${heading}`)).toBeGreaterThan(screen.indexOf(sum!.toSeq >= 4 ? "ANSWER-TWO" : "ANSWER-ONE"));
    expect(screen).not.toContain("SUMMARY-TEXT");
    expect(await quit(r)).toBe(0);
  }, 180_000);
});
