// What a session cost, from the provider usage stored with each answer: two headless turns of
// the built CLI against the fake's prompt-cache simulation (the first writes the cache, the
// second reads it), the figures against a hand computation from the fake's own log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { FakeCache } from "../helpers/fake-cache.js";
import { makeHome, runCli } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";
import { sessionCost } from "../../src/session/controller/cost.js";

const KEY = "sk-test-cost-SECRET-9191";
let fake: FakeProvider;
const cache = new FakeCache();

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY, cache });
});
afterAll(async () => {
  await fake.close();
});

describe("a session's cost", () => {
  it("equals the hand computation from the fake's usage, at Sonnet 4.6's list price", async () => {
    const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
    // project context long enough for the cached prefix to pass the model's minimum
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${home.workspace}/AGENTS.md`, "Keep functions small and name them for what they do.\n".repeat(400));
    const args = ["--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", fake.anthropicBase];
    fake.script({ text: "first", usage: { input: 0, output: 7 } });
    expect((await runCli(["-p", "one", ...args], home)).code).toBe(0);
    fake.script({ text: "second", usage: { input: 0, output: 9 } });
    expect((await runCli(["-p", "two", "--continue", ...args], home)).code).toBe(0);
    const [a, b] = cache.log;
    expect(cache.log).toHaveLength(2);
    expect(a!.writtenTokens).toBeGreaterThan(0);
    expect(b!.readTokens).toBeGreaterThan(0);

    const store = await openStore(home.db);
    let messages;
    try {
      const [s] = await store.listSessions();
      messages = (await store.loadHistory(s!.id)).messages;
    } finally {
      await store.close();
    }
    const c = sessionCost(messages);
    // by hand: $3 input, $15 output, $0.30 cache read, $3.75 5-minute write, per million
    const outputs = messages.filter((m) => m.role === "assistant").map((m) => m.usage!.outputTokens);
    const hand = (e: typeof a, out: number): number => (e!.uncachedTokens * 3 + out * 15 + e!.readTokens * 0.3 + e!.writtenTokens * 3.75) / 1e6;
    expect(c.turns).toHaveLength(2);
    expect(c.turns[0]!.cacheWriteTokens).toBe(a!.writtenTokens);
    expect(c.turns[1]!.cacheReadTokens).toBe(b!.readTokens);
    expect(c.turns[0]!.cost!.total).toBeCloseTo(hand(a, outputs[0]!), 12);
    expect(c.turns[1]!.cost!.total).toBeCloseTo(hand(b, outputs[1]!), 12);
    expect(c.total.cost!.total).toBeCloseTo(hand(a, outputs[0]!) + hand(b, outputs[1]!), 12);
    // what caching saved: the cached tokens as plain input, less what reading and writing them cost
    const written = a!.writtenTokens + b!.writtenTokens;
    const saved = ((written + b!.readTokens) * 3 - b!.readTokens * 0.3 - written * 3.75) / 1e6;
    expect(c.total.cost!.savedByCache).toBeCloseTo(saved, 12);
    expect(c.label).toBe("list prices, from provider usage");
  });

  it("a model with no price has no cost, and says which", () => {
    const c = sessionCost([
      { id: 1, sessionId: "s", seq: 1, role: "user", blocks: [{ type: "text", text: "hi" }], status: "complete", createdAt: "" },
      { id: 2, sessionId: "s", seq: 2, role: "assistant", blocks: [{ type: "text", text: "yo" }], status: "complete", model: "llama3.2:3b", usage: { inputTokens: 5, outputTokens: 2 }, createdAt: "" },
    ]);
    expect(c.turns[0]!.cost).toBeUndefined();
    expect(c.total.unpriced).toEqual(["llama3.2:3b"]);
    expect(c.total.cost).toBeUndefined();
  });
});
