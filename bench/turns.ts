// A long session in one process: 1,000 scripted turns typed into the real screen (a prompt,
// Enter, a 40-word answer streamed by the fake provider in its own process), and the
// process's resident memory after 10 turns against after 1,000, as an outside observer reads
// it from /proc. Peers' users report sessions whose memory grows turn by turn (~35 MB per
// 1,000 turns); what a turn leaves behind here is its record and its transcript lines.
// It also times each turn (Enter → its answer's last word on screen), early against late.
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { benchHome, fmtMB, fmtMs, median, memory, removeDir, sleep, type Row } from "./lib.js";
import { FakeServer, READY, startAlbedo } from "./tui.js";

const WORDS = ["alpha", "beta", "gamma", "delta", "render", "frame", "token", "stream", "value", "screen", "the", "of"];
const KEY = "bench-key";
const IDLE_MS = 30_000;

/** the answer of turn n: 40 words, its last one unique to the turn */
function answerOf(n: number): string {
  const words = Array.from({ length: 39 }, (_, i) => WORDS[(i * 7 + n) % WORDS.length]!);
  return `${words.join(" ")} Turnend${String(n).padStart(5, "0")}`;
}

/** BENCH_TURNS_SIGNAL=SIGUSR2 with BENCH_NODE_ARGS="--heapsnapshot-signal=SIGUSR2": a heap
 * snapshot after the early turns and after the last, to compare what the turns left */
async function snapshotHook(pid: number): Promise<void> {
  const signal = process.env["BENCH_TURNS_SIGNAL"];
  if (!signal) return;
  process.kill(pid, signal as NodeJS.Signals);
  await sleep(15_000);
}

export async function benchTurns(quick: boolean): Promise<Row[]> {
  // BENCH_TURNS=300: fewer turns, for a profile of what they leave behind
  const total = Number(process.env["BENCH_TURNS"] ?? (quick ? 100 : 1000));
  const early = 10;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "albedo-bench-turns-"));
  const home = await benchHome({ ANTHROPIC_API_KEY: KEY });
  // one step per turn, in order (the fake answers request n with step n)
  const fake = await FakeServer.startSteps(
    Array.from({ length: total }, (_, i) => ({ text: answerOf(i + 1), wordsPerEvent: 1 })),
    dir,
  );
  const a = startAlbedo(home, ["--base-url", fake.base]);
  const turnMs: number[] = [];
  let rssEarly = 0;
  let rssLate = 0;
  let rssLateAt2s = 0;
  /** RSS 2 s after the screen went quiet (the record written), and again 30 s later, left
   * at the prompt: V8's memory reducer gives memory back once a process has allocated little
   * for a while, at a moment of its own choosing (seen between 3 and over 12 s) */
  const settle = async (): Promise<{ at2s: number; idle: number }> => {
    await a.quiet(1000);
    await sleep(1000);
    const at2s = memory(a.pid).rss;
    await sleep(IDLE_MS);
    return { at2s, idle: memory(a.pid).rss };
  };
  try {
    await a.waitFor(READY, 20_000, "albedo-tui's first frame");
    await a.quiet(300);
    const rssStart = memory(a.pid).rss;
    for (let n = 1; n <= total; n++) {
      const prompt = `turn ${n} please`;
      a.write(prompt);
      await a.waitFor(prompt, 10_000, `the typed prompt of turn ${n}`);
      const enter = a.write("\r");
      const end = await a.waitFor(`Turnend${String(n).padStart(5, "0")}`, 60_000, `turn ${n}'s answer`);
      turnMs.push(end - enter);
      await a.waitFor(READY, 20_000, `idle after turn ${n}`);
      if (n === early) rssEarly = (await settle()).idle;
      if (n === early || n === total) await snapshotHook(a.pid);
      if (n % 100 === 0) process.stderr.write(`  turns: ${n}\n`);
    }
    const late = await settle();
    rssLate = late.idle;
    rssLateAt2s = late.at2s;
    const growth = rssLate - rssEarly;
    const head = median(turnMs.slice(0, 50));
    const tail = median(turnMs.slice(-50));
    return [
      {
        benchmark: `RSS after ${total.toLocaleString("en-US")} scripted turns against after ${early}`,
        albedo: `${fmtMB(rssLate)} (${growth >= 0 ? "+" : ""}${fmtMB(growth)})`,
        floor: `${fmtMB(rssEarly)} after ${early} turns`,
        ratio: rssLate / rssEarly,
        target: "growth ≤ 10 MB",
        met: growth <= 10 * 1048576,
        raw: { total, early, rssStartBytes: rssStart, rssEarlyBytes: rssEarly, rssLateBytes: rssLate, rssLateAt2sBytes: rssLateAt2s, turnMs },
        note: `each turn a typed prompt and a 40-word answer in one process; RSS read from /proc ${(IDLE_MS + 2000) / 1000} s after the screen went quiet (${fmtMB(rssLateAt2s)} at 2 s after the last turn); ${fmtMB(rssStart)} before the first turn`,
      },
      {
        benchmark: `turn ${total - 49}–${total} against turns 1–50: Enter → answer's last word`,
        albedo: fmtMs(tail),
        floor: `${fmtMs(head)} turns 1–50`,
        ratio: tail / head,
        target: "— (figure)",
        met: null,
        note: "medians; the request carries the whole history, so the wire grows with the session",
      },
    ];
  } finally {
    await a.stop();
    await fake.close();
    await removeDir(home.root);
    await removeDir(dir);
  }
}
