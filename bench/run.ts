// The benchmark suite: `npm run bench` (all), `npm run bench -- startup store`
// (some), `npm run bench -- --quick` (a short version that only proves the suite runs).
//
// Each benchmark measures albedo-tui and a floor in the same run and reports medians and the
// ratio; a missed target is printed as missed, never thrown. The table goes to stdout and
// everything measured to bench/results.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR, CLI, fmtMs, skipped, type Row } from "./lib.js";

interface Bench {
  name: string;
  what: string;
  /** needs the built CLI (dist/cli.js) */
  cli?: boolean;
  run(quick: boolean): Promise<Row[]>;
}

// Each benchmark's module is loaded only when it runs: a part of the product that does not
// build yet skips its benchmark instead of stopping the suite.
const BENCHES: Bench[] = [
  { name: "startup", what: "start-up, idle memory and CPU", cli: true, run: async (q) => (await import("./tui.js")).benchStartup(q) },
  { name: "stream", what: "20,000-word streamed answer over SSE in every shape (the worst reported), and 200,000 for growth", cli: true, run: async (q) => (await import("./stream-shapes.js")).benchStreamShapes(q) },
  { name: "ssh", what: "the 20,000-word stream over SSH with 50 ms each way, against a local pty: bytes per frame, frames/s", cli: true, run: async (q) => (await import("./ssh.js")).benchSsh(q) },
  { name: "long-session", what: "50,000-message session resumed, PageUp", cli: true, run: async (q) => (await import("./tui.js")).benchLongSession(q) },
  { name: "turns", what: "1,000 scripted turns in one process: RSS against after 10", cli: true, run: async (q) => (await import("./turns.js")).benchTurns(q) },
  { name: "replay", what: "replay + encode + capture", run: async (q) => (await import("./replay.js")).benchReplay(q) },
  { name: "pages", what: "inspector page fetch", run: async (q) => (await import("./pages.js")).benchPages(q) },
  { name: "store", what: "store append and load", run: async (q) => (await import("./store.js")).benchStore(q) },
  { name: "compaction", what: "compaction strategies", run: runCompaction },
  { name: "cache", what: "prompt caching: 40-turn session per compaction strategy", run: async (q) => (await import("./cache.js")).benchCache(q) },
  { name: "mcp", what: "first usable frame with two MCP servers vs none", cli: true, run: async (q) => (await import("./mcp.js")).benchMcp(q) },
  { name: "mcp-wire", what: "an MCP server's output: a 15 MB result, a flood of notifications", run: async (q) => (await import("./mcp.js")).benchMcpWire(q) },
  { name: "mentions", what: "@ completion on 100,000 files vs git ls-files", run: async (q) => (await import("./mentions.js")).benchMentions(q) },
  { name: "sandbox", what: "starting a command inside bubblewrap vs unsandboxed (true, ls)", run: async (q) => (await import("./sandbox.js")).benchSandbox(q) },
  { name: "checkpoints", what: "a turn's checkpoint on 10,000 files vs git stash create", run: async (q) => (await import("./checkpoints.js")).benchCheckpoints(q) },
];

/** bench/compaction.ts belongs to another part of the project; its rows are taken as they come. */
async function runCompaction(quick: boolean): Promise<Row[]> {
  const file = path.join(BENCH_DIR, "compaction.ts");
  if (!fs.existsSync(file)) return [skipped("compaction", "bench/compaction.ts does not exist yet")];
  const mod = (await import(pathToFileURL(file).href)) as { benchCompaction?: (quick?: boolean) => unknown };
  if (typeof mod.benchCompaction !== "function") return [skipped("compaction", "bench/compaction.ts has no benchCompaction()")];
  const out = await mod.benchCompaction(quick);
  const list = Array.isArray(out) ? out : [out];
  return list.map((r, i) => toRow(r, `compaction #${i + 1}`));
}

function toRow(r: unknown, fallbackName: string): Row {
  const o = (typeof r === "object" && r !== null ? r : { value: r }) as Record<string, unknown>;
  const str = (v: unknown) => (v === undefined || v === null ? "—" : typeof v === "number" ? v.toFixed(2) : String(v));
  // the compaction rows carry times in ms and a JSON.stringify floor
  const ms = (v: unknown, suffix = "") => (typeof v === "number" ? `${fmtMs(v)}${suffix}` : str(v));
  const ratio = typeof o["ratio"] === "number" ? o["ratio"] : null;
  const met = typeof o["met"] === "boolean" ? o["met"] : null;
  return {
    benchmark: str(o["benchmark"] ?? o["name"] ?? fallbackName),
    albedo: typeof o["albedo"] === "string" ? o["albedo"] : ms(o["ms"] ?? o["value"]),
    floor: typeof o["floor"] === "string" ? o["floor"] : ms(o["floorMs"], " JSON.stringify"),
    ratio,
    target: typeof o["target"] === "string" ? o["target"] : "— (no target)",
    met,
    raw: o,
    ...(typeof o["note"] === "string" && o["note"] ? { note: o["note"] } : {}),
  };
}

// ------------------------------------------------------------------------------- table

function printTable(rows: Row[]): void {
  const head = ["benchmark", "albedo-tui", "floor", "ratio", "target", "met?"];
  const cells = rows.map((r) => [
    r.benchmark,
    r.albedo,
    r.floor,
    r.ratio === null ? "—" : `${r.ratio.toFixed(2)}×`,
    r.target,
    r.met === null ? "—" : r.met ? "yes" : "MISSED",
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => [...c[i]!].length)));
  const line = (c: string[]) => c.map((x, i) => x + " ".repeat(width[i]! - [...x].length)).join(" | ");
  console.log(line(head));
  console.log(width.map((w) => "-".repeat(w)).join("-|-"));
  for (const c of cells) console.log(line(c));
  const notes = rows.filter((r) => r.note);
  if (notes.length) {
    console.log("");
    for (const r of notes) console.log(`- ${r.benchmark}: ${r.note}`);
  }
}

// -------------------------------------------------------------------------------- main

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const names = args.filter((a) => !a.startsWith("--"));
  const unknown = names.filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length) {
    console.error(`unknown benchmark: ${unknown.join(", ")}; known: ${BENCHES.map((b) => b.name).join(", ")}`);
    return 2;
  }
  const chosen = names.length ? BENCHES.filter((b) => names.includes(b.name)) : BENCHES;

  console.log(
    `albedo-tui benchmarks${quick ? " (--quick: small sizes, few runs; figures prove only that the suite runs)" : ""}\n` +
      `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`,
  );
  const rows: Row[] = [];
  const timings: Record<string, number> = {};
  for (const b of chosen) {
    const t0 = performance.now();
    process.stderr.write(`… ${b.name}: ${b.what}\n`);
    if (b.cli && !fs.existsSync(CLI)) {
      rows.push(skipped(b.name, "dist/cli.js is missing (run npm run build)"));
      continue;
    }
    try {
      rows.push(...(await b.run(quick)));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      rows.push(skipped(b.name, msg.split("\n")[0] ?? msg));
      process.stderr.write(`${b.name} failed: ${e instanceof Error ? (e.stack ?? msg) : msg}\n`);
    }
    timings[b.name] = Math.round(performance.now() - t0);
  }

  console.log("");
  printTable(rows);
  const missed = rows.filter((r) => r.met === false).length;
  const notRun = rows.filter((r) => r.note?.startsWith("not run")).length;
  console.log(`\n${rows.length} figures: ${rows.filter((r) => r.met).length} targets met, ${missed} missed, ${notRun} not run`);

  const out = path.join(BENCH_DIR, "results.json");
  fs.writeFileSync(
    out,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        quick,
        node: process.version,
        cpus: os.cpus().length,
        cpu: os.cpus()[0]?.model,
        loadavg: os.loadavg(),
        secondsPerBenchmark: Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, v / 1000])),
        rows,
      },
      null,
      2,
    ) + "\n",
  );
  console.log(`written: ${path.relative(process.cwd(), out)}`);
  // Benchmarks are not tests: a missed target is a figure, not a failure.
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
