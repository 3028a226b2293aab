// OpenAI prompt caching on both OpenAI shapes, over real loopback HTTP against the caching fake
// (test/helpers/fake-cache.ts): the Responses route reports input_tokens_details.cached_tokens
// as OpenAI does (per prompt_cache_key, from 1024 tokens, in 128-token steps) and the adapter
// fills Usage.cacheReadTokens from it; and a reported 0 is a figure (a total miss shows
// "cache 0%" on the status line), while a server that reports no cache field gets none.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { FakeCache, OPENAI_CACHE_STEP, OPENAI_MIN_CACHED } from "../helpers/fake-cache.js";
import { createProvider } from "../../src/provider/create.js";
import type { Provider, Request, StreamEvent, Usage } from "../../src/provider/types.js";
import { statusLine, type StatusInput } from "../../src/ui/status.js";
import { lineText } from "../../src/ui/style.js";
import { defaultKeymap } from "../../src/ui/bindings.js";

const KEY = "sk-proj-test-SECRET-cache-4242";
let cached: FakeProvider;
let plain: FakeProvider;

beforeAll(async () => {
  cached = await startFakeProvider({ key: KEY, cache: new FakeCache() });
  plain = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await cached.close();
  await plain.close();
});
beforeEach(() => {
  cached.cache!.clear();
  cached.requests.length = 0;
  plain.requests.length = 0;
});

const provider = (f: FakeProvider): Provider =>
  createProvider({ provider: "openai", baseUrl: f.openaiBase, apiKey: KEY, retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 } });

/** A prompt of about `chars` characters, the same for the same arguments. */
function req(api: "responses" | "chat", chars: number, key: string | undefined, tail = ""): Request {
  return {
    provider: "openai",
    api,
    model: "gpt-5",
    system: "You are a careful coding agent. ".repeat(Math.ceil(chars / 32)),
    context: [],
    history: [],
    live: [{ role: "user", content: [{ type: "text", text: `Hello${tail}` }] }],
    tools: [],
    maxOutputTokens: 4096,
    reasoning: "off",
    ...(key ? { cache: { key, ttl: "5m" as const } } : {}),
  };
}

async function usageOf(p: Provider, r: Request): Promise<Usage> {
  const events: StreamEvent[] = [];
  const result = await p.stream(r, { onEvent: (e) => events.push(e) });
  expect(result.usage).toBeDefined();
  // the usage event and the result agree
  expect(events.filter((e) => e.type === "usage").at(-1)).toEqual({ type: "usage", usage: result.usage });
  return result.usage!;
}

const status = (usage: Usage): string => {
  const s: StatusInput = { info: { provider: "openai", model: "gpt-5" }, sessionId: "0123456789abcdef", state: "idle", busy: false, now: 0, usage, km: defaultKeymap() };
  return lineText(statusLine(s, 200));
};

describe("OpenAI prompt caching on the Responses route", () => {
  it("reads the prompt's cached steps per prompt_cache_key, from 1024 tokens in 128-token steps", async () => {
    const p = provider(cached);
    // ~2,000 tokens of system prompt: long enough to cache
    const first = await usageOf(p, req("responses", 8000, "session-a"));
    const log = cached.cache!.log;
    expect(log.at(-1)).toMatchObject({ shape: "openai", readTokens: 0, key: "session-a" });
    // a miss is reported as 0, and shown
    expect(first.cacheReadTokens).toBe(0);
    expect(first.inputTokens).toBe(log.at(-1)!.totalTokens);
    expect(status(first)).toContain("cache 0%");

    // the same prefix under the same key: read, in whole steps, the rest uncached
    const second = await usageOf(p, req("responses", 8000, "session-a", " again"));
    const e = log.at(-1)!;
    expect(e.readTokens).toBeGreaterThanOrEqual(OPENAI_MIN_CACHED);
    expect((e.readTokens - OPENAI_MIN_CACHED) % OPENAI_CACHE_STEP).toBe(0);
    expect(second.cacheReadTokens).toBe(e.readTokens);
    expect(second.inputTokens).toBe(e.totalTokens - e.readTokens);
    expect(cached.requests.at(-1)!.shape).toBe("responses");
    expect(status(second)).toMatch(/cache \d+%/);
    expect(status(second)).not.toContain("cache 0%");

    // another key shares nothing
    const other = await usageOf(p, req("responses", 8000, "session-b", " again"));
    expect(other.cacheReadTokens).toBe(0);
    expect(cached.rejections()).toEqual([]);
  });

  it("caches nothing below 1024 tokens", async () => {
    const p = provider(cached);
    await usageOf(p, req("responses", 1200, "short"));
    const again = await usageOf(p, req("responses", 1200, "short", " again"));
    expect(cached.cache!.log.at(-1)!.totalTokens).toBeLessThan(OPENAI_MIN_CACHED);
    expect(again.cacheReadTokens).toBe(0);
  });
});

describe("a reported 0 is a figure; no report, no figure", () => {
  for (const api of ["responses", "chat"] as const) {
    it(`${api}: cached_tokens 0 gives cacheReadTokens 0 and 'cache 0%'`, async () => {
      const u = await usageOf(provider(cached), req(api, 8000, `zero-${api}`));
      expect(u.cacheReadTokens).toBe(0);
      expect(status(u)).toContain("cache 0%");
    });
  }

  it("chat: a server that reports no prompt_tokens_details gets no cache figure", async () => {
    // the plain fake's Chat usage has no prompt_tokens_details, as many compatible servers
    const u = await usageOf(provider(plain), req("chat", 8000, "none"));
    expect(u).not.toHaveProperty("cacheReadTokens");
    expect(status(u)).not.toContain("cache");
  });
});
