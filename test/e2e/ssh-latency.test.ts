// The full-screen app over a SLOW SSH link: the OpenSSH client in a pty, a relay on 127.0.0.1
// that holds every chunk 50 ms each way (test/helpers/latency-relay.ts, netem's delay done in
// user space, since many kernels have no netem), then a private sshd and the built albedo-tui.
// ssh.test.ts walks through the app over a fast link and cuts the link by killing the client;
// here a turn streams whole over the slow one, and the link itself drops mid-stream: the
// client and sshd both see the connection die, as when a network goes away.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI, makeHome, type Home } from "../helpers/cli.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { startLatencyRelay, type LatencyRelay } from "../helpers/latency-relay.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { alive, readPid as readPidWithin, remoteCommand, sshArgs, startSshd, stopSshd, type Sshd } from "../helpers/sshd.js";

const KEY = "sk-ant-ssh-latency-fake-7781";
const MODEL = "claude-sonnet-4-5";
const DELAY_MS = 50;
// an SSH handshake is several round trips, each 100 ms here, then a Node start on a busy machine
const WAIT = 30_000;

const sshd = await startSshd();
const SKIP = !sshd.ok ? sshd.reason : undefined;
if (SKIP) console.warn(`[ssh latency e2e] SKIPPED, no SSH connection to 127.0.0.1 is possible here: ${SKIP}`);
process.once("exit", () => stopSshd(sshd, false));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const readPid = (file: string): Promise<number> => readPidWithin(file, WAIT);

describe("the full-screen app over an SSH link with 50 ms added each way", () => {
  const sessions: PtySession[] = [];
  const pidFiles: string[] = [];
  const fakes: FakeProvider[] = [];
  const relays: LatencyRelay[] = [];
  const homes: Home[] = [];

  /** ssh -tt through the relay, running the built app in `home`'s workspace */
  const sshApp = (relay: LatencyRelay, home: Home, fake: FakeProvider, pidFile: string, extraArgs: string[] = []): PtySession => {
    const s = sshd as Sshd;
    const env: Record<string, string> = {
      TERM: "xterm-256color",
      HOME: home.root,
      XDG_DATA_HOME: home.env.XDG_DATA_HOME!,
      XDG_STATE_HOME: home.env.XDG_STATE_HOME!,
      XDG_CONFIG_HOME: home.env.XDG_CONFIG_HOME!,
      XDG_CACHE_HOME: home.env.XDG_CACHE_HOME!,
      ANTHROPIC_API_KEY: KEY,
    };
    const app = [process.execPath, CLI, "--provider", "anthropic", "--base-url", fake.anthropicBase, "--model", MODEL, "--sandbox", "off", ...extraArgs];
    const t = spawnPty("ssh", sshArgs(s, remoteCommand(home.workspace, env, app, pidFile), relay.port), {
      cols: 100,
      rows: 30,
      cwd: home.root,
      env: { PATH: process.env.PATH, HOME: home.root, TERM: "xterm-256color", LANG: "C.UTF-8" },
    });
    sessions.push(t);
    pidFiles.push(pidFile);
    return t;
  };

  const setUp = async (): Promise<{ fake: FakeProvider; relay: LatencyRelay; home: Home }> => {
    const fake = await startFakeProvider({ key: KEY });
    fakes.push(fake);
    const relay = await startLatencyRelay({ port: (sshd as Sshd).port }, DELAY_MS);
    relays.push(relay);
    const home = await makeHome();
    homes.push(home);
    return { fake, relay, home };
  };

  afterEach(async () => {
    for (const t of sessions.splice(0)) t.kill("SIGKILL");
    for (const f of pidFiles.splice(0)) {
      const pid = Number.parseInt(await fsp.readFile(f, "utf8").catch(() => ""), 10);
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
    }
    for (const r of relays.splice(0)) await r.close();
    for (const f of fakes.splice(0)) await f.close();
    for (const h of homes.splice(0)) await fsp.rm(h.root, { recursive: true, force: true });
  });

  afterAll(() => {
    stopSshd(sshd, false);
    if (sshd.ok) fs.rmSync(sshd.dir, { recursive: true, force: true });
  });

  it.skipIf(SKIP !== undefined)(
    SKIP ? `a turn over a slow link (skipped: ${SKIP})` : "a turn streams and completes over the slow link; a key's echo takes at least the link's round trip",
    async () => {
      const { fake, relay, home } = await setUp();
      const t = sshApp(relay, home, fake, path.join(home.root, "remote.pid"));
      await t.waitFor("Type a request", WAIT);
      await t.settle();

      // the link really is slow: a key's echo comes back a round trip (2 × 50 ms) later at least
      const sent = performance.now();
      t.send("Q");
      await t.waitFor("› Q", WAIT);
      const echo = performance.now() - sent;
      expect(echo).toBeGreaterThanOrEqual(2 * DELAY_MS);
      expect(relay.minHeldMs).toBeGreaterThanOrEqual(DELAY_MS);
      t.send(KEYS.backspace);
      await t.waitFor("› Type a request", WAIT);

      // a long answer, many paragraphs, arriving faster than the link's round trip
      const paras = Array.from({ length: 30 }, (_, p) => Array.from({ length: 20 }, (_, w) => `p${p}w${w}`).join(" "));
      fake.script({ text: `Slow link answer.\n\n${paras.join("\n\n")}\n\nSLOW-LINK-END`, delayMs: 2, wordsPerEvent: 1 });
      t.send("stream over the slow link");
      t.send(KEYS.enter);
      await t.waitFor(/^ streaming · /m, WAIT);
      await t.waitFor("SLOW-LINK-END", WAIT);
      await t.waitFor(/^ idle · /m, WAIT);
      await t.settle();
      const screen = t.screenText();
      // the last paragraphs read whole, in order, on the remote screen as it reached us
      expect(screen).toContain(paras[29]!.split(" ").slice(0, 8).join(" "));
      expect(screen.indexOf("p28w0")).toBeLessThan(screen.indexOf("p29w0"));
      expect(screen.indexOf("p29w19")).toBeLessThan(screen.indexOf("SLOW-LINK-END"));
      expect(fake.rejections()).toEqual([]);
      expect(fake.requests).toHaveLength(1);
      // everything went through the relay, one connection, held at least its delay
      expect(relay.connections).toBe(1);
      expect(relay.bytesDown).toBeGreaterThan(4000);
      expect(relay.minHeldMs).toBeGreaterThanOrEqual(DELAY_MS);

      t.send(KEYS.ctrl("d"));
      const exit = await Promise.race([t.exited(), sleep(WAIT).then(() => ({ exitCode: -1 }))]);
      expect(exit.exitCode).toBe(0);
      const raw = t.rawOutput();
      expect(raw.lastIndexOf("\x1b[?1049l")).toBeGreaterThan(raw.lastIndexOf("\x1b[?1049h"));
    },
    120_000,
  );

  it.skipIf(SKIP !== undefined)(
    SKIP ? `the link drops (skipped: ${SKIP})` : "the link drops mid-stream: ssh ends, the remote app hangs up and finishes its turn, the session is whole on reconnect",
    async () => {
      const { fake, relay, home } = await setUp();
      const pidFile = path.join(home.root, "remote.pid");
      const t = sshApp(relay, home, fake, pidFile);
      await t.waitFor("Type a request", WAIT);
      const pid = await readPid(pidFile);

      const words = Array.from({ length: 150 }, (_, i) => `d${i}`).join(" ");
      fake.script({ text: `Before the drop. ${words} DROP-END`, delayMs: 40, wordsPerEvent: 1 });
      t.send("a question asked before the network went away");
      t.send(KEYS.enter);
      await t.waitFor(/\bd10\b/, WAIT);
      // the network goes: both TCP ends are reset, nothing held in the relay arrives
      relay.drop();

      // the client learns of it on its own and ends; nothing has to kill it
      const exit = await Promise.race([t.exited(), sleep(WAIT).then(() => undefined)]);
      expect(exit, "ssh still runs after its connection was reset").toBeDefined();
      expect(exit!.exitCode).not.toBe(0);
      expect(t.screenText()).not.toContain("DROP-END");

      // sshd hung up the remote tty: the app finishes the turn without a screen, then ends
      const end = Date.now() + 2 * WAIT;
      while (alive(pid) && Date.now() < end) await sleep(50);
      expect(alive(pid), `the remote app (pid ${pid}) still runs after its turn ended detached`).toBe(false);
      expect(fake.requests).toHaveLength(1);

      // back over the same slow link: the whole answer is in the record, and how it ended
      const again = sshApp(relay, home, fake, path.join(home.root, "remote2.pid"), ["--continue"]);
      await again.waitFor("› a question asked before the network went away", WAIT);
      await again.waitFor("went on after the terminal hung up", WAIT);
      await again.waitFor("DROP-END", WAIT);
      expect(again.screenText()).not.toContain("interrupted");
      expect(relay.connections).toBe(2);
      again.send(KEYS.ctrl("d"));
      const exit2 = await Promise.race([again.exited(), sleep(WAIT).then(() => ({ exitCode: -1 }))]);
      expect(exit2.exitCode).toBe(0);
      expect(fake.rejections()).toEqual([]);
      expect(fake.requests).toHaveLength(1);
    },
    150_000,
  );
});
