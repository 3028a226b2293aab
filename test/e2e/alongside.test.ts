// Working alongside a turn, on a real terminal: the built CLI in a pseudo-terminal against the
// strict fake provider. A message typed during a turn is queued and sent after it, in order; a
// steered one joins the same turn at its next model call and is stored there; Ctrl-C stops the
// turn and the app stays; hostile sizes and control characters in what is queued.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { RecordedRequest } from "../helpers/fake-provider.js";
import { CLI } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { ptyFrame } from "../helpers/pty-frame.js";
import { rawAll, rawClose, rawOpen } from "../helpers/raw-sqlite.js";

const KEY = "sk-test-alongside-2929";
const MODEL = "claude-sonnet-4-5";
// a fresh home and fake per test: a step one test left unsent never answers the next
const e2e = ptyFrame(KEY);

function tui(args: string[] = [], opts: { cols?: number; rows?: number } = {}): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", e2e.fake.anthropicBase, ...args], {
    cols: opts.cols ?? 100,
    rows: opts.rows ?? 30,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color" },
  });
  e2e.running.push(s);
  return s;
}

async function until(ok: () => boolean, what: string, s?: PtySession, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`no ${what} within ${timeoutMs} ms${s ? `. Screen:\n${s.screenText()}` : ""}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function typeIn(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text.slice(0, 30));
}

/** the text of the request's user messages, in order, each message's text blocks joined */
function userTexts(r: RecordedRequest): string[] {
  const out: string[] = [];
  for (const m of r.body.messages as { role: string; content: string | { type: string; text?: string }[] }[]) {
    if (m.role !== "user") continue;
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    const t = blocks.filter((b) => b.type === "text").map((b) => b.text ?? "").join("\n");
    if (t) out.push(t);
  }
  return out;
}

async function storedMessages(): Promise<{ role: string; blocks: string }[]> {
  const db = await rawOpen(e2e.home.db);
  try {
    return await rawAll<{ role: string; blocks: string }>(db, "SELECT role, blocks_json AS blocks FROM messages ORDER BY session_id, seq");
  } finally {
    await rawClose(db);
  }
}

async function quit(s: PtySession): Promise<number> {
  await s.waitFor(/idle/);
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit");
  s.send(KEYS.ctrl("c"));
  return (await s.exited()).exitCode;
}

const SLOW = (marker: string): { text: string; wordsPerEvent: number; delayMs: number } => ({
  text: `${"streaming words go by one at a time ".repeat(12)}${marker}`,
  wordsPerEvent: 1,
  delayMs: 40,
});

describe("typing while a turn works", () => {
  it("queues messages typed during a stream, shows them, and sends them after it in order, across a resize", async () => {
    e2e.fake.script(SLOW("FIRST-ANSWER-END"), { text: "answer to queued one QA1" }, { text: "answer to queued two QA2" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "the first prompt");
    s.send(KEYS.enter);
    await s.waitFor("streaming words");
    await typeIn(s, "queued one");
    s.send(KEYS.enter);
    await s.waitFor("queued 1 queued one");
    s.resize(80, 24);
    await typeIn(s, "queued two");
    s.send(KEYS.enter);
    await s.waitFor("queued 2 queued two");
    // shown with the keys that edit and drop it
    expect(s.screenText()).toContain("Alt-e edits the last");
    await s.waitFor("QA2", 40_000);
    await s.waitForGone("queued 1 ");
    expect(e2e.fake.requests).toHaveLength(3);
    expect(userTexts(e2e.fake.requests[1]!).slice(-1)).toEqual(["queued one"]);
    expect(userTexts(e2e.fake.requests[2]!).slice(-2)).toEqual(["queued one", "queued two"]);
    // the first stream was whole before the queued message went
    expect(JSON.stringify(e2e.fake.requests[1]!.body.messages)).toContain("FIRST-ANSWER-END");
    expect(await quit(s)).toBe(0);
  });

  it("takes the last queued message back into the prompt and drops one, with the keymap's keys", async () => {
    e2e.fake.script(SLOW("END-A"), { text: "after the queue QB" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "start the turn");
    s.send(KEYS.enter);
    await s.waitFor("streaming words");
    await typeIn(s, "keep me");
    s.send(KEYS.enter);
    await s.waitFor("queued 1 keep me");
    await typeIn(s, "drop me");
    s.send(KEYS.enter);
    await s.waitFor("queued 2 drop me");
    s.send("\x1bd"); // Alt-D: queue.remove
    await s.waitForGone("queued 2 drop me");
    s.send("\x1be"); // Alt-E: queue.edit
    await s.waitForGone("queued 1 keep me");
    await s.waitFor("back in the prompt");
    expect(s.line(s.rows - 2)).toContain("keep me");
    s.send(" edited");
    s.send(KEYS.enter);
    await s.waitFor("queued 1 keep me edited");
    await s.waitFor("QB", 40_000);
    expect(e2e.fake.requests).toHaveLength(2);
    expect(userTexts(e2e.fake.requests[1]!).slice(-1)).toEqual(["keep me edited"]);
    expect(JSON.stringify(e2e.fake.requests.map((r) => r.body))).not.toContain("drop me");
    expect(await quit(s)).toBe(0);
  });

  it("a queued //text goes as written, never expanded as a command, and comes back with its //", async () => {
    // a custom command of that name: expanding the queued text would send its body
    fs.mkdirSync(path.join(e2e.home.workspace, ".claude", "commands"), { recursive: true });
    fs.writeFileSync(path.join(e2e.home.workspace, ".claude", "commands", "hello.md"), "EXPANDED-BODY $ARGUMENTS\n");
    e2e.fake.script(SLOW("END-L"), { text: "the literal went QL" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "start the turn");
    s.send(KEYS.enter);
    await s.waitFor("streaming words");
    await typeIn(s, "//hello world");
    s.send(KEYS.enter);
    await s.waitFor("queued 1 //hello world");
    // taken back: the prompt holds what was typed, "//" and all
    s.send("\x1be");
    await s.waitFor("back in the prompt");
    expect(s.line(s.rows - 2)).toContain("//hello world");
    s.send(KEYS.enter);
    await s.waitFor("queued 1 //hello world");
    await s.waitFor("QL", 40_000);
    expect(e2e.fake.requests).toHaveLength(2);
    expect(userTexts(e2e.fake.requests[1]!).slice(-1)).toEqual(["/hello world"]);
    expect(JSON.stringify(e2e.fake.requests.map((r) => r.body))).not.toContain("EXPANDED-BODY");
    expect(await quit(s)).toBe(0);
  });

  it("steers a message into the running turn: it reaches the next model call and is stored there", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "sleep 3; echo slept" } }] }, { text: "steered answer STEER-OK" });
    const s = tui(["--permission", "auto"]);
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "run the slow command");
    s.send(KEYS.enter);
    await s.waitFor("sleep 3");
    await typeIn(s, "also check the README");
    s.send(KEYS.ctrl("s"));
    await s.waitFor("sent into the turn");
    s.resize(90, 26);
    await s.waitFor("STEER-OK", 40_000);
    // the same turn: two model calls, the steered text after the tool's result
    expect(e2e.fake.requests).toHaveLength(2);
    const second = e2e.fake.requests[1]!.body.messages as { role: string; content: { type: string; text?: string }[] }[];
    const last = second[second.length - 1]!;
    const before = second[second.length - 2]!;
    expect(before.role).toBe("user");
    expect(before.content.map((b) => b.type)).toEqual(["tool_result"]);
    expect(last.role).toBe("user");
    expect(last.content.map((b) => b.text)).toEqual(["also check the README"]);
    // the record: prompt, tool call, results, the steered message, the answer
    await s.waitFor(/idle/);
    let stored = await storedMessages();
    const end = Date.now() + 20_000;
    while (stored.length < 5 && Date.now() < end) stored = await storedMessages();
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "user", "user", "assistant"]);
    expect(stored[3]!.blocks).toContain("also check the README");
    expect(stored[2]!.blocks).toContain("tool_result");
    expect(await quit(s)).toBe(0);
  });

  it("a steer into a turn that is answering without tools gets one more call in the same turn", async () => {
    e2e.fake.script(SLOW("ANSWER-ONE"), { text: "second call STEER-TWO" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "say something long");
    s.send(KEYS.enter);
    await s.waitFor("streaming words");
    await typeIn(s, "and then this");
    s.send(KEYS.ctrl("s"));
    await s.waitFor("STEER-TWO", 40_000);
    expect(e2e.fake.requests).toHaveLength(2);
    expect(userTexts(e2e.fake.requests[1]!)).toEqual(["say something long", "and then this"]);
    await s.waitFor(/idle/);
    let stored = await storedMessages();
    const end = Date.now() + 20_000;
    while (stored.length < 4 && Date.now() < end) stored = await storedMessages();
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(await quit(s)).toBe(0);
  });

  it("a steer the turn never took (it was interrupted first) comes back to the prompt, not lost", async () => {
    e2e.fake.script({ ...SLOW("NOT-REACHED"), delayMs: 200 });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "talk slowly");
    s.send(KEYS.enter);
    await s.waitFor("streaming words");
    await typeIn(s, "steer that never lands");
    s.send(KEYS.ctrl("s"));
    await s.waitFor("sent into the turn");
    s.send(KEYS.ctrl("c"));
    await s.waitFor("Interrupted; what arrived is kept.");
    await s.waitFor("back in the prompt");
    expect(s.line(s.rows - 2)).toContain("steer that never lands");
    expect(e2e.fake.requests).toHaveLength(1);
    const stored = await storedMessages();
    expect(stored.map((m) => m.blocks).join("")).not.toContain("steer that never lands");
  });

  it("Ctrl-C stops the turn and the app stays; queued messages come back to the prompt", async () => {
    e2e.fake.script({ ...SLOW("NEVER-SEEN"), delayMs: 200 }, { text: "after the interrupt ANSWER-AFTER" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "a long answer please");
    s.send(KEYS.enter);
    await s.waitFor("streaming words");
    await typeIn(s, "waiting behind");
    s.send(KEYS.enter);
    await s.waitFor("queued 1 waiting behind");
    s.resize(110, 28);
    s.send(KEYS.ctrl("c"));
    await s.waitFor("Interrupted; what arrived is kept.");
    await s.waitFor(/idle/);
    expect(s.hasExited()).toBe(false);
    expect(s.screenText()).not.toContain("NEVER-SEEN");
    // the queued message was not sent: it is back in the prompt
    await s.waitFor("back in the prompt");
    expect(s.line(s.rows - 2)).toContain("waiting behind");
    // Ctrl-C on a prompt with text clears it, and the app stays
    s.send(KEYS.ctrl("c"));
    await s.waitFor("prompt cleared");
    expect(s.line(s.rows - 2)).not.toContain("waiting behind");
    expect(s.hasExited()).toBe(false);
    expect(e2e.fake.requests).toHaveLength(1);
    // the app still works
    await typeIn(s, "next one");
    s.send(KEYS.enter);
    await s.waitFor("ANSWER-AFTER", 30_000);
    expect(await quit(s)).toBe(0);
  });

  it("hostile: control characters in a queued message stay inert on screen; a 1 MB one over the window comes back, not lost", async () => {
    e2e.fake.script(SLOW("END-H"), { text: "controls done QH1" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "go");
    s.send(KEYS.enter);
    await s.waitFor("streaming words");
    // a title change, a clipboard write and a bell inside the text: none reaches the terminal
    s.send(KEYS.paste("ctl \x1b]2;HACKED\x07 \x1b]52;c;aGk=\x07 bell\x07 end"));
    s.send(KEYS.enter);
    await s.waitFor("queued 1 ctl", 30_000);
    const big = `BIG-START ${"x".repeat(1024 * 1024)} BIG-END`;
    s.send(KEYS.paste(big));
    await s.waitFor("pasted", 30_000);
    s.send(KEYS.enter);
    await s.waitFor("queued 2", 30_000);
    await s.waitFor("QH1", 60_000);
    expect(s.rawOutput()).not.toContain("\x1b]2;HACKED");
    expect(s.rawOutput()).not.toContain("\x1b]52;c;aGk=");
    // the queued text went as typed
    const sent = userTexts(e2e.fake.requests[1]!).slice(-1)[0]!;
    expect(sent.startsWith("ctl ")).toBe(true);
    expect(sent.endsWith(" end")).toBe(true);
    // the 1 MB one is over the model's window: refused before anything is sent, and it is
    // back in the prompt, whole
    await s.waitFor("Not sent", 30_000);
    await s.waitFor(/pasted #\d+ · 1\.0 MB/);
    expect(e2e.fake.requests).toHaveLength(2);
    expect(s.hasExited()).toBe(false);
    s.send(KEYS.ctrl("c"));
    await s.waitFor("prompt cleared");
    // the second press quits, keeping what was cleared as the draft
    s.send(KEYS.ctrl("c"));
    expect((await s.exited()).exitCode).toBe(0);
  }, 120_000);
});

async function writeConfig(c: object): Promise<void> {
  const dir = path.join(e2e.home.root, "config", "albedo");
  await fsp.mkdir(dir, { recursive: true });
  await fsp.writeFile(path.join(dir, "config.json"), JSON.stringify(c));
}

describe("a draft and the prompt history outlive the session's screen", () => {
  it("an unsent draft survives Ctrl-C Ctrl-C and comes back with the session, control characters stripped", async () => {
    e2e.fake.script({ text: "first answer DR1" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "a sent prompt");
    s.send(KEYS.enter);
    await s.waitFor("DR1");
    await s.waitFor(/idle/);
    s.send(KEYS.paste("half typed \x1b]2;X\x07idea"));
    await s.waitFor("half typed");
    s.resize(80, 24);
    // Ctrl-C empties the prompt and a second quits, keeping what it held as the draft
    s.send(KEYS.ctrl("c"));
    await s.waitFor("prompt cleared");
    s.send(KEYS.ctrl("c"));
    expect((await s.exited()).exitCode).toBe(0);
    const again = tui(["--continue"]);
    await again.waitFor("Your unsent draft is back in the prompt.", 20_000);
    await again.waitFor("half typed");
    expect(again.line(again.rows - 2)).toContain("half typed");
    // stored without the control characters
    const files = await fsp.readdir(path.join(e2e.home.root, "state", "albedo", "alongside", "drafts"));
    expect(files).toHaveLength(1);
    const kept = await fsp.readFile(path.join(e2e.home.root, "state", "albedo", "alongside", "drafts", files[0]!), "utf8");
    expect(kept).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(kept).toContain("half typed");
    expect((await fsp.stat(path.join(e2e.home.root, "state", "albedo", "alongside", "drafts", files[0]!))).mode & 0o777).toBe(0o600);
  });

  it("a new session of the workspace recalls earlier sessions' prompts with Up; a key in a prompt is never kept", async () => {
    e2e.fake.script({ text: "answer H1" });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, `remember this prompt with ${KEY} inside`);
    s.send(KEYS.enter);
    await s.waitFor("H1");
    await s.waitFor(/idle/);
    s.send(KEYS.ctrl("c"));
    await s.waitFor("again to quit");
    s.send(KEYS.ctrl("c"));
    await s.exited();
    const next = tui();
    await next.waitFor("Type a request", 20_000);
    next.send(KEYS.up);
    await next.waitFor("remember this prompt with");
    expect(next.screenText()).not.toContain(KEY);
    const hist = await fsp.readdir(path.join(e2e.home.root, "state", "albedo", "alongside", "history"));
    const text = await fsp.readFile(path.join(e2e.home.root, "state", "albedo", "alongside", "history", hist[0]!), "utf8");
    expect(text).toContain("remember this prompt with");
    expect(text).not.toContain(KEY);
  });
});

describe("a turn outlives its terminal (SIGHUP)", () => {
  it("goes on to its end with the question answered no, is recorded, exits, and the next start says how it finished", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "echo should-not-run > ran.txt" } }] }, { text: "finished without the command HUP-DONE" });
    // unsandboxed, a command asks first
    const s = tui(["--sandbox", "off"]);
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "do the thing");
    s.send(KEYS.enter);
    await s.waitFor("Permission needed");
    s.kill("SIGHUP");
    const e = await s.exited();
    expect(e.exitCode).toBe(129);
    expect(e2e.fake.requests).toHaveLength(2);
    expect(fs.existsSync(path.join(e2e.home.workspace, "ran.txt"))).toBe(false);
    const stored = await storedMessages();
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(stored[2]!.blocks).toContain("denied");
    expect(stored[3]!.blocks).toContain("HUP-DONE");
    const again = tui(["--continue"]);
    await again.waitFor("went on after the terminal hung up", 20_000);
    await again.waitFor("completed");
    expect(again.screenText()).toContain("answered no (bash)");
    await again.waitFor("HUP-DONE");
    // said once
    again.kill("SIGTERM");
    await again.exited();
    const third = tui(["--continue"]);
    await third.waitFor("HUP-DONE", 20_000);
    expect(third.screenText()).not.toContain("went on after the terminal hung up");
  });

  it('with "hangup": "quit" the turn stops at its first question', async () => {
    await writeConfig({ hangup: "quit" });
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "echo nope" } }] }, { text: "never asked for" });
    const s = tui(["--sandbox", "off"]);
    await s.waitFor("Type a request", 20_000);
    await typeIn(s, "do it");
    s.send(KEYS.enter);
    await s.waitFor("Permission needed");
    s.kill("SIGHUP");
    expect((await s.exited()).exitCode).toBe(129);
    expect(e2e.fake.requests).toHaveLength(1);
    const again = tui(["--continue"]);
    await again.waitFor("stopped at its first permission question (bash)", 20_000);
  });

  it("with no turn running, a hang-up quits at once with 129", async () => {
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    s.kill("SIGHUP");
    expect((await s.exited()).exitCode).toBe(129);
  });
});
