// Commands the model leaves running (bash with run_in_background): a dev server, a watcher.
// Each starts through the same door as a foreground command (spawn.ts), so the permission
// check, the sandbox and the process tracking are the same; it is owned by the session, not
// the turn, so it outlives the turn that started it, and lives until bash_stop, /shells, the
// session's end, or albedo-tui's exit (processes.ts stops it then, and its guard after a
// SIGKILL). Its output goes to a log in the state folder, bounded: two segments of at most
// LOG_SEGMENT_BYTES, the older dropped when the newer fills, so a flood costs at most twice
// that on disk and the newest output is what is kept.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { beginRun, endRun, removeAtExit, runAlive, stopToolProcesses, type ToolRun } from "./processes.js";
import { spawnCommand, spawnFailure } from "./spawn.js";
import type { CommandSandbox } from "./spawn-command.js";

export const LOG_SEGMENT_BYTES = 2 * 1024 * 1024;
/** At most this many background commands at once: each holds processes and a log. */
const MAX_SHELLS = 16;

export type ShellState = "running" | "exited" | "stopped" | "failed";

export interface ShellInfo {
  id: string;
  command: string;
  state: ShellState;
  startedAt: number;
  endedAt?: number;
  /** exit code or signal, once it has ended */
  status?: string;
  /** bytes of output so far */
  bytes: number;
  /** the log's current segment (the older one, when kept, beside it with `.1`) */
  log: string;
}

/** Two files, the current one and the one before it: bounded, newest kept. */
class BoundedLog {
  private fd: number;
  /** bytes written since the start */
  written = 0;
  /** where the current segment starts, and the previous one (when kept) */
  private curStart = 0;
  private oldStart: number | undefined;

  constructor(readonly file: string, private readonly segment: number) {
    this.fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o600);
  }

  append(b: Buffer): void {
    let at = 0;
    while (at < b.length) {
      const room = this.segment - (this.written - this.curStart);
      if (room <= 0) {
        this.rotate();
        continue;
      }
      const n = Math.min(room, b.length - at);
      fs.writeSync(this.fd, b, at, n);
      at += n;
      this.written += n;
    }
  }

  private rotate(): void {
    fs.closeSync(this.fd);
    fs.renameSync(this.file, `${this.file}.1`);
    this.oldStart = this.curStart;
    this.curStart = this.written;
    this.fd = fs.openSync(this.file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o600);
  }

  /** bytes [from, written), at most `max` of the newest; and how many before them are gone */
  read(from: number, max: number): { data: Buffer; skipped: number } {
    const first = this.oldStart ?? this.curStart;
    let start = Math.max(from, first, this.written - max);
    const skipped = start - from;
    const parts: Buffer[] = [];
    if (this.oldStart !== undefined && start < this.curStart) {
      parts.push(readRange(`${this.file}.1`, start - this.oldStart, this.curStart - start));
      start = this.curStart;
    }
    if (start < this.written) parts.push(readRange(this.file, start - this.curStart, this.written - start));
    return { data: Buffer.concat(parts), skipped };
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // closed already
    }
  }
}

function readRange(file: string, pos: number, len: number): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const b = Buffer.alloc(len);
    const n = fs.readSync(fd, b, 0, len, pos);
    return b.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

interface Shell {
  info: ShellInfo;
  run: ToolRun & { env(): Record<string, string> };
  child: ChildProcess;
  out: BoundedLog;
  /** where the model's last bash_output read ended */
  readTo: number;
  ended: Promise<void>;
}

export class BackgroundShells {
  private readonly shells = new Map<string, Shell>();
  private next = 1;
  private readonly listeners = new Set<() => void>();

  /** `dirOf`: a private folder of the state folder for this process's logs (asked for and
   * made at the first start) */
  constructor(private readonly dirOf: () => string) {}
  private dir = "";

  /** called when a command starts, ends or is stopped (the screen's /shells) */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of [...this.listeners]) fn();
  }

  list(): ShellInfo[] {
    return [...this.shells.values()].map((s) => ({ ...s.info, bytes: s.out.written }));
  }

  running(): number {
    let n = 0;
    for (const s of this.shells.values()) if (s.info.state === "running") n++;
    return n;
  }

  /** starts `command`; its info, or why it could not start */
  start(command: string, workspace: string, sandbox?: CommandSandbox): ShellInfo | { error: string } {
    if (this.running() >= MAX_SHELLS) return { error: `${MAX_SHELLS} background commands are running already; stop one first (bash_stop)` };
    const id = `shell-${this.next++}`;
    let out: BoundedLog;
    try {
      if (!this.dir) {
        this.dir = this.dirOf();
        // a kill -9 leaves no one to remove the logs but the guard
        removeAtExit(this.dir);
      }
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      out = new BoundedLog(path.join(this.dir, `${id}.log`), LOG_SEGMENT_BYTES);
    } catch (e) {
      return { error: `cannot write its log in the state folder: ${(e as Error).message}` };
    }
    // owned by this object, not by the turn: the turn's end leaves it running
    const run = beginRun(this);
    let child: ChildProcess;
    try {
      child = spawnCommand(command, workspace, run, sandbox, true);
    } catch (e) {
      endRun(run);
      out.close();
      return { error: `could not start bash: ${spawnFailure(e, workspace)}` };
    }
    const info: ShellInfo = { id, command, state: "running", startedAt: Date.now(), bytes: 0, log: out.file };
    let resolveEnded!: () => void;
    const ended = new Promise<void>((r) => (resolveEnded = r));
    const shell: Shell = { info, run, child, out, readTo: 0, ended };
    this.shells.set(id, shell);
    const end = (state: ShellState, status: string): void => {
      if (info.state !== "running") return;
      info.state = state;
      info.status = status;
      info.endedAt = Date.now();
      out.close();
      if (!runAlive(run)) endRun(run);
      resolveEnded();
      this.changed();
    };
    child.on("error", (err) => {
      if (child.pid === undefined) endRun(run);
      out.append(Buffer.from(`could not start bash: ${spawnFailure(err, workspace)}\n`));
      end("failed", "could not start");
    });
    const write = (b: Buffer): void => {
      if (info.state !== "running") return;
      try {
        out.append(b);
      } catch {
        // a full disk: the command runs on, its output is lost past this point
      }
    };
    child.stdout?.on("data", write);
    child.stderr?.on("data", write);
    let code: number | null = null;
    let sig: NodeJS.Signals | null = null;
    child.on("exit", (c, s) => {
      code = c;
      sig = s;
    });
    child.on("close", () => end("exited", sig !== null ? `killed by ${sig}` : `exit code ${code ?? "unknown"}`));
    this.changed();
    return { ...info };
  }

  /** what the command wrote since the last read, at most `max` characters (the newest) */
  read(id: string, max: number, redact: (t: string) => string = (t) => t): { info: ShellInfo; text: string; skipped: number } | undefined {
    const s = this.shells.get(id);
    if (!s) return undefined;
    const { data, skipped } = s.out.read(s.readTo, max);
    s.readTo = s.out.written;
    const dec = new StringDecoder("utf8");
    return { info: { ...s.info, bytes: s.out.written }, text: redact(dec.write(data) + dec.end()), skipped };
  }

  /** the last `max` bytes it wrote (the screen's /shells), not moving the model's read point */
  tail(id: string, max: number): string {
    const s = this.shells.get(id);
    if (!s) return "";
    return s.out.read(0, max).data.toString("utf8");
  }

  /** stops one command and everything it started; false when there is no such command */
  async stop(id: string): Promise<ShellInfo | undefined> {
    const s = this.shells.get(id);
    if (!s) return undefined;
    if (s.info.state === "running") {
      s.info.state = "stopped";
      s.info.status = "stopped";
      s.info.endedAt = Date.now();
      this.changed();
    }
    await stopToolProcesses({ runs: [s.run] });
    s.child.stdout?.destroy();
    s.child.stderr?.destroy();
    s.out.close();
    return { ...s.info, bytes: s.out.written };
  }

  /** stops every command (the session ends); their logs are removed */
  async stopAll(): Promise<void> {
    await Promise.all([...this.shells.keys()].map((id) => this.stop(id)));
    for (const s of this.shells.values()) {
      for (const f of [s.out.file, `${s.out.file}.1`]) fs.rmSync(f, { force: true });
    }
    this.shells.clear();
    if (this.dir) {
      fs.rmSync(this.dir, { recursive: true, force: true });
      removeAtExit(this.dir, true);
      this.dir = "";
    }
    this.changed();
  }
}
