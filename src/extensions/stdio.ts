// The stdio transport for an MCP server, ours rather than the SDK's so the server is started
// the way tool processes are: its own process group with the run marker in its environment
// (tools/processes.ts), so stopping it, or albedo-tui's exit, ends everything it started.
// Its stderr is kept as a bounded tail (for the last error) instead of reaching the screen,
// and one message may not pass MAX_MESSAGE_BYTES. Its output is framed by LineReader, in
// time linear in its size (the SDK's read buffer joins and rescans everything held on every
// chunk). Loaded only when a server is configured.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { beginRun, endRun, stopToolProcesses, type ToolRun } from "../tools/processes.js";
import { spawnCommand, type CommandSandbox } from "../tools/spawn-command.js";
import { LineReader, LineTooLongError } from "./line-reader.js";

/** the most one JSON-RPC line may hold; a server past it is disconnected */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A server sent one message over MAX_MESSAGE_BYTES: it is refused, and the server with it
 * (the stream cannot be framed past a line that is not read). */
class MessageTooLargeError extends Error {
  override readonly name = "MessageTooLargeError";
  constructor(readonly max: number) {
    super(`it sent a message over ${max / 1048576} MB and was disconnected`);
  }
}
const STDERR_TAIL = 4096;
/** how long the output of a server that has exited may take to end, before whatever it left
 * running is stopped */
const EXIT_DRAIN_MS = 500;
/** what a send to a server that has ended says */
export const NOT_RUNNING = "the server is not running";

/** Variables a server inherits from albedo-tui's environment (the SDK's list): keys and
 * tokens of the user's shell stay behind unless the entry's `env` names them. */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "XDG_RUNTIME_DIR"];

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** sees each message as parsed, before it is validated: false drops it (so a flood the
   * notification gate drops costs no validation) */
  screen?: (message: object) => boolean;
  private child: ChildProcess | undefined;
  private run: ToolRun | undefined;
  private readonly reader: LineReader;
  private stderrTail = "";
  private closed = false;
  /** why we disconnected the server, when we did (a message over the bound) */
  fault: string | undefined;
  /** how the process ended, once it and its output have (all of its pipes closed) */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** how the process itself ended, once it has (a process it started may hold its pipes
   * open for longer) */
  exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** it exited while a process it started kept its pipes open (that process is stopped) */
  leftRunning = false;
  /** the wait of the writes behind a full pipe to the server, while there are any */
  private drained: Promise<void> | undefined;

  constructor(
    private readonly params: { command: string; args: string[]; env: Record<string, string>; cwd: string; sandbox?: CommandSandbox | undefined },
    private readonly owner: object,
    maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {
    this.reader = new LineReader(maxMessageBytes);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** the last few KB the server wrote on stderr */
  stderr(): string {
    return this.stderrTail;
  }

  start(): Promise<void> {
    const run = beginRun(this.owner);
    this.run = run;
    const env: Record<string, string> = {};
    for (const k of INHERITED) {
      const v = process.env[k];
      if (v !== undefined) env[k] = v;
    }
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        // sandboxed: through the door every command takes, with its allow-listed environment
        child = this.params.sandbox
          ? spawnCommand({ file: this.params.command, args: this.params.args, cwd: this.params.cwd, env: { ...this.params.env, ...run.env() }, stdio: ["pipe", "pipe", "pipe"], sandbox: this.params.sandbox })
          : spawn(this.params.command, this.params.args, {
              cwd: this.params.cwd,
              env: { ...env, ...this.params.env, ...run.env() },
              stdio: ["pipe", "pipe", "pipe"],
              detached: true,
            });
      } catch (e) {
        // refused before any process (a NUL byte in an argument, say)
        endRun(run);
        reject(new Error(`cannot start ${this.params.command}: ${e instanceof Error ? e.message : String(e)}`));
        return;
      }
      this.child = child;
      child.once("error", (e) => {
        endRun(run);
        reject(new Error(`cannot start ${this.params.command}: ${this.spawnFailure(e)}`));
        this.onerror?.(e);
      });
      child.once("spawn", () => {
        run.pgid = child.pid;
        resolve();
      });
      child.once("exit", (code, signal) => {
        this.exited = { code, signal };
        // The server is the process started: once it has exited, a process it left running
        // (`sh -c "server &"`) that keeps its pipes open must not hold the connection (and
        // every request on it) open until a timeout. Its last output gets a moment to arrive.
        setTimeout(() => {
          if (this.closed) return;
          this.leftRunning = true;
          void this.close();
        }, EXIT_DRAIN_MS).unref();
      });
      child.once("close", (code, signal) => {
        this.exit = { code, signal };
        if (!this.closed) {
          this.closed = true;
          // its children may live on in the group: they go with it
          void stopToolProcesses({ runs: [run], graceMs: 500 });
          this.onclose?.();
        }
      });
      child.stdin!.on("error", (e) => this.onerror?.(e));
      child.stdout!.on("data", (chunk: Buffer) => {
        try {
          this.reader.push(chunk, (line) => this.line(line));
        } catch (e) {
          // each line's own failures are caught in line(): what reaches here ends the stream
          const err = e instanceof LineTooLongError ? new MessageTooLargeError(e.max) : e instanceof Error ? e : new Error(String(e));
          this.fault = err.message;
          this.onerror?.(err);
          void this.close();
        }
      });
      child.stderr!.setEncoding("utf8").on("data", (d: string) => {
        this.stderrTail = (this.stderrTail + d).slice(-STDERR_TAIL);
      });
    });
  }

  /** One line of the server's output: a message, or an error the connection survives (as
   * the SDK's own transport reports it). */
  private line(text: string): void {
    if (this.closed) return;
    const refuse = (e: unknown): void =>
      this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC message: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}`));
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      refuse(e);
      return;
    }
    if (this.screen && typeof raw === "object" && raw !== null && !this.screen(raw)) return;
    let msg: JSONRPCMessage;
    try {
      msg = JSONRPCMessageSchema.parse(raw);
    } catch (e) {
      refuse(e);
      return;
    }
    try {
      this.onmessage?.(msg);
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** spawn says ENOENT both for a missing program and for a missing folder to run it in */
  private spawnFailure(e: NodeJS.ErrnoException): string {
    if (e.code === "ENOENT") {
      let dir: fs.Stats | undefined;
      try {
        dir = fs.statSync(this.params.cwd);
      } catch {
        return `its folder (cwd) ${this.params.cwd} does not exist`;
      }
      if (!dir.isDirectory()) return `its folder (cwd) ${this.params.cwd} is not a folder`;
      return "no such program (not found on PATH, or no such file)";
    }
    return e.message;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed) return Promise.reject(new Error(NOT_RUNNING));
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    // Every write behind a full pipe waits for the one drain (or close: a server that dies
    // with its pipe full never drains). One wait for all of them: a listener pair per write
    // would grow without bound while a server reads nothing, cost a scan of them all at
    // each removal, and make node warn on stderr, over the screen.
    this.drained ??= new Promise<void>((resolve, reject) => {
      const settle = (): void => {
        stdin.off("drain", onDrain);
        stdin.off("close", onClose);
        this.drained = undefined;
      };
      const onDrain = (): void => {
        settle();
        resolve();
      };
      const onClose = (): void => {
        settle();
        reject(new Error(NOT_RUNNING));
      };
      stdin.on("drain", onDrain);
      stdin.on("close", onClose);
    });
    return this.drained;
  }

  /** Ends the server: stdin closed, then its whole group (SIGTERM, SIGKILL after a grace). */
  async close(): Promise<void> {
    const run = this.run;
    const wasClosed = this.closed;
    this.closed = true;
    this.child?.stdin?.end();
    if (run) await stopToolProcesses({ runs: [run], graceMs: 1000 });
    // its group is gone; the exit event (its code, for the last error) may still be on its way
    const child = this.child;
    if (child?.pid !== undefined && this.exited === undefined && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 1000);
        child.once("exit", () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    this.reader.clear();
    if (!wasClosed) this.onclose?.();
  }
}
