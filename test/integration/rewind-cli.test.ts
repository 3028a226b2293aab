// `albedo-tui rewind ID --to N` and `--fork-session` through the built CLI, over real turns
// against the strict fake provider: code (what write, edit and bash changed, put back as it
// was before prompt N), conversation (a fork up to prompt N; the original stays whole, each
// names the other), both; what cannot be restored is named; the user's own git state
// (status, stashes, index) is as it was.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import os from "node:os";
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, type Home } from "../helpers/cli.js";
import { fakeProviderAndHomes } from "../helpers/suite.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-rewind-SECRET-4242";
const suite = fakeProviderAndHomes(KEY, { ANTHROPIC_API_KEY: KEY });
const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", suite.fake().anthropicBase];

async function ok(args: string[], home = suite.home()): Promise<{ stdout: string; stderr: string }> {
  const r = await runCli(args, home);
  expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(0);
  return r;
}

const read = (h: Home, p: string): Promise<string> => fs.readFile(path.join(h.workspace, p), "utf8");
const exists = (h: Home, p: string): Promise<boolean> => fs.lstat(path.join(h.workspace, p)).then(() => true, () => false);

function git(h: Home, ...args: string[]): string {
  // GIT_OPTIONAL_LOCKS=0: `git status` refreshes (rewrites) the index otherwise, and the test
  // must see only what albedo-tui does to it
  const env = { ...h.env, GIT_OPTIONAL_LOCKS: "0", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
  return execFileSync("git", args, { cwd: h.workspace, encoding: "utf8", env });
}

interface SessionJson {
  id: string;
  messages: number;
  forkedFrom?: { id: string; atPrompt: number };
  forks?: Array<{ id: string; atPrompt: number }>;
}
const sessions = async (): Promise<SessionJson[]> => JSON.parse((await ok(["sessions", "--json"])).stdout) as SessionJson[];

/** Two turns: the first writes, edits and runs bash (makes, changes, deletes); the second
 * changes some of the same files again. Returns the session id. */
async function twoTurns(h: Home): Promise<string> {
  await fs.writeFile(path.join(h.workspace, "a.txt"), "a0\n");
  await fs.writeFile(path.join(h.workspace, "b.txt"), "b0\n");
  await fs.writeFile(path.join(h.workspace, "d.txt"), "d0\n");
  suite.fake().script(
    {
      toolCalls: [
        { name: "edit", input: { path: "a.txt", old_string: "a0", new_string: "a1" } },
        { name: "bash", input: { command: "echo c1 > c.txt; echo b1 >> b.txt; rm d.txt; mkdir -p sub/deep; echo s1 > sub/deep/s.txt" } },
      ],
    },
    { text: "Turn one done." },
    { toolCalls: [{ name: "write", input: { path: "a.txt", content: "a2\n" } }, { name: "bash", input: { command: "echo b2 >> b.txt" } }] },
    { text: "Turn two done." },
  );
  await ok(["-p", "first prompt", "--permission", "auto", ...anthropic()]);
  await ok(["-p", "second prompt", "--continue", "--permission", "auto", ...anthropic()]);
  expect(suite.fake().rejections()).toEqual([]);
  const [s] = await sessions();
  return s!.id;
}

describe("rewind --to N", () => {
  it("--code puts back what the turns from prompt N on changed; --dry-run changes nothing; the inspector goes pending", async () => {
    const h = suite.home();
    const id = await twoTurns(h);
    expect(await read(h, "a.txt")).toBe("a2\n");
    expect(await read(h, "b.txt")).toBe("b0\nb1\nb2\n");

    const dry = await ok(["rewind", id, "--to", "2", "--code", "--dry-run"]);
    expect(dry.stdout).toContain(`Rewind session ${id} to prompt 2 (code only): “second prompt”`);
    expect(dry.stdout).toMatch(/restore a\.txt/);
    expect(dry.stdout).toMatch(/restore b\.txt/);
    expect(await read(h, "a.txt")).toBe("a2\n");

    const r = await ok(["rewind", id, "--to", "2", "--code"]);
    expect(r.stdout).toMatch(/Restored 2 paths:\n {2}restored a\.txt\n {2}restored b\.txt\n/);
    expect(await read(h, "a.txt")).toBe("a1\n");
    expect(await read(h, "b.txt")).toBe("b0\nb1\n");
    expect(await read(h, "c.txt")).toBe("c1\n");
    // no fork for a code rewind
    expect((await sessions()).length).toBe(1);
    const view = JSON.parse((await ok(["context", id, "--json"])).stdout) as { state: string; reason: string };
    expect(view).toMatchObject({ state: "pending", reason: "workspace restored" });
    // run again: nothing left to do
    expect((await ok(["rewind", id, "--to", "2", "--code"])).stdout).toContain("No file needed restoring.");
  });

  it("--both to prompt 1: every change of both turns undone (made, changed, deleted, folders), a fork with nothing before prompt 1", async () => {
    const h = suite.home();
    const id = await twoTurns(h);
    const r = await ok(["rewind", id, "--to", "1"]);
    expect(r.stdout).toContain("(code and conversation)");
    expect(await read(h, "a.txt")).toBe("a0\n");
    expect(await read(h, "b.txt")).toBe("b0\n");
    expect(await read(h, "d.txt")).toBe("d0\n");
    expect(await exists(h, "c.txt")).toBe(false);
    expect(await exists(h, "sub")).toBe(false);
    expect(r.stdout).toMatch(/deleted c\.txt/);
    expect(r.stdout).toMatch(/recreated d\.txt/);
    expect(r.stdout).toMatch(/removed the folder sub\n/);
    const fork = /the new session is ([0-9a-f]{12})/.exec(r.stdout)?.[1];
    expect(fork).toBeDefined();
    const list = await sessions();
    expect(list.find((s) => s.id === id)).toMatchObject({ messages: 8, forks: [{ id: fork, atPrompt: 1 }] });
    expect(list.find((s) => s.id === fork)).toMatchObject({ messages: 0, forkedFrom: { id, atPrompt: 1 } });
    // the people's listing shows the link both ways too
    const text = (await ok(["sessions"])).stdout;
    expect(text).toContain(`↳ forked from ${id} at prompt 1`);
    expect(text).toContain(`↳ forks: ${fork} (at prompt 1)`);
  });

  it("--conversation forks at prompt 2: the fork's next request carries prompt 1 and not prompt 2; no file changes", async () => {
    const h = suite.home();
    const id = await twoTurns(h);
    const r = await ok(["rewind", id, "--to", "2", "--conversation", "--json"]);
    const body = JSON.parse(r.stdout) as { fork: string; restored: string[]; prompt: { n: number; text: string } };
    expect(body.prompt).toMatchObject({ n: 2, text: "second prompt" });
    expect(body.restored).toEqual([]);
    expect(await read(h, "a.txt")).toBe("a2\n");
    suite.fake().script({ text: "From the fork." });
    await ok(["-p", "a different second prompt", "--resume", body.fork, ...anthropic()]);
    const sent = JSON.stringify(suite.fake().requests.at(-1)!.body.messages);
    expect(sent).toContain("first prompt");
    expect(sent).toContain("Turn one done.");
    expect(sent).not.toContain('"text":"second prompt"');
    expect(sent).not.toContain("Turn two done.");
    // the fork's request is in the inspector like any other: it is one record
    const view = JSON.parse((await ok(["context", body.fork, "--json"])).stdout) as { state: string; sections: unknown[] };
    expect(view.state).toBe("current");
    expect(view.sections.length).toBeGreaterThan(0);
    // the original still holds both turns
    const list = await sessions();
    expect(list.find((s) => s.id === id)?.messages).toBe(8);
    expect(list.find((s) => s.id === body.fork)?.messages).toBe(6);
  });

  it("a rewind of a fork reaches the turns before its fork point, kept under the session it came from", async () => {
    const h = suite.home();
    const id = await twoTurns(h);
    suite.fake().script({ text: "Forked on." });
    const f = await ok(["-p", "in the fork", "--continue", "--fork-session", ...anthropic()]);
    expect(f.stderr).toMatch(new RegExp(`forked session ${id} at its end; this run goes on in the fork, [0-9a-f]{12}`));
    const list = await sessions();
    const child = list.find((s) => s.forkedFrom?.id === id)!;
    expect(child.forkedFrom).toEqual({ id, atPrompt: 3 });
    expect(child.messages).toBe(10);
    expect(list.find((s) => s.id === id)?.messages).toBe(8);
    // the fork's prompts 1 and 2 are the original's: their checkpoints are found there
    await ok(["rewind", child.id, "--to", "1", "--code"]);
    expect(await read(h, "a.txt")).toBe("a0\n");
    expect(await exists(h, "c.txt")).toBe(false);
  });

  it("names what it cannot restore: a FIFO removed, a 1 GB file changed", async () => {
    const h = suite.home();
    execFileSync("mkfifo", [path.join(h.workspace, "pipe")]);
    const big = await fs.open(path.join(h.workspace, "big.bin"), "w");
    await big.truncate(1024 * 1024 * 1024);
    await big.close();
    await fs.writeFile(path.join(h.workspace, "a.txt"), "a0\n");
    suite.fake().script({ toolCalls: [{ name: "bash", input: { command: "rm pipe; echo x >> big.bin; echo a1 > a.txt" } }] }, { text: "Done." });
    const turn = await ok(["-p", "break things", "--permission", "auto", ...anthropic()]);
    expect(turn.stderr).toMatch(/a rewind cannot put back: big\.bin: a file of 1\.0 GB, over the 10\.0 MB per-file cap; pipe: a FIFO, a special file is not checkpointed/);
    const [s] = await sessions();
    const r = await ok(["rewind", s!.id, "--to", "1", "--code"]);
    expect(r.stdout).toContain("restored a.txt");
    expect(r.stdout).toMatch(/Not restored \(no checkpoint could keep them\):\n {2}big\.bin: a file of 1\.0 GB, over the 10\.0 MB per-file cap\n {2}pipe: a FIFO/);
    expect(await read(h, "a.txt")).toBe("a0\n");
  });

  it("leaves the user's git state as it was: status, stashes, index, HEAD", async () => {
    const h = suite.home();
    git(h, "init", "-q");
    await fs.writeFile(path.join(h.workspace, "tracked.txt"), "v1\n");
    await fs.writeFile(path.join(h.workspace, ".gitignore"), "*.log\n");
    git(h, "add", ".");
    git(h, "commit", "-q", "-m", "one");
    await fs.writeFile(path.join(h.workspace, "tracked.txt"), "stashed\n");
    git(h, "stash", "-q");
    await fs.writeFile(path.join(h.workspace, "staged.txt"), "staged\n");
    git(h, "add", "staged.txt");
    await fs.writeFile(path.join(h.workspace, "tracked.txt"), "v2 unstaged\n");
    const index = async (): Promise<string> => {
      const f = path.join(h.workspace, ".git", "index");
      return `${(await fs.stat(f)).mtimeMs} ${createHash("sha256").update(await fs.readFile(f)).digest("hex")}`;
    };
    const before = { status: git(h, "status", "--porcelain"), stash: git(h, "stash", "list"), head: git(h, "rev-parse", "HEAD"), index: await index() };
    suite.fake().script(
      { toolCalls: [{ name: "bash", input: { command: "echo v3 > tracked.txt; echo new > new.txt; rm staged.txt; echo log > x.log" } }] },
      { text: "Changed." },
    );
    await ok(["-p", "change tracked files", "--permission", "auto", ...anthropic()]);
    expect(git(h, "status", "--porcelain")).not.toBe(before.status);
    const [s] = await sessions();
    await ok(["rewind", s!.id, "--to", "1", "--code"]);
    expect(git(h, "status", "--porcelain")).toBe(before.status);
    expect(git(h, "stash", "list")).toBe(before.stash);
    expect(git(h, "rev-parse", "HEAD")).toBe(before.head);
    expect(await index()).toBe(before.index);
    // .gitignore'd: never checkpointed, so left as the turn made it
    expect(await read(h, "x.log")).toBe("log\n");
  });

  it("does not rewind the code of a session open in another window; its conversation it forks", async () => {
    const h = suite.home();
    const id = await twoTurns(h);
    // a live holder: this test's own process, on this host
    const store = await openStore(h.db);
    await store.takeLease(id, { pid: process.pid, host: os.hostname(), pidAlive: () => true });
    await store.close();
    const code = await runCli(["rewind", id, "--to", "1", "--code"], h);
    expect(code.code).toBe(1);
    expect(code.stderr).toContain(`Session ${id} is open in another albedo-tui (pid ${process.pid} on ${os.hostname()}`);
    expect(code.stderr).toContain("rewind the conversation only (--conversation)");
    expect(await read(h, "a.txt")).toBe("a2\n");
    const conv = await runCli(["rewind", id, "--to", "1", "--conversation"], h);
    expect(conv.code, conv.stderr).toBe(0);
    expect(conv.stdout).toMatch(/the new session is [0-9a-f]{12}/);
  });

  it("refuses what it cannot do, in words", async () => {
    const h = suite.home();
    const id = await twoTurns(h);
    const bad = await runCli(["rewind", id, "--to", "9"], h);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`session ${id} has 2 prompts: rewind to one of 1–2 (got 9)`);
    expect((await runCli(["rewind", id, "--to", "0"], h)).code).toBe(2);
    expect((await runCli(["rewind", id, "--to", "1", "--code", "--both"], h)).stderr).toContain("choose one of --code, --conversation, --both");
    expect((await runCli(["rewind", "nope", "--to", "1"], h)).stderr).toContain('no session with id "nope"');
    const alone = await runCli(["-p", "x", "--fork-session", ...anthropic()], h);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--fork-session goes with --resume ID or --continue");
  });
});
