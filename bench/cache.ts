// Benchmark: prompt caching with cache-aware compaction. A scripted 40-turn
// session with tool rounds (edits, bash, reads; outputs from a few bytes to ~30 kB) runs
// through the real controller (real SQLite, real tools in a temporary workspace, real HTTP)
// against the caching fake provider (test/helpers/fake-cache.ts) in a process of its own over
// loopback, once per compaction strategy. Per strategy:
// - cached share: input tokens read from cache ÷ all input tokens, over turns 2–40;
// - cost ratio: the session's input cost with caching (read 0.1×, write 1.25×, uncached 1×:
//   Anthropic's published multipliers) ÷ the same input without caching (all 1×);
// - prefix stability: for each conversation request, the share of its bytes (in the cache's
//   order: tools, system, messages; cache_control marks left out) equal to the previous
//   conversation request's prefix; the minimum and the median.
// Summary requests count toward share and cost (they are paid for) but not toward stability
// (they are side requests). "today" is the baseline without caching work: no caching (share 0,
// cost 1 by definition) and microcompact moving its boundary every round (step 1).
//
// Tokens are the fake's rule (ceil(chars/4) of each block's JSON), the same for every run:
// the figures are ratios of like with like, not of a tokenizer's counts.
//
//   npm run bench -- cache            (the child: node --import tsx bench/cache.ts --serve)
import { spawn, type ChildProcess } from "node:child_process";
import fsp from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR, ROOT, median, removeDir, sleep, tempDir, type Row } from "./lib.js";
import type { Step } from "../test/helpers/fake-provider.js";
import type { CompactionStrategy } from "../src/compaction/types.js";
import { prng } from "../test/helpers/prng.js";

const SELF = path.join(BENCH_DIR, "cache.ts");
const KEY = "bench-cache-key";
const SUMMARY_MARK = "You write handover notes for a coding agent.";
/** the window the session is told the model has: small enough that summaries happen */
const WINDOW = 60_000;
/** a window where microcompact+summary also summarises */
const SMALL_WINDOW = 40_000;
const MODEL = "claude-sonnet-4-5";

// ------------------------------------------------------------------------------ the child

/** The units of a request in the cache's order (tools → system → messages), marks left out. */
function cacheUnits(body: Record<string, unknown>): string[] {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => k !== "cache_control").map(([k, x]) => [k, strip(x)]));
    return v;
  };
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
  return [...list(body["tools"]), ...list(body["system"]), ...list(body["messages"])].map((u) => JSON.stringify(strip(u)));
}

/** Bytes of `cur` equal to the start of `prev`, unit by unit, then within the first differing unit. */
function commonPrefixBytes(prev: readonly string[], cur: readonly string[]): number {
  let bytes = 0;
  for (let i = 0; i < cur.length; i++) {
    const a = prev[i];
    const b = cur[i]!;
    if (a === b) {
      bytes += Buffer.byteLength(b);
      continue;
    }
    if (a === undefined) return bytes;
    let k = 0;
    const n = Math.min(a.length, b.length);
    while (k < n && a.charCodeAt(k) === b.charCodeAt(k)) k++;
    return bytes + Buffer.byteLength(b.slice(0, k));
  }
  return bytes;
}

interface RequestFigures {
  turn: number;
  summary: boolean;
  total: number;
  read: number;
  written: number;
  uncached: number;
  /** bytes equal to the previous conversation request's prefix ÷ bytes; null for the first and for summary requests */
  stability: number | null;
}

/** The caching fake in this process; commands on stdin ("turn N <steps json>", "report"), answers on stdout. */
async function serve(): Promise<void> {
  const { startFakeProvider } = await import("../test/helpers/fake-provider.js");
  const { FakeCache } = await import("../test/helpers/fake-cache.js");
  const words = "the parser reads one token too far when a comment ends the file so we check the boundary first".split(" ");
  const note = Array.from({ length: 400 }, (_, i) => words[i % words.length]).join(" ");
  const cache = new FakeCache();
  const fake = await startFakeProvider({
    key: KEY,
    cache,
    // a summary request is answered with a note wherever compaction puts it
    respond: (_shape, body) => (JSON.stringify((body as Record<string, unknown> | undefined)?.["system"] ?? "").includes(SUMMARY_MARK) ? { text: `## Goal\n${note}` } : undefined),
  });
  const turnOf: number[] = [];
  let turn = 0;
  const out = (s: string): void => void process.stdout.write(`${s}\n`);
  out(`url ${fake.url}`);
  let pending = "";
  process.stdin.setEncoding("utf8").on("data", (d: string) => {
    pending += d;
    let nl;
    while ((nl = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const m = /^turn (\d+) (.*)$/.exec(line);
      if (m) {
        // requests before this are of earlier turns
        while (turnOf.length < fake.requests.length) turnOf.push(turn);
        turn = Number(m[1]);
        fake.script(...(JSON.parse(m[2]!) as Step[]));
        out("ok");
      } else if (line === "report") {
        while (turnOf.length < fake.requests.length) turnOf.push(turn);
        const rejected = fake.rejections();
        if (rejected.length > 0 || cache.log.length !== fake.requests.length) {
          out(`error ${JSON.stringify(`${fake.requests.length} requests, ${cache.log.length} cache log entries, refused: ${rejected.join("; ")}`)}`);
          continue;
        }
        const rows: RequestFigures[] = [];
        let prev: string[] | undefined;
        fake.requests.forEach((r, i) => {
          const body = r.body as Record<string, unknown>;
          const summary = JSON.stringify(body["system"] ?? "").includes(SUMMARY_MARK);
          const e = cache.log[i]!;
          let stability: number | null = null;
          if (!summary) {
            const units = cacheUnits(body);
            if (prev) stability = commonPrefixBytes(prev, units) / units.reduce((n, u) => n + Buffer.byteLength(u), 0);
            prev = units;
          }
          rows.push({ turn: turnOf[i]!, summary, total: e.totalTokens, read: e.readTokens, written: e.writtenTokens, uncached: e.uncachedTokens, stability });
        });
        out(`report ${JSON.stringify(rows)}`);
      }
    }
  });
  process.stdin.on("end", () => void fake.close().then(() => process.exit(0)));
}

// ----------------------------------------------------------------------------- the session

const PROSE = (
  "the failing case comes from the boundary check in the tokenizer so I will read the module " +
  "then adjust the loop and run the tests again to see whether the fix holds for every input"
).split(" ");

/** The files the session reads and edits, of mixed sizes. */
async function seedWorkspace(dir: string, seed: number): Promise<void> {
  const r = prng(seed);
  await fsp.mkdir(path.join(dir, "src"), { recursive: true });
  for (let i = 0; i < 12; i++) {
    const lines = 10 + Math.floor(r() * (i % 3 === 0 ? 700 : 120));
    const text = Array.from({ length: lines }, (_, n) => `export function f${i}_${n}(x: number): number { return x * ${n} + ${i}; }`).join("\n");
    await fsp.writeFile(path.join(dir, "src", `mod${i}.ts`), `${text}\n`);
  }
  await fsp.writeFile(path.join(dir, "src", "counter.ts"), "export const value = 0;\n");
}

/** Turn t's script: 1–3 tool rounds (the first edits the counter), then an answer. */
function turnSteps(t: number, r: () => number): { prompt: string; steps: Step[] } {
  const prose = (n: number): string => Array.from({ length: n }, () => PROSE[Math.floor(r() * PROSE.length)]).join(" ") + ".";
  const rounds = 1 + Math.floor(r() * 3);
  const steps: Step[] = [];
  for (let k = 0; k < rounds; k++) {
    const calls: { name: string; input: unknown; id: string }[] = [];
    const n = 1 + Math.floor(r() * 2);
    for (let c = 0; c < n; c++) {
      const id = `toolu_${t}_${k}_${c}`;
      if (k === 0 && c === 0) {
        calls.push({ name: "edit", id, input: { path: "src/counter.ts", old_string: `value = ${t};`, new_string: `value = ${t + 1};` } });
        continue;
      }
      const pick = r();
      if (pick < 0.45) calls.push({ name: "read", id, input: { path: `src/mod${Math.floor(r() * 12)}.ts` } });
      else if (pick < 0.8) calls.push({ name: "bash", id, input: { command: `seq 1 ${1 + Math.floor(r() * (r() < 0.3 ? 5000 : 300))}` } });
      else calls.push({ name: "bash", id, input: { command: "ls -la src && wc -l src/*.ts" } });
    }
    steps.push({ toolCalls: calls, text: prose(10 + Math.floor(r() * 20)) });
  }
  steps.push({ text: prose(40 + Math.floor(r() * 160)) });
  return { prompt: `Turn ${t + 1}: ${prose(15 + Math.floor(r() * 30))}`, steps };
}

export interface Run {
  label: string;
  strategy: CompactionStrategy;
  step: number;
  /** the context window the session is told (default WINDOW) */
  window?: number;
}

interface Figures {
  share: number;
  cost: number;
  /** the session's input cost with caching, in uncached-token units (÷ today's gives the saving) */
  costUnits: number;
  /** all input tokens of the session */
  inputTokens: number;
  stabilityMin: number;
  stabilityMedian: number;
  requests: number;
  summaries: number;
}

class Child {
  private lines: string[] = [];
  private waiters: (() => void)[] = [];
  private constructor(private readonly child: ChildProcess) {
    let pending = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      pending += d;
      let nl;
      while ((nl = pending.indexOf("\n")) !== -1) {
        this.lines.push(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    child.once("exit", () => {
      for (const w of this.waiters.splice(0)) w();
    });
  }
  static start(): Child {
    return new Child(spawn(process.execPath, ["--import", "tsx", SELF, "--serve"], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] }));
  }
  async line(prefix: string): Promise<string> {
    for (;;) {
      const i = this.lines.findIndex((l) => l.startsWith(prefix) || l.startsWith("error "));
      if (i >= 0) {
        const [l] = this.lines.splice(i, 1);
        if (l!.startsWith("error ")) throw new Error(`the caching fake: ${JSON.parse(l!.slice(6)) as string}`);
        return l!.slice(prefix.length);
      }
      if (this.child.exitCode !== null) throw new Error(`the caching fake exited (${this.child.exitCode})`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
  send(s: string): void {
    this.child.stdin!.write(`${s}\n`);
  }
  async close(): Promise<void> {
    this.child.stdin!.end();
    await Promise.race([new Promise((resolve) => this.child.once("exit", resolve)), sleep(3000)]);
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

export async function runSession(run: Run, turns: number): Promise<Figures> {
  const { openStore } = await import("../src/session/store/store.js");
  const { App } = await import("../src/session/controller/controller.js");
  const dir = await tempDir("cache");
  const workspace = path.join(dir, "work");
  await seedWorkspace(workspace, 7);
  const child = Child.start();
  try {
    const url = await child.line("url ");
    const store = await openStore(path.join(dir, "history.sqlite"));
    const app = await App.create({
      store,
      provider: "anthropic",
      model: MODEL,
      baseUrl: url,
      credentials: { keys: { anthropic: KEY }, baseUrls: {} },
      workspace,
      permission: "auto",
      compaction: run.strategy,
      compactionThreshold: 0.8,
      keepToolRounds: 3,
      microcompactStep: run.step,
      reasoning: "off",
      contextWindow: run.window ?? WINDOW,
      open: { fresh: true },
      headless: true,
    });
    const r = prng(2026);
    try {
      for (let t = 0; t < turns; t++) {
        const { prompt, steps } = turnSteps(t, r);
        child.send(`turn ${t} ${JSON.stringify(steps)}`);
        await child.line("ok");
        await app.submit(prompt);
      }
    } finally {
      await app.close();
    }
    child.send("report");
    const rows = JSON.parse(await child.line("report ")) as RequestFigures[];
    // cached share over turns 2–40 (the first turn has nothing to read)
    const later = rows.filter((x) => x.turn >= 1);
    const share = sum(later, (x) => x.read) / Math.max(1, sum(later, (x) => x.total));
    const costUnits = sum(rows, (x) => x.uncached + 1.25 * x.written + 0.1 * x.read);
    const inputTokens = sum(rows, (x) => x.total);
    const cost = costUnits / Math.max(1, inputTokens);
    const stab = rows.flatMap((x) => (x.stability === null ? [] : [x.stability]));
    return {
      share,
      cost,
      costUnits,
      inputTokens,
      stabilityMin: stab.length ? Math.min(...stab) : 1,
      stabilityMedian: stab.length ? median(stab) : 1,
      requests: rows.length,
      summaries: rows.filter((x) => x.summary).length,
    };
  } finally {
    await child.close();
    await removeDir(dir);
  }
}

function sum<T>(xs: readonly T[], f: (x: T) => number): number {
  let n = 0;
  for (const x of xs) n += f(x);
  return n;
}

const f2 = (x: number): string => x.toFixed(2);

export async function benchCache(quick = false): Promise<Row[]> {
  const turns = quick ? 8 : 40;
  const { DEFAULT_MICROCOMPACT_STEP } = await import("../src/compaction/microcompact.js");
  const step = DEFAULT_MICROCOMPACT_STEP;
  // today: the default strategy with the boundary moving every round; its share and cost
  // without caching are 0 and 1 by definition, its stability is measured
  const today = await runSession({ label: "today", strategy: "microcompact+summary", step: 1 }, turns);
  const todayText = `no caching: cached 0.00 · cost 1.00 · prefix min ${f2(today.stabilityMin)} median ${f2(today.stabilityMedian)}`;
  const rows: Row[] = [];
  const runs: Run[] = [
    { label: "none", strategy: "none", step },
    { label: "microcompact", strategy: "microcompact", step },
    { label: "summary", strategy: "summary", step },
    { label: "microcompact+summary", strategy: "microcompact+summary", step },
    // a window small enough that summaries happen beside the steps
    { label: `microcompact+summary, ${SMALL_WINDOW.toLocaleString("en-US")}-token window`, strategy: "microcompact+summary", step, window: SMALL_WINDOW },
  ];
  for (const run of runs) {
    const f = await runSession(run, turns);
    const shareTarget = run.strategy === "none" || run.strategy === "microcompact+summary";
    rows.push({
      benchmark: `cache: ${run.label}`,
      albedo: `cached ${f2(f.share)} · cost ${f2(f.cost)} · prefix min ${f2(f.stabilityMin)} median ${f2(f.stabilityMedian)}`,
      floor: todayText,
      ratio: f.cost,
      target: shareTarget ? "cached ≥ 0.90, cost ≤ 0.25" : "cost ≤ 0.25",
      met: (!shareTarget || f.share >= 0.9) && f.cost <= 0.25,
      raw: { ...f, turns, step: run.step, window: run.window ?? WINDOW, costVsToday: f.costUnits / today.inputTokens, today },
      note: `${turns} turns, ${f.requests} requests (${f.summaries} summary), step ${run.step}, window ${(run.window ?? WINDOW).toLocaleString("en-US")}; input cost ${f2(f.costUnits / today.inputTokens)}× today's`,
    });
  }
  // the moving boundary with caching: what steps are for
  rows.push({
    benchmark: "cache: microcompact+summary, step 1, cached",
    albedo: `cached ${f2(today.share)} · cost ${f2(today.cost)} · prefix min ${f2(today.stabilityMin)} median ${f2(today.stabilityMedian)}`,
    floor: todayText,
    ratio: today.cost,
    target: "— (shows the steps' effect)",
    met: null,
    raw: { ...today, turns, step: 1, window: WINDOW, costVsToday: today.costUnits / today.inputTokens },
    note: `${turns} turns, ${today.requests} requests (${today.summaries} summary), boundary moving every round, with breakpoints; input cost ${f2(today.costUnits / today.inputTokens)}× today's`,
  });
  return rows;
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(path.resolve(entry)).href && process.argv.includes("--serve")) {
  serve().catch((err: unknown) => {
    process.stderr.write(`caching fake: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
