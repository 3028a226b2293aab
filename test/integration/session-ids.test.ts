// A session id that cannot name a session (empty, only whitespace, holding control
// characters) is refused by every way one comes in: --resume (headless, with no terminal,
// and before the screen is drawn), `context ID`, `export ID`, `sessions rm ID`, and the
// controller's switch. The refusal is a sentence naming the problem, the characters shown
// escaped, never raw; the CLI exits 2, having opened, created and sent nothing. An empty
// --resume is such a mistake too, never a quiet new session. The built CLI as a real
// process, a real pty for the screen, the strict fake provider over loopback.
import { describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { CLI, runCli } from "../helpers/cli.js";
import { spawnPty } from "../helpers/pty.js";
import { appDefaults, makeApp } from "../helpers/app.js";
import { fakeProviderAndHomes } from "../helpers/suite.js";
import { App, UnknownSessionError } from "../../src/session/controller/controller.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-albedo-IDS-3131";
const suite = fakeProviderAndHomes(KEY, { ANTHROPIC_API_KEY: KEY });

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", suite.fake().anthropicBase];

/** each bad id, the sentence that names its problem (escaped as it must be shown) */
const BAD: Array<[string, string, string]> = [
  ["empty", "", "the session id is empty"],
  ["blank", " \t ", 'the session id " \\t " is only whitespace'],
  ["ESC", "ab\u001b[2Jcd", 'the session id "ab\\u001b[2Jcd" holds a control character (\\u001b)'],
  ["an OSC title", "\u001b]0;pwned\u0007", 'the session id "\\u001b]0;pwned\\u0007" holds control characters (\\u001b, \\u0007)'],
  ["C1 and bidi", "x\u009b6n\u202eab", 'the session id "x\\u009b6n\\u202eab" holds control characters (\\u009b, \\u202e)'],
];

/** the ways an id comes in on the command line, and the words that name the argument */
const ENTRIES: Array<[string, (id: string) => string[], string]> = [
  ["--resume with -p", (id) => ["-p", "hello", "--resume", id, ...anthropic()], "--resume"],
  ["-r with no terminal (the screen's path)", (id) => ["-r", id, ...anthropic()], "--resume"],
  ["context", (id) => ["context", id], "context"],
  ["context --json", (id) => ["context", id, "--json"], "context"],
  ["export", (id) => ["export", id, "--format", "json"], "export"],
  ["sessions rm --yes", (id) => ["sessions", "rm", id, "--yes"], "sessions rm"],
  ["sessions rm", (id) => ["sessions", "rm", id], "sessions rm"],
];

/** C0 (but the line ends), DEL, C1 and the bidi controls: none of them may leave raw */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("a session id that cannot name a session", () => {
  it.each(ENTRIES)("%s: refused with the sentence, escaped, exit 2, nothing opened or sent", async (_what, args, where) => {
    const home = suite.home();
    for (const [kind, id, sentence] of BAD) {
      const r = await runCli(args(id), home);
      expect(r.code, kind).toBe(2);
      expect(r.stderr, kind).toContain(`albedo-tui: ${where}: ${sentence}; albedo-tui sessions lists the ids`);
      expect(r.stderr, kind).not.toMatch(RAW_CONTROL);
      expect(r.stdout, kind).toBe("");
    }
    // refused before the database is opened: nothing was created, nothing was sent
    await expect(fs.stat(home.db)).rejects.toThrow(/ENOENT/);
    expect(suite.fake().requests).toEqual([]);
  });

  it("--resume before the screen: refused on the terminal as it is, the screen never drawn, exit 2", async () => {
    const home = suite.home();
    for (const [kind, id, sentence] of BAD.filter(([k]) => k === "empty" || k === "an OSC title")) {
      const s = spawnPty(process.execPath, [CLI, "--resume", id, ...anthropic()], { cols: 100, rows: 20, cwd: home.workspace, env: { ...home.env, TERM: "xterm-256color" } });
      const exit = await s.exited();
      expect(exit.exitCode, kind).toBe(2);
      await s.waitFor(`--resume: ${sentence.slice(0, 40)}`);
      const out = s.rawOutput();
      // no alternate screen: the mistake is said before anything is drawn
      expect(out, kind).not.toContain("\u001b[?1049h");
      // the id's own ESC and BEL reached the terminal escaped, never as a title change
      expect(out, kind).not.toContain("\u001b]0;pwned");
    }
    await expect(fs.stat(home.db)).rejects.toThrow(/ENOENT/);
  });

  it("a good id still opens its session, and an unknown one is still named (quoted) with how to list them", async () => {
    const home = suite.home();
    suite.fake().script({ text: "first answer" }, { text: "second answer" });
    const first = await runCli(["-p", "hello", ...anthropic()], home);
    expect(first.code).toBe(0);
    const list = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string }[];
    const id = list[0]!.id;
    const again = await runCli(["-p", "again", "--resume", id, ...anthropic()], home);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("second answer\n");
    // padded, it is an id that names no session: looked up, and said so
    const padded = await runCli(["export", ` ${id}`], home);
    expect(padded.code).toBe(1);
    expect(padded.stderr).toContain(`no session with id " ${id}"`);
    expect(padded.stderr).toContain("albedo-tui sessions");
  });

  it("the controller refuses them too: opening with --resume and switching, in the same words", async () => {
    const fake = suite.fake();
    const { app, dir, workspace } = await makeApp(fake);
    const appOptions = appDefaults(fake, workspace);
    for (const [kind, id, sentence] of BAD) {
      // as the CLI does on a refusal: the store closes, nothing was written to it
      const store = await openStore(path.join(dir, "other.sqlite"));
      try {
        const opening = App.create({ ...appOptions, store, open: { resume: id } });
        await expect(opening, kind).rejects.toThrow(new UnknownSessionError(`${sentence}; list the sessions with: albedo-tui sessions`));
        expect(await store.listSessions(), kind).toEqual([]);
      } finally {
        await store.close();
      }
    }
    try {
      for (const [kind, id, sentence] of BAD) {
        const e = await app.switchSession(id).then(() => undefined, (x: unknown) => x);
        expect(e, kind).toBeInstanceOf(UnknownSessionError);
        expect((e as Error).message, kind).toBe(sentence);
        expect((e as Error).message, kind).not.toMatch(RAW_CONTROL);
      }
      // the open session is the one it was
      expect(app.history()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
