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

describe("/cost and the status line", () => {
  it("the controller's cost and the status line's figure follow each turn's provider usage", async () => {
    const { makeApp } = await import("../helpers/app.js");
    const { statusLine } = await import("../../src/ui/status.js");
    const { costLines } = await import("../../src/ui/cost-lines.js");
    const { lineText } = await import("../../src/ui/style.js");
    const { loadKeymap } = await import("../../src/ui/keymap.js");
    const { TEST_KEY } = await import("../helpers/app.js");
    const plain = await startFakeProvider({ key: TEST_KEY });
    try {
      const { app } = await makeApp(plain, { model: "claude-haiku-4-5" });
      expect(app.info().sessionCost).toBeUndefined();
      plain.script({ text: "one", usage: { input: 1000, output: 200 } }, { text: "two", usage: { input: 3000, output: 100 } });
      await app.submit("first");
      await app.submit("second");
      expect(plain.rejections()).toEqual([]);
      // Haiku 4.5 at $1 / $5 per million: (1000 + 3000) × 1 + (200 + 100) × 5 = 5,500 → $0.0055
      const c = app.cost();
      expect(c.turns.map((t) => [t.inputTokens, t.outputTokens])).toEqual([
        [1000, 200],
        [3000, 100],
      ]);
      expect(c.total.cost!.total).toBeCloseTo(0.0055, 12);
      expect(app.info().sessionCost).toBe("$0.0055");
      const text = costLines(c).map(lineText).join("\n");
      expect(text).toContain("list prices, from provider usage");
      expect(text).toMatch(/session\s+in 4,000 · out 300 · cache read 0 · cache write 0\s+\$0\.0055/);
      const line = lineText(statusLine({ info: app.info(), sessionId: "s", state: "idle", busy: false, now: 0, km: loadKeymap("default").keymap }, 200));
      expect(line).toContain("$0.0055 list");
      await app.close();
    } finally {
      await plain.close();
    }
  });
});

describe("the config's prices", () => {
  it("beat the table, and the config refuses a price that is not one", async () => {
    const { makeApp, TEST_KEY } = await import("../helpers/app.js");
    const plain = await startFakeProvider({ key: TEST_KEY });
    try {
      const { app } = await makeApp(plain, { model: "claude-haiku-4-5", prices: { "claude-haiku-4-5": { input: 2, output: 10 } } });
      plain.script({ text: "one", usage: { input: 1000, output: 200 } });
      await app.submit("first");
      // 1000 × 2 + 200 × 10 = 4,000 → $0.0040
      expect(app.cost().total.cost!.total).toBeCloseTo(0.004, 12);
      expect(app.info().sessionCost).toBe("$0.0040");
      await app.close();
    } finally {
      await plain.close();
    }
    const { configSchema } = await import("../../src/config/config.js");
    expect(configSchema.safeParse({ prices: { x: { input: -1, output: 1 } } }).success).toBe(false);
    expect(configSchema.safeParse({ prices: { x: { input: 1, output: 1, tip: 3 } } }).success).toBe(false);
  });
});
