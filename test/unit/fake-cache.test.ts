// The caching fake itself (test/helpers/fake-cache.ts): the rules the other tests and the
// benchmark lean on, checked over real loopback HTTP where the wire matters.
import { afterEach, describe, expect, it } from "vitest";
import { FakeCache, fakeTokens, LOOKBACK_BLOCKS } from "../helpers/fake-cache.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";

const BIG = "lorem ipsum dolor sit amet ".repeat(400); // ~10,800 chars: ~2,700 fake tokens
const cc = (ttl?: "5m" | "1h"): Record<string, unknown> => ({ cache_control: { type: "ephemeral", ...(ttl ? { ttl } : {}) } });

function body(messages: unknown[], systemMark = true): Record<string, unknown> {
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 100,
    system: [{ type: "text", text: BIG, ...(systemMark ? cc() : {}) }],
    messages,
  };
}

describe("FakeCache, Anthropic", () => {
  it("writes a breakpoint's prefix, then reads it; input_tokens is the rest", () => {
    const cache = new FakeCache();
    const msgs = [{ role: "user", content: "hello there" }];
    const first = cache.anthropic(body(msgs));
    expect("usage" in first && first.usage.cache_read_input_tokens).toBe(0);
    const w = cache.log[0]!;
    expect(w.writtenTokens).toBeGreaterThan(2000);
    expect(w.writtenTokens + w.uncachedTokens).toBe(w.totalTokens);
    const second = cache.anthropic(body(msgs));
    expect("usage" in second && second.usage).toEqual({
      cache_read_input_tokens: w.writtenTokens,
      cache_creation_input_tokens: 0,
      input_tokens: w.uncachedTokens,
    });
    expect(cache.log[1]!.breakpoints[0]!.outcome).toBe("read");
  });

  it("leaves cache_control out of the hash, and looks back up to 20 blocks from a breakpoint", () => {
    const cache = new FakeCache();
    const turn = (n: number, markLast: boolean): unknown[] =>
      Array.from({ length: n }, (_, i) => ({
        role: i % 2 === 0 ? "user" : "assistant",
        content: [{ type: "text", text: `message ${i}`, ...(markLast && i === n - 1 ? cc() : {}) }],
      }));
    cache.anthropic(body(turn(3, true), false));
    const written = cache.log[0]!.writtenTokens;
    // the same first three messages, the mark moved 5 blocks later: found by the look-back
    cache.anthropic(body(turn(8, true), false));
    expect(cache.log[1]!.readTokens).toBe(written);
    // and a prefix further back than the look-back is not found
    const far = new FakeCache();
    far.anthropic(body(turn(3, true), false));
    far.anthropic(body(turn(3 + LOOKBACK_BLOCKS + 2, true), false));
    expect(far.log[1]!.readTokens).toBe(0);
  });

  it("does not cache a prefix below the minimum", () => {
    const cache = new FakeCache({ minTokens: () => 1_000_000 });
    cache.anthropic(body([{ role: "user", content: "hi" }]));
    cache.anthropic(body([{ role: "user", content: "hi" }]));
    expect(cache.log.map((e) => [e.readTokens, e.writtenTokens])).toEqual([[0, 0], [0, 0]]);
    expect(cache.log[0]!.breakpoints[0]!.outcome).toBe("too_short");
  });

  it("expires an entry after its TTL from its last use; 1h lasts longer than 5m", () => {
    let now = 0;
    const cache = new FakeCache({ now: () => now });
    const with5m = body([{ role: "user", content: "hi" }]);
    cache.anthropic(with5m);
    now += 4 * 60_000;
    cache.anthropic(with5m); // read: renews
    now += 4 * 60_000;
    cache.anthropic(with5m); // read again (4 min after the renewal)
    now += 6 * 60_000;
    cache.anthropic(with5m); // expired: written again
    expect(cache.log.map((e) => e.readTokens > 0)).toEqual([false, true, true, false]);

    const hour = new FakeCache({ now: () => now });
    const with1h = { ...with5m, system: [{ type: "text", text: BIG, ...cc("1h") }] };
    hour.anthropic(with1h);
    now += 30 * 60_000;
    hour.anthropic(with1h);
    expect(hour.log[1]!.readTokens).toBeGreaterThan(0);
    expect(hour.log[1]!.breakpoints[0]!.ttl).toBe("1h");
  });

  it("counts tokens by its stated rule", () => {
    expect(fakeTokens("abcd")).toBe(1);
    expect(fakeTokens("abcde")).toBe(2);
  });
});

describe("the fake provider with caching", () => {
  let fake: FakeProvider | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function post(path: string, b: unknown): Promise<{ status: number; text: string }> {
    const res = await fetch(`${fake!.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(b),
    });
    return { status: res.status, text: await res.text() };
  }

  it("reports the cache in Anthropic's message_start usage, and refuses a fifth breakpoint as the API does", async () => {
    fake = await startFakeProvider({ cache: new FakeCache() });
    const b = { ...body([{ role: "user", content: "hi" }]), stream: true };
    await post("/v1/messages", b);
    const second = await post("/v1/messages", b);
    expect(second.status).toBe(200);
    const start = JSON.parse(/event: message_start\ndata: (.*)\n/.exec(second.text)![1]!) as {
      message: { usage: Record<string, number> };
    };
    expect(start.message.usage["cache_read_input_tokens"]).toBe(fake.cache!.log[0]!.writtenTokens);

    const five = {
      ...b,
      messages: [{ role: "user", content: [1, 2, 3, 4].map((i) => ({ type: "text", text: `part ${i}`, ...cc() })) }],
    };
    const refused = await post("/v1/messages", five);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("A maximum of 4 blocks with cache_control may be provided. Found 5.");
  });

  it("reports OpenAI's cached_tokens for a prefix seen before with the same prompt_cache_key, in 128-token steps", async () => {
    fake = await startFakeProvider({ cache: new FakeCache() });
    const chat = (key: string, extra: string): unknown => ({
      model: "gpt-4.1",
      stream: true,
      stream_options: { include_usage: true },
      prompt_cache_key: key,
      messages: [
        { role: "system", content: BIG },
        { role: "user", content: extra },
      ],
    });
    await post("/v1/chat/completions", chat("s1", "first question"));
    const again = await post("/v1/chat/completions", chat("s1", "a second, different question"));
    const other = await post("/v1/chat/completions", chat("s2", "a second, different question"));
    const usage = (text: string): { prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number } } => {
      const line = text.split("\n").find((l) => l.includes('"usage"'))!;
      return (JSON.parse(line.slice("data: ".length)) as { usage: never }).usage;
    };
    const u = usage(again.text);
    const cached = u.prompt_tokens_details!.cached_tokens;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect((cached - 1024) % 128).toBe(0);
    expect(cached).toBeLessThan(u.prompt_tokens);
    expect(usage(other.text).prompt_tokens_details!.cached_tokens).toBe(0);
  });
});
