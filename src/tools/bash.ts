// bash: one command in the workspace. It runs as its own process group, registered with
// processes.ts, so a timeout or an interrupt stops everything it started, not only the shell,
// and what it leaves running in the background is stopped when the turn ends.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import { z } from "zod";
import { messageOf } from "../record/errors.js";
import type { ToolDef, ToolOutput } from "./types.js";
import { HeadTailBuffer } from "./cap.js";
import { beginRun, endRun, runAlive, stopToolProcesses } from "./processes.js";
import { spawnCommand } from "./spawn-command.js";
import { sandboxRefusal } from "./sandbox.js";

const DEFAULT_BASH_TIMEOUT_MS = 120_000;
const MAX_BASH_TIMEOUT_MS = 600_000;
/** Characters of output kept: half from the start, half from the end. */
export const BASH_OUTPUT_MAX = 30_000;
/** After the shell exits, how long to wait for background children to release the pipes. */
const PIPE_DRAIN_MS = 250;

/** Variables the model's commands never see: the provider keys belong to albedo-tui alone. */
const HIDDEN_ENV = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

const input = z.object({
  command: z
    .string()
    .min(1)
    // an argument to exec cannot hold one; say so instead of failing inside spawn
    .refine((s) => !s.includes("\0"), { message: "must not contain a NUL character" })
    .describe("Shell command, run with bash -c in the workspace folder; stdin is closed"),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_BASH_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most ${MAX_BASH_TIMEOUT_MS})`),
});

/** what an unsandboxed command starts from: albedo-tui's environment less the keys */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of HIDDEN_ENV) delete env[k];
  return env;
}

const COMMAND_ENV = { PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };

/** Why bash could not start, in words naming the cause (the workspace, PATH, descriptors…). */
function spawnFailure(err: unknown, workspace: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const folderProblem = (): string | undefined => {
    try {
      if (!fs.statSync(workspace).isDirectory()) return `the workspace ${workspace} is not a folder`;
      fs.accessSync(workspace, fs.constants.X_OK);
      return undefined;
    } catch (e) {
      const c = (e as NodeJS.ErrnoException).code;
      if (c === "ENOENT") return `the workspace folder ${workspace} no longer exists`;
      if (c === "EACCES") return `the workspace folder ${workspace} cannot be entered (permission denied)`;
      return `the workspace folder ${workspace} cannot be used (${c ?? String(e)})`;
    }
  };
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
    case "EACCES":
      return (
        folderProblem() ??
        (code === "EACCES"
          ? "bash cannot be run (permission denied)"
          : `no bash found on PATH (${process.env.PATH === undefined ? "PATH is not set" : process.env.PATH})`)
      );
    case "EMFILE":
      return "too many open files (EMFILE): albedo-tui has no file descriptor left for the command's pipes; close other connections to it, or raise the limit (ulimit -n)";
    case "ENFILE":
      return "too many open files on this system (ENFILE): the system's file table is full";
    case "EAGAIN":
      return "too many processes (EAGAIN): the system refused to start another; try again when some have ended";
    case "ENOMEM":
      return "not enough memory to start a process (ENOMEM)";
    default:
      return messageOf(err);
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

export const bashTool: ToolDef<typeof input> = {
  name: "bash",
  kind: "exec",
  description:
    "Run a shell command (bash -c) in the workspace. stdout and stderr come back together with the exit code; " +
    `long output keeps its start and end. Default timeout ${DEFAULT_BASH_TIMEOUT_MS / 1000} s. ` +
    "No stdin: interactive programs get end-of-file.",
  input,
  sandboxed: true,
  summarize: (i) => `bash: ${i.command.split("\n")[0]}${i.command.includes("\n") ? " …" : ""}`,
  run(i, ctx): Promise<ToolOutput> {
    const timeoutMs = i.timeout_ms ?? DEFAULT_BASH_TIMEOUT_MS;
    if (ctx.signal.aborted) return Promise.resolve({ output: "interrupted", isError: true });

    return new Promise<ToolOutput>((resolve) => {
      // 1 KB beyond each side of the cut: longer than any provider key, so a key straddling
      // the cut is redacted whole before the output is cut to size
      const out = new HeadTailBuffer(BASH_OUTPUT_MAX / 2, BASH_OUTPUT_MAX / 2, 1024);
      // the turn's signal owns the run: the turn's end stops what the command left running
      const run = beginRun(ctx.signal);
      let child: ChildProcess;
      try {
        // One stream in true order: the shell points its own stderr at stdout before the
        // command runs (same line, so the command's line numbers in errors stay right).
        // its own process group (spawnCommand starts it detached), so the whole group can be
        // signalled; inside bubblewrap when the context carries a sandbox
        child = spawnCommand({
          file: "bash",
          args: ["-c", `exec 2>&1; ${i.command}`],
          cwd: ctx.workspace,
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...COMMAND_ENV, ...run.env() },
          baseEnv: childEnv(),
          sandbox: ctx.sandbox,
        });
      } catch (e) {
        endRun(run);
        resolve({ output: `could not start bash: ${spawnFailure(e, ctx.workspace)}`, isError: true });
        return;
      }

      let timedOut = false;
      let aborted = false;
      let stopping = false;
      let settled = false;
      let exitCode: number | null = null;
      let exitSignal: NodeJS.Signals | null = null;
      let drainTimer: NodeJS.Timeout | undefined;

      const finish = (result: ToolOutput) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (drainTimer) clearTimeout(drainTimer);
        ctx.signal.removeEventListener("abort", onAbort);
        resolve(result);
      };

      // First, before anything can throw: a spawn that fails (EMFILE, a removed workspace, no
      // bash) reports through this event, and an 'error' nobody listens to ends the process.
      child.on("error", (err) => {
        if (child.pid === undefined) endRun(run);
        finish({ output: `could not start bash: ${spawnFailure(err, ctx.workspace)}`, isError: true });
      });
      run.pgid = child.pid;
      // absent when the spawn failed before the pipes were made (EMFILE)
      child.stdout?.on("data", (b: Buffer) => out.push(b));
      child.stderr?.on("data", (b: Buffer) => out.push(b)); // only what bash says before the exec

      const stop = () => {
        if (stopping) return;
        stopping = true;
        // Not tied to the call settling: a child that ignores SIGTERM must still die.
        void stopToolProcesses({ runs: [run] });
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, timeoutMs);
      const onAbort = () => {
        aborted = true;
        stop();
      };
      ctx.signal.addEventListener("abort", onAbort, { once: true });

      const report = (pipesLeftOpen: boolean) => {
        if (settled) return;
        const text = out.text(ctx.redact);
        const body = text === "" ? "(no output)" : text.endsWith("\n") ? text.slice(0, -1) : text;
        if (aborted) {
          finish({ output: text === "" ? "interrupted" : `interrupted; output so far:\n${body}`, isError: true });
          return;
        }
        if (timedOut) {
          finish({
            output: `${body}\n[timed out after ${seconds(timeoutMs)}; the command and its child processes were stopped]`,
            isError: true,
          });
          return;
        }
        const status =
          exitSignal !== null ? `[killed by ${exitSignal}]` : `[exit code ${exitCode ?? "unknown"}]`;
        // Pipes held open say something runs on; so does any process of the run found alive
        // (setsid, or output sent elsewhere, holds no pipe). It stays registered until the
        // turn ends, which stops it.
        const left = pipesLeftOpen || runAlive(run);
        if (!left) endRun(run);
        const bg = left
          ? "\n[background processes are still running; they will be stopped when this turn ends, and their later output is not captured]"
          : "";
        const isError = exitSignal !== null || exitCode !== 0;
        const refused = ctx.sandbox && isError ? sandboxRefusal(text) : undefined;
        finish({ output: `${body}\n${status}${bg}`, isError, ...(refused !== undefined ? { sandboxRefused: refused } : {}) });
      };

      child.on("exit", (code, sig) => {
        exitCode = code;
        exitSignal = sig;
        // A background child (`server &`) keeps the pipes open after the shell is gone;
        // do not wait for it forever.
        drainTimer = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          report(true);
        }, PIPE_DRAIN_MS);
      });
      child.on("close", () => report(false));
    });
  },
};
