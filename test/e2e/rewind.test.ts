// Rewind and fork in the screen, on a real pseudo-terminal against the strict fake provider:
// /rewind and Esc Esc on an empty prompt open a box that picks a prompt, then code and
// conversation / conversation only / code only, shows what will change (files, diffs on
// request, what cannot be restored) before anything is done, and afterwards what was
// restored, with the prompt's text back in the input box. /fork and --fork-session fork. A
// lone Esc during a turn still only interrupts it.
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ptyFrame } from "../helpers/pty-frame.js";
import { CLI, runCli } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-test-rewind-e2e-7070";
const WAIT = 30_000;
const e2e = ptyFrame(KEY);
const ARGS = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", e2e.fake.anthropicBase, "--permission", "auto"];

function tui(args: string[] = [], rows = 40): PtySession {
  const s = spawnPty(process.execPath, [CLI, ...ARGS(), ...args], { cols: 110, rows, cwd: e2e.home.workspace, env: { ...e2e.home.env, TERM: "xterm-256color" } });
  e2e.running.push(s);
  return s;
}

async function ask(s: PtySession, text: string, answer: string): Promise<void> {
  s.send(text);
  await s.waitFor(`› ${text}`, WAIT);
  s.send(KEYS.enter);
  await s.waitFor(answer, WAIT);
  await s.waitFor(/ idle /, WAIT);
}

async function quit(s: PtySession): Promise<number> {
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit", WAIT);
  s.send(KEYS.ctrl("c"));
  return (await s.exited()).exitCode;
}

const file = (p: string): Promise<string> => fs.readFile(path.join(e2e.home.workspace, p), "utf8");
const exists = (p: string): Promise<boolean> => fs.lstat(path.join(e2e.home.workspace, p)).then(() => true, () => false);

interface Listed {
  id: string;
  messages: number;
  forkedFrom?: { id: string; atPrompt: number };
  forks?: Array<{ id: string; atPrompt: number }>;
}
async function listed(): Promise<Listed[]> {
  const r = await runCli(["sessions", "--json"], e2e.home);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

/** Two turns: the first changes files through edit and bash, the second through write. */
async function twoTurns(s: PtySession): Promise<void> {
  await fs.writeFile(path.join(e2e.home.workspace, "a.txt"), "alpha zero\n");
  await fs.writeFile(path.join(e2e.home.workspace, "gone.txt"), "deleted by bash\n");
  e2e.fake.script(
    { toolCalls: [{ name: "edit", input: { path: "a.txt", old_string: "zero", new_string: "one" } }, { name: "bash", input: { command: "echo made > made.txt; rm gone.txt; echo more >> a.txt" } }] },
    { text: "First turn finished." },
    { toolCalls: [{ name: "write", input: { path: "a.txt", content: "alpha two\n" } }] },
    { text: "Second turn finished." },
  );
  await s.waitFor("Type a request", WAIT);
  await ask(s, "first prompt ECHO-1", "First turn finished.");
  await ask(s, "second prompt ECHO-2", "Second turn finished.");
}

describe("/rewind in the screen", () => {
  it("code and conversation to prompt 1: the box previews (diffs on request), then restores, forks, and gives the prompt back", async () => {
    const s = tui();
    await twoTurns(s);
    const [orig] = await listed();
    s.send("/rewind");
    await s.waitFor("› /rewind", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Rewind to before which prompt? (2)", WAIT);
    await s.waitFor("Enter next", WAIT);
    expect(s.screenText()).toMatch(/1 {2}“first prompt ECHO-1”/);
    expect(s.screenText()).toMatch(/2 {2}“second prompt ECHO-2”/);
    s.send(KEYS.up);
    s.send(KEYS.enter);
    await s.waitFor("Rewind to before prompt 1", WAIT);
    await s.waitFor("Enter see what changes", WAIT);
    expect(s.screenText()).toContain("1  Restore code and conversation");
    expect(s.screenText()).toContain("2  Restore the conversation only");
    expect(s.screenText()).toContain("3  Restore the code only");
    s.send(KEYS.enter);
    await s.waitFor("Rewind (code and conversation): what will change", WAIT);
    await s.waitFor("Enter rewind", WAIT);
    const preview = s.screenText();
    expect(preview).toContain("Code: 3 paths go back to how they were before prompt 1:");
    expect(preview).toContain("restore a.txt");
    expect(preview).toContain("delete made.txt (made from prompt 1 on)");
    expect(preview).toContain("recreate gone.txt");
    expect(preview).toMatch(/Conversation: a new session with the 0 messages before prompt 1/);
    // nothing is done before Enter
    expect(await file("a.txt")).toBe("alpha two\n");
    s.send("d");
    await s.waitFor("-alpha two", WAIT);
    expect(s.screenText()).toContain("+alpha zero");
    expect(s.screenText()).toContain("+deleted by bash");
    await s.waitFor("Enter rewind", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Rewound to before prompt 1", WAIT);
    await s.waitFor(/Forked session [0-9a-f]{12} at prompt 1: the new session is [0-9a-f]{12}/, WAIT);
    const after = s.screenText();
    expect(after).toContain("restored a.txt");
    expect(after).toContain("deleted made.txt");
    expect(after).toContain("recreated gone.txt");
    // the prompt's text is back in the input box, for editing
    await s.waitFor("› first prompt ECHO-1", WAIT);
    expect(await file("a.txt")).toBe("alpha zero\n");
    expect(await file("gone.txt")).toBe("deleted by bash\n");
    expect(await exists("made.txt")).toBe(false);
    // sent from the fork: the request holds nothing of the original's turns
    e2e.fake.script({ text: "Answered in the fork." });
    s.send(KEYS.enter);
    await s.waitFor("Answered in the fork.", WAIT);
    const sent = JSON.stringify(e2e.fake.requests.at(-1)!.body.messages);
    expect(sent).toContain("first prompt ECHO-1");
    expect(sent).not.toContain("First turn finished.");
    expect(sent).not.toContain("ECHO-2");
    expect(await quit(s)).toBe(0);
    const list = await listed();
    const fork = list.find((x) => x.forkedFrom?.id === orig!.id);
    expect(fork?.forkedFrom).toEqual({ id: orig!.id, atPrompt: 1 });
    expect(list.find((x) => x.id === orig!.id)).toMatchObject({ messages: 8, forks: [{ id: fork!.id, atPrompt: 1 }] });
  }, 120_000);

  it("code only to prompt 2, and Esc cancels a rewind with nothing changed", async () => {
    const s = tui();
    await twoTurns(s);
    s.send("/rewind");
    await s.waitFor("› /rewind", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Enter next", WAIT);
    s.send(KEYS.enter); // the last prompt is chosen first
    await s.waitFor("Enter see what changes", WAIT);
    s.send("3");
    await s.waitFor("Rewind (code only): what will change", WAIT);
    await s.waitFor("Enter rewind", WAIT);
    expect(s.screenText()).toContain("Code: 1 path go back to how they were before prompt 2:");
    expect(s.screenText()).not.toContain("Conversation:");
    s.send(KEYS.escape);
    await s.waitFor("rewind cancelled: nothing was changed", WAIT);
    expect(await file("a.txt")).toBe("alpha two\n");
    // again, and through
    s.send("/rewind 2");
    await s.waitFor("› /rewind 2", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Enter next", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Enter see what changes", WAIT);
    s.send("3");
    await s.waitFor("Enter rewind", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Rewound to before prompt 2", WAIT);
    await s.waitFor("› second prompt ECHO-2", WAIT);
    expect(await file("a.txt")).toBe("alpha one\nmore\n");
    expect(s.screenText()).not.toContain("Forked session");
    expect(await quit(s)).toBe(0);
    // no fork; the inspector waits for the next request ("workspace restored")
    const list = await listed();
    expect(list).toHaveLength(1);
    const view = JSON.parse((await runCli(["context", list[0]!.id, "--json"], e2e.home)).stdout) as { state: string; reason: string };
    expect(view).toMatchObject({ state: "pending", reason: "workspace restored" });
  }, 120_000);

  it("Esc Esc on an empty prompt opens it (a lone Esc during a turn only interrupts); conversation only leaves the files", async () => {
    const s = tui();
    await twoTurns(s);
    e2e.fake.script({ fault: "hang_after_text", text: "Words before the stop." });
    s.send("third prompt ECHO-3");
    await s.waitFor("› third prompt ECHO-3", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Words before the stop.", WAIT);
    s.send(KEYS.escape);
    await s.waitFor("[interrupted]", WAIT);
    await s.waitFor(/ idle /, WAIT);
    expect(s.screenText()).not.toContain("Rewind to before which prompt?");
    // two presses (sent together, the terminal's bytes would read as Alt-Esc)
    s.send(KEYS.escape);
    await s.waitFor("Esc again: rewind to an earlier prompt", WAIT);
    s.send(KEYS.escape);
    await s.waitFor("Rewind to before which prompt? (3)", WAIT);
    await s.waitFor("Enter next", WAIT);
    s.send("2");
    await s.waitFor("Enter see what changes", WAIT);
    s.send(KEYS.down);
    s.send(KEYS.enter);
    await s.waitFor("Rewind (conversation only): what will change", WAIT);
    await s.waitFor("Enter rewind", WAIT);
    expect(s.screenText()).not.toContain("Code:");
    s.send(KEYS.enter);
    await s.waitFor(/the new session is ([0-9a-f]{12})/, WAIT);
    await s.waitFor("› second prompt ECHO-2", WAIT);
    expect(await file("a.txt")).toBe("alpha two\n");
    expect(await quit(s)).toBe(0);
    const list = await listed();
    const fork = list.find((x) => x.forkedFrom);
    expect(fork).toMatchObject({ messages: 4 });
    expect(fork!.forkedFrom!.atPrompt).toBe(2);
  }, 120_000);

  it("names in the preview what cannot be put back", async () => {
    execFileSync("mkfifo", [path.join(e2e.home.workspace, "pipe")]);
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "rm pipe; echo x > x.txt" } }] }, { text: "Removed the pipe." });
    await ask(s, "remove the pipe", "Removed the pipe.");
    await s.waitFor("a rewind cannot put back: pipe: a FIFO", WAIT);
    s.send("/rewind");
    await s.waitFor("› /rewind", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Enter next", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Enter see what changes", WAIT);
    s.send("3");
    await s.waitFor("Enter rewind", WAIT);
    expect(s.screenText()).toContain("Cannot be put back (1):");
    expect(s.screenText()).toContain("pipe: a FIFO, a special file is not checkpointed");
    expect(s.screenText()).toContain("delete x.txt");
    s.send(KEYS.enter);
    await s.waitFor("Not restored (no checkpoint could keep it):", WAIT);
    expect(await exists("x.txt")).toBe(false);
    expect(await quit(s)).toBe(0);
  }, 120_000);
});

describe("forks", () => {
  it("/fork forks at the end and goes on in the fork; --fork-session opens a fork of the session", async () => {
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    e2e.fake.script({ text: "Only turn." });
    await ask(s, "one prompt", "Only turn.");
    s.send("/fork");
    await s.waitFor("› /fork", WAIT);
    s.send(KEYS.enter);
    const said = /Forked: session ([0-9a-f]{12}) holds a copy of ([0-9a-f]{12})'s 2 messages/;
    await s.waitFor(said, WAIT);
    const [, to, from] = said.exec(s.screenText())!;
    e2e.fake.script({ text: "In the fork." });
    await ask(s, "next in the fork", "In the fork.");
    expect(await quit(s)).toBe(0);
    let list = await listed();
    expect(list.find((x) => x.id === from)).toMatchObject({ messages: 2, forks: [{ id: to, atPrompt: 2 }] });
    expect(list.find((x) => x.id === to)).toMatchObject({ messages: 4, forkedFrom: { id: from, atPrompt: 2 } });

    const again = tui(["--resume", from!, "--fork-session"]);
    await again.waitFor(`This session is a fork of ${from} at prompt 2`, WAIT);
    expect(again.screenText()).toContain("one prompt");
    expect(await quit(again)).toBe(0);
    list = await listed();
    expect(list.find((x) => x.id === from)?.forks?.length).toBe(2);
    expect(list.find((x) => x.id === from)?.messages).toBe(2);
  }, 120_000);
});
