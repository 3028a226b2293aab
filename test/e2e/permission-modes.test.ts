// Permission modes and the sandbox through a real terminal: the built CLI in a pty, the strict
// fake provider, real bubblewrap. Each mode's behaviour is read off the screen and off what the
// model was sent.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { CLI } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { ptyFrame } from "../helpers/pty-frame.js";

const KEY = "sk-test-modes-e2e-6262";
const WAIT = 30_000;
const ALT_M = "\x1bm";
// a fresh home and fake per test; ptys killed after it
const e2e = ptyFrame(KEY);
const bwrapWorks = fs.existsSync("/usr/bin/bwrap");

function tui(args: string[] = [], env: NodeJS.ProcessEnv = {}): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", e2e.fake.anthropicBase, ...args], {
    // wide enough for the status line to keep the mode and the sandbox beside the figures
    cols: 170,
    rows: 32,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color", ...env },
  });
  e2e.running.push(s);
  return s;
}

async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 40), WAIT);
  s.send(KEYS.enter);
}

const status = (s: PtySession): string => s.line(s.rows - 1);
const lastResult = (): string => JSON.stringify(e2e.fake.requests.at(-1)!.body.messages.at(-1));

describe.skipIf(!bwrapWorks)("permission modes in the screen", () => {
  it("ask runs a sandboxed command unasked; the mode key cycles accept-edits, plan (told to the model), and back only on a second press", async () => {
    e2e.fake.script(
      { toolCalls: [{ name: "bash", input: { command: "echo sandboxed-ran-1 && touch made-inside" } }] },
      { text: "First done." },
      { toolCalls: [{ name: "write", input: { path: "edited.txt", content: "by accept-edits\n" } }] },
      { text: "Second done." },
      { toolCalls: [{ name: "bash", input: { command: "echo plan-should-not-run" } }, { name: "read", input: { path: "edited.txt" } }] },
      { text: "Third done." },
    );
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    await s.waitFor(/ask · /, WAIT);
    await s.waitFor("sandbox workspace-write", WAIT);
    // ask + sandbox: no question
    await ask(s, "run a command");
    await s.waitFor("First done.", WAIT);
    expect(s.screenText()).not.toContain("Permission needed");
    expect(fs.existsSync(path.join(e2e.home.workspace, "made-inside"))).toBe(true);
    // accept-edits (Shift-Tab, as in Claude Code): a write in the workspace runs unasked
    s.send(KEYS.shiftTab);
    await s.waitFor("permission mode: accept-edits", WAIT);
    await s.waitFor(/accept-edits · /, WAIT);
    await ask(s, "edit a file");
    await s.waitFor("Second done.", WAIT);
    expect(s.screenText()).not.toContain("Permission needed");
    expect(fs.readFileSync(path.join(e2e.home.workspace, "edited.txt"), "utf8")).toBe("by accept-edits\n");
    // plan: read-only tools only, and the model is told
    s.send(ALT_M);
    await s.waitFor("permission mode: plan", WAIT);
    await ask(s, "make a plan");
    await s.waitFor("Third done.", WAIT);
    const planReq = JSON.stringify(e2e.fake.requests.at(-2)!.body);
    expect(planReq).toContain("You are in plan mode");
    expect(lastResult()).toContain("denied: albedo-tui runs in plan mode; bash is not allowed");
    expect(lastResult()).toContain("by accept-edits");
    // leaving plan takes a second press
    s.send(ALT_M);
    await s.waitFor("Leave plan mode?", WAIT);
    expect(status(s)).toMatch(/plan · /);
    s.send(ALT_M);
    await s.waitFor("permission mode: ask", WAIT);
    await s.waitFor(/ ask · /, WAIT);
  }, 120_000);

  it("--sandbox off: ask asks, the box shows the command once and the scope of 'for this session', which is a prefix", async () => {
    e2e.fake.script(
      { toolCalls: [{ name: "bash", input: { command: "echo one-1" } }] },
      { toolCalls: [{ name: "bash", input: { command: "echo two-2" } }] },
      { toolCalls: [{ name: "bash", input: { command: "echo three-3; touch not-allowed" } }] },
      { text: "All asked." },
    );
    const s = tui(["--sandbox", "off"]);
    await s.waitFor("Type a request", WAIT);
    await s.waitFor("sandbox off", WAIT);
    await ask(s, "run them");
    await s.waitFor("Permission needed", WAIT);
    await s.waitFor("a allow for this session", WAIT);
    const box = s.screenText();
    // inside the box (its rows start with the border), once
    expect(box.split("\n").filter((l) => l.trim().startsWith("│") && l.includes("echo one-1")), box).toHaveLength(1);
    expect(box).toContain('"allow for this session" allows: commands starting with: echo');
    // Ctrl-O opens the inspector while the question is up
    s.send(KEYS.ctrl("o"));
    await s.waitFor("Context · what the last request sent", WAIT);
    s.send(KEYS.ctrl("o"));
    await s.waitFor("a allow for this session", WAIT);
    s.send("a");
    // echo two-2 matches the prefix: no question; the compound line does not
    await s.waitFor("Permission needed", WAIT);
    await s.waitFor("three-3", WAIT);
    await s.waitFor("a allow for this session", WAIT);
    expect(s.screenText()).toContain("commands starting with: echo, touch");
    s.send("n");
    await s.waitFor("All asked.", WAIT);
    const results = JSON.stringify(e2e.fake.requests.map((r) => r.body.messages.at(-1)));
    expect(results).toContain("two-2");
    expect(results).toContain("denied by the user");
    expect(fs.existsSync(path.join(e2e.home.workspace, "not-allowed"))).toBe(false);
  }, 120_000);

  it("/permissions lists the session's grants and the config's rules; revoke N makes the next npm test ask again", async () => {
    await fsp.mkdir(path.join(e2e.home.root, "config", "albedo"), { recursive: true });
    await fsp.writeFile(path.join(e2e.home.root, "config", "albedo", "config.json"), JSON.stringify({ allow: ["bash(git status)", "read"], deny: ["bash(rm:*)"] }));
    await fsp.writeFile(path.join(e2e.home.workspace, "package.json"), JSON.stringify({ name: "tiny", version: "1.0.0", scripts: { test: "echo tested-ok" } }));
    e2e.fake.script(
      { toolCalls: [{ name: "bash", input: { command: "npm test" } }] },
      { text: "First tested." },
      { toolCalls: [{ name: "bash", input: { command: "npm test" } }] },
      { toolCalls: [{ name: "bash", input: { command: "echo any-command-now" } }] },
      { text: "Second tested." },
    );
    const s = tui(["--sandbox", "off"]);
    await s.waitFor("Type a request", WAIT);
    await ask(s, "run the tests");
    await s.waitFor("Permission needed", WAIT);
    await s.waitFor("commands starting with: npm test", WAIT);
    await s.waitFor("a allow for this session", WAIT);
    s.send("a");
    await s.waitFor("First tested.", WAIT);
    expect(JSON.stringify(e2e.fake.requests.at(-1)!.body.messages.at(-1))).toContain("tested-ok");
    await ask(s, "/permissions");
    await s.waitFor(/ 1 {2}bash\(npm test:\*\)/, WAIT);
    const listing = s.screenText();
    expect(listing).toContain("allow bash(git status)");
    expect(listing).toContain("allow read");
    expect(listing).toContain("deny  bash(rm:*)");
    // a grant that is not there is named, and nothing is taken back
    await ask(s, "/permissions revoke 7");
    await s.waitFor('no session grant "7"', WAIT);
    await ask(s, "/permissions revoke 1");
    await s.waitFor("revoked for this session: bash(npm test:*)", WAIT);
    await ask(s, "/permissions");
    await s.waitFor(/This session[^\n]*\n\s*none/, WAIT);
    // the same command asks again
    await ask(s, "run them again");
    await s.waitFor("Permission needed", WAIT);
    await s.waitFor("commands starting with: npm test", WAIT);
    // the whole tool is its own line, chosen only by its own key
    await s.waitFor("A allow every bash command this session", WAIT);
    s.send("A");
    await s.waitFor("Second tested.", WAIT);
    expect(JSON.stringify(e2e.fake.requests.at(-1)!.body.messages.at(-1))).toContain("any-command-now");
    await ask(s, "/permissions");
    await s.waitFor(/ 1 {2}bash\s*$/m, WAIT);
  }, 120_000);

  it("auto: a write outside the workspace runs without a question (and commands stay sandboxed)", async () => {
    // outside /tmp: a sandboxed command's /tmp is its own
    const outside = await fsp.mkdtemp("/var/tmp/albedo-modes-auto-");
    e2e.fake.script(
      { toolCalls: [{ name: "write", input: { path: path.join(outside, "auto.txt"), content: "auto\n" } }, { name: "bash", input: { command: `echo x > ${outside}/by-bash.txt` } }] },
      { text: "Auto done." },
    );
    const s = tui(["--permission", "auto"]);
    await s.waitFor("Type a request", WAIT);
    await s.waitFor(/auto · /, WAIT);
    await ask(s, "write outside");
    await s.waitFor("Auto done.", WAIT);
    expect(s.screenText()).not.toContain("Permission needed");
    expect(fs.readFileSync(path.join(outside, "auto.txt"), "utf8")).toBe("auto\n");
    // the sandbox is not a permission: the command still cannot write outside
    expect(fs.existsSync(path.join(outside, "by-bash.txt"))).toBe(false);
    expect(lastResult()).toContain("in auto mode it is not run outside the sandbox");
    await fsp.rm(outside, { recursive: true, force: true });
  }, 120_000);

  it("a command the sandbox stopped is run outside only after a question saying what that allows", async () => {
    const outside = await fsp.mkdtemp("/var/tmp/albedo-modes-");
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: `echo y > ${outside}/after-yes.txt` } }] }, { text: "Outside done." });
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    await ask(s, "write there");
    await s.waitFor("OUTSIDE the sandbox", WAIT);
    await s.waitFor("y allow once", WAIT);
    expect(s.screenText()).toContain("allows: this exact command, once more, with write access");
    expect(fs.existsSync(path.join(outside, "after-yes.txt"))).toBe(false);
    s.send("y");
    await s.waitFor("Outside done.", WAIT);
    expect(fs.readFileSync(path.join(outside, "after-yes.txt"), "utf8")).toBe("y\n");
    await fsp.rm(outside, { recursive: true, force: true });
  }, 120_000);
});

describe("without bubblewrap, in the screen", () => {
  it("says once that commands run unsandboxed, and ask asks", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "echo asked-first" } }] }, { text: "Asked." });
    const s = tui([], { ALBEDO_BWRAP: "/nonexistent/bwrap" });
    await s.waitFor("Type a request", WAIT);
    await s.waitFor("Commands run UNSANDBOXED", WAIT);
    await s.waitFor("UNSANDBOXED", WAIT);
    await ask(s, "run it");
    await s.waitFor("Permission needed", WAIT);
    await s.waitFor("y allow once", WAIT);
    s.send("y");
    await s.waitFor("Asked.", WAIT);
    expect(s.screenText().split("Commands run UNSANDBOXED").length - 1).toBe(1);
  }, 120_000);
});
