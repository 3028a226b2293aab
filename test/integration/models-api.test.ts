// Anthropic's Models API drives what the catalog's table does not know: the built CLI against
// the strict fake, whose GET /v1/models serves a model's max_input_tokens, max_tokens and
// capabilities, and whose Messages route refuses what that entry says the model refuses.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { anthropicModel } from "../helpers/fake-images-models.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { lookupModel } from "../../src/provider/catalog.js";

const KEY = "sk-test-albedo-MODELS-7777";
const MODEL = "claude-zephyr-7";
let fake: FakeProvider;
let home: Home;

beforeAll(async () => {
  fake = await startFakeProvider({
    key: KEY,
    models: {
      anthropic: [
        anthropicModel({ id: MODEL, display_name: "Claude Zephyr 7", max_input_tokens: 50_000, max_tokens: 12_345, thinking: { adaptive: true, enabled: false }, images: true }),
        // a budget-only model the table does not know either
        anthropicModel({ id: "claude-breeze-2", max_input_tokens: 90_000, max_tokens: 20_000, thinking: { adaptive: false, enabled: true }, images: false }),
      ],
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

const args = (model: string): string[] => ["--provider", "anthropic", "--model", model, "--base-url", fake.anthropicBase, "--reasoning", "high"];

describe("the provider's Models API over the built-in table", () => {
  it("the table knows neither model", () => {
    expect(lookupModel("anthropic", MODEL).known).toBe(false);
    expect(lookupModel("anthropic", "claude-breeze-2").known).toBe(false);
  });

  it("takes the served output limit and adaptive thinking, and the served window reaches the inspector", async () => {
    fake.script({ text: "hello" });
    const r = await runCli(["-p", "say hello", ...args(MODEL)], home);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.rejected).toBeUndefined();
    expect(req.body.max_tokens).toBe(12_345);
    expect(req.body.thinking).toEqual({ type: "adaptive" });
    expect(req.body.output_config).toEqual({ effort: "high" });
    expect(req.headers["user-agent"]).toMatch(/^albedo-tui\/\d+\.\d+\.\d+/);
    // the window the inspector recorded is the served max_input_tokens
    const sessions = await runCli(["sessions", "--json"], home);
    const id = (JSON.parse(sessions.stdout) as Array<{ id: string }>)[0]!.id;
    const ctx = await runCli(["context", id, "--json"], home);
    expect(ctx.code).toBe(0);
    expect((JSON.parse(ctx.stdout) as { meta: { contextWindow?: number } }).meta.contextWindow).toBe(50_000);
  });

  it("a budget-only served model gets a budget within its served output limit", async () => {
    fake.script({ text: "hello" });
    const r = await runCli(["-p", "say hello", ...args("claude-breeze-2")], home);
    expect(r.code).toBe(0);
    const req = fake.requests[0]!;
    expect(req.rejected).toBeUndefined();
    expect(req.body.max_tokens).toBe(20_000);
    expect(req.body.thinking.type).toBe("enabled");
    expect(req.body.thinking.budget_tokens).toBeLessThan(20_000);
  });

  it("without the list (a server that has none), the table's fallback holds and the turn still runs", async () => {
    const bare = await startFakeProvider({ key: KEY });
    try {
      bare.script({ text: "hello" });
      const r = await runCli(["-p", "say hello", "--provider", "anthropic", "--model", "claude-opus-5-5", "--base-url", bare.anthropicBase], home);
      expect(r.code).toBe(0);
      expect(bare.requests[0]!.body.max_tokens).toBe(128_000);
    } finally {
      await bare.close();
    }
  });
});

describe("User-Agent", () => {
  it("names albedo-tui and its version on OpenAI Chat requests too", async () => {
    const version = (JSON.parse(await (await import("node:fs/promises")).readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
    const h = await makeHome({ OPENAI_API_KEY: KEY });
    fake.script({ text: "hello" });
    const r = await runCli(["-p", "say hello", "--provider", "openai", "--model", "gpt-4o", "--base-url", fake.openaiBase], h);
    expect(r.code).toBe(0);
    expect(fake.requests[0]!.shape).toBe("openai");
    expect(fake.requests[0]!.headers["user-agent"]).toBe(`albedo-tui/${version}`);
  });
});

describe("a hostile model list", () => {
  it("figures out of bounds and capabilities in another shape are not believed; the list still reads", async () => {
    const { fetchModels } = await import("../../src/provider/models.js");
    const { forgetServerFacts } = await import("../../src/provider/model-facts.js");
    const hostile = await startFakeProvider({
      key: KEY,
      models: {
        anthropic: [
          { id: "claude-huge-1", max_input_tokens: 1e12, max_tokens: 5e9, capabilities: { thinking: "yes please", image_input: [1] }, lifecycle: "active" },
          { id: "claude-odd-1\u001b[31m", max_input_tokens: -5, max_tokens: 1.5, capabilities: null, lifecycle: "active" },
          anthropicModel({ id: "claude-fine-1", max_input_tokens: 30_000, max_tokens: 4_000, thinking: { adaptive: false, enabled: false }, images: false }),
        ],
      },
    });
    try {
      forgetServerFacts();
      const got = await fetchModels({ provider: "anthropic", baseUrl: hostile.anthropicBase, apiKey: KEY });
      expect(got.models.map((m) => m.id)).toEqual(["claude-huge-1", "claude-odd-1\u001b[31m", "claude-fine-1"]);
      // known to the server, but none of its absurd figures taken: no window, no output limit
      const huge = lookupModel("anthropic", "claude-huge-1");
      expect(huge.source).toBe("server");
      expect(huge.contextWindow).toBeUndefined();
      expect(huge.maxOutput).toBeUndefined();
      const fine = lookupModel("anthropic", "claude-fine-1");
      expect([fine.contextWindow, fine.maxOutput, fine.thinking, fine.vision]).toEqual([30_000, 4_000, "none", false]);
    } finally {
      forgetServerFacts();
      await hostile.close();
    }
  });
});
