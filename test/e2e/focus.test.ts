// Focus, type-ahead and job control on a real terminal: the built CLI in a
// pseudo-terminal, its output parsed by a headless xterm, against the strict fake provider
// over loopback HTTP with a real SQLite file. Ctrl-Z runs the CLI under a real interactive
// bash, so the stop and the shell's fg are the kernel's and the shell's own.
import { describe, expect, it } from "vitest";
import fsp from "node:fs/promises";
import path from "node:path";
import { ptyFrame } from "../helpers/pty-frame.js";
import { CLI } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-test-focus-e2e-1414";
const MODEL = "claude-sonnet-4-5";
/** generous: the machine is shared and busy */
const WAIT = 30_000;
const e2e = ptyFrame(KEY);

const ARGS = (): string[] => ["--provider", "anthropic", "--model", MODEL, "--base-url", e2e.fake.anthropicBase];

function tui(args: string[] = [], opts: { cols?: number; rows?: number } = {}): PtySession {
  const s = spawnPty(process.execPath, [CLI, ...ARGS(), ...args], {
    cols: opts.cols ?? 100,
    rows: opts.rows ?? 30,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color" },
  });
  e2e.running.push(s);
  return s;
}

async function ready(s: PtySession): Promise<void> {
  await s.waitFor("Type a request", WAIT);
}

/** types a prompt and sends it (Enter in its own write: a terminal sends keys one by one) */
async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 40), WAIT);
  s.send(KEYS.enter);
}

async function quit(s: PtySession): Promise<void> {
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit", WAIT);
  s.send(KEYS.ctrl("c"));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** waits for a condition on the screen; the bound is generous, nothing is timed */
async function until(s: PtySession, ok: () => boolean, what: string, timeoutMs = WAIT): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`no ${what} within ${timeoutMs} ms. Screen:\n${s.screenText()}`);
    await sleep(25);
  }
}

/** the prompt's text: its rows between the hint line and the status line, joined (they wrap hard at cols - 2) */
function promptText(s: PtySession): string {
  const lines = s.screenText().split("\n");
  const status = s.rows - 1;
  let first = status - 1;
  while (first > 0 && !lines[first]!.startsWith("› ")) first--;
  const rows = lines.slice(first, status).map((l, i) => l.slice(2).padEnd(i < status - first - 1 ? s.cols - 2 : 0));
  return rows.join("");
}

/** the hint line above the prompt (the prompt is one row in these tests) */
function hint(s: PtySession): string {
  return s.line(s.rows - 3);
}

const PANE_HINT = "context pane · typing goes to the prompt";

/** the section the context pane shows: "1 system", "2 AGENTS.md"… */
function paneSection(s: PtySession): string | undefined {
  return /── (\d+ \S.*?) · page \d+ of \d+/.exec(s.screenText())?.[1];
}

describe("type-ahead never answers a permission box", () => {
  it(
    "keys typed on through a question's arrival go to the prompt: nothing runs, nothing typed is lost, and the answer takes a deliberate key",
    async () => {
      e2e.fake.script(
        // the question arrives a moment into the answer, while the person is typing the next request
        { text: "Let me look at the build first.", toolCalls: [{ name: "bash", input: { command: "echo typed-ahead-ran-789" } }], delayMs: 150 },
        { text: "Understood, not running it. FIRST-TURN-END" },
        { text: "Here is the summary you asked for. SECOND-TURN-END" },
      );
      const s = tui(["--permission", "ask", "--sandbox", "off"]);
      await ready(s);
      await ask(s, "check the build");
      await s.waitFor("Esc interrupts", WAIT);
      // one key at a time, as a person types (every letter of a, n and y is an answer key),
      // from before the question opens until well after; Enter, the end of every prompt, in the middle
      const text = "and then summarize it, yes, all of it and any notes ";
      let typed = "";
      let afterBox = 0;
      for (let i = 0; afterBox < 24; i++) {
        const ch = text[i % text.length]!;
        s.send(ch);
        typed += ch;
        if (afterBox === 12) s.send(KEYS.enter);
        if (s.screenText().includes("Permission needed")) afterBox++;
        if (typed.length > 600) throw new Error(`the question never came. Screen:\n${s.screenText()}`);
        await sleep(30);
      }
      // typing has paused: the box shows its choices, still unanswered, and nothing ran
      await s.waitFor("y allow once", WAIT);
      expect(s.screenText()).toContain("$ echo typed-ahead-ran-789");
      expect(e2e.fake.requests).toHaveLength(1);
      // (the screen shows no trailing space)
      await until(s, () => promptText(s) === typed.trimEnd(), "the typed text in the prompt");
      // now the deliberate answer
      s.send("n");
      await s.waitFor("FIRST-TURN-END", WAIT);
      const toolLine = s.screenText().split("\n").find((l) => l.includes("▸ bash"));
      expect(toolLine).toMatch(/✗/);
      expect(JSON.stringify(e2e.fake.requests[1]!.body)).toMatch(/denied/i);
      await s.waitFor(/ idle · /, WAIT);
      expect(promptText(s)).toBe(typed.trimEnd());
      // and what was typed goes out whole when the person sends it
      s.send(KEYS.enter);
      await s.waitFor("SECOND-TURN-END", WAIT);
      expect(JSON.stringify(e2e.fake.requests[2]!.body)).toContain(typed.trimEnd());
      await quit(s);
      expect((await s.exited()).exitCode).toBe(0);
    },
    120_000,
  );
});

describe("focus", () => {
  it(
    "the pane's keys work after a turn sent with the pane open, after a permission answer, across a resize and a /command",
    async () => {
      await fsp.writeFile(path.join(e2e.home.workspace, "AGENTS.md"), "Be brief.\n");
      e2e.fake.script(
        { text: "First answer ONE." },
        { toolCalls: [{ name: "bash", input: { command: "echo focus-check" } }] },
        { text: "Second answer TWO." },
      );
      const s = tui(["--permission", "ask", "--sandbox", "off"], { cols: 120, rows: 30 });
      await ready(s);
      s.send(KEYS.ctrl("o"));
      await s.waitFor("pending:", WAIT);
      await until(s, () => hint(s).includes(PANE_HINT), "the pane's hints");
      // a prompt typed and sent with the pane open
      await ask(s, "first question");
      await s.waitFor("First answer ONE.", WAIT);
      await until(s, () => paneSection(s) !== undefined, "the captured request in the pane");
      const first = paneSection(s)!;
      expect(hint(s)).toContain(PANE_HINT);
      s.send(KEYS.down);
      await until(s, () => paneSection(s) !== first, "↓ to move to the next section");
      const second = paneSection(s)!;
      // ↑ is the pane's too: it does not recall the prompt just sent
      s.send(KEYS.up);
      await until(s, () => paneSection(s) === first, "↑ to move back");
      expect(promptText(s)).toBe("");

      // a question comes and is answered: the keys are the pane's again
      await ask(s, "second question");
      await s.waitFor("y allow once", WAIT);
      s.send("y");
      await s.waitFor("Second answer TWO.", WAIT);
      await s.waitFor(/ idle · /, WAIT);
      s.send(KEYS.down);
      await until(s, () => paneSection(s) === second, "↓ after the permission answer");

      // narrower: the pane covers the transcript, and still has the keys
      s.resize(100, 30);
      await s.settle(200);
      s.send(KEYS.up);
      await until(s, () => paneSection(s) === first, "↑ after a resize");

      // a /command typed from the pane gives the keys back to it
      await ask(s, "/help");
      await until(s, () => hint(s).includes(PANE_HINT), "the pane's hints after /help");
      s.send(KEYS.down);
      await until(s, () => paneSection(s) === second, "↓ after /help");

      // Esc closes it
      s.send(KEYS.escape);
      await s.waitForGone("Context · what the last request sent", WAIT);
      await s.waitFor("Type a request", WAIT);
      await quit(s);
      expect((await s.exited()).exitCode).toBe(0);
    },
    120_000,
  );
});

/** a word for bash: single-quoted */
function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

describe("Ctrl-Z", () => {
  it(
    "under a shell with job control: Ctrl-Z stops it with the terminal restored; fg brings the screen back, redrawn and taking keys",
    async () => {
      const sh = spawnPty("/bin/bash", ["--norc", "--noprofile", "-i"], {
        cols: 100,
        rows: 30,
        cwd: e2e.home.workspace,
        env: { ...e2e.home.env, TERM: "xterm-256color", PS1: "SHELL-READY$ " },
      });
      e2e.running.push(sh);
      await sh.waitFor("SHELL-READY$", WAIT);
      sh.send([process.execPath, CLI, ...ARGS()].map(shq).join(" ") + "\r");
      await ready(sh);
      expect(sh.buffer()).toBe("alternate");
      sh.send("a draft in progress");
      await sh.waitFor("› a draft in progress", WAIT);

      sh.send(KEYS.ctrl("z"));
      await sh.waitFor(/Stopped/, WAIT);
      await until(sh, () => sh.buffer() === "normal" && /SHELL-READY\$ $/m.test(sh.screenText()), "the shell's prompt on the normal screen");
      expect(sh.screenText()).not.toContain("a draft in progress");
      // the terminal is the shell's: cooked mode, it echoes and runs a command
      sh.send("echo the-shell-has-it\r");
      await sh.waitFor(/^the-shell-has-it$/m, WAIT);
      // what the app wrote before the shell said "Stopped": the normal screen, the cursor, bracketed paste off
      const raw = sh.rawOutput();
      const before = raw.slice(0, raw.indexOf("Stopped"));
      const left = before.lastIndexOf("\x1b[?1049l");
      expect(left).toBeGreaterThan(before.lastIndexOf("\x1b[?1049h"));
      expect(before.lastIndexOf("\x1b[?25h")).toBeGreaterThan(before.lastIndexOf("\x1b[?25l"));
      expect(before.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(before.lastIndexOf("\x1b[?2004h"));

      sh.send("fg\r");
      await until(sh, () => sh.buffer() === "alternate" && sh.screenText().includes("› a draft in progress"), "the screen redrawn after fg");
      expect(sh.screenText()).toMatch(/ idle · anthropic/);
      // keys reach the app again, in raw mode: typing edits the prompt, Ctrl-C is its double press
      sh.send(" and more");
      await sh.waitFor("› a draft in progress and more", WAIT);
      expect(sh.screenText()).not.toContain("not suspended");
      await quit(sh);
      await until(sh, () => sh.buffer() === "normal" && /SHELL-READY\$ $/m.test(sh.screenText()), "the shell's prompt after quitting");
      sh.send("exit\r");
      await sh.exited();
    },
    120_000,
  );

  it("without job control (no shell to continue it) the screen comes straight back and says so", async () => {
    const s = tui();
    await ready(s);
    s.send("kept text");
    await s.waitFor("› kept text", WAIT);
    s.send(KEYS.ctrl("z"));
    await s.waitFor("not suspended: no job control here", WAIT);
    expect(s.buffer()).toBe("alternate");
    s.send("!");
    await s.waitFor("› kept text!", WAIT);
    await quit(s);
    expect((await s.exited()).exitCode).toBe(0);
  });
});

describe("keymaps at start", () => {
  it("a key bound to two actions in one place is named with its file", async () => {
    const file = path.join(e2e.home.root, "k.json");
    await fsp.writeFile(file, JSON.stringify({ "transcript.top": ["k", "home"] }));
    const s = tui(["--keymap", file]);
    await ready(s);
    const flat = (): string => s.screenText().split("\n").map((l) => l.trim()).join(" ");
    await until(s, () => flat().includes('"k" is bound to both transcript.selectPrev'), "the warning");
    expect(flat()).toContain(file);
    expect(flat()).toMatch(/only transcript\.selectPrev acts on it there/);
    await quit(s);
    expect((await s.exited()).exitCode).toBe(0);
  });

  it(`the wheel scrolls the transcript by default and leaves the prompt alone; "mouse": "off" asks for no reports`, async () => {
    e2e.fake.script({ text: Array.from({ length: 60 }, (_, i) => `Line ${i} of a long answer.`).join("\n\n") + "\n\nLAST-LINE" });
    const s = tui([], { cols: 100, rows: 24 });
    await ready(s);
    // wheel reports asked for: a terminal in alternate-scroll mode (xterm's alternateScroll,
    // VTE, iTerm2) then sends the wheel as SGR reports, not as arrow keys
    expect(s.rawOutput()).toContain("\x1b[?1000h\x1b[?1006h");
    await ask(s, "a long answer please");
    await s.waitFor("LAST-LINE", WAIT);
    await s.waitFor(/ idle · /, WAIT);
    s.send("draft-kept");
    await s.waitFor("draft-kept", WAIT);
    // the wheel over the transcript, as the terminal reports it (SGR, 1-based cells)
    s.send("\x1b[<64;10;5M".repeat(5));
    await s.waitFor("more below", WAIT);
    expect(s.screenText()).not.toContain("LAST-LINE");
    expect(s.screenText()).toContain("draft-kept");
    expect(s.screenText()).not.toMatch(/> a long answer please\s*$/m);
    s.send("\x1b[<65;10;5M".repeat(40));
    await s.waitFor("LAST-LINE", WAIT);
    expect(s.screenText()).toContain("draft-kept");
    await quit(s);
    expect((await s.exited()).exitCode).toBe(0);
    expect(s.rawOutput().slice(-400)).toContain("\x1b[?1006l\x1b[?1000l");

    // "mouse": "off": no reports asked for; the wheel is the terminal's again
    const config = path.join(e2e.home.env.XDG_CONFIG_HOME as string, "albedo", "config.json");
    await fsp.mkdir(path.dirname(config), { recursive: true });
    await fsp.writeFile(config, JSON.stringify({ keys: { mouse: "off" } }));
    const off = tui();
    await ready(off);
    expect(off.rawOutput()).not.toContain("\x1b[?1000h");
    await quit(off);
    await off.exited();
  });
});
