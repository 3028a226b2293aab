// What a session costs from the provider's usage: a scripted set of responses with cache
// reads and writes, the figures against a hand computation.
import { describe, expect, it } from "vitest";
import { costOf, formatDollars, priceFor, sumCosts } from "../../src/provider/prices.js";

describe("prices and costs", () => {
  it("a session with cache writes and reads costs what the hand computation says", () => {
    const price = priceFor("claude-sonnet-4-6-20260101")!;
    expect(price).toMatchObject({ input: 3, output: 15 });
    // turn 1 writes 10,000 tokens to the cache; turn 2 reads them back
    const t1 = costOf({ inputTokens: 500, outputTokens: 200, cacheWriteTokens: 10_000, cacheReadTokens: 0 }, price, "5m");
    const t2 = costOf({ inputTokens: 300, outputTokens: 100, cacheWriteTokens: 0, cacheReadTokens: 10_000 }, price, "5m");
    // by hand, in dollars: 500×3 + 200×15 + 10,000×3.75 = 1,500 + 3,000 + 37,500 = 42,000 / 1e6
    expect(t1.total).toBeCloseTo(0.042, 10);
    // 300×3 + 100×15 + 10,000×0.3 = 900 + 1,500 + 3,000 = 5,400 / 1e6
    expect(t2.total).toBeCloseTo(0.0054, 10);
    const s = sumCosts([t1, t2]);
    expect(s.total).toBeCloseTo(0.0474, 10);
    expect(s.cacheRead).toBeCloseTo(0.003, 10);
    expect(s.cacheWrite).toBeCloseTo(0.0375, 10);
    // without the cache the 20,000 cached tokens were input: 0.06; with it 0.0405
    expect(s.savedByCache).toBeCloseTo(0.06 - 0.0405, 10);
    expect(formatDollars(s.total)).toBe("$0.0474");
  });

  it("a 1-hour write costs twice the input; OpenAI's writes cost nothing", () => {
    const c = costOf({ inputTokens: 0, outputTokens: 0, cacheWriteTokens: 1_000_000 }, priceFor("claude-haiku-4-5")!, "1h");
    expect(c.cacheWrite).toBeCloseTo(2, 10);
    expect(costOf({ inputTokens: 0, outputTokens: 0, cacheWriteTokens: 1_000_000 }, priceFor("gpt-5")!).cacheWrite).toBe(0);
  });

  it("the config's price beats the table; a model with no price gets none, not a guess", () => {
    expect(priceFor("gpt-5", { "gpt-5": { input: 1, output: 2 } })).toMatchObject({ input: 1, output: 2, source: "config" });
    expect(priceFor("llama3.2:3b")).toBeUndefined();
    expect(priceFor("claude-opus-5-5")).toBeUndefined();
    expect(priceFor("gpt-5")!.source).toMatch(/secondhand/);
  });
});
