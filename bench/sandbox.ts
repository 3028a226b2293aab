// The cost of the command sandbox: starting `true`, and `ls` of a workspace, through bubblewrap
// (the arguments albedo-tui builds, spawn-command.ts) against the same command started plainly,
// alternately, medians and the ratio. Each sample waits for the process to end.
import { spawn } from "node:child_process";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { commandLine, probeSandbox, type CommandSandbox } from "../src/tools/spawn-command.js";
import { fmtMs, median, now, skipped, type Row } from "./lib.js";

function runOnce(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = now();
  return new Promise((resolve, reject) => {
    const c = spawn(file, args, { cwd, env, stdio: "ignore" });
    c.on("error", reject);
    c.on("close", (code) => (code === 0 ? resolve(now() - t0) : reject(new Error(`${file} exited ${code}`))));
  });
}

export async function benchSandbox(quick: boolean): Promise<Row[]> {
  const probe = await probeSandbox();
  if (!probe.ok) return [skipped("sandbox start", probe.why)];
  const ws = await fsp.mkdtemp(path.join(os.tmpdir(), "albedo-bench-sbx-"));
  for (let i = 0; i < 200; i++) await fsp.writeFile(path.join(ws, `f${i}.txt`), "x");
  const sandbox: CommandSandbox = { bwrap: probe.bwrap, mode: "workspace-write", workspace: ws, network: false, hidden: [] };
  const runs = quick ? 5 : 30;
  const rows: Row[] = [];
  try {
    for (const [name, file, args] of [
      ["true", "true", []],
      ["ls of the workspace", "ls", ["-la", ws]],
    ] as const) {
      const boxed = commandLine({ file, args: [...args], cwd: ws, env: {}, stdio: "ignore", sandbox });
      const plain = commandLine({ file, args: [...args], cwd: ws, env: {}, stdio: "ignore" });
      const a: number[] = [];
      const f: number[] = [];
      const ratios: number[] = [];
      await runOnce(boxed.file, boxed.args, ws, boxed.env); // warm the page cache
      for (let i = 0; i < runs; i++) {
        const x = await runOnce(boxed.file, boxed.args, ws, boxed.env);
        const y = await runOnce(plain.file, plain.args, ws, plain.env);
        a.push(x);
        f.push(y);
        ratios.push(x / y);
      }
      rows.push({
        benchmark: `sandboxed command start: ${name}`,
        albedo: fmtMs(median(a)),
        floor: `${fmtMs(median(f))} unsandboxed`,
        ratio: median(ratios),
        target: "— (no target)",
        met: null,
        raw: { sandboxedMs: a, plainMs: f, ratios },
      });
    }
  } finally {
    await fsp.rm(ws, { recursive: true, force: true });
  }
  return rows;
}
