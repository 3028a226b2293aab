// Hearing when it needs you, on a real terminal: the built CLI in a pseudo-terminal (and inside
// a real tmux) against the strict fake provider. With the focus reported lost (CSI O sent to the
// pty, as a terminal does), a turn's end and a permission question send OSC 9 or BEL; with the
// focus there, nothing; the title says the session and its state, sanitized.
import { afterEach, describe, expect, it } from "vitest";
import fsp from "node:fs/promises";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { CLI } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { ptyFrame } from "../helpers/pty-frame.js";

const KEY = "sk-test-notify-2929";
const MODEL = "claude-sonnet-4-5";
const FOCUS_OUT = "\x1b[O";
const FOCUS_IN = "\x1b[I";
// a fresh home and fake per test; ptys killed after it
const e2e = ptyFrame(KEY);
const servers: string[] = [];

afterEach(() => {
  for (const sock of servers.splice(0)) {
    try {
      execFileSync("tmux", ["-S", sock, "kill-server"], { stdio: "ignore" });
    } catch {
      // already gone
    }
  }
});

async function config(c: object): Promise<void> {
  const dir = path.join(e2e.home.root, "config", "albedo");
  await fsp.mkdir(dir, { recursive: true });
  await fsp.writeFile(path.join(dir, "config.json"), JSON.stringify(c));
}

const ARGS = (): string[] => [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", e2e.fake.anthropicBase];

function tui(args: string[] = [], env: NodeJS.ProcessEnv = {}): PtySession {
  const s = spawnPty(process.execPath, [...ARGS(), ...args], { cols: 100, rows: 30, cwd: e2e.home.workspace, env: { ...e2e.home.env, TERM: "xterm-256color", ...env } });
  e2e.running.push(s);
  return s;
}

/** what was written with every OSC string taken out: a BEL left is a bell */
function withoutOsc(raw: string): string {
  return raw.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "");
}

function bells(raw: string): number {
  return withoutOsc(raw).split("\x07").length - 1;
}

async function until(ok: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 30));
  s.send(KEYS.enter);
}

describe("notices when the terminal does not have the focus", () => {
  it("rings BEL at a turn's end when unfocused (auto on a plain xterm), nothing when focused; asks for focus reports", async () => {
    e2e.fake.script({ text: "first answer ONE", delayMs: 10 }, { text: "second answer TWO", delayMs: 10 });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    expect(s.rawOutput()).toContain("\x1b[?1004h");
    // focused: no bell
    s.send(FOCUS_IN);
    await ask(s, "while you watch");
    await s.waitFor("ONE");
    await s.waitFor(/idle/);
    expect(bells(s.rawOutput())).toBe(0);
    // the focus goes elsewhere: the next turn's end rings
    s.send(FOCUS_OUT);
    await ask(s, "while you are away");
    await s.waitFor("TWO");
    await until(() => bells(s.rawOutput()) === 1, "bell");
    s.send(FOCUS_IN);
    s.send(KEYS.ctrl("c"));
    s.send(KEYS.ctrl("c"));
    expect((await s.exited()).exitCode).toBe(0);
    // focus reports are turned off again, and the title given back
    expect(s.rawOutput()).toContain("\x1b[?1004l");
    expect(s.rawOutput()).toContain("\x1b[23;2t");
  });

  it("sends OSC 9 with a short text for a permission question and for the turn's end (config osc9); the title follows the state", async () => {
    await config({ notify: "osc9" });
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "echo hi" } }] }, { text: "done DONE-9" });
    // unsandboxed, a command asks first
    const s = tui(["--sandbox", "off"]);
    await s.waitFor("Type a request", 20_000);
    s.send(FOCUS_OUT);
    await ask(s, "run echo");
    await s.waitFor("Permission needed");
    await until(() => s.rawOutput().includes("\x1b]9;albedo-tui: permission asked for bash"), "OSC 9 for the question");
    expect(s.rawOutput()).toMatch(/\x1b\]2;albedo-tui · [^\x07]* · waiting for you\x07/);
    s.send(FOCUS_IN);
    // the box takes keys once it has been seen
    await new Promise((r) => setTimeout(r, 600));
    s.send("y");
    await s.waitFor("DONE-9");
    await s.waitFor(/idle/);
    // focused at the end: no second notice
    expect(s.rawOutput()).not.toContain("\x1b]9;albedo-tui: the turn is done");
    expect(s.rawOutput()).toMatch(/\x1b\]2;albedo-tui · [^\x07]+ · working\x07/);
    expect(s.rawOutput()).toMatch(/\x1b\]2;albedo-tui · run echo · idle\x07/);
    expect(bells(s.rawOutput())).toBe(0);
  });

  it("through tmux: the OSC 9 is wrapped for passthrough and reaches the outer terminal; BEL too", async () => {
    await config({ notify: "osc9" });
    e2e.fake.script({ text: "inside tmux TMUX-ONE", delayMs: 10 });
    const sock = path.join(e2e.home.root, "tmux.sock");
    servers.push(sock);
    const conf = path.join(e2e.home.root, "tmux.conf");
    await fsp.writeFile(conf, "set -g focus-events on\nset -g allow-passthrough on\nset -g status off\nset -g bell-action any\nset -g visual-bell off\n");
    const cmd = [process.execPath, ...ARGS()].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const env = { ...e2e.home.env, TERM: "xterm-256color" };
    const s = spawnPty("tmux", ["-S", sock, "-f", conf, "new-session", "-x", "100", "-y", "30", `env -u TMUX_PANE ${cmd}`], { cols: 100, rows: 30, cwd: e2e.home.workspace, env });
    e2e.running.push(s);
    await s.waitFor("Type a request", 30_000);
    s.send(FOCUS_OUT);
    // tmux tells the pane once it has the report
    await new Promise((r) => setTimeout(r, 300));
    await ask(s, "hello from tmux");
    await s.waitFor("TMUX-ONE");
    await until(() => s.rawOutput().includes("\x1b]9;albedo-tui: the turn is done"), "OSC 9 through tmux");
    s.send(FOCUS_IN);
    s.send(KEYS.ctrl("c"));
    s.send(KEYS.ctrl("c"));
    await s.exited();
  });

  it("through tmux, with auto on a plain terminal: the BEL reaches the outer terminal", async () => {
    e2e.fake.script({ text: "inside tmux TMUX-BELL", delayMs: 10 });
    const sock = path.join(e2e.home.root, "tmux.sock");
    servers.push(sock);
    const conf = path.join(e2e.home.root, "tmux.conf");
    await fsp.writeFile(conf, "set -g focus-events on\nset -g status off\nset -g bell-action any\nset -g visual-bell off\nset -g monitor-bell on\n");
    const cmd = [process.execPath, ...ARGS()].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const s = spawnPty("tmux", ["-S", sock, "-f", conf, "new-session", "-x", "100", "-y", "30", cmd], { cols: 100, rows: 30, cwd: e2e.home.workspace, env: { ...e2e.home.env, TERM: "xterm-256color" } });
    e2e.running.push(s);
    await s.waitFor("Type a request", 30_000);
    s.send(FOCUS_OUT);
    await new Promise((r) => setTimeout(r, 300));
    await ask(s, "ring from tmux");
    await s.waitFor("TMUX-BELL");
    await until(() => bells(s.rawOutput()) >= 1, "BEL through tmux");
    s.send(KEYS.ctrl("c"));
    s.send(KEYS.ctrl("c"));
    await s.exited();
  });

  it("hostile: control characters in the session's title never reach the title; a flood of turns rings at most once per interval", async () => {
    const steps = Array.from({ length: 6 }, (_, i) => ({ text: `quick ${i} Q${i}END` }));
    e2e.fake.script(...steps);
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    s.send(FOCUS_OUT);
    s.send(KEYS.paste("evil \x1b]0;PWNED\x07 title\x1b[31m red"));
    s.send(KEYS.enter);
    await s.waitFor("Q0END");
    await s.waitFor(/idle/);
    for (let i = 1; i < 6; i++) {
      await ask(s, `again ${i}`);
      await s.waitFor(`Q${i}END`);
      await s.waitFor(/idle/);
    }
    const raw = s.rawOutput();
    // the words may show, inert; the sequence never
    expect(raw).not.toContain("\x1b]0;PWNED");
    expect(raw).toMatch(/\x1b\]2;albedo-tui · evil [^\x07\x1b]*PWNED title[^\x07\x1b]* · idle\x07/);
    for (const m of raw.matchAll(/\x1b\]2;([^\x07]*)\x07/g)) expect(m[1]).not.toMatch(/[\x00-\x1f\x7f]/);
    // six turns in a few seconds: one bell per 3 s at most
    expect(bells(raw)).toBeGreaterThanOrEqual(1);
    expect(bells(raw)).toBeLessThan(6);
  });
});
