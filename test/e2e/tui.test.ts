// The whole app on a real terminal: the built CLI in a pseudo-terminal, its output parsed by a
// headless xterm, talking to the strict fake provider over loopback HTTP with a real SQLite
// file. Every test reads the screen the way a person would.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, waitUntil, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { lockBeforeLoad } from "../helpers/lock.js";

const KEY = "sk-test-tui-e2e-5151";
const MODEL = "claude-sonnet-4-5";
let fake: FakeProvider;
let home: Home;
const running: PtySession[] = [];

beforeAll(async () => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  fake.requests.length = 0;
});
afterEach(() => {
  for (const s of running.splice(0)) s.kill();
});

function tui(args: string[] = [], opts: { cols?: number; rows?: number; env?: NodeJS.ProcessEnv } = {}): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", fake.anthropicBase, ...args], {
    cols: opts.cols ?? 100,
    rows: opts.rows ?? 30,
    cwd: home.workspace,
    env: { ...home.env, TERM: "xterm-256color", ...opts.env },
  });
  running.push(s);
  return s;
}

async function ready(s: PtySession): Promise<void> {
  await s.waitFor("Type a request", 20_000);
}

/** types a prompt and sends it (Enter in its own write: a terminal sends keys one by one) */
async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 40));
  s.send(KEYS.enter);
}

async function quit(s: PtySession): Promise<number> {
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit");
  s.send(KEYS.ctrl("c"));
  const e = await s.exited();
  return e.exitCode;
}

function lastRow(s: PtySession): string {
  return s.line(s.rows - 1);
}

interface Figure {
  next: boolean;
  tokens: number;
  method: string;
}

/** The status line's figure: "≈ 1,226 / 200,000 tokens (chars/4)", or "next request ≈ …". */
function statusFigure(s: PtySession): Figure | undefined {
  const m = /(next request )?≈ ([\d,]+) \/ 200,000 tokens \(([^)]+)\)/.exec(lastRow(s));
  return m ? { next: m[1] !== undefined, tokens: Number(m[2]!.replace(/,/g, "")), method: m[3]! } : undefined;
}

/** The pane's figure: the last request's total, or while it is pending the next request's estimate. */
function paneFigure(s: PtySession): Figure | undefined {
  const rows = s.screenText().split("\n").slice(0, -1).join("\n");
  const last = /total [\d,]+ bytes · ≈ ([\d,]+) tokens \(([^)]+)\)/.exec(rows);
  if (last) return { next: false, tokens: Number(last[1]!.replace(/,/g, "")), method: last[2]! };
  const next = /next request ≈ ([\d,]+) tokens \(([^)]+)\)/.exec(rows);
  return next ? { next: true, tokens: Number(next[1]!.replace(/,/g, "")), method: next[2]! } : undefined;
}

/** Waits for a condition on the screen; the bound is generous, nothing is timed. */
async function until(s: PtySession, ok: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`no ${what} within ${timeoutMs} ms. Screen:\n${s.screenText()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The status line's figure, then the pane's (opened and closed with the key a person uses). */
async function paneAndStatus(s: PtySession, paneShows: string | RegExp): Promise<{ status: Figure; pane: Figure }> {
  const status = statusFigure(s);
  if (!status) throw new Error(`no figure in the status line: ${lastRow(s)}`);
  s.send(KEYS.ctrl("o"));
  await s.waitFor(paneShows);
  await until(s, () => paneFigure(s) !== undefined, "figure in the pane");
  const pane = paneFigure(s)!;
  s.send(KEYS.escape);
  await s.waitForGone(paneShows);
  return { status, pane };
}

describe("the terminal interface", () => {
  it("opens without a key, says which variable to set, and keeps what was typed", async () => {
    const s = tui([], { env: { ANTHROPIC_API_KEY: "" } });
    await ready(s);
    await s.waitFor("No API key for anthropic: set ANTHROPIC_API_KEY");
    await ask(s, "keep this prompt");
    await s.waitFor("your text stays here");
    expect(s.line(s.rows - 2)).toContain("keep this prompt");
    expect(fake.requests).toHaveLength(0);
    expect(await quit(s)).toBe(0);
  });

  it("starts with the prompt, a status line and the context key", async () => {
    const s = tui();
    await ready(s);
    // an idle screen works nothing out: the context estimate follows the first key, which
    // loads what it needs
    expect(lastRow(s)).not.toMatch(/tokens/);
    s.send("x");
    await s.waitFor(/≈ [\d,]+ \/ [\d,]+ tokens/);
    s.send(KEYS.backspace);
    await s.waitFor(/Type a request, or \//);
    const status = lastRow(s);
    expect(status).toContain("idle");
    expect(status).toContain(`anthropic/${MODEL}`);
    expect(status).toContain("^O context");
    expect(status).toMatch(/≈ [\d,]+ \/ [\d,]+ tokens/);
    expect(s.line(s.rows - 2)).toContain("›");
    expect(await quit(s)).toBe(0);
  });

  it("streams an answer that ends on screen, then is idle again", async () => {
    fake.script({ text: "First part of the answer, then more words, and finally THE-END-MARKER.", wordsPerEvent: 2, delayMs: 15 });
    const s = tui();
    await ready(s);
    await ask(s, "what is the plan?");
    await s.waitFor("THE-END-MARKER.");
    await s.waitFor(/ idle /);
    const screen = s.screenText();
    expect(screen).toContain("› what is the plan?");
    expect(screen).toContain("First part of the answer, then more words");
    expect(await quit(s)).toBe(0);
  });

  it("shows a tool call as one line that expands to its input and output", async () => {
    await fsp.writeFile(path.join(home.workspace, "notes.txt"), "the secret word is pelican\n");
    fake.script({ toolCalls: [{ name: "read", input: { path: "notes.txt" } }] }, { text: "The word is pelican." });
    const s = tui();
    await ready(s);
    await ask(s, "read my notes");
    await s.waitFor("The word is pelican.");
    const toolLine = s.screenText().split("\n").filter((l) => l.includes("▸ read"));
    expect(toolLine).toHaveLength(1);
    expect(toolLine[0]).toMatch(/▸ read {2}notes\.txt {3}✓ \d/);
    expect(s.screenText()).not.toContain("secret word");
    s.send(KEYS.altUp); // to the transcript: the last tool call is selected
    await s.waitFor("expand");
    s.send(KEYS.enter);
    await s.waitFor("▾ read");
    await s.waitFor("the secret word is pelican");
    s.send(KEYS.enter); // collapses again
    await s.waitForGone("secret word");
    expect(await quit(s)).toBe(0);
  });

  it("asks permission for a command and takes the answer from the keyboard", async () => {
    fake.script(
      { toolCalls: [{ name: "bash", input: { command: "echo allowed-output-123" } }] },
      { toolCalls: [{ name: "bash", input: { command: "echo never-runs-456" } }] },
      { text: "Both done." },
    );
    const s = tui(["--permission", "ask", "--sandbox", "off"]);
    await ready(s);
    await ask(s, "run two commands");
    await s.waitFor("Permission needed");
    expect(s.screenText()).toContain("$ echo allowed-output-123");
    expect(lastRow(s)).toContain("waiting for permission");
    // the choices show once the box takes keys (a moment after it is seen: type-ahead never answers it)
    await s.waitFor("y allow once");
    s.send("y");
    await s.waitFor("Permission needed"); // the second call asks again
    await s.waitFor("never-runs-456");
    await s.waitFor("y allow once");
    s.send("n");
    await s.waitFor("Both done.");
    const lines = s.screenText().split("\n");
    expect(lines.find((l) => l.includes("echo allowed-output-123"))).toMatch(/✓/);
    expect(lines.find((l) => l.includes("echo never-runs-456"))).toMatch(/✗/);
    // the model was told the second one was denied
    expect(JSON.stringify(fake.requests[2]!.body)).toMatch(/denied/i);
    expect(await quit(s)).toBe(0);
  });

  it("Esc interrupts a streaming answer and keeps what arrived", async () => {
    fake.script({ fault: "hang_after_text", text: "Partial words that arrived before the stop." });
    const s = tui();
    await ready(s);
    await ask(s, "tell me a long story");
    await s.waitFor("Partial words that arrived");
    expect(lastRow(s)).toContain("streaming");
    s.send(KEYS.escape);
    await s.waitFor("Interrupted");
    await s.waitFor("[interrupted]");
    await s.waitFor(/ idle /);
    expect(s.screenText()).toContain("Partial words that arrived before the stop.");
    expect(await quit(s)).toBe(0);
  });

  it("keeps a sane layout when resized to 60x20 and back", async () => {
    fake.script({ text: `A paragraph long enough to wrap at sixty columns, with CJK 中文字符 and an emoji 😀 in it. WRAP-END` });
    const s = tui([], { cols: 100, rows: 30 });
    await ready(s);
    await ask(s, "write a paragraph");
    await s.waitFor("WRAP-END");
    s.resize(60, 20);
    await s.waitFor(/WRAP-END/);
    await s.settle(200);
    let lines = s.screenText().split("\n");
    expect(lines).toHaveLength(20);
    expect(lines[19]).toContain("idle");
    expect(lines[18]).toMatch(/^› /);
    expect(lines.join("\n")).toContain("中文字符");
    // the wrapped paragraph is intact: joined back it is the sentence
    const para = lines.filter((l) => l.startsWith("  ")).map((l) => l.trim()).join(" ");
    expect(para).toContain("A paragraph long enough to wrap at sixty columns, with CJK 中文字符 and an emoji 😀 in it. WRAP-END");
    s.resize(100, 30);
    await s.settle(200);
    lines = s.screenText().split("\n");
    expect(lines).toHaveLength(30);
    expect(lines[29]).toContain("^O context");
    const wide = lines.filter((l) => l.startsWith("  ")).map((l) => l.trim()).join(" ");
    expect(wide).toContain("A paragraph long enough to wrap at sixty columns, with CJK 中文字符 and an emoji 😀 in it. WRAP-END");
    expect(lines.filter((l) => l.includes("A paragraph"))).toHaveLength(1);
    expect(await quit(s)).toBe(0);
  });

  it("--continue shows the earlier transcript from the record", async () => {
    fake.script({ text: "Remembered answer ALPHA-7." });
    const first = tui();
    await ready(first);
    await ask(first, "first question BRAVO-8");
    await first.waitFor("ALPHA-7");
    expect(await quit(first)).toBe(0);

    const again = tui(["--continue"]);
    await again.waitFor("Remembered answer ALPHA-7.", 20_000);
    expect(again.screenText()).toContain("› first question BRAVO-8");
    // Up recalls the earlier prompt from the record
    again.send(KEYS.up);
    await again.waitFor(/› first question BRAVO-8\s*\n.*idle/);
    expect(await quit(again)).toBe(0);
  });

  it("a resumed history of wide characters is laid out with exact widths, without a key", async () => {
    // U+2615 takes two cells; the screen's own estimate (string-width is not loaded for a
    // frame of plain text) says one. Sixty of them fill 120 cells: two rows at width 100.
    const cups = "\u2615".repeat(60);
    fake.script({ text: `CUPS-START ${cups} CUPS-END` });
    expect((await runCli(["--provider", "anthropic", "--model", MODEL, "--base-url", fake.anthropicBase, "-p", "a row of cups"], home)).code).toBe(0);
    const s = tui(["--continue"]);
    await s.waitFor("CUPS-END", 20_000);
    await s.waitFor(/idle/, 20_000);
    // no key typed: the first frame's estimate is replaced by the exact layout on its own
    await waitUntil(() => {
      const rows = s.screenText().split("\n").filter((r) => r.includes("\u2615"));
      return rows.length === 2 && rows.join("").split("\u2615").length - 1 === 60;
    }, 10_000, "the cups on two rows, none lost").catch((e) => {
      console.log(JSON.stringify(s.screenText()));
      throw e;
    });
    expect(await quit(s)).toBe(0);
  });

  it("shows tool output and model text with escape sequences as inert text", async () => {
    const evil = "printf 'before \\033]0;PWNED-TITLE\\007 \\033]52;c;SGVsbG8=\\007 \\033[99;99HMOVED-TEXT \\033[7A\\033[31mRED-TEXT\\033[0m after\\n'";
    fake.script({ toolCalls: [{ name: "bash", input: { command: evil } }] }, { text: "Model says \u001b]0;MODEL-TITLE\u0007 hello \u001b[99;98H done." });
    const s = tui(["--permission", "auto"]);
    await ready(s);
    await ask(s, "print something odd");
    await s.waitFor("hello");
    s.send(KEYS.altUp);
    await s.waitFor("expand");
    s.send(KEYS.enter);
    await s.waitFor("MOVED-TEXT");
    const screen = s.screenText();
    // the command line shows the printf source (backslash text); its output has no trace of the sequences
    const out = screen.split("\n").find((l) => l.includes("MOVED-TEXT") && !l.includes("printf"));
    expect(out?.trim()).toMatch(/^before\s+MOVED-TEXT RED-TEXT after$/);
    expect(screen).toMatch(/Model says\s+hello\s+done\./);
    expect(screen).not.toContain("MODEL-TITLE");
    const raw = s.rawOutput();
    for (const seq of ["\x1b]0;PWNED", "\x1b]52;", "\x1b[99;99H", "\x1b[7A", "\x1b]0;MODEL", "\x1b[99;98H"]) {
      expect(raw.includes(seq), JSON.stringify(seq)).toBe(false);
    }
    expect(await quit(s)).toBe(0);
  });

  it("the context pane: pending at first, then sections with counts, pages with the arrows, closes", async () => {
    await fsp.writeFile(path.join(home.workspace, "AGENTS.md"), "Be brief.\n");
    fake.script({ text: "Noted." });
    const s = tui();
    await ready(s);
    s.send(KEYS.ctrl("o"));
    await s.waitFor("pending:");
    s.send(KEYS.escape);
    await s.waitForGone("pending:");
    // a 20,000-character prompt makes the history section three pages long
    s.send(KEYS.paste("lorem ipsum dolor ".repeat(1200)));
    await s.waitFor("[pasted #1");
    s.send(KEYS.enter);
    await s.waitFor("Noted.");
    s.send(KEYS.ctrl("o"));
    await s.waitFor("system · page 1 of 1");
    const screen = s.screenText();
    // sections counted from 1, as `context --section` takes them
    expect(screen).toMatch(/1\s+system\s+1\s+[\d,]+\s+≈ [\d,]+/);
    expect(screen).toMatch(/2\s+AGENTS\.md\s+1\s+/);
    expect(screen).toMatch(/workspace facts\s+1\s+/);
    expect(screen).toMatch(/history\s+1\s+[\d,]+\s+≈ [\d,]+\s+\S+\s+3/);
    expect(screen).toMatch(/tools\s+\d+\s+[\d,]+/);
    expect(screen).toContain("window 200,000 tokens");
    expect(screen).toContain("compaction in force: microcompact+summary");
    expect(screen).toContain("compaction in this request: nothing left out");
    for (let i = 0; i < 3; i++) s.send(KEYS.down);
    await s.waitFor("4 history · page 1 of 3");
    s.send(KEYS.right);
    await s.waitFor("history · page 2 of 3");
    s.send(KEYS.right);
    await s.waitFor("history · page 3 of 3");
    s.send(KEYS.left);
    await s.waitFor("history · page 2 of 3");
    s.send(KEYS.down);
    await s.waitFor("tools · page 1 of");
    s.send(KEYS.escape);
    await s.waitForGone("tools · page");
    await s.waitFor("Noted.");
    // looking was free: only the one real request reached the provider
    expect(fake.requests).toHaveLength(1);
    expect(await quit(s)).toBe(0);
  });

  it("between turns the status line gives the next request's estimate (the pane the last request's), and after /compact the pane's", async () => {
    const words = (n: number, w: string): string => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");
    fake.script({ text: `${words(600, "long")} FIRST-END` }, { text: `${words(300, "more")} SECOND-END` }, { text: "SHORT-SUMMARY of the talk." });
    // wide enough for the whole figure with its method
    const s = tui([], { cols: 170, rows: 40 });
    await ready(s);
    await ask(s, "tell me everything");
    await s.waitFor("FIRST-END");
    await ask(s, "and then?");
    await s.waitFor("SECOND-END");
    await until(s, () => statusFigure(s)?.next === true && /^ idle /.test(lastRow(s)), "the next request's estimate");
    const afterTurn = await paneAndStatus(s, /total [\d,]+ bytes/);
    expect(afterTurn.pane.next).toBe(false);
    expect(afterTurn.status.method).toBe("chars/4");
    expect(afterTurn.pane.method).toBe("chars/4");
    // the second answer's 300 words are in the next request, not in the last one
    expect(afterTurn.status.tokens).toBeGreaterThan(afterTurn.pane.tokens + 300);

    await ask(s, "/compact");
    await s.waitFor("Compaction: summarised messages 1–2");
    await until(s, () => statusFigure(s)?.next === true, "the next request's estimate");
    const afterCompact = await paneAndStatus(s, "pending: history compacted by /compact");
    expect(afterCompact.pane).toEqual(afterCompact.status);
    // the 600 words went into the summary: the next request is the smaller
    expect(afterCompact.status.tokens).toBeLessThan(afterTurn.status.tokens);
    expect(await quit(s)).toBe(0);
  });

  it("the context pane shows the live round's native calls with their ids, an earlier turn's as prose", async () => {
    await fsp.writeFile(path.join(home.workspace, "notes.txt"), "the secret word is pelican\n");
    fake.script(
      { toolCalls: [{ name: "read", input: { path: "notes.txt" }, id: "toolu_early_1" }] },
      { text: "EARLY-DONE" },
      { toolCalls: [{ name: "read", input: { path: "notes.txt" }, id: "toolu_live_7" }] },
      { text: "LIVE-DONE" },
    );
    const s = tui([], { cols: 100, rows: 60 });
    await ready(s);
    await ask(s, "read my notes");
    await s.waitFor("EARLY-DONE");
    await ask(s, "read them again");
    await s.waitFor("LIVE-DONE");
    s.send(KEYS.ctrl("o"));
    await s.waitFor("1 system · page 1 of");
    // system, workspace facts, history: the last request's history section, on its last page
    s.send(KEYS.down);
    s.send(KEYS.down);
    await s.waitFor(/3 history · page 1 of \d+/);
    const pages = Number(/3 history · page 1 of (\d+)/.exec(s.screenText())![1]);
    for (let p = 1; p < pages; p++) s.send(KEYS.right);
    await s.waitFor(`3 history · page ${pages} of ${pages}`);
    for (let i = 0; i < 5; i++) s.send(KEYS.pageDown);
    // the live round (this turn's call and its result) as it was sent: native, with the call id
    await s.waitFor(/tool_use id=toolu_live_7 name=read input=\{"path":"notes\.txt"\}/);
    await s.waitFor("tool_result for id=toolu_live_7");
    // the earlier turn's call was replayed as prose: no id went with it
    for (let i = 0; i < 5; i++) s.send(KEYS.pageUp);
    await s.waitFor(/Tool use: read\(\{"path":"notes\.txt"\}\)/);
    await s.waitFor("Result (read):");
    expect(s.screenText()).not.toContain("toolu_early_1");
    expect(JSON.stringify(fake.requests.at(-1)!.body)).not.toContain("toolu_early_1");
    expect(await quit(s)).toBe(0);
  });

  it("a 2 MB paste is one atom in the prompt and goes out whole", async () => {
    fake.script({ text: "Got your paste." });
    // ≈ 525,000 tokens: it goes out whole to a model whose window holds it (a larger one is
    // refused at Enter, test/e2e/window.test.ts)
    const config = path.join(home.env.XDG_CONFIG_HOME as string, "albedo", "config.json");
    await fsp.mkdir(path.dirname(config), { recursive: true });
    await fsp.writeFile(config, JSON.stringify({ contextWindow: 1_000_000 }));
    const s = tui();
    await ready(s);
    const big = "0123456789abcdefghijklmnopqrstuvwxyz-pasted-line\n".repeat(42_000);
    s.send(KEYS.paste(big));
    await s.waitFor(/\[pasted #1 · 2\.\d MB · 42,001 lines\]/, 20_000);
    s.send(KEYS.enter);
    await s.waitFor("Got your paste.", 30_000);
    const sent = JSON.stringify(fake.requests[0]!.body);
    expect(sent.split("pasted-line").length - 1).toBe(42_000);
    expect(await quit(s)).toBe(0);
  });
});


describe("start-up: the screen comes first", () => {
  it("takes keys before the session is open, and sends an Enter pressed meanwhile once it is", async () => {
    // a database that exists, locked by another process: opening a new session waits for it
    expect((await runCli(["sessions", "--db", home.db], home)).code).toBe(0);
    const lock = await lockBeforeLoad(home.db);
    let released = false;
    try {
      fake.script({ text: "Answered the early question." });
      const s = tui(["--db", home.db]);
      await s.waitFor("Starting…", 20_000);
      expect(lastRow(s)).toContain("starting…");
      s.send("an early question");
      await s.waitFor("› an early question");
      s.send(KEYS.enter);
      await s.waitFor("sent once the session is open");
      // still starting: nothing was sent, the text stays in the prompt
      expect(lastRow(s)).toContain("starting…");
      expect(fake.requests).toHaveLength(0);
      await lock.release();
      released = true;
      await s.waitFor("Answered the early question.", 20_000);
      expect(s.screenText()).toContain("› an early question");
      expect(JSON.stringify(fake.requests[0]!.body)).toContain("an early question");
      await s.waitFor(/ idle /);
      expect(await quit(s)).toBe(0);
    } finally {
      if (!released) await lock.release();
    }
  });

  it("quits cleanly from the starting screen (Ctrl-C twice)", async () => {
    expect((await runCli(["sessions", "--db", home.db], home)).code).toBe(0);
    const lock = await lockBeforeLoad(home.db);
    let released = false;
    try {
      const s = tui(["--db", home.db]);
      await s.waitFor("Starting…", 20_000);
      s.send(KEYS.ctrl("c"));
      await s.waitFor("again to quit");
      s.send(KEYS.ctrl("c"));
      // the terminal is given back at once; the process ends when the store has closed
      await s.waitForGone("Starting…");
      await lock.release();
      released = true;
      expect((await s.exited()).exitCode).toBe(0);
      expect(s.rawOutput().slice(-400)).toContain("\x1b[?1049l");
      expect(fake.requests).toHaveLength(0);
    } finally {
      if (!released) await lock.release();
    }
  });

  it.each([
    ["a --db that is not SQLite", async (h: Home) => {
      const file = path.join(h.root, "notes.txt");
      await fsp.writeFile(file, "not a database\n".repeat(50));
      return { args: ["--db", file], message: `albedo-tui: ${file} is not an albedo-tui database (not an SQLite file)`, code: 1 };
    }],
    ["a config file that is not JSON", async (h: Home) => {
      const file = path.join(h.env.XDG_CONFIG_HOME as string, "albedo", "config.json");
      await fsp.mkdir(path.dirname(file), { recursive: true });
      await fsp.writeFile(file, "{ provider: anthropic,");
      return { args: [], message: `${file} is not valid JSON`, code: 1 };
    }],
    ["an unknown --resume id", async () => ({ args: ["--resume", "0123456789ab"], message: 'no session with id "0123456789ab"', code: 1 })],
    ["a --workspace that is not a folder", async (h: Home) => {
      const file = path.join(h.root, "plain-file");
      await fsp.writeFile(file, "x");
      return { args: ["--workspace", file], message: `albedo-tui: --workspace is not a folder: ${file}`, code: 2 };
    }],
  ])("%s: the screen is taken down first, then the message, the exit code as without a screen", async (_what, setup) => {
    const { args, message, code } = await setup(home);
    const s = tui(args);
    const exit = await s.exited();
    expect(exit.exitCode).toBe(code);
    const raw = s.rawOutput();
    // left the alternate screen (and showed the cursor) before writing the message
    const left = raw.lastIndexOf("\x1b[?1049l");
    const said = raw.indexOf(message.slice(0, 40));
    expect(left).toBeGreaterThan(-1);
    expect(said).toBeGreaterThan(left);
    await s.waitFor(message.slice(0, 60));
    expect(s.screenText()).toContain(message.slice(0, 60));
  });
});

describe("leaving", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ])("%s restores the terminal and exits %i", async (signal, code) => {
    const s = tui();
    await ready(s);
    s.kill(signal);
    expect((await s.exited()).exitCode).toBe(code);
    const tail = s.rawOutput().slice(-400);
    // bracketed paste off, cursor visible, back on the normal screen
    expect(tail).toContain("\x1b[?2004l");
    expect(tail).toContain("\x1b[?25h");
    expect(tail).toContain("\x1b[?1049l");
  });

  it("Ctrl-D on an empty prompt quits; with text it deletes instead", async () => {
    const s = tui();
    await ready(s);
    s.send("ab");
    await s.waitFor("› ab");
    s.send(KEYS.left);
    s.send(KEYS.ctrl("d"));
    await s.waitFor(/› a\s*\n/);
    expect(s.hasExited()).toBe(false);
    s.send(KEYS.backspace);
    await s.waitFor("Type a request");
    s.send(KEYS.ctrl("d"));
    expect((await s.exited()).exitCode).toBe(0);
    expect(s.rawOutput().slice(-200)).toContain("\x1b[?1049l");
  });
});

describe("terminals", () => {
  it.each(["screen-256color", "tmux-256color", "xterm"])("TERM=%s starts cleanly, no terminfo errors", async (term) => {
    const s = tui([], { env: { TERM: term } });
    await ready(s);
    const raw = s.rawOutput();
    expect(raw).not.toMatch(/Error on|Setulc|TypeError/);
    expect(lastRow(s)).toContain("^O context");
    expect(await quit(s)).toBe(0);
  });

  // blessed is bundled: its own entries, read when the system's cannot be, ship in dist/usr
  it.each([
    ["a TERM this system has no entry for", "albedo-no-such-term", false],
    ["a TERMINFO whose entry is damaged", "xterm-256color", true],
  ])("%s draws with blessed's own entry", async (_what, term, damaged) => {
    const info = fs.mkdtempSync(path.join(home.root, "terminfo-"));
    if (damaged) {
      for (const d of ["x", "78"]) {
        fs.mkdirSync(path.join(info, d), { recursive: true });
        fs.writeFileSync(path.join(info, d, term), Buffer.from([0x1a, 0x01, 0xff, 0xff, 0x00, 0x13, 0x37]));
      }
    }
    const s = tui([], { env: { TERM: term, TERMINFO: info, TERMINFO_DIRS: info } });
    await ready(s);
    expect(s.rawOutput()).not.toMatch(/Error on|Setulc|TypeError|ENOENT/);
    expect(lastRow(s)).toContain("^O context");
    s.send("typed-after-fallback");
    await s.waitFor("› typed-after-fallback");
    s.send(KEYS.ctrl("u"));
    await s.waitFor("Type a request");
    expect(await quit(s)).toBe(0);
  });

  it("NO_COLOR draws without colour codes", async () => {
    const s = tui([], { env: { NO_COLOR: "1" } });
    await ready(s);
    await s.settle(100);
    // SGR colour parameters: 30–37, 90–97 (fg), 40–47, 100–107 (bg), 38;5/48;5 (256)
    const colours = [...s.rawOutput().matchAll(/\x1b\[([\d;]*)m/g)].flatMap((m) => m[1]!.split(";")).filter((p) => /^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$/.test(p));
    expect(colours).toEqual([]);
    expect(await quit(s)).toBe(0);
  });
});
