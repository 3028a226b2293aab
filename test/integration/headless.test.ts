// albedo-tui -p end to end: the built CLI as a real process, against the strict fake
// provider over loopback HTTP, with a real SQLite file.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { allFiles, makeHome, runCli, startCli, waitUntil, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-albedo-SECRET-4242";
let fake: FakeProvider;
let home: Home;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  home = await makeHome({ ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY });
  fake.requests.length = 0;
});

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];
const openai = (): string[] => ["--provider", "openai", "--model", "gpt-4o", "--base-url", fake.openaiBase];

async function record(h: Home) {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    const loaded = await store.loadHistory(s!.id);
    return { session: s!, ...loaded };
  } finally {
    await store.close();
  }
}

function bodyText(body: unknown): string {
  return JSON.stringify(body);
}

describe("headless -p", () => {
  it("prints the answer of a text-only turn and stores both messages", async () => {
    fake.script({ text: "Hello from the fake model." });
    const r = await runCli(["-p", "say hello", ...anthropic()], home);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Hello from the fake model.\n");
    const rec = await record(home);
    expect(rec.messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
    expect(rec.session.title).toBe("say hello");
    // the request carried the system prompt, the workspace facts item and the tools
    const req = fake.requests[0]!;
    expect(req.headers["x-api-key"]).toBe(KEY);
    expect(bodyText(req.body.system)).toContain("Workspace: ");
    expect(req.body.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["read", "write", "edit", "bash", "grep"]));
  });

  it("runs one tool round natively inside the turn", async () => {
    await fs.writeFile(path.join(home.workspace, "notes.txt"), "the secret word is pelican\n");
    fake.script({ toolCalls: [{ name: "read", input: { path: "notes.txt" } }] }, { text: "The word is pelican." });
    const r = await runCli(["-p", "what is the word?", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The word is pelican.\n");
    expect(r.stderr).toContain("▸ read");
    expect(fake.rejections()).toEqual([]);
    const second = fake.requests[1]!.body;
    const last = second.messages[second.messages.length - 1];
    expect(last.content[0].type).toBe("tool_result");
    expect(JSON.stringify(last.content[0].content)).toContain("pelican");
    const rec = await record(home);
    expect(rec.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(rec.messages[2]!.blocks[0]).toMatchObject({ type: "tool_result", name: "read", isError: false });
  });

  it("runs three rounds with parallel calls on the OpenAI shape, then a follow-up turn as prose", async () => {
    await fs.writeFile(path.join(home.workspace, "a.txt"), "alpha\n");
    await fs.writeFile(path.join(home.workspace, "b.txt"), "beta\n");
    fake.script(
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "read", input: { path: "b.txt" } }] },
      { toolCalls: [{ name: "ls", input: {} }, { name: "grep", input: { pattern: "alpha" } }] },
      { toolCalls: [{ name: "glob", input: { pattern: "*.txt" } }] },
      { text: "Three rounds done." },
    );
    const r = await runCli(["-p", "look around", ...openai()], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Three rounds done.\n");
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests).toHaveLength(4);
    // inside the turn: native tool_calls followed by tool messages
    const fourth = fake.requests[3]!.body.messages as { role: string }[];
    expect(fourth.filter((m) => m.role === "tool")).toHaveLength(5);

    fake.script({ text: "Follow-up answered." });
    const r2 = await runCli(["-p", "and now?", "--continue", ...openai()], home);
    expect(r2.code).toBe(0);
    const follow = fake.requests[4]!.body;
    const roles = (follow.messages as { role: string }[]).map((m) => m.role);
    expect(roles).not.toContain("tool");
    expect(JSON.stringify(follow.messages)).not.toContain("tool_calls");
    expect(JSON.stringify(follow.messages)).not.toContain("tool_call_id");
    expect(JSON.stringify(follow.messages)).toContain('Tool use: read({\\"path\\":\\"a.txt\\"})');
    expect(JSON.stringify(follow.messages)).toContain("Result (read):");
    expect(fake.rejections()).toEqual([]);
  });

  it("switches provider between turns of one session", async () => {
    await fs.writeFile(path.join(home.workspace, "x.txt"), "x\n");
    fake.script({ toolCalls: [{ name: "read", input: { path: "x.txt" } }] }, { text: "read it" });
    expect((await runCli(["-p", "read x", ...anthropic()], home)).code).toBe(0);
    fake.script({ text: "openai continues" });
    const r = await runCli(["-p", "continue on openai", "--continue", ...openai()], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("openai continues\n");
    expect(fake.requests[2]!.shape).toBe("openai");
    expect(fake.rejections()).toEqual([]);
    const rec = await record(home);
    expect(rec.messages).toHaveLength(6);
  });

  it("keeps a stream cut mid-way as interrupted, exits 1, and the next turn works", async () => {
    fake.script({ fault: "reset_mid", text: "The first half of an answer" });
    const r = await runCli(["-p", "start", ...anthropic()], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: .+/);
    let rec = await record(home);
    const cut = rec.messages[1]!;
    expect(cut.status).toBe("interrupted");
    expect(JSON.stringify(cut.blocks)).toContain("The first half");
    fake.script({ text: "recovered" });
    const r2 = await runCli(["-p", "again", "--continue", ...anthropic()], home);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe("recovered\n");
    expect(fake.rejections()).toEqual([]);
    rec = await record(home);
    expect(rec.messages).toHaveLength(4);
  });

  it("retries a 429 that names retry-after, then succeeds", async () => {
    fake.script({ status: 429, headers: { "retry-after": "0" }, body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } } }, { text: "after the retry" });
    const r = await runCli(["-p", "hi", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("after the retry\n");
    expect(r.stderr).toMatch(/retrying/);
    expect(fake.requests).toHaveLength(2);
  });

  it("says the key was refused on 401, does not retry, and names what to set", async () => {
    const r = await runCli(["-p", "hi", ...anthropic()], home, { ANTHROPIC_API_KEY: "sk-wrong" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/key was refused/);
    expect(r.stderr).toContain("ANTHROPIC_API_KEY");
    expect(r.stderr).not.toContain("sk-wrong");
    expect(fake.requests).toHaveLength(1);
  });

  it("without a key says which variable to set and exits 1", async () => {
    const r = await runCli(["-p", "hi", "--provider", "anthropic"], home, { ANTHROPIC_API_KEY: "" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ANTHROPIC_API_KEY");
    expect(fake.requests).toHaveLength(0);
  });

  it("in ask mode denies write with a message the model reads, unless --permission auto", async () => {
    fake.script({ toolCalls: [{ name: "write", input: { path: "out.txt", content: "hi" } }] }, { text: "could not write" });
    const r = await runCli(["-p", "write a file", ...anthropic()], home);
    expect(r.code).toBe(0);
    await expect(fs.stat(path.join(home.workspace, "out.txt"))).rejects.toThrow();
    const result = fake.requests[1]!.body.messages.at(-1).content[0];
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/denied: albedo-tui runs headless \(-p\) with --permission ask/);

    fake.script({ toolCalls: [{ name: "write", input: { path: "out.txt", content: "hi" } }] }, { text: "wrote it" });
    const r2 = await runCli(["-p", "write a file", "--permission", "auto", ...anthropic()], home);
    expect(r2.code).toBe(0);
    expect(await fs.readFile(path.join(home.workspace, "out.txt"), "utf8")).toBe("hi");
  });

  it("survives SIGKILL while a tool runs and while text streams; --continue then works", async () => {
    // killed while a tool runs
    fake.script({ toolCalls: [{ name: "bash", input: { command: "sleep 20" } }] });
    const run1 = startCli(["-p", "sleep", "--permission", "auto", ...anthropic()], home);
    await waitUntil(() => run1.stderr().includes("▸ bash"), 20_000, "the bash tool to start");
    run1.child.kill("SIGKILL");
    await run1.done;
    let rec = await record(home);
    expect(rec.bad).toEqual([]);
    expect(rec.messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
    ]);

    // killed while text streams
    fake.script({ text: Array.from({ length: 400 }, (_, i) => `word${i}`).join(" "), delayMs: 20 });
    const run2 = startCli(["-p", "stream", "--continue", ...anthropic()], home);
    await waitUntil(async () => (await record(home)).messages.length >= 4, 20_000, "a streamed checkpoint");
    run2.child.kill("SIGKILL");
    await run2.done;
    rec = await record(home);
    expect(rec.messages[3]!.status).toBe("interrupted");
    expect(JSON.stringify(rec.messages[3]!.blocks)).toContain("word0");

    fake.script({ text: "all good" });
    const r3 = await runCli(["-p", "continue", "--continue", ...anthropic()], home);
    expect(r3.code).toBe(0);
    expect(r3.stdout).toBe("all good\n");
    expect(fake.rejections()).toEqual([]);
    rec = await record(home);
    // every message completed before the kills is still there, in order
    expect(rec.messages.slice(0, 2).map((m) => m.status)).toEqual(["complete", "complete"]);
    expect(rec.messages).toHaveLength(6);
    const last = fake.requests.at(-1)!.body;
    expect(JSON.stringify(last.messages)).toContain("Tool use: bash(");
  });

  it("writes the API key into no file: database, log, state, config", async () => {
    fake.script({ toolCalls: [{ name: "ls", input: {} }] }, { text: "listed" });
    expect((await runCli(["-p", "list", ...anthropic()], home)).code).toBe(0);
    const files = await allFiles(home.root);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = await fs.readFile(f);
      expect(bytes.includes(Buffer.from(KEY)), `${f} contains the key`).toBe(false);
    }
  });
});

describe("headless images and reasoning", () => {
  // a 3×2 PNG
  const PNG = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIklEQVR4AWNkYGD4z8jOy8DIzsvAwiyqzsDIzsvAyM7LAAAceQGYlkTQgAAAAABJRU5ErkJggg==",
    "base64",
  );

  it("--image attaches the picture natively with its dimensions, and a blind model is told it was not seen", async () => {
    await fs.writeFile(path.join(home.workspace, "shot.png"), PNG);
    fake.script({ text: "I see a tiny image." });
    const r = await runCli(["-p", "what is this?", "--image", "shot.png", ...anthropic()], home);
    expect(r.code).toBe(0);
    const content = fake.requests[0]!.body.messages[0].content;
    expect(content[0]).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") } });
    const rec = await record(home);
    expect(rec.messages[0]!.blocks[0]).toMatchObject({ type: "image", mediaType: "image/png", width: 3, height: 2, bytes: PNG.length });

    // a model that cannot see gets an honest marker instead of the picture
    fake.script({ text: "noted" });
    const r2 = await runCli(["-p", "and now?", "--continue", "--provider", "openai", "--model", "some-local-model", "--base-url", fake.openaiBase], home);
    expect(r2.code).toBe(0);
    const sent = JSON.stringify(fake.requests[1]!.body.messages);
    expect(sent).not.toContain(PNG.toString("base64"));
    expect(sent).toMatch(/Image not seen: the model cannot view images \(image\/png, \d+ bytes, 3×2\)/);
  });

  it("refuses an oversize image naming the provider's limit, and stores nothing", async () => {
    const big = Buffer.alloc(4 * 1024 * 1024);
    PNG.copy(big);
    await fs.writeFile(path.join(home.workspace, "big.png"), big);
    const r = await runCli(["-p", "look", "--image", "big.png", ...anthropic()], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/big\.png is 4\.0 MB; Anthropic accepts images up to 5 MB of base64/);
    expect(fake.requests).toHaveLength(0);
    await expect(fs.stat(home.db)).rejects.toThrow();
  });

  it("--reasoning maps to Anthropic thinking; thinking is stored with its signature and replayed as prose without it", async () => {
    fake.script({ reasoning: "Let me think about primes.", signature: "SIG-opaque-123", text: "7 is prime." });
    const r = await runCli(["-p", "is 7 prime?", "--reasoning", "high", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(fake.requests[0]!.body.thinking).toMatchObject({ type: "enabled" });
    const rec = await record(home);
    expect(rec.messages[1]!.blocks[0]).toEqual({
      type: "reasoning",
      text: "Let me think about primes.",
      opaque: { kind: "thinking_signature", body: "SIG-opaque-123" },
    });
    fake.script({ text: "yes" });
    expect((await runCli(["-p", "sure?", "--continue", ...anthropic()], home)).code).toBe(0);
    const sent = JSON.stringify(fake.requests[1]!.body.messages);
    expect(sent).toContain("[Reasoning]: Let me think about primes.");
    expect(sent).not.toContain("SIG-opaque-123");
    expect(fake.rejections()).toEqual([]);
  });

  it("--reasoning on the OpenAI shape sends reasoning_effort and stores streamed reasoning_content", async () => {
    fake.script({ reasoning: "Thinking in the open.", text: "Done." });
    const r = await runCli(["-p", "go", "--reasoning", "low", "--provider", "openai", "--model", "o3-mini", "--base-url", fake.openaiBase], home);
    expect(r.code).toBe(0);
    expect(fake.requests[0]!.body.reasoning_effort).toBe("low");
    const rec = await record(home);
    expect(rec.messages[1]!.blocks[0]).toMatchObject({ type: "reasoning", text: "Thinking in the open." });
  });
});
