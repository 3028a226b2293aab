import fs from "node:fs/promises";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
import { stopToolProcesses, trackedRuns } from "../../src/tools/processes.js";
import { makeContext, removeTempFolders, tempFolder, type TestContext } from "./tools-fixture.js";

const tools = builtinTools();
let ws: string;
let t: TestContext;
const bash = (input: unknown) => runTool(tools, "bash", input, t.ctx, new PermissionMemory());
const leftovers: number[] = [];

beforeEach(async () => {
  ws = await tempFolder();
  t = makeContext(ws);
});
afterAll(async () => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await removeTempFolders();
});

/** Gone, or a zombie nobody has reaped yet (it runs nothing either way). */
function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
    return state === "Z" || state === "X";
  } catch {
    return true;
  }
}

async function waitUntil(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let k = 0; k < 200; k++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

const exists = (p: string) => fs.access(p).then(() => true, () => false);
const pidFrom = async (file: string) => Number((await fs.readFile(path.join(ws, file), "utf8")).trim());

describe("bash", () => {
  it("reports output and exit code 0", async () => {
    expect(await bash({ command: "echo hi" })).toEqual({ output: "hi\n[exit code 0]", isError: false });
  });

  it("reports a failing exit code as an error, with the output", async () => {
    expect(await bash({ command: "echo partial; exit 3" })).toEqual({ output: "partial\n[exit code 3]", isError: true });
  });

  it("runs in the workspace", async () => {
    expect((await bash({ command: "pwd" })).output).toBe(`${ws}\n[exit code 0]`);
  });

  it("interleaves stdout and stderr in the order they were written", async () => {
    const r = await bash({ command: "echo a; echo b >&2; echo c; echo d >&2" });
    expect(r.output).toBe("a\nb\nc\nd\n[exit code 0]");
  });

  it("captures the shell's own errors", async () => {
    const r = await bash({ command: "no_such_command_xyz" });
    expect(r.output).toMatch(/^bash: line 1: no_such_command_xyz: command not found\n\[exit code 127\]$/);
    expect(r.isError).toBe(true);
  });

  it("closes stdin so a reader gets end-of-file instead of waiting", async () => {
    expect((await bash({ command: "cat; read x || echo eof" })).output).toBe("eof\n[exit code 0]");
  });

  it("says when there was no output", async () => {
    expect((await bash({ command: "true" })).output).toBe("(no output)\n[exit code 0]");
  });

  it("does not pass the provider keys to commands", async () => {
    const before = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "sk-ant-test-secret";
    try {
      expect((await bash({ command: 'echo "[${ANTHROPIC_API_KEY-}]"' })).output).toBe("[]\n[exit code 0]");
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = before;
    }
  });

  it("caps long output, keeping the start and the end with a note of what was cut", async () => {
    const r = await bash({ command: "echo START; head -c 100000 /dev/zero | tr '\\0' a; echo; echo END" });
    expect(r.output.length).toBeLessThan(31_000);
    expect(r.output.startsWith("START\naaa")).toBe(true);
    expect(r.output.endsWith("aaa\nEND\n[exit code 0]")).toBe(true);
    // START\n (6) + 100000 a + \n + END\n (4) = 100011 bytes, 30000 of them kept
    expect(r.output).toContain("\n[… 70,011 bytes cut …]\n");
  });

  it("times out, stops the whole process group and keeps what was printed", async () => {
    const r = await bash({
      command: "echo before; sleep 30 & echo $! > child.pid; sleep 30; echo after",
      timeout_ms: 300,
    });
    expect(r.isError).toBe(true);
    expect(r.output).toBe("before\n[timed out after 0.3 s; the command and its child processes were stopped]");
    const child = await pidFrom("child.pid");
    leftovers.push(child);
    await waitUntil(() => processGone(child), `background sleep ${child} to end`);
  });

  it("kills a child that ignores SIGTERM", async () => {
    const r = await bash({
      command: "bash -c 'trap \"\" TERM; echo $$ > stubborn.pid; sleep 30' ; echo never",
      timeout_ms: 300,
    });
    expect(r.output).toMatch(/timed out after 0\.3 s/);
    const stubborn = await pidFrom("stubborn.pid");
    leftovers.push(stubborn);
    await waitUntil(() => processGone(stubborn), `SIGTERM-ignoring process ${stubborn} to be killed`);
  });

  it("is interrupted by the abort signal, and its processes end", async () => {
    const running = bash({ command: "sleep 30 & echo $! > child.pid; touch started; wait; echo after" });
    await waitUntil(() => exists(path.join(ws, "started")), "the command to start");
    t.controller.abort();
    const r = await running;
    expect(r).toEqual({ output: "interrupted", isError: true });
    const child = await pidFrom("child.pid");
    leftovers.push(child);
    await waitUntil(() => processGone(child), `sleep ${child} to end after abort`);
  });

  it("returns when the shell exits even if a background process keeps running, which the turn's end stops", async () => {
    const r = await bash({ command: "sleep 30 & echo $! > bg.pid; echo started" });
    const bg = await pidFrom("bg.pid");
    leftovers.push(bg);
    expect(r.output).toBe(
      "started\n[exit code 0]\n[background processes are still running; they will be stopped when this turn ends, and their later output is not captured]",
    );
    expect(processGone(bg)).toBe(false);
    // another turn's end leaves it alone; its own turn's end stops it
    await stopToolProcesses({ owner: new AbortController().signal });
    expect(processGone(bg)).toBe(false);
    expect(await stopToolProcesses({ owner: t.ctx.signal })).toBe(1);
    expect(processGone(bg)).toBe(true);
  });

  it("notices background work that holds no pipe (setsid, output elsewhere), and the turn's end stops it", async () => {
    const r = await bash({ command: "setsid sleep 30 > /dev/null 2>&1 < /dev/null & echo $! > bg.pid; sleep 0.2; echo started" });
    expect(r.output).toMatch(/\[background processes are still running; they will be stopped when this turn ends/);
    // setsid may fork: the sleep is whatever carries the run's marker, found by the registry
    expect(await stopToolProcesses({ owner: t.ctx.signal })).toBe(1);
    expect(trackedRuns()).toBe(0);
  });

  it("says nothing of background work when there is none, and keeps no record of the run", async () => {
    expect((await bash({ command: "sleep 0.1 & wait; echo done" })).output).toBe("done\n[exit code 0]");
    expect(trackedRuns()).toBe(0);
  });

  it("stops a setsid process (a new session, outside the group) on timeout and on interrupt", async () => {
    const setsidSleep = "setsid bash -c 'echo $$ > escaped.pid; exec sleep 30' > /dev/null 2>&1 < /dev/null &";
    const r = await bash({ command: `${setsidSleep} until [ -s escaped.pid ]; do sleep 0.02; done; sleep 30`, timeout_ms: 500 });
    expect(r.output).toMatch(/timed out after 0\.5 s; the command and its child processes were stopped/);
    const escaped = await pidFrom("escaped.pid");
    leftovers.push(escaped);
    await waitUntil(() => processGone(escaped), `setsid sleep ${escaped} to end after the timeout`);

    await fs.rm(path.join(ws, "escaped.pid"));
    const running = bash({ command: `${setsidSleep} until [ -s escaped.pid ]; do sleep 0.02; done; sleep 30` });
    await waitUntil(async () => (await pidFrom("escaped.pid").catch(() => 0)) > 0, "the setsid process to start");
    t.controller.abort();
    expect((await running).output).toMatch(/^interrupted/);
    const second = await pidFrom("escaped.pid");
    leftovers.push(second);
    await waitUntil(() => processGone(second), `setsid sleep ${second} to end after the interrupt`);
  });

  it("a spawn that fails is a tool error naming the cause: the workspace folder is gone", async () => {
    await stopToolProcesses(); // whatever earlier tests are still stopping
    expect(trackedRuns()).toBe(0);
    await fs.rm(ws, { recursive: true });
    expect(await bash({ command: "echo hi" })).toEqual({
      output: `could not start bash: the workspace folder ${ws} no longer exists`,
      isError: true,
    });
    expect(trackedRuns()).toBe(0);
  });

  it("a spawn without file descriptors (EMFILE) is a tool error, and the process lives on", async () => {
    // a real EMFILE: a node process with a low descriptor limit (room to load its modules) uses
    // them all, then runs the tool
    const dir = await tempFolder();
    const script = path.join(dir, "starve.mts");
    await fs.writeFile(
      script,
      `import fs from "node:fs";
const { builtinTools, runTool, PermissionMemory } = await import(process.argv[2]);
const held = [];
try { for (;;) held.push(fs.openSync("/dev/null", "r")); } catch (e) { if (e.code !== "EMFILE") throw e; }
const ctx = { workspace: process.cwd(), policy: "auto", signal: new AbortController().signal, askPermission: async () => "deny" };
const starved = await runTool(builtinTools(), "bash", { command: "echo hi" }, ctx, new PermissionMemory());
for (const fd of held) fs.closeSync(fd);
const after = await runTool(builtinTools(), "bash", { command: "echo after" }, ctx, new PermissionMemory());
process.stdout.write(JSON.stringify({ held: held.length, starved, after }));
`,
    );
    const tsx = path.resolve(import.meta.dirname, "../../node_modules/tsx/dist/esm/index.mjs");
    const runTs = path.resolve(import.meta.dirname, "../../src/tools/run.ts");
    const r = spawnSync("prlimit", ["--nofile=256:256", process.execPath, "--import", tsx, script, runTs], { cwd: dir, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout) as { held: number; starved: unknown; after: unknown };
    expect(got.held).toBeGreaterThan(0);
    expect(got.starved).toEqual({
      output:
        "could not start bash: too many open files (EMFILE): albedo-tui has no file descriptor left for the command's pipes; close other connections to it, or raise the limit (ulimit -n)",
      isError: true,
    });
    expect(got.after).toEqual({ output: "after\n[exit code 0]", isError: false });
  });

  it("refuses a command holding a NUL character by naming it", async () => {
    expect(await bash({ command: "echo a\0b" })).toEqual({
      output: "invalid input for bash: command: must not contain a NUL character",
      isError: true,
    });
  });

  it("rejects a timeout above the maximum by naming the field", async () => {
    const r = await bash({ command: "true", timeout_ms: 10_000_000 });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^invalid input for bash: timeout_ms: /);
  });
});
