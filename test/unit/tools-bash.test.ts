import fs from "node:fs/promises";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
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

  it("returns when the shell exits even if a background process keeps running", async () => {
    const r = await bash({ command: "sleep 30 & echo $! > bg.pid; echo started" });
    leftovers.push(await pidFrom("bg.pid"));
    expect(r.output).toBe(
      "started\n[exit code 0]\n[background processes are still running; their later output is not captured]",
    );
  });

  it("rejects a timeout above the maximum by naming the field", async () => {
    const r = await bash({ command: "true", timeout_ms: 10_000_000 });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^invalid input for bash: timeout_ms: /);
  });
});
