// Opaque provider bodies in real headless turns (the built CLI against the strict fake over
// loopback HTTP, a real SQLite file):
// - a configured key quoted in reasoning (a Responses reasoning item's summary, which the item
//   carries in plain text; Anthropic thinking, which its signature covers) is in no file the
//   run writes (database, capture, log) and in no request sent: the opaque body is dropped,
//   the reasoning crosses the live round as prose, and no request is refused;
// - a Responses reasoning item that preceded a message of blank text (which the live round
//   drops) is not replayed before an item it did not precede: it crosses as prose.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider, type RecordedRequest } from "../helpers/fake-provider.js";
import { allFiles, makeHome, runCli, type Home } from "../helpers/cli.js";
import { toolLoopThinkingRefusal } from "../helpers/fake-thinking.js";
import { KEY_PIECE } from "../../src/config/secrets.js";
import { openStore } from "../../src/session/store/store.js";
import type { StoredMessage } from "../../src/record/types.js";

const KEY = "sk-proj-opaque-turn-SECRET-5150abcdef";
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
  await fs.writeFile(path.join(home.workspace, "notes.txt"), "the word is heron\n");
});

const openai = (): string[] => ["--provider", "openai", "--model", "gpt-5", "--base-url", fake.openaiBase, "--permission", "auto", "--reasoning", "high"];
const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase, "--permission", "auto", "--reasoning", "high"];

async function responsesApi(): Promise<void> {
  // the fake is not api.openai.com: the config forces the Responses shape
  const dir = path.join(home.root, "config", "albedo");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ api: "responses" }));
}

async function record(): Promise<{ id: string; messages: StoredMessage[] }> {
  const store = await openStore(home.db);
  try {
    const [s] = await store.listSessions();
    return { id: s!.id, messages: (await store.loadHistory(s!.id)).messages };
  } finally {
    await store.close();
  }
}

/** Every piece of the key the redactor cuts: the whole, its first and its last KEY_PIECE characters. */
const pieces = [KEY, KEY.slice(0, KEY_PIECE), KEY.slice(-KEY_PIECE)];

/** No file under the home (database with its WAL, the capture in it, the log, the config) and
 * nothing the reading commands print holds the key or a piece of it. */
async function expectNoKeyWritten(sessionId: string): Promise<void> {
  const files = await allFiles(home.root);
  expect(files.some((f) => f.endsWith("history.sqlite"))).toBe(true);
  for (const f of files) {
    const bytes = await fs.readFile(f);
    for (const p of pieces) expect(bytes.includes(p), `${p} in ${f}`).toBe(false);
  }
  for (const args of [["context", sessionId, "--json"], ["export", sessionId], ["sessions", "--json"]]) {
    const r = await runCli(args, home);
    expect(r.code, r.stderr).toBe(0);
    for (const p of pieces) expect(r.stdout + r.stderr).not.toContain(p);
  }
}

const bodies = (): string => fake.requests.map((r) => r.rawBody).join("\n");
type Item = { type: string; role?: string; content?: { text?: string }[] };
const inputOf = (r: RecordedRequest): Item[] => (r.body as { input: Item[] }).input.filter((i) => i.role !== "system");

describe("a key quoted in reasoning", () => {
  it("Responses: the reasoning item whose summary quotes it is not stored, captured or sent again", async () => {
    await responsesApi();
    fake.script(
      { reasoning: `The user's key is ${KEY}; I must read the notes.`, toolCalls: [{ name: "read", input: { path: "notes.txt" } }] },
      { text: "The word is heron." },
    );
    const r = await runCli(["-p", "what is the word?", ...openai()], home);
    expect(r.stderr).not.toContain("albedo-tui:");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The word is heron.\n");
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests.map((q) => q.shape)).toEqual(["responses", "responses"]);

    // the live round: the reasoning crossed as prose, redacted, before the call it preceded
    const second = inputOf(fake.requests[1]!);
    expect(second.map((i) => i.type + (i.role ? `:${i.role}` : ""))).toEqual(["message:user", "message:assistant", "function_call", "function_call_output"]);
    expect(second[1]!.content![0]!.text).toBe("[Reasoning]: The user's key is [redacted key]; I must read the notes.");
    for (const p of pieces) expect(bodies()).not.toContain(p);

    const { id, messages } = await record();
    expect(messages[1]!.blocks[0]).toEqual({ type: "reasoning", text: "The user's key is [redacted key]; I must read the notes." });
    await expectNoKeyWritten(id);
  });

  it("Anthropic: thinking that quotes it loses its signature, and the tool loop's request goes without thinking", async () => {
    fake.script(
      { reasoning: `I was given ${KEY} and should read the notes.`, signature: "EqQBCkYIBRgCKkAsigned==", toolCalls: [{ name: "read", input: { path: "notes.txt" } }] },
      { text: "The word is heron." },
    );
    const r = await runCli(["-p", "what is the word?", ...anthropic()], home);
    expect(r.stderr).not.toContain("albedo-tui:");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The word is heron.\n");
    expect(fake.rejections()).toEqual([]);
    const [first, second] = fake.requests.map((q) => q.body as Record<string, unknown>);
    expect(first!["thinking"]).toEqual({ type: "enabled", budget_tokens: 24576 });
    // the thinking could not go back signed: this request would be refused with thinking on
    expect(second).not.toHaveProperty("thinking");
    for (const b of [first!, second!]) expect(toolLoopThinkingRefusal(b)).toBeUndefined();
    const messages = second!["messages"] as { role: string; content: { type: string; text?: string }[] }[];
    expect(messages[1]!.content.map((b) => b.type)).toEqual(["text", "tool_use"]);
    expect(messages[1]!.content[0]!.text).toBe("[Reasoning]: I was given [redacted key] and should read the notes.");
    for (const p of pieces) expect(bodies()).not.toContain(p);

    const { id, messages: stored } = await record();
    expect(stored[1]!.blocks[0]).toEqual({ type: "reasoning", text: "I was given [redacted key] and should read the notes." });
    await expectNoKeyWritten(id);
  });
});

describe("a Responses reasoning item before a message of blank text", () => {
  it("crosses as prose in the live round instead of before a call it did not precede", async () => {
    await responsesApi();
    fake.script(
      { reasoning: "Read the notes, then answer.", text: " \n ", toolCalls: [{ name: "read", input: { path: "notes.txt" } }] },
      { text: "Heron." },
    );
    const r = await runCli(["-p", "the word?", ...openai()], home);
    expect(r.stderr).not.toContain("albedo-tui:");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Heron.\n");
    // the fake, like the API, refuses a reasoning item not followed by the item it preceded
    expect(fake.rejections()).toEqual([]);
    const second = inputOf(fake.requests[1]!);
    expect(second.map((i) => i.type + (i.role ? `:${i.role}` : ""))).toEqual(["message:user", "message:assistant", "function_call", "function_call_output"]);
    expect(second[1]!.content!.map((c) => c.text)).toEqual(["[Reasoning]: Read the notes, then answer."]);
    // stored as it came, the blank text included; only the encrypted item is not kept
    const { messages } = await record();
    expect(messages[1]!.blocks.map((b) => b.type)).toEqual(["reasoning", "text", "tool_use"]);
    expect(messages[1]!.blocks[0]).toEqual({ type: "reasoning", text: "Read the notes, then answer." });
  });
});

describe("the live round's opaque bodies are bounded per request", () => {
  // claude-sonnet-4-5: 200,000 tokens, so a quarter of them by size: 200,000 bytes of bodies;
  // gpt-5: 400,000 tokens, 400,000 bytes. Three bodies fit each; the fourth does not.
  const rounds = 6;
  const script = (bytes: number): void =>
    fake.script(
      ...Array.from({ length: rounds }, (_, i) => ({ reasoning: `Round ${i + 1}: read the notes.`, opaqueBytes: bytes, toolCalls: [{ name: "read", input: { path: "notes.txt" } }] })),
      { text: "Heron, six times." },
    );

  it("Anthropic: the three newest signatures go back, the older thinking crosses as prose, and thinking stays on", async () => {
    script(60_000);
    const r = await runCli(["-p", "the word?", ...anthropic()], home);
    expect(r.stderr).not.toContain("albedo-tui:");
    expect(r.code).toBe(0);
    expect(fake.rejections()).toEqual([]);
    const last = fake.requests.at(-1)!.body as { thinking?: unknown; messages: { role: string; content: { type: string; text?: string; signature?: string }[] }[] };
    expect(last.thinking).toEqual({ type: "enabled", budget_tokens: 24576 });
    expect(toolLoopThinkingRefusal(last as unknown as Record<string, unknown>)).toBeUndefined();
    const assistants = last.messages.filter((m) => m.role === "assistant");
    expect(assistants).toHaveLength(rounds);
    expect(assistants.map((m) => m.content[0]!.type)).toEqual(["text", "text", "text", "thinking", "thinking", "thinking"]);
    expect(assistants.slice(0, 3).map((m) => m.content[0]!.text)).toEqual([1, 2, 3].map((i) => `[Reasoning]: Round ${i}: read the notes.`));
    for (const m of assistants.slice(3)) expect(m.content[0]!.signature!.length).toBe(60_000);
    // every request carried at most the bound of bodies
    for (const q of fake.requests) expect(q.rawBody.length).toBeLessThan(200_000 + 64 * 1024);
    // the record keeps every signature
    const { messages } = await record();
    const signed = messages.flatMap((m) => m.blocks).filter((b) => b.type === "reasoning" && b.opaque?.body.length === 60_000);
    expect(signed).toHaveLength(rounds);
  });

  it("Responses: the three newest encrypted items go back, the older reasoning crosses as prose", async () => {
    await responsesApi();
    script(120_000);
    const r = await runCli(["-p", "the word?", ...openai()], home);
    expect(r.stderr).not.toContain("albedo-tui:");
    expect(r.code).toBe(0);
    expect(fake.rejections()).toEqual([]);
    const input = inputOf(fake.requests.at(-1)!);
    expect(input.filter((i) => i.type === "reasoning")).toHaveLength(3);
    const prose = input.filter((i) => i.role === "assistant").flatMap((i) => (i.content ?? []).map((c) => c.text));
    expect(prose).toEqual([1, 2, 3].map((i) => `[Reasoning]: Round ${i}: read the notes.`));
    for (const q of fake.requests) expect(q.rawBody.length).toBeLessThan(400_000 + 64 * 1024);
    const { messages } = await record();
    const sealed = messages.flatMap((m) => m.blocks).filter((b) => b.type === "reasoning" && (b.opaque?.body.length ?? 0) > 100_000);
    expect(sealed).toHaveLength(rounds);
  });
});
