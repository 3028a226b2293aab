// The turn's steps, each alone, against the real parts: a real SQLite file, real HTTP to the
// strict fake provider, real tools in a real folder.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { tempDir } from "../helpers/tmp.js";
import { openStore } from "../../src/session/store/store.js";
import type { HistoryStore } from "../../src/session/store/types.js";
import { EventHub, type SessionEvent } from "../../src/session/turn/events.js";
import { createProvider } from "../../src/provider/create.js";
import { builtinTools, PermissionMemory } from "../../src/tools/run.js";
import type { TurnEnv } from "../../src/session/turn/env.js";
import { Checkpointer } from "../../src/session/turn/checkpointer.js";
import { streamAnswer } from "../../src/session/turn/stream-answer.js";
import { runTools } from "../../src/session/turn/run-tools.js";
import { compactIfDue } from "../../src/session/turn/compact.js";
import { turnRequest } from "../../src/replay/request.js";
import { imageTarget } from "../../src/replay/replay.js";
import { toolSchemas } from "../../src/tools/run.js";

const KEY = "sk-test-turn-steps-123456";
let fake: FakeProvider;
let store: HistoryStore;
let env: TurnEnv;
let seen: SessionEvent[];

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  const dir = await tempDir("albedo-steps-");
  const workspace = path.join(dir, "work");
  await fs.mkdir(workspace);
  store = await openStore(path.join(dir, "history.sqlite"));
  const session = await store.createSession({ workspace });
  const events = new EventHub();
  seen = [];
  events.subscribe((e) => seen.push(e));
  env = {
    store,
    sessionId: session.id,
    history: [],
    provider: createProvider({ provider: "anthropic", baseUrl: fake.anthropicBase, apiKey: KEY }),
    providerName: "anthropic",
    model: "claude-sonnet-4-5",
    vision: imageTarget("anthropic", true),
    contextWindow: 200_000,
    maxOutputTokens: 1024,
    reasoning: "off",
    system: "You are a test.",
    context: [],
    tools: builtinTools(),
    toolCtx: { workspace, policy: "auto", askPermission: async () => "deny" },
    memory: new PermissionMemory(),
    compaction: { strategy: "none", threshold: 0.8, keepRounds: 3 },
    tokenMethod: "chars/4",
    events,
    checkpointMs: 20,
  };
});

const stored = async () => (await store.loadHistory(env.sessionId)).messages;

describe("the checkpointer", () => {
  it("writes one row while text arrives and finishes it in place", async () => {
    const c = new Checkpointer(env, 7);
    c.addText("Hel");
    await new Promise((r) => setTimeout(r, 5));
    c.addText("lo");
    await new Promise((r) => setTimeout(r, 60));
    let rows = await stored();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe("interrupted");
    expect(rows[0]!.blocks).toEqual([{ type: "text", text: "Hello" }]);
    await c.finish([{ type: "text", text: "Hello, world" }], "complete");
    rows = await stored();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "complete", blocks: [{ type: "text", text: "Hello, world" }] });
    expect(seen.filter((e) => e.type === "message").every((e) => e.type === "message" && e.answer === 7)).toBe(true);
  });
});

describe("stream one answer", () => {
  const request = () =>
    turnRequest([], env.history, { provider: "anthropic", model: env.model, system: env.system, context: [], tools: toolSchemas(env.tools), maxOutputTokens: 1024, reasoning: "off", vision: imageTarget("anthropic", true) });

  it("stores a complete answer and returns its blocks and usage", async () => {
    await store.appendMessage(env.sessionId, { role: "user", blocks: [{ type: "text", text: "hi" }], status: "complete" }).then((m) => env.history.push(m));
    fake.script({ text: "Hello there." });
    const out = await streamAnswer(env, request(), new AbortController().signal);
    expect(out.kind).toBe("complete");
    if (out.kind === "complete") expect(out.blocks).toEqual([{ type: "text", text: "Hello there." }]);
    expect((await stored()).at(-1)).toMatchObject({ role: "assistant", status: "complete" });
  });

  it("a dropped link keeps what arrived as an interrupted message", async () => {
    await store.appendMessage(env.sessionId, { role: "user", blocks: [{ type: "text", text: "hi" }], status: "complete" }).then((m) => env.history.push(m));
    fake.script({ fault: "reset_mid" });
    const out = await streamAnswer(env, request(), new AbortController().signal);
    expect(out.kind).toBe("failed");
    const last = (await stored()).at(-1)!;
    expect(last).toMatchObject({ role: "assistant", status: "interrupted" });
    expect(JSON.stringify(last.blocks)).toContain("partial answer");
  });
});

describe("run the tools", () => {
  it("runs each call in order and answers every call even after an interrupt", async () => {
    const abort = new AbortController();
    const calls = [
      { type: "tool_use" as const, id: "t1", name: "write", input: { path: "a.txt", content: "A" } },
      { type: "tool_use" as const, id: "t2", name: "bash", input: { command: "cat a.txt" } },
    ];
    const results = await runTools(env, calls, abort.signal);
    expect(results.map((r) => [r.toolUseId, r.isError])).toEqual([["t1", false], ["t2", false]]);
    expect(results[1]!.output).toContain("A");
    abort.abort();
    const after = await runTools(env, calls, abort.signal);
    expect(after.map((r) => r.output)).toEqual(["interrupted before it ran", "interrupted before it ran"]);
  });
});

describe("compact if due", () => {
  it("prepares the history as it is when nothing is due, and asks the provider for nothing", async () => {
    await store.appendMessage(env.sessionId, { role: "user", blocks: [{ type: "text", text: "hi" }], status: "complete" }).then((m) => env.history.push(m));
    fake.requests.length = 0;
    const out = await compactIfDue(env, env.history.length, new AbortController().signal, { iteration: 1 });
    expect("prepared" in out && out.prepared.messages).toHaveLength(1);
    expect(fake.requests).toHaveLength(0);
  });
});
