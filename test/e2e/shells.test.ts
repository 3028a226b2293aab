// Commands watched live and left running: the built CLI in a real pty, the strict fake
// provider on loopback, real processes. A 6-second loop's output shows line by line; a server
// the model starts in the background answers on its port in the next turn and is gone once
// albedo-tui has exited, by /quit or by SIGKILL; /shells stops one; a 100 MB flood and
// control characters in the output change nothing but the bytes kept.
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { CLI } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { ptyFrame } from "../helpers/pty-frame.js";
import { formatBytes } from "../../src/ui/text.js";
import { killMarked, markedPids, newMark, TEST_MARK_VAR } from "../helpers/procs.js";

const KEY = "sk-test-shells-e2e-4242";
const MODEL = "claude-sonnet-4-5";
// a fresh home and fake per test; ptys killed after it
const e2e = ptyFrame(KEY);
const marks: string[] = [];

afterEach(() => {
  for (const m of marks.splice(0)) killMarked(m);
});

function tui(args: string[] = [], rows = 30): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", e2e.fake.anthropicBase, "--permission", "auto", ...args], {
    cols: 110,
    rows,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color" },
  });
  e2e.running.push(s);
  return s;
}

/** the config's "network": "on": a background server in the sandbox shares the host's
 * network, so the test (and later commands) can reach its port */
function networkOn(): void {
  const dir = path.join(e2e.home.env.XDG_CONFIG_HOME as string, "albedo");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ network: "on" }));
}

async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 40));
  s.send(KEYS.enter);
}

async function quit(s: PtySession): Promise<number> {
  s.send("/quit");
  await s.waitFor("/quit");
  s.send(KEYS.enter);
  return (await s.exited()).exitCode;
}

function mark(label: string): string {
  const m = newMark(label);
  marks.push(m);
  return m;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function answers(port: number): Promise<string | undefined> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) });
    return await r.text();
  } catch {
    return undefined;
  }
}

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** a tool result's text in a recorded Anthropic request */
function toolResults(body: any): string {
  const out: string[] = [];
  for (const m of body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) if (p.type === "tool_result") out.push(typeof p.content === "string" ? p.content : JSON.stringify(p.content));
  }
  return out.join("\n");
}

/** a node http server answering `word` on `port`, as a shell command */
function serverCommand(port: number, word: string): string {
  const js = `require("http").createServer((q,r)=>r.end("${word}")).listen(${port},"127.0.0.1")`;
  return `${JSON.stringify(process.execPath)} -e '${js}'`;
}

describe("commands watched live", () => {
  it("a 6-second loop's output appears line by line while it runs, with its time", async () => {
    const loop = "for i in 1 2 3 4 5 6; do echo tick-$i; sleep 1; done";
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: loop } }] }, { text: "Loop finished." });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await ask(s, "run the loop");
    // collapsed, the running call shows its newest line under it, and its time so far
    await s.waitFor("tick-2", 20_000);
    expect(s.screenText()).not.toContain("tick-6");
    expect(s.screenText()).toMatch(/running \d+\.\ds/);
    // a resize mid-run: the live line follows at the new width
    s.resize(80, 24);
    await s.waitFor("tick-4", 20_000);
    expect(s.screenText()).not.toContain("Loop finished.");
    await s.waitFor("Loop finished.", 30_000);
    // the model got the whole output once the command ended
    expect(toolResults(e2e.fake.requests[1]!.body)).toContain("tick-1\ntick-2\ntick-3\ntick-4\ntick-5\ntick-6");
    expect(await quit(s)).toBe(0);
  }, 60_000);

  it("a 100 MB flood keeps the screen alive and the model's share capped; control characters stay inert", async () => {
    const flood = `head -c 100000000 /dev/zero | tr '\\0' 'x' | fold -w 100; printf 'end\\x1b]0;EVIL-TITLE\\x07-\\x1b[2J-mark\\n'`;
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: flood } }] }, { text: "Flood over." });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await ask(s, "flood the pipe");
    await s.waitFor("xxxxxxxxxx", 30_000);
    await s.waitFor("Flood over.", 120_000);
    const result = toolResults(e2e.fake.requests[1]!.body);
    expect(result.length).toBeLessThan(40_000);
    expect(result).toContain("[exit code 0]");
    expect(s.rawOutput()).not.toContain("EVIL-TITLE\x07");
    expect(s.rawOutput()).not.toContain("\x1b]0;EVIL");
    expect(await quit(s)).toBe(0);
  }, 180_000);
});

describe("background commands", () => {
  it("a server started by the model answers in the next turn and is gone after albedo-tui exits", async () => {
    networkOn();
    const port = await freePort();
    const m = mark("bg-server");
    e2e.fake.script(
      { toolCalls: [{ name: "bash", input: { command: `export ${TEST_MARK_VAR}=${m}; ${serverCommand(port, "hello-from-bg")}`, run_in_background: true } }] },
      { text: "Server started." },
      { toolCalls: [{ name: "bash", input: { command: `curl -s http://127.0.0.1:${port}/ || ${JSON.stringify(process.execPath)} -e 'fetch("http://127.0.0.1:${port}/").then(r=>r.text()).then(console.log)'` } }] },
      { toolCalls: [{ name: "bash_output", input: { id: "shell-1" } }] },
      { text: "It answered." },
    );
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await ask(s, "start the server");
    await s.waitFor("Server started.", 20_000);
    // the turn has ended; the server runs on
    await until("the server to answer", async () => (await answers(port)) === "hello-from-bg");
    await ask(s, "ask the server");
    await s.waitFor("It answered.", 30_000);
    expect(toolResults(e2e.fake.requests[3]!.body)).toContain("hello-from-bg");
    expect(toolResults(e2e.fake.requests[4]!.body)).toMatch(/shell-1 is running/);
    expect(await quit(s)).toBe(0);
    await until("the server to be gone", async () => (await answers(port)) === undefined && markedPids(m).length === 0);
  }, 90_000);

  it("after a SIGKILL of albedo-tui, the guard stops what it left running", async () => {
    networkOn();
    const port = await freePort();
    const m = mark("bg-kill9");
    e2e.fake.script(
      { toolCalls: [{ name: "bash", input: { command: `export ${TEST_MARK_VAR}=${m}; ${serverCommand(port, "still-here")}`, run_in_background: true } }] },
      // and one that left its group and session: only the marker finds it
      { toolCalls: [{ name: "bash", input: { command: `export ${TEST_MARK_VAR}=${m}; setsid sleep 1000 & sleep 0.2; echo ok`, run_in_background: true } }] },
      { text: "Both started." },
    );
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await ask(s, "start it");
    await s.waitFor("Both started.", 20_000);
    await until("the server to answer", async () => (await answers(port)) === "still-here");
    expect(markedPids(m).length).toBeGreaterThanOrEqual(2);
    const logs = path.join(e2e.home.root, "state", "albedo", "shells");
    expect(fs.readdirSync(logs)).toHaveLength(1);
    process.kill(s.pid, "SIGKILL");
    await s.exited();
    await until("the orphans to be gone", async () => (await answers(port)) === undefined && markedPids(m).length === 0);
    // and their logs with them
    await until("the logs to be removed", () => fs.readdirSync(logs).length === 0);
  }, 60_000);

  it("/shells lists them and stops one; the log stays bounded in the state folder under a flood", async () => {
    const m = mark("bg-shells");
    e2e.fake.script(
      { toolCalls: [{ name: "bash", input: { command: `export ${TEST_MARK_VAR}=${m}; sleep 1000`, run_in_background: true } }] },
      { toolCalls: [{ name: "bash", input: { command: "yes flood-line | head -c 100000000; sleep 1000", run_in_background: true } }] },
      { text: "Two running." },
    );
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await ask(s, "start two");
    await s.waitFor("Two running.", 20_000);
    // without the network (the default), the model is told its ports are closed to others
    expect(toolResults(e2e.fake.requests[1]!.body)).toContain("its ports are not reachable from outside the sandbox");
    const logs = (): string[] => {
      const root = path.join(e2e.home.root, "state", "albedo", "shells");
      if (!fs.existsSync(root)) return [];
      return fs.readdirSync(root).flatMap((d) => fs.readdirSync(path.join(root, d)).map((f) => path.join(root, d, f)));
    };
    // the flood has been written through (100 MB), yet at most two 2 MB segments are on disk
    await until("the flood to be logged", () => logs().some((f) => f.endsWith("shell-2.log.1")), 60_000);
    const all = new RegExp(`shell-2\\s+running\\s+\\S+\\s+${formatBytes(100_000_000).replace(".", "\\.")}`);
    await until(
      "the flood to end",
      async () => {
        await ask(s, "/shells");
        await s.waitFor("Background commands");
        await s.settle(200);
        return all.test(s.screenText());
      },
      60_000,
    );
    const total = logs().reduce((n, f) => n + fs.statSync(f).size, 0);
    expect(total).toBeLessThanOrEqual(2 * 2 * 1024 * 1024);
    expect(logs().every((f) => !f.startsWith(e2e.home.workspace))).toBe(true);
    expect(s.screenText()).toMatch(/shell-1\s+running/);
    await ask(s, "/shells stop shell-1");
    await s.waitFor("shell-1 stopped", 20_000);
    await until("its processes to be gone", () => markedPids(m).length === 0);
    expect(await quit(s)).toBe(0);
    // the session's end removed the logs
    expect(logs()).toEqual([]);
  }, 120_000);
});
