// Shared pieces of the benchmark suite: statistics, timers, /proc sampling of a child, and a
// pty harness that reads the screen the way a person sees it (node-pty + @xterm/headless).
//
// Machines running this are noisy (2 shared cores), so every figure the suite prints is a
// median of several runs, and every comparison is a ratio against a floor measured in the
// same run. Nothing here asserts a time.
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import * as pty from "node-pty";
// The named export type-checks but fails at run time under ESM: take Terminal off the default.
import xtermHeadless from "@xterm/headless";
import { makeHome, type Home } from "../test/helpers/cli.js";

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH_DIR, "..");
// BENCH_CLI: another entry, e.g. dist/bundle/cli.cjs to run the bundle without the launcher
export const CLI = process.env["BENCH_CLI"] ? path.resolve(process.env["BENCH_CLI"]) : path.join(ROOT, "dist", "cli.js");

// ---------------------------------------------------------------------------------- stats

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Linear interpolation between closest ranks; NaN for no samples. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = s[lo]!;
  const b = s[hi]!;
  return a + (b - a) * (rank - lo);
}

export function now(): number {
  return performance.now();
}

/** CPU milliseconds (user + system, all threads) this process has used. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Milliseconds one call of fn takes. */
export async function timeMs(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * Runs `albedo` and `floor` alternately `runs` times, so that a slow patch of the machine hits
 * both sides alike; returns the medians (per call) and the median of the per-round ratios.
 *
 * Each timed sample is a batch of calls long enough (about batchMs) to reach a steady state:
 * the garbage a call makes is then collected inside its own batch and charged to it, instead
 * of to whichever side happens to run next. A full collection precedes every batch. (Short
 * batches right after a full collection favour the side that allocates one big string over
 * the side that allocates many small objects: at 50 ms the same code measured 1.15× where
 * 300 ms batches and long loops both give about 0.9×.)
 */
export async function paired(
  runs: number,
  albedo: () => unknown,
  floor: () => unknown,
  opts: { warmup?: number; batchMs?: number; clock?: "wall" | "cpu" } = {},
): Promise<{ albedo: number; floor: number; ratio: number; albedoRuns: number[]; floorRuns: number[]; batch: number }> {
  const batchMs = opts.batchMs ?? 300;
  // CPU time, for pure computation: on a shared 2-core machine, wall time also counts the
  // time spent waiting for a core, which is most of the noise and none of the work
  const clock = opts.clock === "cpu" ? cpuMs : () => performance.now();
  let slowest = 0;
  for (let i = 0; i < (opts.warmup ?? 1); i++) {
    // sized on the last warm-up round: a first call that loads something once per process
    // (a tokenizer's tables: ~0.5 s) would otherwise make every batch a single call, timed
    // alone right after a full collection, which is all noise at a few milliseconds
    slowest = Math.max(await timeMs(albedo), await timeMs(floor));
  }
  // the same batch size for both sides, sized on the slower one
  const batch = Math.max(1, Math.ceil(batchMs / Math.max(slowest, 0.001)));
  const timeBatch = async (fn: () => unknown) => {
    gc();
    const t0 = clock();
    for (let k = 0; k < batch; k++) await fn();
    return (clock() - t0) / batch;
  };
  const a: number[] = [];
  const f: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ta = await timeBatch(albedo);
    const tf = await timeBatch(floor);
    a.push(ta);
    f.push(tf);
    r.push(ta / tf);
  }
  return { albedo: median(a), floor: median(f), ratio: median(r), albedoRuns: a, floorRuns: f, batch };
}

// A full collection before each timed run, so that one side does not pay for the garbage of
// the other. `npm run bench` starts node without --expose-gc; the flag can still be set at run
// time, and a fresh context then exposes the function.
v8.setFlagsFromString("--expose-gc");
const fullGc = vm.runInNewContext("gc") as () => void;

export function gc(): void {
  fullGc();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function tempDir(prefix: string): Promise<string> {
  return fsp.mkdtemp(path.join(os.tmpdir(), `albedo-bench-${prefix}-`));
}

// ---------------------------------------------------------------------------------- rows

/** One line of the printed table and of results.json. */
export interface Row {
  benchmark: string;
  /** albedo-tui's figure, formatted */
  albedo: string;
  /** the floor's figure, formatted ("—" when the target is absolute) */
  floor: string;
  /** albedo / floor (or the figure / the limit for absolute targets); null when not a ratio */
  ratio: number | null;
  target: string;
  /** null: no target, or the benchmark could not run */
  met: boolean | null;
  /** raw numbers, for results.json */
  raw?: Record<string, unknown>;
  note?: string;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtMB(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(1)} MB` : "n/a";
}

export function fmtBytes(bytes: number): string {
  if (bytes >= 1048576) return `${(bytes / 1048576).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${bytes} B`;
}

/** A row for a benchmark that could not run (a part of the product missing, a crash). */
export function skipped(benchmark: string, why: string): Row {
  return { benchmark, albedo: "—", floor: "—", ratio: null, target: "—", met: null, note: `not run: ${why}` };
}

// ------------------------------------------------------------------------------ /proc

const CLK_TCK = 100; // USER_HZ on Linux is 100 on every architecture node runs on

/** CPU seconds (user + system, all threads) a live process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // the command name (field 2) may contain spaces and parentheses: split after the last ")"
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(rest[11]); // field 14
  const stime = Number(rest[12]); // field 15
  return (utime + stime) / CLK_TCK;
}

/** The process and all its descendants (from each /proc/<pid>/stat's parent field). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop()!;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * CPU seconds of a process tree, as an outside observer sums it from /proc: every live
 * member's user + system time, plus what its children that have ended and been waited for
 * used (cutime + cstime).
 */
export function treeCpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]); // fields 14–17
    } catch {
      // ended meanwhile: its parent's cutime has it once waited for
    }
  }
  return ticks / CLK_TCK;
}

/** Peak resident memory summed over a live process tree, in bytes. */
export function treePeakRss(root: number): number {
  let sum = 0;
  for (const pid of processTree(root)) {
    try {
      sum += memory(pid).peak;
    } catch {
      // ended meanwhile
    }
  }
  return sum;
}

/** Resident and peak resident memory of a live process, in bytes. */
export function memory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return m ? Number(m[1]) * 1024 : NaN;
  };
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

// --------------------------------------------------------------------------- pty harness

export interface SpawnOptions {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
}

export interface Chunk {
  /** performance.now() when node-pty handed us the data */
  t: number;
  bytes: number;
  /** frames that begin in this chunk (see FRAME_START) */
  starts: number;
  /** full-screen clears in this chunk (see FULL_CLEAR) */
  clears: number;
}

/**
 * blessed wraps every frame it draws in save-cursor … restore-cursor (screen.draw writes
 * `sc` + cells + `rc` in one write), so ESC 7 counts frames exactly, however the pty splits
 * or joins the writes. Programs that never save the cursor are counted by gaps instead.
 */
export const FRAME_START = "\x1b7";

/** A full-screen clear: erase the whole display, or the cursor sent home and everything below it
 *  erased. A program that repaints only what changed sends none while it streams. */
export const FULL_CLEAR = /\x1b\[2J|\x1b\[(?:1;1)?H\x1b\[0?J/g;
const CLEAR_TAIL = 12;

function clearsIn(s: string): number {
  return s.match(FULL_CLEAR)?.length ?? 0;
}

/** What the screen must show: a substring, a pattern, or a test over the visible text. */
export type ScreenTest = string | RegExp | ((screen: string) => boolean);

function matches(test: ScreenTest, screen: string): boolean {
  if (typeof test === "string") return screen.includes(test);
  if (test instanceof RegExp) return test.test(screen);
  return test(screen);
}

/**
 * A program running in a real pseudo-terminal at a fixed size, its output rendered by a
 * headless xterm. Times are taken when a chunk ARRIVES from the pty, and the screen is
 * examined once xterm has parsed that chunk, so the parser's own lag is not charged to the
 * program under test.
 */
export class PtyRun {
  readonly term: HeadlessTerminal;
  readonly proc: pty.IPty;
  readonly spawnedAt: number;
  readonly chunks: Chunk[] = [];
  bytes = 0;
  /** the raw output, kept only when asked for (the streaming floor replays it) */
  readonly recorded: Buffer[] = [];
  recording = false;
  exited: Promise<{ exitCode: number; signal?: number }>;
  private alive = true;
  private waiters: { test: ScreenTest; resolve: (t: number) => void }[] = [];
  private chunkWaiters: ((c: Chunk) => void)[] = [];
  /** the end of the previous chunk, in case ESC 7 or a clear is split between two reads */
  private tail = "";
  private sawFrameStart = false;

  constructor(opts: SpawnOptions) {
    const cols = opts.cols ?? 120;
    const rows = opts.rows ?? 40;
    this.term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
    this.spawnedAt = performance.now();
    this.proc = pty.spawn(opts.file, opts.args, { name: "xterm-256color", cols, rows, cwd: opts.cwd, env });
    this.proc.onData((data) => {
      const t = performance.now();
      const starts = countOf(this.tail.slice(-1) + data, FRAME_START);
      // a clear split between two reads counts once: in the joined text, less what the tail alone held
      const clears = clearsIn(this.tail + data) - clearsIn(this.tail);
      this.tail = (this.tail + data).slice(-CLEAR_TAIL);
      if (starts > 0) this.sawFrameStart = true;
      const chunk: Chunk = { t, bytes: Buffer.byteLength(data, "utf8"), starts, clears };
      this.chunks.push(chunk);
      this.bytes += chunk.bytes;
      if (this.recording) this.recorded.push(Buffer.from(data, "utf8"));
      for (const w of this.chunkWaiters.splice(0)) w(chunk);
      this.term.write(data, () => this.check(chunk.t));
    });
    this.exited = new Promise((resolve) =>
      this.proc.onExit((e) => {
        this.alive = false;
        resolve(e);
      }),
    );
  }

  get pid(): number {
    return this.proc.pid;
  }

  get isAlive(): boolean {
    return this.alive;
  }

  /** The visible screen, one line per row, trailing spaces trimmed. */
  screen(): string {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? "");
    return lines.join("\n");
  }

  private check(arrivedAt: number): void {
    if (this.waiters.length === 0) return;
    const screen = this.screen();
    this.waiters = this.waiters.filter((w) => {
      if (!matches(w.test, screen)) return true;
      w.resolve(arrivedAt);
      return false;
    });
  }

  /**
   * Resolves with the arrival time of the chunk after which the screen first satisfies the
   * test (at once with now() if it already does); rejects after timeoutMs with the screen.
   */
  waitFor(test: ScreenTest, timeoutMs = 30_000, what = String(test)): Promise<number> {
    if (matches(test, this.screen())) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen shows:\n${this.screen()}`));
      }, timeoutMs);
      const waiter = {
        test,
        resolve: (t: number) => {
          clearTimeout(timer);
          resolve(t);
        },
      };
      this.waiters.push(waiter);
      void this.exited.then(() => {
        if (!this.waiters.includes(waiter)) return;
        this.waiters = this.waiters.filter((w) => w !== waiter);
        clearTimeout(timer);
        reject(new Error(`the program exited while waiting for ${what}; the screen shows:\n${this.screen()}`));
      });
    });
  }

  /** The next chunk of output to arrive. */
  nextChunk(timeoutMs = 5000): Promise<Chunk | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.chunkWaiters = this.chunkWaiters.filter((w) => w !== waiter);
        resolve(undefined);
      }, timeoutMs);
      const waiter = (c: Chunk) => {
        clearTimeout(timer);
        resolve(c);
      };
      this.chunkWaiters.push(waiter);
    });
  }

  /** Resolves once no output has arrived for quietMs (or maxMs passed). */
  async quiet(quietMs: number, maxMs = 10_000): Promise<void> {
    const end = performance.now() + maxMs;
    for (;;) {
      const last = this.chunks.at(-1)?.t ?? this.spawnedAt;
      const idle = performance.now() - last;
      if (idle >= quietMs || performance.now() >= end) return;
      await sleep(quietMs - idle + 1);
    }
  }

  write(keys: string): number {
    const t = performance.now();
    this.proc.write(keys);
    return t;
  }

  /** Output between two times: bytes, reads, and frames (by FRAME_START when the program
   *  writes it; otherwise chunks less than gapMs apart count as one frame). */
  framesBetween(from: number, to: number, gapMs = FRAME_GAP_MS): { frames: number; bytes: number; chunks: number; clears: number } {
    let frames = 0;
    let bytes = 0;
    let chunks = 0;
    let clears = 0;
    let last = -Infinity;
    for (const c of this.chunks) {
      if (c.t < from || c.t > to) continue;
      if (this.sawFrameStart) frames += c.starts;
      else if (c.t - last >= gapMs) frames++;
      last = c.t;
      bytes += c.bytes;
      clears += c.clears;
      chunks++;
    }
    return { frames, bytes, chunks, clears };
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    try {
      this.proc.kill("SIGTERM");
    } catch {
      // already gone
    }
    const done = await Promise.race([this.exited.then(() => true), sleep(2000).then(() => false)]);
    if (!done && this.alive) {
      try {
        this.proc.kill("SIGKILL");
      } catch {
        // already gone
      }
      await Promise.race([this.exited, sleep(2000)]);
    }
    this.term.dispose();
  }
}

function countOf(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Chunks closer than this belong to one frame. blessed writes a frame with one write(), which
 *  the pty may deliver as several reads a fraction of a millisecond apart. */
export const FRAME_GAP_MS = 2;

// --------------------------------------------------------------------- environment

export type BenchHome = Home;

/**
 * V8's code cache of the CLI (src/launch/code-cache.ts), shared by every run of this bench as
 * by every start of one user: a person starts albedo-tui many times per build. The first
 * start after an install has none; benchStartup measures that apart (its own empty folder).
 */
export const BENCH_CODE_CACHE = path.join(os.tmpdir(), `albedo-bench-cache-${process.pid}`);
process.once("exit", () => fs.rmSync(BENCH_CODE_CACHE, { recursive: true, force: true }));

/** the cache files in an XDG cache folder (launch/main.ts puts them in albedo/code) */
export function codeCacheFiles(xdgCache: string): string[] {
  try {
    return fs.readdirSync(path.join(xdgCache, "albedo", "code")).filter((f) => f.endsWith(".v8cache"));
  } catch {
    return [];
  }
}

/**
 * A throw-away home for one run of the CLI: its own XDG folders (nothing of the user's is
 * read or written; the code cache is the bench's, above), a workspace folder, a fake key, and
 * TERM as the screen tests use it.
 */
export async function benchHome(extraEnv: NodeJS.ProcessEnv = {}): Promise<BenchHome> {
  return makeHome({ TERM: "xterm-256color", ANTHROPIC_API_KEY: "x", XDG_CACHE_HOME: BENCH_CODE_CACHE, ...extraEnv });
}

export async function removeDir(dir: string): Promise<void> {
  await fsp.rm(dir, { recursive: true, force: true });
}
