// A terminal that stops reading while an answer streams: a stalled SSH link, a terminal
// emulator busy elsewhere, a paused tmux pane. The pty's buffer fills and the app's writes to
// it wait. What must not happen is a flood once it reads again: a frame for every change made
// meanwhile, or the output of every frame the app meant to draw. What reaches the terminal
// after the stall is a few frames that bring it to the present, then the app is as before.
//
// Counted, not timed: frames (blessed's ESC 7 per draw) and bytes from Enter to idle, against
// the same paced answer streamed to a terminal that reads along. (Node writes to a terminal
// synchronously: a full pty holds the app inside its frame's write, and the frame after it
// carries every change made meanwhile. An output queue in its place would fail this.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, makeHome, type Home } from "../helpers/cli.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-ant-stall-fake-4411";
const MODEL = "claude-sonnet-4-5";
const COLS = 100;
const ROWS = 30;
const WORDS = 3000;
const WAIT = 30_000;

const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

/** one streamed answer from Enter to idle: the frames and bytes the terminal received */
interface Streamed {
  frames: number;
  bytes: number;
  screen: string;
}

describe("a terminal that stops reading mid-stream", () => {
  let fake: FakeProvider;
  let home: Home;
  let ended: () => void = () => undefined;
  const sessions: PtySession[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider({ key: KEY, onBody: () => ended() });
    home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  });
  afterAll(async () => {
    for (const t of sessions) t.kill("SIGKILL");
    await fake.close();
  });

  const words = Array.from({ length: WORDS }, (_, i) => `s${i}`);

  /** the same paced answer, the terminal stalled from its first words to its end, or not */
  async function stream(stall: boolean): Promise<Streamed> {
    const t = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", fake.anthropicBase], {
      cols: COLS,
      rows: ROWS,
      cwd: home.workspace,
      env: { ...home.env, TERM: "xterm-256color" },
    });
    sessions.push(t);
    await t.waitFor("Type a request", WAIT);
    // a paragraph break every 50 words, so the screen scrolls as it would for real prose
    const text = `Stall start. ${words.map((w, i) => (i % 50 === 49 ? `${w}\n\n` : w)).join(" ")} STALL-END`;
    const answerEnded = new Promise<void>((resolve) => (ended = resolve));
    fake.script({ text, delayMs: 1, wordsPerEvent: 1 });
    t.send("stream while the terminal stalls");
    await t.waitFor("stream while the terminal stalls", WAIT);
    await t.settle();
    const from = t.rawOutput().length;
    t.send(KEYS.enter);
    await t.waitFor("Stall start.", WAIT);
    if (stall) {
      t.pause();
      // the provider sends the rest of the answer while nothing is read from the pty
      await answerEnded;
      t.resume();
    }
    await t.waitFor("STALL-END", WAIT);
    await t.waitFor(/^ idle · /m, WAIT);
    await t.settle();
    const out = t.rawOutput().slice(from);
    const screen = t.screenText();
    t.send(KEYS.ctrl("d"));
    await Promise.race([t.exited(), new Promise((r) => setTimeout(r, WAIT))]);
    return { frames: count(out, "\x1b7"), bytes: Buffer.byteLength(out), screen };
  }

  it("after a stall it draws a few frames to the present, not the ones it would have drawn meanwhile", async () => {
    const flowing = await stream(false);
    const stalled = await stream(true);
    for (const r of [flowing, stalled]) {
      // the last words read whole on the screen, after the others
      expect(r.screen).toContain(words.slice(-10, -5).join(" "));
      expect(r.screen.indexOf("s2999")).toBeLessThan(r.screen.indexOf("STALL-END"));
    }
    // A terminal that reads along sees a frame every few words (the stream is paced); one
    // that stalled from the first words to the end gets what the pty held when it filled,
    // then the frames that catch up: together far fewer, and far fewer bytes.
    expect(flowing.frames).toBeGreaterThan(40);
    // (measured: about 300 frames and 430 kB flowing, 25-35 frames and 22 kB stalled)
    expect(stalled.frames).toBeLessThan(flowing.frames / 4);
    expect(stalled.bytes).toBeLessThan(flowing.bytes / 4);
    expect(fake.rejections()).toEqual([]);
  }, 120_000);
});
