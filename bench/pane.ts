// The context pane opened over a long history: two turns typed into the real screen (the first
// answered with 20,000 words, so the second request, the one the pane shows, carries them), then
// the pane's key, timed from the write to the frame that shows the request's figures and its
// first page. The floor is the same in a process whose first answer is 20 words, interleaved.
// The first opening is the one a person waits for; later ones are reported beside it.
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { benchHome, fmtMs, median, removeDir, type Row, type ScreenTest } from "./lib.js";
import { FakeServer, READY, startAlbedo, streamAnswer } from "./tui.js";

const KEY = "bench-key";
/** the default keymap's context.toggle (C-o) */
const TOGGLE = "\x0f";
const PANE: ScreenTest = (s) => /Context · what the last request sent/.test(s) && /total [\d,]+ bytes/.test(s) && !/loading…/.test(s);
const CLOSED: ScreenTest = (s) => !/Context · what the last request sent/.test(s);

async function paneRun(words: number, dir: string, opens: number): Promise<number[]> {
  const home = await benchHome({ ANTHROPIC_API_KEY: KEY });
  const fake = await FakeServer.startSteps(
    [
      { text: streamAnswer(words), wordsPerEvent: 50 },
      { text: "Secondanswer done.", wordsPerEvent: 1 },
    ],
    dir,
  );
  const a = startAlbedo(home, ["--base-url", fake.base]);
  try {
    await a.waitFor(READY, 20_000, "the first frame");
    a.write("tell me everything");
    await a.waitFor("tell me everything", 10_000, "the first prompt");
    a.write("\r");
    await a.waitFor("Streamfinish", 120_000, "the long answer's last word");
    await a.waitFor(READY, 30_000, "idle after the first turn");
    a.write("and now");
    await a.waitFor("and now", 10_000, "the second prompt");
    a.write("\r");
    await a.waitFor("Secondanswer", 60_000, "the second answer");
    await a.waitFor(READY, 30_000, "idle after the second turn");
    await a.quiet(1000, 20_000);
    const out: number[] = [];
    for (let k = 0; k < opens; k++) {
      const t = a.write(TOGGLE);
      const shown = await a.waitFor(PANE, 10_000, "the context pane");
      out.push(shown - t);
      await a.quiet(300);
      a.write(TOGGLE);
      await a.waitFor(CLOSED, 10_000, "the pane closed");
      await a.quiet(300);
    }
    return out;
  } finally {
    await a.stop();
    await fake.close();
    await removeDir(home.root);
  }
}

export async function benchPane(quick: boolean): Promise<Row[]> {
  const rounds = quick ? 1 : 3;
  const opens = quick ? 2 : 4;
  const words = quick ? 5000 : 20_000;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "albedo-bench-pane-"));
  const firstLong: number[] = [];
  const firstShort: number[] = [];
  const laterLong: number[] = [];
  const laterShort: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const l = await paneRun(words, dir, opens);
      const s = await paneRun(20, dir, opens);
      firstLong.push(l[0]!);
      firstShort.push(s[0]!);
      laterLong.push(...l.slice(1));
      laterShort.push(...s.slice(1));
    }
  } finally {
    await removeDir(dir);
  }
  const fl = median(firstLong);
  const fs = median(firstShort);
  return [
    {
      benchmark: `context pane opened over a ${words.toLocaleString("en-US")}-word history: key → pane`,
      albedo: `${fmtMs(fl)} first, ${fmtMs(median(laterLong))} later`,
      floor: `${fmtMs(fs)} first, ${fmtMs(median(laterShort))} later, 20-word history`,
      ratio: median(firstLong.map((x, i) => x / firstShort[i]!)),
      target: "≤ 50 ms",
      met: fl <= 50,
      raw: { rounds, opens, words, firstLongMs: firstLong, firstShortMs: firstShort, laterLongMs: laterLong, laterShortMs: laterShort },
      note: "two turns typed in one process (the second request carries the first answer), then the pane's key: write → the frame showing the figures and the first page",
    },
  ];
}
