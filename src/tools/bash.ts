// bash: one command in the workspace. It runs as its own process group, registered with
// processes.ts, so a timeout or an interrupt stops everything it started, not only the shell,
// and what it leaves running in the background is stopped when the turn ends.
import type { ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import type { ToolContext, ToolDef, ToolOutput } from "./types.js";
import { HeadTailBuffer } from "./cap.js";
import { beginRun, endRun, runAlive, stopToolProcesses } from "./processes.js";
import { spawnCommand, spawnFailure } from "./spawn.js";
import { sandboxRefusal } from "./sandbox.js";

const DEFAULT_BASH_TIMEOUT_MS = 120_000;
const MAX_BASH_TIMEOUT_MS = 600_000;
/** Characters of output kept: half from the start, half from the end. */
export const BASH_OUTPUT_MAX = 30_000;
/** After the shell exits, how long to wait for background children to release the pipes. */
const PIPE_DRAIN_MS = 250;

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
    .describe(`Timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most ${MAX_BASH_TIMEOUT_MS}); not for run_in_background`),
  run_in_background: z
    .boolean()
    .optional()
    .describe("Start it and return at once with its id (a server, a watcher): it runs until bash_stop or the session ends; bash_output reads what it wrote"),
});

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

export const bashTool: ToolDef<typeof input> = {
  name: "bash",
  kind: "exec",
  description:
    "Run a shell command (bash -c) in the workspace. stdout and stderr come back together with the exit code; " +
    `long output keeps its start and end. Default timeout ${DEFAULT_BASH_TIMEOUT_MS / 1000} s. ` +
    "No stdin: interactive programs get end-of-file. With run_in_background it returns at once with an id " +
    "(for servers and watchers; read its output with bash_output, stop it with bash_stop).",
  input,
  sandboxed: true,
  summarize: (i) => `bash: ${i.command.split("\n")[0]}${i.command.includes("\n") ? " …" : ""}`,
  run(i, ctx): Promise<ToolOutput> {
    if (i.run_in_background === true) return Promise.resolve(startInBackground(i.command, ctx));
    return runCommand(i.command, i.timeout_ms, ctx);
  },
};

/** what a background command in a sandbox without network is told about its ports */
export const UNREACHABLE_NOTE =
  'it runs in a sandbox without network: its ports are not reachable from outside the sandbox (not from later commands, not from the host); a server that must be reached needs the config\'s "network": "on"';

function startInBackground(command: string, ctx: ToolContext): ToolOutput {
  if (!ctx.shells) return { output: "background commands are not available here; run it without run_in_background", isError: true };
  if (ctx.signal.aborted) return { output: "interrupted", isError: true };
  const started = ctx.shells.start(command, ctx.workspace, ctx.sandbox);
  if ("error" in started) return { output: started.error, isError: true };
  const what = `started in the background as ${started.id}; bash_output with id "${started.id}" reads what it writes, bash_stop stops it (it runs until then, or until the session ends)`;
  // without the network, the sandbox has a loopback of its own: a server in it is not reachable
  // by anyone else, later commands included, and the model should know before it tries
  const note = ctx.sandbox && !ctx.sandbox.network ? `\n${UNREACHABLE_NOTE}` : "";
  return { output: what + note, isError: false };
}

/** Runs one command in the foreground: its output, status and what it left running. */
export function runCommand(command: string, timeout: number | undefined, ctx: ToolContext): Promise<ToolOutput> {
  const timeoutMs = timeout ?? DEFAULT_BASH_TIMEOUT_MS;
  if (ctx.signal.aborted) return Promise.resolve({ output: "interrupted", isError: true });

  return new Promise<ToolOutput>((resolve) => {
    // 1 KB beyond each side of the cut: longer than any provider key, so a key straddling
    // the cut is redacted whole before the output is cut to size
    const out = new HeadTailBuffer(BASH_OUTPUT_MAX / 2, BASH_OUTPUT_MAX / 2, 1024);
    // the turn's signal owns the run: the turn's end stops what the command left running
    const run = beginRun(ctx.signal);
    let child: ChildProcess;
    try {
      child = spawnCommand(command, ctx.workspace, run, ctx.sandbox);
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
    // absent when the spawn failed before the pipes were made (EMFILE)
    const live = ctx.onOutput;
    const dec = live ? new StringDecoder("utf8") : undefined;
    const take = (b: Buffer): void => {
      out.push(b);
      if (live && dec) live(dec.write(b));
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take); // only what bash says before the exec

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
}
