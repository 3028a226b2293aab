// Tool processes do not outlive their turn, and a tool that cannot start is a tool error:
// the built CLI as a real process (headless), the strict fake provider over loopback, real
// bash, real background jobs (`&`, nohup, setsid, disown), real signals to the agent. Every
// command the agent runs carries a marker in its environment; /proc is scanned for it after.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, startCli, waitUntil, type Home } from "../helpers/cli.js";
import { BACKGROUND_FORMS, backgroundForms, cmdline, killMarked, markedPids, newMark, TEST_MARK_VAR } from "../helpers/procs.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-albedo-PROCS-5150";
let fake: FakeProvider;
let home: Home;
const marks: string[] = [];

// a fresh fake per test: a run stopped by a signal leaves its unused steps in the queue
beforeEach(async () => {
  fake = await startFakeProvider({ key: KEY });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
});
afterEach(async () => {
  await fake.close();
  // a failed test must not leave sleeps behind for the next one (or the machine)
  for (const m of marks.splice(0)) killMarked(m);
  await fs.rm(home.root, { recursive: true, force: true });
});

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];

function mark(label: string): string {
  const m = newMark(label);
  marks.push(m);
  return m;
}

async function record(h: Home) {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    return { session: s!, ...(await store.loadHistory(s!.id)) };
  } finally {
    await store.close();
  }
}

/** the processes left with the marker, named, so a failure says what survived */
const survivors = (m: string): string[] => markedPids(m).map((p) => `${p}: ${cmdline(p)}`);

describe("a signal to a headless run", () => {
  for (const [sig, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`${sig} while bash runs: the turn is interrupted and kept, every background form is stopped, exit ${code}`, async () => {
      const m = mark(sig);
      fake.script({ toolCalls: [{ name: "bash", input: { command: backgroundForms(m) } }] }, { text: "never asked for" });
      const run = startCli(["-p", "start things", "--permission", "auto", "--sandbox", "off", ...anthropic()], home);
      await waitUntil(() => markedPids(m).length >= BACKGROUND_FORMS + 1, 20_000, "the command's processes to start");
      run.child.kill(sig);
      const r = await run.done;
      expect(r.signal).toBeNull();
      expect(r.code).toBe(code);
      expect(r.stderr).toContain(`albedo-tui: stopped by ${sig}`);
      // the background jobs are gone with the agent (zombies awaiting their reaper count as gone)
      await waitUntil(() => markedPids(m).length === 0, 10_000, `no process left (${survivors(m).join("; ")})`).catch((e: Error) => {
        throw new Error(`${e.message}: ${survivors(m).join("; ")}`);
      });
      // what arrived is kept: the prompt, the call, and the call's result saying it was interrupted
      const rec = await record(home);
      expect(rec.bad).toEqual([]);
      expect(rec.messages.map((x) => x.role)).toEqual(["user", "assistant", "user"]);
      expect(rec.messages[2]!.blocks[0]).toMatchObject({ type: "tool_result", name: "bash", isError: true });
      expect(JSON.stringify(rec.messages[2]!.blocks[0])).toContain("interrupted");
      expect(fake.requests).toHaveLength(1);
    });
  }
});

describe("the end of a turn", () => {
  it("stops the background work of every command, which lived until then and was reported", async () => {
    const m = mark("turnend");
    fake.script(
      { toolCalls: [{ name: "bash", input: { command: backgroundForms(m, false) } }] },
      // the next call of the same turn still finds them running
      { toolCalls: [{ name: "bash", input: { command: `grep -l '${TEST_MARK_VAR}=${m}' /proc/[0-9]*/environ 2>/dev/null | wc -l` } }] },
      { text: "done" },
    );
    const r = await runCli(["-p", "start things", "--permission", "auto", "--sandbox", "off", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("done\n");
    expect(survivors(m)).toEqual([]);
    const rec = await record(home);
    const first = rec.messages[2]!.blocks[0] as { output: string; isError: boolean };
    expect(first.isError).toBe(false);
    expect(first.output).toBe(
      "started\n[exit code 0]\n[background processes are still running; they will be stopped when this turn ends, and their later output is not captured]",
    );
    const second = rec.messages[4]!.blocks[0] as { output: string };
    // the grep's own shell carries its run's marker, not the test's: all counted are the jobs
    expect(Number(second.output.split("\n")[0])).toBe(BACKGROUND_FORMS);
  });
});

describe("a tool that cannot start", () => {
  it("names a workspace that was removed, and the agent goes on", async () => {
    fake.script(
      { toolCalls: [{ name: "bash", input: { command: `rm -rf '${home.workspace}'` } }] },
      { toolCalls: [{ name: "bash", input: { command: "echo hi" } }] },
      { text: "carried on" },
    );
    const r = await runCli(["-p", "remove it", "--permission", "auto", "--sandbox", "off", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("carried on\n");
    const rec = await record(home);
    expect(rec.messages[4]!.blocks[0]).toEqual({
      type: "tool_result",
      toolUseId: expect.any(String),
      name: "bash",
      output: `could not start bash: the workspace folder ${home.workspace} no longer exists`,
      isError: true,
    });
  });

  it("says bash is not on PATH, and the agent goes on", async () => {
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo hi" } }] }, { text: "carried on" });
    const r = await runCli(["-p", "run it", "--permission", "auto", "--sandbox", "off", ...anthropic()], home, { PATH: path.join(home.root, "no-such-bin") });
    expect(r.code, r.stderr).toBe(0);
    const rec = await record(home);
    expect((rec.messages[2]!.blocks[0] as { output: string }).output).toBe(
      `could not start bash: no bash found on PATH (${path.join(home.root, "no-such-bin")})`,
    );
  });

  it("runs out of file descriptors under a flood of connections to --api: the API sheds them and bash still starts", async () => {
    const m = mark("flood");
    const go = path.join(home.root, "go");
    fake.script(
      // keeps the turn going while the flood is built up
      { toolCalls: [{ name: "bash", input: { command: `export ${TEST_MARK_VAR}=${m}; while [ ! -e '${go}' ]; do sleep 0.05; done` } }] },
      { toolCalls: [{ name: "bash", input: { command: "echo spawned under the flood" } }] },
      { text: "still here" },
    );
    // a low descriptor limit, as on a small machine: the flood is bigger than it
    const LIMIT = 256;
    const FLOOD = 600;
    const { spawn } = await import("node:child_process");
    const child = spawn("prlimit", [`--nofile=${LIMIT}:${LIMIT}`, process.execPath, CLI, "-p", "flood", "--api", "--permission", "auto", "--sandbox", "off", ...anthropic()], {
      cwd: home.workspace,
      env: home.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await waitUntil(() => markedPids(m).length > 0, 20_000, "the first command to run");
    const port = Number(/local API on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]);
    expect(port).toBeGreaterThan(0);

    const sockets: net.Socket[] = [];
    await Promise.all(
      Array.from(
        { length: FLOOD },
        () =>
          new Promise<void>((resolve) => {
            const s = net.connect(port, "127.0.0.1");
            sockets.push(s);
            s.on("connect", () => resolve());
            s.on("error", () => resolve()); // shed by the server, or refused by the kernel
            s.on("close", () => resolve());
          }),
      ),
    );
    // give the server time to accept (and shed) what it can, then let the turn go on
    await new Promise((r) => setTimeout(r, 500));
    await fs.writeFile(go, "");
    const code = await done;
    for (const s of sockets) s.destroy();
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("still here\n");
    const rec = await record(home);
    expect(rec.messages[4]!.blocks[0]).toMatchObject({ output: "spawned under the flood\n[exit code 0]", isError: false });
  });
});

describe("two --api instances at once", () => {
  it("each has its own token file, named on stderr and removed when it ends (normally or by SIGTERM)", async () => {
    const goA = path.join(home.root, "go-a");
    const wait = (f: string) => `while [ ! -e '${f}' ]; do sleep 0.05; done`;
    const m = mark("api");
    fake.script(
      { toolCalls: [{ name: "bash", input: { command: `export ${TEST_MARK_VAR}=${m}; sleep 1000 & ${wait(goA)}` } }] },
      { toolCalls: [{ name: "bash", input: { command: `export ${TEST_MARK_VAR}=${m}; sleep 1000` } }] },
      { text: "a done" },
    );
    const a = startCli(["-p", "a", "--api", "--permission", "auto", "--sandbox", "off", ...anthropic()], home);
    const b = startCli(["-p", "b", "--api", "--permission", "auto", "--sandbox", "off", ...anthropic()], home);
    await waitUntil(() => markedPids(m).length >= 2, 20_000, "both runs to be inside their tool");
    const line = /local API on http:\/\/127\.0\.0\.1:(\d+) \(token in ([^)]+)\)/;
    // the line is written before the turn starts, but this process may not have read the pipe
    // yet when /proc already shows the tools (seen once in CI: an empty stderr)
    await waitUntil(() => line.test(a.stderr()) && line.test(b.stderr()), 20_000, "both runs to name their API");
    const ma = line.exec(a.stderr())!;
    const mb = line.exec(b.stderr())!;
    expect(ma, a.stderr()).not.toBeNull();
    expect(mb, b.stderr()).not.toBeNull();
    const stateDir = path.join(home.env.XDG_STATE_HOME as string, "albedo");
    expect(ma[2]).toBe(path.join(stateDir, `api-token-${ma[1]}`));
    expect(mb[2]).toBe(path.join(stateDir, `api-token-${mb[1]}`));
    expect(ma[2]).not.toBe(mb[2]);
    const tokA = (await fs.readFile(ma[2]!, "utf8")).trim();
    const tokB = (await fs.readFile(mb[2]!, "utf8")).trim();
    expect(tokA).not.toBe(tokB);
    for (const f of [ma[2]!, mb[2]!]) expect((await fs.stat(f)).mode & 0o777).toBe(0o600);
    // each token opens its own server and not the other
    expect(await health(Number(ma[1]), tokA)).toBe(200);
    expect(await health(Number(mb[1]), tokB)).toBe(200);
    expect(await health(Number(ma[1]), tokB)).toBe(401);
    expect(await health(Number(mb[1]), tokA)).toBe(401);

    // which run holds which step is a race; release whichever is waiting, stop the other
    await fs.writeFile(goA, "");
    const ended = await Promise.race([a.done.then(() => "a" as const), b.done.then(() => "b" as const)]);
    const [first, other, fm, om] = ended === "a" ? [a, b, ma, mb] : [b, a, mb, ma];
    expect((await first.done).code, first.stderr()).toBe(0);
    await expect(fs.stat(fm[2]!)).rejects.toThrow();
    // the other one still serves with its file in place
    expect((await fs.readFile(om[2]!, "utf8")).trim()).toBe(ended === "a" ? tokB : tokA);
    other.child.kill("SIGTERM");
    expect((await other.done).code).toBe(143);
    await expect(fs.stat(om[2]!)).rejects.toThrow();
    expect(survivors(m)).toEqual([]);
  });
});

function health(port: number, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/health", headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}
