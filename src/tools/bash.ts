// bash: one command in the workspace. It runs as its own process group so a timeout or
// an interrupt stops everything it started, not only the shell.
import { spawn } from "node:child_process";
import { z } from "zod";
import type { ToolDef, ToolOutput } from "./types.js";
import { HeadTailBuffer } from "./cap.js";

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Characters of output kept: half from the start, half from the end. */
export const BASH_OUTPUT_MAX = 30_000;
/** Between SIGTERM and SIGKILL: time for a process to clean up, not to keep running. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long to wait for background children to release the pipes. */
const PIPE_DRAIN_MS = 250;

/** Variables the model's commands never see: the provider keys belong to albedo-tui alone. */
const HIDDEN_ENV = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

const input = z.object({
  command: z.string().min(1).describe("Shell command, run with bash -c in the workspace folder; stdin is closed"),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_BASH_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most ${MAX_BASH_TIMEOUT_MS})`),
});

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };
  for (const k of HIDDEN_ENV) delete env[k];
  return env;
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
  summarize: (i) => `bash: ${i.command.split("\n")[0]}${i.command.includes("\n") ? " …" : ""}`,
  run(i, ctx): Promise<ToolOutput> {
    const timeoutMs = i.timeout_ms ?? DEFAULT_BASH_TIMEOUT_MS;
    if (ctx.signal.aborted) return Promise.resolve({ output: "interrupted", isError: true });

    return new Promise<ToolOutput>((resolve) => {
      const out = new HeadTailBuffer(BASH_OUTPUT_MAX / 2, BASH_OUTPUT_MAX / 2);
      // One stream in true order: the shell points its own stderr at stdout before the
      // command runs (same line, so the command's line numbers in errors stay right).
      const child = spawn("bash", ["-c", `exec 2>&1; ${i.command}`], {
        cwd: ctx.workspace,
        detached: true, // its own process group, so the whole group can be signalled
        stdio: ["ignore", "pipe", "pipe"],
        env: childEnv(),
      });
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => out.push(b)); // only what bash says before the exec

      let timedOut = false;
      let aborted = false;
      let stopping = false;
      let settled = false;
      let exitCode: number | null = null;
      let exitSignal: NodeJS.Signals | null = null;
      let drainTimer: NodeJS.Timeout | undefined;

      const signalGroup = (sig: NodeJS.Signals | 0): boolean => {
        if (child.pid === undefined) return false;
        try {
          process.kill(-child.pid, sig);
          return true;
        } catch {
          return false; // the group is already gone
        }
      };
      const stop = () => {
        if (stopping) return;
        stopping = true;
        signalGroup("SIGTERM");
        // Not cleared when the call settles: a child that ignores SIGTERM must still die.
        setTimeout(() => {
          if (signalGroup(0)) signalGroup("SIGKILL"); // signal 0 only asks whether any member is left
        }, KILL_GRACE_MS).unref();
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

      const finish = (result: ToolOutput) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (drainTimer) clearTimeout(drainTimer);
        ctx.signal.removeEventListener("abort", onAbort);
        resolve(result);
      };

      const report = (pipesLeftOpen: boolean) => {
        const text = out.text();
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
        const bg = pipesLeftOpen ? "\n[background processes are still running; their later output is not captured]" : "";
        finish({ output: `${body}\n${status}${bg}`, isError: exitSignal !== null || exitCode !== 0 });
      };

      child.on("error", (err) => {
        finish({ output: `could not run bash: ${err.message}`, isError: true });
      });
      child.on("exit", (code, sig) => {
        exitCode = code;
        exitSignal = sig;
        // A background child (`server &`) keeps the pipes open after the shell is gone;
        // do not wait for it forever.
        drainTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          report(true);
        }, PIPE_DRAIN_MS);
      });
      child.on("close", () => report(false));
    });
  },
};
