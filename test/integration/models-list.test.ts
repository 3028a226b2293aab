// A server's model list over real loopback HTTP: both shapes, with their
// keys, and every way it can fail ending in a sentence, bounded in time and size; the
// controller's list for /model keeps the catalog's models whatever the server does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import type { ServedModels } from "../helpers/fake-images-models.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { fetchModels, ModelsError } from "../../src/provider/models.js";
import { catalogModels } from "../../src/provider/catalog.js";

let fake: FakeProvider;
const served: ServedModels = {};
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY, models: served });
});
afterAll(() => fake.close());

function serve(s: ServedModels): void {
  for (const k of Object.keys(served) as (keyof ServedModels)[]) delete served[k];
  Object.assign(served, s);
}

describe("fetchModels", () => {
  it("reads OpenAI's shape from {baseUrl}/models with the bearer key", async () => {
    serve({ openai: ["llama3.2:3b", "qwen2.5-coder:7b"] });
    expect(await fetchModels({ provider: "openai", baseUrl: fake.openaiBase, apiKey: TEST_KEY })).toEqual({ models: [{ id: "llama3.2:3b" }, { id: "qwen2.5-coder:7b" }], more: false });
  });

  it("reads Anthropic's shape from /v1/models with x-api-key and anthropic-version, keeping display names", async () => {
    serve({ anthropic: [{ id: "claude-sonnet-4-5", display_name: "Claude Sonnet 4.5" }, { id: "claude-haiku-4-5" }] });
    const got = await fetchModels({ provider: "anthropic", baseUrl: fake.anthropicBase, apiKey: TEST_KEY });
    // a display name equal to the id says nothing more
    expect(got.models).toEqual([{ id: "claude-sonnet-4-5", displayName: "Claude Sonnet 4.5" }, { id: "claude-haiku-4-5" }]);
  });

  it("turns each failure into a sentence that names it", async () => {
    const fail = async (s: ServedModels, o: { provider?: "openai" | "anthropic"; apiKey?: string; timeoutMs?: number; maxBytes?: number } = {}): Promise<string> => {
      serve(s);
      const provider = o.provider ?? "openai";
      try {
        await fetchModels({ provider, baseUrl: provider === "openai" ? fake.openaiBase : fake.anthropicBase, apiKey: o.apiKey ?? TEST_KEY, ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}), ...(o.maxBytes ? { maxBytes: o.maxBytes } : {}) });
      } catch (e) {
        expect(e).toBeInstanceOf(ModelsError);
        return (e as Error).message;
      }
      throw new Error("expected a failure");
    };
    const origin = new URL(fake.url).origin;
    expect(await fail({})).toBe(`${origin} does not offer a model list (404)`);
    expect(await fail({ openai: ["x"] }, { apiKey: "wrong" })).toBe(`${origin} refused the model list (401): check the API key`);
    expect(await fail({ anthropic: [{ id: "x" }] }, { provider: "anthropic", apiKey: "wrong" })).toBe(`${origin} refused the model list (401): check the API key`);
    expect(await fail({ failStatus: 500 })).toBe(`${origin} answered the model list with status 500`);
    expect(await fail({ raw: "<html>not json</html>" })).toBe(`${origin} sent a model list that is not JSON`);
    expect(await fail({ raw: JSON.stringify({ models: ["a"] }) })).toMatch(new RegExp(`^${origin} sent a model list not in OpenAI's shape \\(`));
    expect(await fail({ raw: JSON.stringify({ data: [{ name: "a" }] }) }, { provider: "anthropic" })).toMatch(/not in Anthropic's shape/);
    // bounded: a server that never answers, and one that sends without end
    expect(await fail({ hang: true }, { timeoutMs: 300 })).toBe(`${origin} did not send its model list within 0.3 s`);
    expect(await fail({ hugeBytes: 50 * 1024 * 1024 }, { maxBytes: 64 * 1024 })).toBe(`${origin} sent a model list larger than 64 kB; it was not read`);
  });

  it("names a server that cannot be reached", async () => {
    await expect(fetchModels({ provider: "openai", baseUrl: "http://127.0.0.1:9/v1" })).rejects.toThrow(/^http:\/\/127\.0\.0\.1:9 could not be reached for its model list: /);
  });
});

describe("the controller's list for /model", () => {
  it("lists the provider in use and another configured one, each with its catalog and its server's models", async () => {
    serve({ openai: ["llama3.2:3b"], anthropic: [{ id: "claude-sonnet-4-5", display_name: "Claude Sonnet 4.5" }] });
    const { app } = await makeApp(fake, {
      provider: "openai",
      model: "llama3.2:3b",
      credentials: { keys: { anthropic: TEST_KEY, openai: TEST_KEY }, baseUrls: { anthropic: fake.anthropicBase, openai: fake.openaiBase } },
    });
    const list = await app.listModels();
    expect(list.current).toEqual({ provider: "openai", model: "llama3.2:3b" });
    expect(list.providers.map((p) => [p.provider, p.served, p.error])).toEqual([
      ["openai", [{ id: "llama3.2:3b" }], undefined],
      ["anthropic", [{ id: "claude-sonnet-4-5", displayName: "Claude Sonnet 4.5" }], undefined],
    ]);
    expect(list.providers[0]!.catalog).toEqual(catalogModels("openai"));
    await app.close();
  });

  it("a server that fails still leaves the catalog's models, with the reason; a provider with no key and no URL is not listed", async () => {
    serve({ failStatus: 503 });
    const { app } = await makeApp(fake, { provider: "anthropic", credentials: { keys: { anthropic: TEST_KEY }, baseUrls: {} } });
    const list = await app.listModels();
    expect(list.providers).toHaveLength(1);
    expect(list.providers[0]).toMatchObject({ provider: "anthropic", catalog: catalogModels("anthropic"), error: `${new URL(fake.url).origin} answered the model list with status 503` });
    await app.close();
  });
});
