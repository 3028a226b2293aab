// How one hook command runs: bash -c in the workspace, in its own process group with the
// tool-run marker (tools/processes.ts), the event as JSON on stdin, bounded in time and in
// output, with an environment that holds no configured key. Whatever the hook leaves running
// is stopped when it ends, and when it is stopped at its time limit, so no child outlives it.
// Hooks run as the user's own commands (an approved workspace's, or the config folder's), not
// inside the tools' sandbox: every hook start goes through spawnHook, the one place a
// sandbox would wrap it.
import { spawn, type ChildProcess } from "node:child_process";
import { beginRun, endRun, stopToolProcesses } from "../tools/processes.js";
import { HeadTailBuffer } from "../tools/cap.js";

/** what a hook may print on each stream that is kept (the rest is cut, and said so) */
export const HOOK_OUTPUT_MAX = 16 * 1024;
/** Claude Code's default: 60 s */
export const HOOK_DEFAULT_TIMEOUT_S = 60;
export const HOOK_MAX_TIMEOUT_S = 600;

const HIDDEN_ENV = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

export interface HookSpawn {
  command: string;
  cwd: string;
  stdin: string;
  timeoutMs: number;
  /** the configured keys: a variable holding one is not passed on */
  secrets: readonly string[];
  /** added to the environment (CLAUDE_PROJECT_DIR…) */
  env: Record<string, string>;
  signal?: AbortSignal;
  redact?: (t: string) => string;
}

export interface HookExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** it could not be started: why */
  failed?: string;
}

/** The environment a hook gets: the process's, without the keys. */
export function hookEnv(secrets: readonly string[], extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };
  for (const k of HIDDEN_ENV) delete env[k];
  for (const [k, v] of Object.entries(env)) if (v && secrets.some((s) => s.length >= 8 && v.includes(s))) delete env[k];
  return { ...env, ...extra };
}

/** Runs one hook command to its end (or its time limit); never throws. */
export function spawnHook(h: HookSpawn): Promise<HookExit> {
  return new Promise((resolve) => {
    const out = new HeadTailBuffer(HOOK_OUTPUT_MAX / 2, HOOK_OUTPUT_MAX / 2, 1024);
    const err = new HeadTailBuffer(HOOK_OUTPUT_MAX / 2, HOOK_OUTPUT_MAX / 2, 1024);
    const run = beginRun(h.signal);
    let child: ChildProcess;
    try {
      child = spawn("bash", ["-c", h.command], {
        cwd: h.cwd,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...hookEnv(h.secrets, h.env), ...run.env() },
      });
    } catch (e) {
      endRun(run);
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, failed: (e as Error).message });
      return;
    }
    let settled = false;
    let timedOut = false;
    const finish = (r: HookExit): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      h.signal?.removeEventListener("abort", onAbort);
      // what the hook started and left behind goes with it
      void stopToolProcesses({ runs: [run], graceMs: 500 }).then(() => resolve(r));
    };
    child.on("error", (e) => finish({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, failed: e.message }));
    run.pgid = child.pid;
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    // a hook that never reads its stdin closes the pipe: not its failure
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(h.stdin);
    const stop = (): void => void stopToolProcesses({ runs: [run], graceMs: 500 });
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, h.timeoutMs);
    const onAbort = (): void => stop();
    h.signal?.addEventListener("abort", onAbort, { once: true });
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const report = (): void => finish({ ...(exit ?? { code: null, signal: null }), stdout: out.text(h.redact), stderr: err.text(h.redact), timedOut });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // a child that keeps the pipes open must not hold the hook's answer
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        report();
      }, 200).unref();
    });
    child.on("close", report);
  });
}
