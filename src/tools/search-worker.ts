// Runs glob's and grep's pattern matching off the main thread. A pattern from the model can
// take exponential time: a regex such as ^(a+)+$ over "aaaa…!", or an extglob such as
// *(a)*(a)*(a)b (picomatch turns it into a regex) over a long file name. JavaScript cannot
// interrupt a running RegExp, so on the main thread it would freeze the screen, Esc and the
// API. In a worker the main thread stays free, and the worker is terminated on abort or at
// a time limit. A worker rather than a linear-time engine, so grep keeps the full
// JavaScript syntax its description promises (lookaround, backreferences).
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { InterruptedError } from "./files.js";

/** One file's line matching may take this long before grep stops it as runaway. */
export const REGEX_TIME_LIMIT_MS = 5_000;
/** Listing files may take this long: a big tree is slow to walk, so this is generous. */
export const LIST_TIME_LIMIT_MS = 30_000;

interface LineHit {
  /** 1-based line number */
  line: number;
  /** the line without a trailing \r, cut to the length asked for */
  text: string;
  cut: boolean;
}

/** "timeout": stopped at the time limit; what was found before it is kept. */
type Bounded<T> = { kind: "done"; value: T } | { kind: "timeout"; value: T };

interface ListOptions {
  cwd: string;
  ignore: string[];
  expandDirectories: boolean;
}

type Job =
  | { kind: "list"; pattern: string; options: ListOptions }
  | { kind: "match"; bytes: Uint8Array; maxHits: number; maxShown: number };

/** From the worker: a hit, a finished job, or an exception. */
type Reply =
  | { id: number; hit: LineHit }
  | { id: number; done: true }
  | { id: number; files: string[] }
  | { id: number; error: string };

// Plain JavaScript evaluated in the worker (eval: no separate file to find from src/ or
// dist/). Lines are split exactly as String.split("\n") would and tested with their \r.
// The glob options that keep a listing from following links are fixed here, not sent.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { glob } = require(workerData.tinyglobby);
const re = workerData.source === undefined ? undefined : new RegExp(workerData.source, workerData.flags);
function match(job) {
  const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString("utf8");
  let start = 0, n = 0, hits = 0;
  for (;;) {
    const nl = text.indexOf("\\n", start);
    const line = text.slice(start, nl < 0 ? text.length : nl);
    n++;
    if (re.test(line)) {
      const t = line.endsWith("\\r") ? line.slice(0, -1) : line;
      const cut = t.length > job.maxShown;
      parentPort.postMessage({ id: job.id, hit: { line: n, text: cut ? t.slice(0, job.maxShown) : t, cut } });
      if (++hits >= job.maxHits) break;
    }
    if (nl < 0) break;
    start = nl + 1;
  }
  parentPort.postMessage({ id: job.id, done: true });
}
parentPort.on("message", (job) => {
  const fail = (e) => parentPort.postMessage({ id: job.id, error: String((e && e.message) || e) });
  try {
    if (job.kind === "match") match(job);
    else glob(job.pattern, { ...job.options, dot: true, onlyFiles: true, followSymbolicLinks: false })
      .then((files) => parentPort.postMessage({ id: job.id, files }), fail);
  } catch (e) {
    fail(e);
  }
});
`;

const TINYGLOBBY = createRequire(import.meta.url).resolve("tinyglobby");

/**
 * One worker for one tool call: it lists files and, given a regex, matches lines. Every
 * call is bounded by a time limit and the abort signal; either one terminates the worker,
 * after which this object is spent.
 */
export class SearchWorker {
  private readonly worker: Worker;
  private nextId = 1;
  private dead: Error | undefined;

  /** `regex`, when given, must already have compiled on the main thread (that is where its
   * syntax errors are reported); compiling never backtracks, only matching does. */
  constructor(regex?: { source: string; flags: string }) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { tinyglobby: TINYGLOBBY, source: regex?.source, flags: regex?.flags },
    });
    // a failure while no job is waiting is kept for the next call
    this.worker.on("error", (e) => {
      this.dead = e;
    });
  }

  /** Files under opts.cwd matching the pattern, relative to it, as tinyglobby gives them. */
  async list(pattern: string, options: ListOptions, bound: { timeLimitMs: number; signal: AbortSignal }): Promise<Bounded<string[]>> {
    const files: string[] = [];
    const r = await this.run({ kind: "list", pattern, options }, bound, (m) => {
      if ("files" in m) {
        files.push(...m.files);
        return true;
      }
      return false;
    });
    return { kind: r, value: files };
  }

  /** Lines of `bytes` (UTF-8) that match, at most maxHits; hits found before a time-out are kept. */
  async match(
    bytes: Uint8Array,
    opts: { maxHits: number; maxShown: number },
    bound: { timeLimitMs: number; signal: AbortSignal },
  ): Promise<Bounded<LineHit[]>> {
    const hits: LineHit[] = [];
    const r = await this.run({ kind: "match", bytes, maxHits: opts.maxHits, maxShown: opts.maxShown }, bound, (m) => {
      if ("hit" in m) hits.push(m.hit);
      return "done" in m;
    });
    return { kind: r, value: hits };
  }

  /** Ends the worker, mid-job or not. */
  async close(): Promise<void> {
    this.dead ??= new Error("the search worker was stopped");
    await this.worker.terminate();
  }

  /** Sends one job; `take` sees each reply for it and says when the job is finished. */
  private run(
    job: Job,
    bound: { timeLimitMs: number; signal: AbortSignal },
    take: (m: Reply) => boolean,
  ): Promise<"done" | "timeout"> {
    if (bound.signal.aborted) return Promise.reject(new InterruptedError());
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        bound.signal.removeEventListener("abort", onAbort);
        this.worker.off("message", onMessage);
        this.worker.off("error", onError);
        this.worker.off("exit", onExit);
        settle();
      };
      const onMessage = (m: Reply): void => {
        if (m.id !== id) return;
        if ("error" in m) finish(() => reject(new Error(m.error)));
        else if (take(m)) finish(() => resolve("done"));
      };
      const onError = (e: Error): void => finish(() => reject(e));
      const onExit = (code: number): void => finish(() => reject(new Error(`the search worker stopped (exit code ${code})`)));
      const onAbort = (): void => {
        void this.close();
        finish(() => reject(new InterruptedError()));
      };
      const timer = setTimeout(() => {
        void this.close();
        finish(() => resolve("timeout"));
      }, bound.timeLimitMs);
      this.worker.on("message", onMessage);
      this.worker.on("error", onError);
      this.worker.on("exit", onExit);
      bound.signal.addEventListener("abort", onAbort, { once: true });
      this.worker.postMessage({ ...job, id });
    });
  }
}
