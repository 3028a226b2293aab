// How a headless run ends when its turn does not end well: a provider that refuses or fails,
// a SIGTERM while the request is in flight, an MCP server that dies in the middle of a call.
// The turn can end before its capture is written (the error or the signal comes first), and
// a server's death marks the view pending as the turn ends: what those start (the status
// figure, a pending mark) must never run on a store that is closing, so stderr holds the
// run's own words only, and the exit code is the run's. The built CLI as a real process,
// the strict fake provider over loopback, a real SQLite file, a real signal, a real stdio
// MCP server that exits mid-call.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type CliResult, type Home } from "../helpers/cli.js";
import { faultyStdio } from "../helpers/mcp-servers.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-albedo-EXIT-5150";
const T = 60_000;
let fake: FakeProvider;
/** the run the fake signals as soon as its request arrives (the SIGTERM case) */
let signalOnRequest: ChildProcess | undefined;
let home: Home;

beforeAll(async () => {
  fake = await startFakeProvider({
    key: KEY,
    // the turn's request's headers are in: it is mid-flight, its capture not yet written (the
    // model list is read first, and is not the turn's request)
    onRequest: (req) => {
      if (req.method !== "POST") return;
      signalOnRequest?.kill("SIGTERM");
      signalOnRequest = undefined;
    },
  });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  fake.requests.length = 0;
});

// a model whose window (1M tokens) holds the megabyte prompt below
const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", fake.anthropicBase];

/**
 * A headless run whose prompt (`-p -`) comes on stdin. A prompt of a megabyte makes its
 * capture's write take longer than the provider's answer, so the answer ends the turn first,
 * as a quick refusal does on any real request.
 */
function startWithPrompt(prompt: string, args: string[], h: Home): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, "-p", "-", ...args], { cwd: h.workspace, env: h.env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdin!.end(prompt);
  const done = new Promise<CliResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

const LONG_PROMPT = "look at this: " + "word ".repeat(200_000);

/** nothing on stderr about the store or the figure: the exit path did no work on a closed store */
function expectCleanEnd(r: CliResult): void {
  expect(r.stderr).not.toContain("could not be worked out");
  expect(r.stderr).not.toContain("is closed");
  expect(r.stderr).not.toMatch(/internal error/i);
}

/** the one session's record as the next run reads it: the turn's capture was written whole */
async function recorded(h: Home): Promise<{ roles: string[]; view: string }> {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    const { messages } = await store.loadHistory(s!.id);
    return { roles: messages.map((m) => m.role), view: (await store.inspectorView(s!.id)).state };
  } finally {
    await store.close();
  }
}

describe("a headless run that fails ends cleanly", () => {
  it("a provider that refuses the request (400): the refusal, exit 1, nothing about the store", async () => {
    fake.script({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "this request is refused on purpose" } } });
    const r = await startWithPrompt(LONG_PROMPT, anthropic(), home).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("this request is refused on purpose");
    expectCleanEnd(r);
    expect(await recorded(home)).toEqual({ roles: ["user"], view: "current" });
  }, T);

  it("a provider that fails (500, not to be retried): the failure, exit 1, nothing about the store", async () => {
    fake.script({ status: 500, headers: { "x-should-retry": "false" } });
    const r = await startWithPrompt(LONG_PROMPT, anthropic(), home).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("HTTP 500");
    expectCleanEnd(r);
    expect(await recorded(home)).toEqual({ roles: ["user"], view: "current" });
  }, T);

  it("a provider that keeps failing (500, retried): the failure, exit 1, nothing about the store", async () => {
    const fail = { status: 500, headers: { "retry-after-ms": "0" } };
    fake.script(fail, fail, fail, fail);
    const r = await startWithPrompt(LONG_PROMPT, anthropic(), home).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("HTTP 500");
    expect(r.stderr).toContain("gave up after 3 retries");
    expectCleanEnd(r);
    expect(await recorded(home)).toEqual({ roles: ["user"], view: "current" });
  }, T);

  it("SIGTERM while the request is in flight: stopped by the signal, exit 143, nothing about the store", async () => {
    fake.script({ text: "an answer that is never read to its end", delayMs: 2_000 });
    const run = startWithPrompt("hello", anthropic(), home);
    signalOnRequest = run.child;
    const r = await run.done;
    expect(fake.requests).toHaveLength(1);
    // a signal ends a headless run with 128 + its number, as shells report it
    expect(r.signal).toBeNull();
    expect(r.code).toBe(143);
    expect(r.stderr).toContain("stopped by SIGTERM");
    expectCleanEnd(r);
    expect((await recorded(home)).view).toBe("current");
  }, T);

  it("an MCP server that exits in the middle of a call: the call fails, the turn goes on, exit 0, nothing about the store", async () => {
    const dir = path.join(home.root, "config", "albedo");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ permission: "auto", mcpServers: { f: faultyStdio() } }));
    fake.script({ toolCalls: [{ name: "mcp__f__crash", input: {} }] }, { text: "The server died; carrying on without it." });
    const r = await runCli(["-p", "call the crash tool", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The server died; carrying on without it.\n");
    expect(r.stderr).toContain("✗ mcp__f__crash");
    expectCleanEnd(r);
    expect(fake.rejections()).toEqual([]);
    // the server's death changed the tools mid-turn: the pending mark made when the turn ended
    // was written before the store closed
    expect(await recorded(home)).toEqual({ roles: ["user", "assistant", "user", "assistant"], view: "pending" });
  }, T);
});
