// The full-screen walk-through over a REAL SSH connection to 127.0.0.1: a private sshd with
// throw-away keys, the OpenSSH client in a pseudo-terminal, and the built albedo-tui on the far
// side of it. SSH is where people will run this all day, and it changes what the app sees: a
// different pty, no locale (this sshd accepts no LANG), keys and resizes that travel through the
// client and the server, and a link that can drop. The screen is read from @xterm/headless as a
// person would read it.
//
// Skipped only where no sshd can be started here (not installed, or it refuses to start); the
// reason is printed and put in the test name. `.ci/run` installs openssh-server when missing.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI, makeHome, type Home } from "../helpers/cli.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { alive, readPid as readPidWithin, remoteCommand, sshArgs, startSshd, stopSshd as stopServer, type Sshd } from "../helpers/sshd.js";

// a fake key for the fake provider; it crosses the ssh command line, which is fine for a test key
const KEY = "sk-ant-ssh-e2e-fake-5150";
const MODEL = "claude-sonnet-4-5";
const COLS = 100;
const ROWS = 30;
// generous: an SSH handshake plus a Node start on a busy 2-core CI machine
const WAIT = 20_000;

// ------------------------------------------------------------------------- the private sshd

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const sshd = await startSshd();
const SKIP = !sshd.ok ? sshd.reason : undefined;
if (SKIP) console.warn(`[ssh e2e] SKIPPED, no SSH connection to 127.0.0.1 is possible here: ${SKIP}`);

const stopSshd = (): void => stopServer(sshd, false);
// the worker may end without afterAll (a crash, a filtered run): do not leave sshd behind
process.once("exit", stopSshd);

// ------------------------------------------------------------------------- connecting

const sessions: PtySession[] = [];
const remotePidFiles: string[] = [];

/** ssh -tt to 127.0.0.1 running the built app in `home`'s workspace; the remote shell writes
 * its pid to `pidFile` and then execs, so that pid is the app's */
function sshApp(s: Sshd, home: Home, fake: FakeProvider, pidFile: string, extraArgs: string[] = []): PtySession {
  const remoteEnv: Record<string, string> = {
    TERM: "xterm-256color",
    HOME: home.root,
    XDG_DATA_HOME: home.env.XDG_DATA_HOME!,
    XDG_STATE_HOME: home.env.XDG_STATE_HOME!,
    XDG_CONFIG_HOME: home.env.XDG_CONFIG_HOME!,
    ANTHROPIC_API_KEY: KEY,
  };
  const app = [process.execPath, CLI, "--provider", "anthropic", "--base-url", fake.anthropicBase, "--model", MODEL, "--sandbox", "off", ...extraArgs];
  const args = sshArgs(s, remoteCommand(home.workspace, remoteEnv, app, pidFile));
  const t = spawnPty("ssh", args, {
    cols: COLS,
    rows: ROWS,
    cwd: home.root,
    env: { PATH: process.env.PATH, HOME: home.root, TERM: "xterm-256color", LANG: "C.UTF-8" },
  });
  sessions.push(t);
  remotePidFiles.push(pidFile);
  return t;
}

function exitedWithin(t: PtySession, ms: number): Promise<{ exitCode: number; signal?: number }> {
  return Promise.race([
    t.exited(),
    sleep(ms).then(() => {
      throw new Error(`ssh did not exit within ${ms} ms. Screen:\n${t.screenText()}`);
    }),
  ]);
}

const readPid = (file: string): Promise<number> => readPidWithin(file, WAIT);

/** how many screen lines the paragraph takes when it reads whole (words in order, nothing cut
 * off at the edge), or 0 when it does not */
function paragraphLines(screen: string, paragraph: string): number {
  const words = paragraph.split(/\s+/);
  const lines = screen.split("\n").map((l) => l.trim());
  const start = lines.findIndex((l) => l.startsWith(words.slice(0, 3).join(" ")));
  if (start < 0) return 0;
  let joined = "";
  for (let i = start; i < lines.length; i++) {
    joined = joined ? `${joined} ${lines[i]}` : lines[i]!;
    if (joined.length >= paragraph.length) return joined.startsWith(paragraph) ? i - start + 1 : 0;
  }
  return 0;
}

/** waits for a condition on the screen that a string or pattern cannot say */
async function until(t: PtySession, check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + WAIT;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(25);
  }
  throw new Error(`${what} did not happen within ${WAIT} ms. Screen (${t.cols}x${t.rows}):\n${t.screenText()}`);
}

const status = (t: PtySession): string => t.line(t.rows - 1);
const prompt = (t: PtySession): string => t.line(t.rows - 2);

// ------------------------------------------------------------------------- the tests

describe("the full-screen app over a real SSH connection to 127.0.0.1", () => {
  const fakes: FakeProvider[] = [];
  const homes: Home[] = [];
  const newHome = async (): Promise<Home> => {
    const h = await makeHome();
    homes.push(h);
    return h;
  };

  afterEach(async () => {
    for (const t of sessions.splice(0)) t.kill("SIGKILL");
    // a remote app that outlived its link (the defect the second test looks for) is ours to end
    for (const f of remotePidFiles.splice(0)) {
      const pid = Number.parseInt(await fsp.readFile(f, "utf8").catch(() => ""), 10);
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
    }
    for (const f of fakes.splice(0)) await f.close();
    for (const h of homes.splice(0)) await fsp.rm(h.root, { recursive: true, force: true });
  });

  afterAll(() => {
    stopSshd();
    if (sshd.ok) fs.rmSync(sshd.dir, { recursive: true, force: true });
  });

  const ANSWER =
    "This answer travelled from the fake provider through the app and then through sshd to you, a few words at a time, and it reads as one paragraph at any width.";

  it.skipIf(SKIP !== undefined)(
    SKIP ? `walk-through over SSH (skipped: ${SKIP})` : "walk-through over SSH: start-up, streaming, resize, tool call, permission, Esc, context pane, quit",
    async () => {
      const s = sshd as Sshd;
      const fake = await startFakeProvider({ key: KEY });
      fakes.push(fake);
      const home = await newHome();
      const t = sshApp(s, home, fake, path.join(home.root, "remote.pid"));

      // start-up: the prompt, the status line, the model, the welcome line
      await t.waitFor("Type a request", WAIT);
      await t.settle();
      expect(status(t)).toMatch(/^ idle · anthropic\/claude-sonnet-4-5 · /);
      expect(prompt(t)).toBe("› Type a request, or / for commands");
      expect(t.screenText()).toContain("^O shows what the model is sent");

      // a prompt streams an answer: seen while it streams, and whole when it ends
      fake.script({ text: `## Over SSH\n\n${ANSWER}\n\n- first point\n- last point: \`done\``, delayMs: 40, wordsPerEvent: 1 });
      t.send("say something long");
      t.send(KEYS.enter);
      await t.waitFor("› say something long", WAIT);
      await t.waitFor(/^ streaming · /m, WAIT);
      await t.waitFor("This answer travelled", WAIT);
      await t.waitFor("• last point: done", WAIT);
      await t.waitFor(/^ idle · /m, WAIT);
      await t.settle();
      let screen = t.screenText();
      // markdown is rendered, not shown as source
      expect(screen).toMatch(/^ {2}Over SSH$/m);
      expect(screen).not.toContain("## Over SSH");
      expect(screen).not.toContain("`done`");
      const wideLines = paragraphLines(screen, ANSWER);
      expect(wideLines).toBeGreaterThan(0);

      // resize through the ssh client: the remote app lays out again for 60x20, then 100x30
      t.resize(60, 20);
      await until(t, () => paragraphLines(t.screenText(), ANSWER) > wideLines, "the answer re-wrapped to 60 columns");
      await t.settle();
      expect(status(t)).toMatch(/^ idle · /);
      expect(prompt(t)).toMatch(/^› /);
      expect(t.screenText()).toContain("• last point: done");
      t.resize(COLS, ROWS);
      await until(t, () => paragraphLines(t.screenText(), ANSWER) === wideLines && /^ idle · /.test(status(t)), "the layout back at 100x30");
      expect(prompt(t)).toBe("› Type a request, or / for commands");

      // a tool call: the permission question is answered from the keyboard, the call shows as
      // one line, and it expands to its input and the real output of the command
      fake.script({ toolCalls: [{ name: "bash", input: { command: "echo over-ssh-$((6*7))" } }] }, { text: "The command printed its number." });
      t.send("run the command");
      t.send(KEYS.enter);
      await t.waitFor("Permission needed", WAIT);
      // the choices show once the box takes keys (a moment after it is seen: type-ahead never answers it)
      await t.waitFor(/y allow once\s+a allow for this session[\s\S]*?n deny/, WAIT);
      screen = t.screenText();
      expect(screen).toContain("$ echo over-ssh-$((6*7))");
      expect(screen).toMatch(/y allow once\s+a allow for this session[\s\S]*?n deny/);
      expect(status(t)).toMatch(/^ waiting for permission \(bash\)/);
      t.send("y");
      await t.waitFor("The command printed its number.", WAIT);
      await t.waitFor(/^ idle · /m, WAIT);
      screen = t.screenText();
      expect(screen).toMatch(/^ {2}▸ bash {2}echo over-ssh-\$\(\(6\*7\)\) {3}✓ \S+$/m);
      expect(screen).not.toContain("Permission needed");
      expect(screen).not.toContain("over-ssh-42"); // collapsed: one line, no output yet

      t.send(KEYS.altUp); // to the transcript: the last tool call is selected
      await t.waitFor("transcript:", WAIT);
      t.send(KEYS.enter);
      await t.waitFor(/^ {2}▾ bash /m, WAIT);
      screen = t.screenText();
      expect(screen).toMatch(/^ {4}\$ echo over-ssh-\$\(\(6\*7\)\)$/m);
      expect(screen).toMatch(/^ {4}over-ssh-42$/m);
      t.send(KEYS.enter); // and folds again
      await t.waitFor(/^ {2}▸ bash /m, WAIT);
      await t.waitForGone("over-ssh-42", WAIT);
      t.send(KEYS.escape); // back to the prompt
      await t.waitFor("› Type a request", WAIT);

      // Esc interrupts a long stream and keeps what arrived
      const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ") + " FINAL-WORD-NEVER-ARRIVES";
      fake.script({ text: `Opening of a very long answer. ${long}`, delayMs: 50, wordsPerEvent: 1 });
      t.send("tell me everything");
      t.send(KEYS.enter);
      await t.waitFor("Opening of a very long answer.", WAIT);
      await t.waitFor(/^ streaming · /m, WAIT);
      t.send(KEYS.escape);
      await t.waitFor("[interrupted]", WAIT);
      await t.waitFor(/^ idle · /m, WAIT);
      await t.settle();
      screen = t.screenText();
      expect(screen).toContain("Opening of a very long answer.");
      expect(screen).not.toContain("FINAL-WORD-NEVER-ARRIVES");
      expect(screen).not.toContain("word399");

      // the context pane opens with its sections and closes again
      t.send(KEYS.ctrl("o"));
      await t.waitFor("Context · what the last request sent", WAIT);
      await t.settle();
      screen = t.screenText();
      for (const section of ["system", "history", "tools"]) expect(screen).toMatch(new RegExp(`^\\d+\\s+${section}\\s+\\d`, "m"));
      expect(screen).toContain(`anthropic / ${MODEL}`);
      t.send(KEYS.ctrl("o"));
      await t.waitForGone("Context · what the last request sent", WAIT);
      await t.waitFor("[interrupted]", WAIT); // the transcript is back

      // Ctrl-D on the empty prompt quits; the far side restored the terminal before ssh ended
      t.send(KEYS.ctrl("d"));
      const exit = await exitedWithin(t, WAIT);
      expect(exit.exitCode).toBe(0);
      const raw = t.rawOutput();
      expect(raw.lastIndexOf("\x1b[?1049l")).toBeGreaterThan(raw.lastIndexOf("\x1b[?1049h"));
      expect(raw.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(raw.lastIndexOf("\x1b[?2004h"));
      expect(t.screenText()).not.toMatch(/ idle · anthropic/);

      // every request the app made over loopback was one the strict fake accepted
      expect(fake.rejections()).toEqual([]);
      expect(fake.requests.length).toBe(4);
    },
    120_000,
  );

  it.skipIf(SKIP !== undefined)(
    SKIP ? `dropped SSH link (skipped: ${SKIP})` : "a turn survives a dropped SSH link: it ends detached, the app exits, and --continue shows it whole and how it ended",
    async () => {
      const s = sshd as Sshd;
      const fake = await startFakeProvider({ key: KEY });
      fakes.push(fake);
      const home = await newHome();
      const pidFile = path.join(home.root, "remote.pid");
      const t = sshApp(s, home, fake, pidFile);
      await t.waitFor("Type a request", WAIT);
      const pid = await readPid(pidFile);
      expect(alive(pid)).toBe(true);

      // mid-stream, the client dies without a word, as a closed laptop or a cut network would
      const words = Array.from({ length: 120 }, (_, i) => `w${i}`).join(" ");
      fake.script({ text: `Started answering. ${words} ANSWER-END`, delayMs: 50, wordsPerEvent: 1 });
      t.send("a question asked just before the link dropped");
      t.send(KEYS.enter);
      await t.waitFor(/\bw12\b/, WAIT);
      t.kill("SIGKILL");

      // sshd hangs up the remote tty; the turn goes on without a screen, then the app ends
      await sleep(500);
      expect(alive(pid), "the remote app ended with its link, cutting its turn short").toBe(true);
      const end = Date.now() + 2 * WAIT;
      while (alive(pid) && Date.now() < end) await sleep(50);
      expect(alive(pid), `the remote app (pid ${pid}) still runs after its turn ended detached`).toBe(false);

      // back over SSH with --continue: the whole answer is in the record, and how it ended
      const again = sshApp(s, home, fake, path.join(home.root, "remote2.pid"), ["--continue"]);
      await again.waitFor("› a question asked just before the link dropped", WAIT);
      await again.waitFor("went on after the terminal hung up", WAIT);
      await again.waitFor("completed", WAIT);
      await again.waitFor("ANSWER-END", WAIT);
      expect(again.screenText()).not.toContain("interrupted");
      again.send(KEYS.ctrl("d"));
      expect((await exitedWithin(again, WAIT)).exitCode).toBe(0);
      expect(fake.rejections()).toEqual([]);
      expect(fake.requests).toHaveLength(1);
    },
    90_000,
  );

  it.skipIf(SKIP !== undefined)(
    SKIP ? `dropped SSH link with a question (skipped: ${SKIP})` : "a question asked after the link dropped is answered no; the turn ends and is recorded",
    async () => {
      const s = sshd as Sshd;
      const fake = await startFakeProvider({ key: KEY });
      fakes.push(fake);
      const home = await newHome();
      const pidFile = path.join(home.root, "remote.pid");
      // unsandboxed, a command asks first
      const t = sshApp(s, home, fake, pidFile, ["--sandbox", "off"]);
      await t.waitFor("Type a request", WAIT);
      const pid = await readPid(pidFile);
      // the answer streams for a while, then asks to run a command
      const words = Array.from({ length: 60 }, (_, i) => `q${i}`).join(" ");
      fake.script(
        { text: `Looking first. ${words}`, delayMs: 50, toolCalls: [{ name: "bash", input: { command: "touch made-after-hangup" } }] },
        { text: "Could not run it. DETACHED-END" },
      );
      t.send("make the file");
      t.send(KEYS.enter);
      await t.waitFor(/\bq5\b/, WAIT);
      t.kill("SIGKILL");
      const end = Date.now() + 2 * WAIT;
      while (alive(pid) && Date.now() < end) await sleep(50);
      expect(alive(pid)).toBe(false);
      expect(fs.existsSync(path.join(home.workspace, "made-after-hangup"))).toBe(false);
      expect(fake.requests).toHaveLength(2);
      const again = sshApp(s, home, fake, path.join(home.root, "remote2.pid"), ["--continue"]);
      await again.waitFor("answered no (bash)", WAIT);
      await again.waitFor("DETACHED-END", WAIT);
      again.send(KEYS.ctrl("d"));
      expect((await exitedWithin(again, WAIT)).exitCode).toBe(0);
    },
    90_000,
  );
});
