// Background commands (tools/background.ts and the bash_output / bash_stop tools) with real
// processes and a real state folder: reads are incremental and bounded, a flood keeps at most
// two log segments on disk, a stop ends the whole group, and the session's end removes the logs.
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BackgroundShells, LOG_SEGMENT_BYTES } from "../../src/tools/background.js";
import { bashTool } from "../../src/tools/bash.js";
import { bashOutputTool, bashStopTool } from "../../src/tools/shell-tools.js";
import type { ToolContext } from "../../src/tools/types.js";
import { killMarked, markedPids, newMark, TEST_MARK_VAR } from "../helpers/procs.js";

const dirs: string[] = [];
const marks: string[] = [];
afterEach(() => {
  for (const m of marks.splice(0)) killMarked(m);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup(): { shells: BackgroundShells; logs: string; ctx: ToolContext } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-bg-"));
  dirs.push(root);
  const ws = path.join(root, "ws");
  fs.mkdirSync(ws);
  const logs = path.join(root, "state", "shells", "x");
  const shells = new BackgroundShells(() => logs);
  const ctx: ToolContext = { workspace: ws, signal: new AbortController().signal, policy: "auto", askPermission: () => Promise.resolve("deny"), shells };
  return { shells, logs, ctx };
}

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("background commands", () => {
  it("bash run_in_background returns at once; bash_output reads only what is new, bounded to the newest, and says when it ended", async () => {
    const { shells, logs, ctx } = setup();
    const started = await bashTool.run({ command: "echo first; sleep 0.5; head -c 5000000 /dev/zero | tr '\\0' a; echo; echo LAST-LINE", run_in_background: true }, ctx);
    expect(started).toEqual({ output: expect.stringContaining("started in the background as shell-1"), isError: false });
    await until(() => shells.list()[0]!.state === "exited", "the command to end");
    const r = await bashOutputTool.run({ id: "shell-1" }, ctx);
    expect(r.output.length).toBeLessThan(31_000);
    expect(r.output).toMatch(/^\[\d+ earlier bytes not shown\]\n/);
    expect(r.output).toMatch(/LAST-LINE\n\[shell-1 has ended: exit code 0 after \d+ s\]$/);
    const again = await bashOutputTool.run({ id: "shell-1" }, ctx);
    expect(again.output).toMatch(/^\(no new output\)\n\[shell-1 has ended/);
    // 5 MB written, at most two segments kept
    const onDisk = fs.readdirSync(logs).reduce((n, f) => n + fs.statSync(path.join(logs, f)).size, 0);
    expect(onDisk).toBeLessThanOrEqual(2 * LOG_SEGMENT_BYTES);
    expect(shells.list()[0]!.bytes).toBeGreaterThan(5_000_000);
    expect((await bashOutputTool.run({ id: "shell-9" }, ctx)).output).toBe('no background command "shell-9"; the ids are: shell-1');
    await shells.stopAll();
    expect(fs.existsSync(logs)).toBe(false);
  });

  it("bash_stop ends the command and everything it started; stopAll ends the rest", async () => {
    const { shells, ctx } = setup();
    const m = newMark("bg-unit");
    marks.push(m);
    await bashTool.run({ command: `export ${TEST_MARK_VAR}=${m}; sleep 1000 & setsid sleep 1000 & echo up; wait`, run_in_background: true }, ctx);
    await bashTool.run({ command: `export ${TEST_MARK_VAR}=${m}-2; sleep 1000`, run_in_background: true }, ctx);
    marks.push(`${m}-2`);
    await until(() => markedPids(m).length >= 2 && markedPids(`${m}-2`).length >= 1, "the processes to start");
    const stopped = await bashStopTool.run({ id: "shell-1" }, ctx);
    expect(stopped.output).toMatch(/^\[shell-1 was stopped: stopped after \d+ s\]$/);
    expect(markedPids(m)).toEqual([]);
    expect(shells.list().map((i) => [i.id, i.state])).toEqual([
      ["shell-1", "stopped"],
      ["shell-2", "running"],
    ]);
    await shells.stopAll();
    expect(markedPids(`${m}-2`)).toEqual([]);
  });

  it.skipIf(!fs.existsSync("/usr/bin/bwrap"))("in the sandbox, what it starts outlives its shell until bash_stop; without network it is told its ports are closed", async () => {
    const { shells, ctx } = setup();
    const m = newMark("bg-sandbox");
    marks.push(m);
    const sandbox = { mode: "workspace-write" as const, workspace: ctx.workspace, network: false, hidden: [], bwrap: "/usr/bin/bwrap" };
    const boxed: ToolContext = { ...ctx, sandbox };
    const r = await bashTool.run({ command: `export ${TEST_MARK_VAR}=${m}; setsid sleep 1000 & nohup sleep 1001 >/dev/null 2>&1 & echo up`, run_in_background: true }, boxed);
    expect(r.output).toContain("started in the background as shell-1");
    expect(r.output).toContain("its ports are not reachable from outside the sandbox");
    await until(() => shells.read("shell-1", 1000)?.text.includes("up") === true, "the shell to print");
    // its shell is done, yet what it started runs on, and the command counts as running
    await until(() => markedPids(m).length >= 2, "the processes to start");
    await new Promise((res) => setTimeout(res, 1_000));
    expect(markedPids(m).length).toBeGreaterThanOrEqual(2);
    expect(shells.list()[0]!.state).toBe("running");
    await bashStopTool.run({ id: "shell-1" }, boxed);
    await until(() => markedPids(m).length === 0, "everything it started to be stopped");
    // with the network on, nothing to warn about; a command that starts nothing ends with its status
    const open = await bashTool.run({ command: "exit 3", run_in_background: true }, { ...ctx, sandbox: { ...sandbox, network: true } });
    expect(open.output).not.toContain("not reachable");
    await until(() => shells.list()[1]!.state === "exited", "the second command to end");
    expect(shells.list()[1]!.status).toBe("exit code 3");
    await shells.stopAll();
  });

  it("without the session's shells (headless tools), run_in_background says so instead of starting", async () => {
    const { ctx } = setup();
    const { shells: _, ...bare } = ctx;
    const r = await bashTool.run({ command: "echo hi", run_in_background: true }, bare);
    expect(r).toEqual({ output: "background commands are not available here; run it without run_in_background", isError: true });
  });
});
