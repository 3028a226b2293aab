// Headless turns on OpenAI's Responses API, end to end: the built CLI as a real process
// against the strict fake's /v1/responses over loopback HTTP, with a real SQLite file. A
// two-round tool turn with encrypted reasoning, the next turn as prose, and one session
// resumed across Anthropic ↔ Responses ↔ Chat in both directions with no request refused.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider, type RecordedRequest } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";
import { OPAQUE_OPENAI_REASONING } from "../../src/provider/responses/encode.js";

const KEY = "sk-test-responses-turn-SECRET-7070";
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

/** The config file of this home; `api` forces OpenAI's wire shape (the fake is not api.openai.com). */
async function config(api: "chat" | "responses"): Promise<void> {
  const dir = path.join(home.root, "config", "albedo");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ api }));
}

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase, "--permission", "auto"];
const openai = (): string[] => ["--provider", "openai", "--model", "gpt-5", "--base-url", fake.openaiBase, "--permission", "auto"];

async function record(h: Home) {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    return (await store.loadHistory(s!.id)).messages;
  } finally {
    await store.close();
  }
}

type Item = { type: string; role?: string; call_id?: string };
const inputOf = (r: RecordedRequest): Item[] => r.body.input as Item[];

describe("headless turns on the Responses API", () => {
  it("a two-round tool turn with encrypted reasoning, then the next turn as prose", async () => {
    await config("responses");
    await fs.writeFile(path.join(home.workspace, "notes.txt"), "the secret word is pelican\n");
    fake.script(
      { reasoning: "I should read the notes first.", toolCalls: [{ name: "read", input: { path: "notes.txt" } }] },
      { reasoning: "Now list the folder to be sure.", text: "Checking the folder.", toolCalls: [{ name: "ls", input: {} }] },
      { text: "The word is pelican." },
    );
    const r = await runCli(["-p", "what is the word?", "--reasoning", "high", ...openai()], home);
    expect(r.stderr).not.toContain("albedo-tui:");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The word is pelican.\n");
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests.map((q) => q.shape)).toEqual(["responses", "responses", "responses"]);
    const first = fake.requests[0]!.body;
    expect(first).toMatchObject({ store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "high", summary: "auto" }, stream: true });
    // the session id names the conversation for OpenAI's prompt cache
    expect(typeof first.prompt_cache_key).toBe("string");

    // the third request carries both rounds natively, each reasoning item before what it preceded
    const third = inputOf(fake.requests[2]!).filter((i) => i.role !== "system");
    expect(third.map((i) => i.type + (i.role ? `:${i.role}` : ""))).toEqual([
      "message:user",
      "reasoning",
      "function_call",
      "function_call_output",
      "reasoning",
      "message:assistant",
      "function_call",
      "function_call_output",
    ]);

    // stored: the reasoning with its item as an opaque body
    const stored = await record(home);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    const reasoning = stored[1]!.blocks[0]!;
    expect(reasoning).toMatchObject({ type: "reasoning", text: "I should read the notes first.", opaque: { kind: OPAQUE_OPENAI_REASONING } });

    fake.script({ text: "Still pelican." });
    const r2 = await runCli(["-p", "and again?", "--continue", ...openai()], home);
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe("Still pelican.\n");
    expect(fake.rejections()).toEqual([]);
    const next = inputOf(fake.requests[3]!);
    // one input item per stored message (plus the context items), no native protocol
    const history = next.filter((i) => i.role !== "system");
    expect(history).toHaveLength(stored.length + 1);
    expect(history.every((i) => i.type === "message")).toBe(true);
    const text = JSON.stringify(next);
    expect(text).toContain("[Reasoning]: I should read the notes first.");
    expect(text).toContain('Tool use: read({\\"path\\":\\"notes.txt\\"})');
    expect(text).not.toContain("encrypted_content");
    expect(text).not.toContain("call_id");
  });

  it("one session resumed across Anthropic → Responses → Chat and back, a tool round in each, no request refused", async () => {
    await fs.writeFile(path.join(home.workspace, "x.txt"), "x marks the spot\n");
    const round = (reasoning: string, done: string): void =>
      fake.script({ reasoning, toolCalls: [{ name: "read", input: { path: "x.txt" } }] }, { text: done });
    const turn = async (args: string[], prompt: string, resume: boolean): Promise<string> => {
      const r = await runCli(["-p", prompt, ...(resume ? ["--continue"] : []), "--reasoning", "low", ...args], home);
      expect(r.stderr).not.toContain("albedo-tui:");
      expect(r.code).toBe(0);
      return r.stdout;
    };

    round("Anthropic thinks.", "anthropic read it");
    expect(await turn(anthropic(), "read x", false)).toBe("anthropic read it\n");
    await config("responses");
    round("Responses thinks.", "responses read it");
    expect(await turn(openai(), "read it on responses", true)).toBe("responses read it\n");
    await config("chat");
    round("Chat thinks.", "chat read it");
    expect(await turn(openai(), "read it on chat", true)).toBe("chat read it\n");
    await config("responses");
    round("Responses again.", "responses again");
    expect(await turn(openai(), "back to responses", true)).toBe("responses again\n");
    round("Anthropic again.", "anthropic again");
    expect(await turn(anthropic(), "back to anthropic", true)).toBe("anthropic again\n");

    expect(fake.rejections()).toEqual([]);
    expect(fake.requests.map((q) => q.shape)).toEqual([
      "anthropic",
      "anthropic",
      "responses",
      "responses",
      "openai",
      "openai",
      "responses",
      "responses",
      "anthropic",
      "anthropic",
    ]);
    // each turn's first request replays the others' turns as prose: no signature, no
    // encrypted item, no call id from an earlier turn crosses
    for (const i of [2, 4, 6, 8]) {
      const body = JSON.stringify(fake.requests[i]!.body.input ?? fake.requests[i]!.body.messages);
      expect(body).not.toContain("encrypted_content");
      expect(body).not.toContain("sig_fake_");
      expect(body).toContain("[Reasoning]: Anthropic thinks.");
    }
    expect(JSON.stringify(fake.requests[8]!.body)).toContain("[Reasoning]: Responses again.");
    const stored = await record(home);
    expect(stored).toHaveLength(20);
    expect(stored.every((m) => m.status === "complete")).toBe(true);
  });
});
