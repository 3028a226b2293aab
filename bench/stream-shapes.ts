// The stream benchmark over every shape of answer: the benchmark's own prose (a blank line
// every 60 words) and each shape of test/helpers/answer-shapes.ts (one paragraph of soft
// breaks, one line with no break, lists, a code block, a table, nested quotes, the mix), each
// streamed through albedo-tui's screen and through the bare-Node floor (undici, SSE parse,
// each delta written to the same kind of pty), the two interleaved. The headline rows are the
// WORST shape's, so a friendly answer cannot hide a slow one; a row per shape follows.
//
// What it also counts, from the same runs: bytes written to the terminal per streamed word and
// full-screen clears while streaming (against the floor, which writes each delta once and
// never clears), and, at ten times the size, how CPU and peak memory grow.
//
//   BENCH_STREAM_SHAPES=paragraph,code  only these shapes
//   BENCH_STREAM_RUNS=1                 pairs per shape (3 in the full run)
//   BENCH_STREAM_GROWTH=0               leave out the ten-times answers
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SHAPES, answerOf, type Shape } from "../test/helpers/answer-shapes.js";
import { fmtBytes, fmtMB, fmtMs, median, removeDir, type Row } from "./lib.js";
import { FakeServer, LAST_WORD, streamAlbedo, streamAnswer, streamFloor, type StreamRun } from "./tui.js";

export type StreamShape = "benchmark" | Shape;
export const STREAM_SHAPES: readonly StreamShape[] = ["benchmark", ...SHAPES];
/** --quick proves the suite runs: the friendliest shape, the one the issue was measured with, and a code block */
const QUICK_SHAPES: readonly StreamShape[] = ["benchmark", "paragraph", "code"];

/** about `words` words of the shape, ending with the last word the screen is watched for */
export function shapedAnswer(shape: StreamShape, words: number): string {
  if (shape === "benchmark") return streamAnswer(words);
  const text = answerOf(shape, { words, seed: 11 }).replace(/\s+$/, "");
  // a word after a table's last row would be a cell beyond its columns, and not shown
  return shape === "table" ? `${text}\n\n${LAST_WORD}\n` : `${text} ${LAST_WORD}\n`;
}

/** words: runs of non-space holding a letter or a digit (a table's pipes and a quote's marks are not words) */
const wordCount = (text: string): number => text.match(/\S*[\p{L}\p{N}]\S*/gu)?.length ?? 0;

interface ShapeResult {
  shape: StreamShape;
  words: number;
  albedo: StreamRun[];
  floor: StreamRun[];
  /** ten times the size, once each side */
  big?: { words: number; albedo: StreamRun; floor: StreamRun };
}

const FLOOR = "bare Node + undici";

function chosenShapes(quick: boolean): StreamShape[] {
  const env = process.env["BENCH_STREAM_SHAPES"];
  if (!env) return [...(quick ? QUICK_SHAPES : STREAM_SHAPES)];
  const names = env.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(STREAM_SHAPES as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`BENCH_STREAM_SHAPES: unknown shape ${unknown.join(", ")}; known: ${STREAM_SHAPES.join(", ")}`);
  return names as StreamShape[];
}

/** the median of per-run ratios albedo / floor (runs are pairs, in turn) */
function ratioOf(r: ShapeResult, f: (x: StreamRun) => number): number {
  return median(r.albedo.map((a, i) => f(a) / f(r.floor[i]!)));
}
const med = (xs: StreamRun[], f: (x: StreamRun) => number): number => median(xs.map(f));
/** the stream's own span on screen, in minutes (first words to last), for a rate per minute */
const minutes = (x: StreamRun): number => Math.max(1, x.lastVisibleMs - x.firstVisibleMs) / 60_000;

export async function benchStreamShapes(quick: boolean): Promise<Row[]> {
  const tokens = quick ? 2000 : 20_000;
  // three pairs a shape: nine shapes, each also once at ten times the size
  const runs = Number(process.env["BENCH_STREAM_RUNS"] ?? (quick ? 1 : 3));
  const growth = process.env["BENCH_STREAM_GROWTH"] !== "0";
  const shapes = chosenShapes(quick);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "albedo-bench-stream-"));
  const results: ShapeResult[] = [];
  let paced: StreamRun | undefined;
  let pacedFloor: StreamRun | undefined;
  const pacedTokens = quick ? 300 : 3000;
  try {
    let warm = false;
    for (const shape of shapes) {
      const answer = shapedAnswer(shape, tokens);
      const r: ShapeResult = { shape, words: wordCount(answer), albedo: [], floor: [] };
      process.stderr.write(`  stream ${shape}: ${r.words} words × ${runs}\n`);
      const fake = await FakeServer.start(answer, dir);
      try {
        if (!warm) {
          // one warm-up pair (OS file cache, the fake's own JIT)
          await streamAlbedo(fake);
          await streamFloor(fake);
          warm = true;
        }
        for (let i = 0; i < runs; i++) {
          r.albedo.push(await streamAlbedo(fake));
          r.floor.push(await streamFloor(fake));
        }
      } finally {
        await fake.close();
      }
      if (growth) {
        const bigAnswer = shapedAnswer(shape, tokens * 10);
        const bigFake = await FakeServer.start(bigAnswer, dir);
        try {
          r.big = { words: wordCount(bigAnswer), albedo: await streamAlbedo(bigFake), floor: await streamFloor(bigFake) };
        } finally {
          await bigFake.close();
        }
      }
      results.push(r);
    }
    // Coalescing shows only when words arrive slower than frames could be drawn: the fast
    // stream above is parsed in a few event-loop turns. A paced stream (one word about every
    // millisecond, far faster than any model) runs for seconds, long enough to count frames.
    const pacedFake = await FakeServer.start(streamAnswer(pacedTokens), dir, 1);
    try {
      paced = await streamAlbedo(pacedFake);
      pacedFloor = await streamFloor(pacedFake);
    } finally {
      await pacedFake.close();
    }
  } finally {
    await removeDir(dir);
  }
  return streamRows(results, tokens, paced && pacedFloor ? { albedo: paced, floor: pacedFloor } : undefined, pacedTokens);
}

function worst<T>(xs: T[], f: (x: T) => number): T {
  return xs.reduce((a, b) => (f(b) > f(a) ? b : a));
}

function streamRows(results: ShapeResult[], tokens: number, pacedPair: { albedo: StreamRun; floor: StreamRun } | undefined, pacedTokens: number): Row[] {
  const size = `${tokens.toLocaleString("en-US")}-word stream`;
  const lastOf = (x: StreamRun) => x.lastVisibleMs;
  const cpuOf = (x: StreamRun) => x.cpuSeconds;
  const peakOf = (x: StreamRun) => x.peakRss;
  const perWord = (r: ShapeResult) => (x: StreamRun) => x.bytes / r.words;
  const raw = (xs: StreamRun[]) => ({
    arrivedMs: xs.map((r) => r.arrivedMs),
    firstVisibleMs: xs.map((r) => r.firstVisibleMs),
    lastVisibleMs: xs.map((r) => r.lastVisibleMs),
    cpuSeconds: xs.map((r) => r.cpuSeconds),
    peakRssBytes: xs.map((r) => r.peakRss),
    rssBeforeEnterBytes: xs.map((r) => r.rssBefore),
    frames: xs.map((r) => r.frames),
    bytes: xs.map((r) => r.bytes),
    clears: xs.map((r) => r.clears),
  });
  const shapeList = results.map((r) => r.shape).join(", ");

  const wLast = worst(results, (r) => ratioOf(r, lastOf));
  const wCpu = worst(results, (r) => ratioOf(r, cpuOf));
  const wPeak = worst(results, (r) => med(r.albedo, peakOf));
  const over = (r: ShapeResult, f: (x: StreamRun) => number) => median(r.albedo.map((a, i) => f(a) - f(r.floor[i]!)));
  const wArrived = worst(results, (r) => over(r, (x) => x.arrivedMs));
  const wFirst = worst(results, (r) => over(r, (x) => x.firstVisibleMs));
  const wBytes = worst(results, (r) => ratioOf(r, perWord(r)));
  const wClears = worst(results, (r) => med(r.albedo, (x) => x.clears / minutes(x)));
  const wFrames = worst(results, (r) => -med(r.albedo, (x) => x.frames));

  const rows: Row[] = [
    {
      benchmark: `${size}, worst of ${results.length} shapes (${wLast.shape}): Enter → last word visible`,
      albedo: fmtMs(med(wLast.albedo, lastOf)),
      floor: `${fmtMs(med(wLast.floor, lastOf))} ${FLOOR}`,
      ratio: ratioOf(wLast, lastOf),
      target: "≤ 1.5×",
      met: ratioOf(wLast, lastOf) <= 1.5,
      raw: { tokens, shapes: Object.fromEntries(results.map((r) => [r.shape, { words: r.words, albedo: raw(r.albedo), floor: raw(r.floor), ...(r.big ? { big: { words: r.big.words, albedo: raw([r.big.albedo]), floor: raw([r.big.floor]) } } : {}) }])) },
      note: `shapes: ${shapeList}; the fake provider runs in its own process and sends one SSE event per word over loopback; the floor reads the same stream with undici and writes each delta to the same kind of pty; medians of per-run ratios`,
    },
    {
      benchmark: `${size}, worst shape (${wCpu.shape}): CPU of the process tree`,
      albedo: `${med(wCpu.albedo, cpuOf).toFixed(2)} s`,
      floor: `${med(wCpu.floor, cpuOf).toFixed(2)} s ${FLOOR}`,
      ratio: ratioOf(wCpu, cpuOf),
      target: "≤ 1.5×",
      met: ratioOf(wCpu, cpuOf) <= 1.5,
    },
    {
      benchmark: `${size}, worst shape (${wPeak.shape}): peak RSS`,
      albedo: fmtMB(med(wPeak.albedo, peakOf)),
      floor: `${fmtMB(med(wPeak.floor, peakOf))} ${FLOOR}`,
      ratio: ratioOf(wPeak, peakOf),
      target: "≤ 100 MB",
      met: med(wPeak.albedo, peakOf) <= 100 * 1048576,
    },
    {
      benchmark: `${size}, worst shape (${wArrived.shape}): Enter → request at the provider`,
      albedo: fmtMs(med(wArrived.albedo, (x) => x.arrivedMs)),
      floor: `${fmtMs(med(wArrived.floor, (x) => x.arrivedMs))} ${FLOOR}`,
      ratio: ratioOf(wArrived, (x) => x.arrivedMs),
      target: "≤ floor + 20 ms",
      met: over(wArrived, (x) => x.arrivedMs) <= 20,
      note: `median of the per-run differences: ${signed(over(wArrived, (x) => x.arrivedMs))}`,
    },
    {
      benchmark: `${size}, worst shape (${wFirst.shape}): Enter → first word visible`,
      albedo: fmtMs(med(wFirst.albedo, (x) => x.firstVisibleMs)),
      floor: `${fmtMs(med(wFirst.floor, (x) => x.firstVisibleMs))} ${FLOOR}`,
      ratio: ratioOf(wFirst, (x) => x.firstVisibleMs),
      target: "≤ floor + 50 ms",
      met: over(wFirst, (x) => x.firstVisibleMs) <= 50,
      note: `median of the per-run differences: ${signed(over(wFirst, (x) => x.firstVisibleMs))}`,
    },
    {
      benchmark: `${size}, worst shape (${wBytes.shape}): bytes to the terminal per streamed word`,
      albedo: `${med(wBytes.albedo, perWord(wBytes)).toFixed(1)} B/word (${fmtBytes(med(wBytes.albedo, (x) => x.bytes))})`,
      floor: `${med(wBytes.floor, perWord(wBytes)).toFixed(1)} B/word ${FLOOR}`,
      ratio: ratioOf(wBytes, perWord(wBytes)),
      target: "— (figure)",
      met: null,
      note: `Enter until the screen settled, over the answer's words; per shape: ${results.map((r) => `${r.shape} ${ratioOf(r, perWord(r)).toFixed(1)}×`).join(", ")}`,
    },
    {
      benchmark: `${size}, worst shape (${wClears.shape}): full-screen clears while streaming`,
      albedo: `${med(wClears.albedo, (x) => x.clears)} (${med(wClears.albedo, (x) => x.clears / minutes(x)).toFixed(1)}/min)`,
      floor: `${med(wClears.floor, (x) => x.clears)} ${FLOOR}`,
      ratio: null,
      target: "0",
      met: med(wClears.albedo, (x) => x.clears) === 0,
      note: "ESC[2J, or the cursor sent home and everything below erased, from Enter until the screen settled",
    },
    {
      benchmark: `${size}, worst shape (${wFrames.shape}): progressive`,
      albedo: `${med(wFrames.albedo, (x) => x.frames)} frames until the last word`,
      floor: "—",
      ratio: null,
      target: "text visible while streaming (≥ 3 frames)",
      met: med(wFrames.albedo, (x) => x.frames) >= 3,
    },
  ];

  const bigs = results.filter((r): r is ShapeResult & { big: NonNullable<ShapeResult["big"]> } => r.big !== undefined);
  if (bigs.length) {
    const growthOf = (r: (typeof bigs)[number]) => r.big.albedo.cpuSeconds / med(r.albedo, cpuOf);
    const gCpu = worst(bigs, growthOf);
    const gPeak = worst(bigs, (r) => r.big.albedo.peakRss);
    const gFrames = worst(bigs, (r) => -r.big.albedo.frames);
    const bigSize = `${(tokens * 10).toLocaleString("en-US")}-word stream (growth)`;
    rows.push(
      {
        benchmark: `${bigSize}, worst shape (${gCpu.shape}): CPU of the process tree`,
        albedo: `${gCpu.big.albedo.cpuSeconds.toFixed(2)} s (${growthOf(gCpu).toFixed(1)}× the ${tokens.toLocaleString("en-US")}-word figure)`,
        floor: `${gCpu.big.floor.cpuSeconds.toFixed(2)} s ${FLOOR}`,
        ratio: gCpu.big.albedo.cpuSeconds / gCpu.big.floor.cpuSeconds,
        target: "≤ 11× the smaller stream's CPU",
        met: growthOf(gCpu) <= 11,
        note: `last word at ${fmtMs(gCpu.big.albedo.lastVisibleMs)} (floor ${fmtMs(gCpu.big.floor.lastVisibleMs)}); per shape: ${bigs.map((r) => `${r.shape} ${growthOf(r).toFixed(1)}×`).join(", ")}`,
      },
      {
        benchmark: `${bigSize}, worst shape (${gPeak.shape}): peak RSS, progressive`,
        albedo: `${fmtMB(gPeak.big.albedo.peakRss)}, ${gFrames.big.albedo.frames} frames until the last word (fewest: ${gFrames.shape})`,
        floor: `${fmtMB(gPeak.big.floor.peakRss)} ${FLOOR}`,
        ratio: gPeak.big.albedo.peakRss / gPeak.big.floor.peakRss,
        target: "< 200 MB, ≥ 3 frames",
        met: gPeak.big.albedo.peakRss < 200 * 1048576 && gFrames.big.albedo.frames >= 3,
      },
    );
  }

  // a row per shape: the three figures against the floor's, and the ten-times answer's growth
  for (const r of results) {
    const lr = ratioOf(r, lastOf);
    const cr = ratioOf(r, cpuOf);
    const peak = med(r.albedo, peakOf);
    const fig = (xs: StreamRun[]) => `${fmtMs(med(xs, lastOf))} · ${med(xs, cpuOf).toFixed(2)} s CPU · ${fmtMB(med(xs, peakOf))}`;
    rows.push({
      benchmark: `  ${r.shape} (${r.words.toLocaleString("en-US")} words): last word · CPU · peak`,
      albedo: fig(r.albedo),
      floor: fig(r.floor),
      ratio: Math.max(lr, cr),
      target: "≤ 1.5×, ≤ 100 MB",
      met: lr <= 1.5 && cr <= 1.5 && peak <= 100 * 1048576,
      note:
        `last ${lr.toFixed(2)}×, CPU ${cr.toFixed(2)}×, peak ${ratioOf(r, peakOf).toFixed(2)}×, ${(med(r.albedo, perWord(r))).toFixed(1)} B/word (floor ${med(r.floor, perWord(r)).toFixed(1)}), ${med(r.albedo, (x) => x.clears)} clears` +
        (r.big ? `; ${r.big.words.toLocaleString("en-US")} words: ${r.big.albedo.cpuSeconds.toFixed(2)} s CPU (${(r.big.albedo.cpuSeconds / med(r.albedo, cpuOf)).toFixed(1)}×), peak ${fmtMB(r.big.albedo.peakRss)}, last word ${fmtMs(r.big.albedo.lastVisibleMs)} (floor ${fmtMs(r.big.floor.lastVisibleMs)}, ${r.big.floor.cpuSeconds.toFixed(2)} s CPU)` : ""),
    });
  }

  if (pacedPair) {
    const paced = pacedPair.albedo;
    const floor = pacedPair.floor;
    // at 1 word/ms frames are drawn while words arrive, so this is what a stream costs the terminal
    rows.push({
      benchmark: `paced ${pacedTokens.toLocaleString("en-US")}-word stream (1 word/ms): bytes to the terminal per streamed word; full-screen clears`,
      albedo: `${(paced.bytes / pacedTokens).toFixed(1)} B/word (${fmtBytes(paced.bytes)}, ${(paced.bytes / Math.max(1, paced.frames)).toFixed(0)} B/frame); ${paced.clears} clears`,
      floor: `${(floor.bytes / pacedTokens).toFixed(1)} B/word; ${floor.clears} clears ${FLOOR}`,
      ratio: paced.bytes / floor.bytes,
      target: "no full clear while streaming",
      met: paced.clears === 0,
      note: "Enter until the screen settled; the fast streams' figures per shape are in the rows above",
    });
    const span = (paced.lastVisibleMs - paced.firstVisibleMs) / 1000;
    const fps = paced.frames / Math.max(0.001, span);
    rows.push({
      benchmark: `paced ${pacedTokens.toLocaleString("en-US")}-word stream (1 word/ms): frames/s`,
      albedo: `${fps.toFixed(0)} frames/s (${paced.frames} frames in ${span.toFixed(1)} s)`,
      floor: "—",
      ratio: fps / 60,
      // 60 frames/s, with a couple of frames of slack for the status line's own redraws
      target: "≤ ~60 frames/s",
      met: fps <= 62,
      raw: { pacedTokens, frames: paced.frames, spanSeconds: span, fps, cpuSeconds: paced.cpuSeconds, bytes: paced.bytes, clears: paced.clears },
    });
  }
  return rows;
}

function signed(ms: number): string {
  return `${ms >= 0 ? "+" : ""}${fmtMs(ms)}`;
}
