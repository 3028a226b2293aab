// The model catalog: known limits for common models, and no guesses for the rest.
import { describe, expect, it } from "vitest";
import { defaultModel, lookupModel, usesAdaptiveThinking, wantsMaxCompletionTokens } from "../../src/provider/catalog.js";

describe("lookupModel", () => {
  it.each([
    ["anthropic", "claude-opus-4-7", 1_000_000, 128_000],
    ["anthropic", "claude-opus-4-6", 1_000_000, 128_000],
    ["anthropic", "claude-sonnet-4-6", 1_000_000, 64_000],
    ["anthropic", "claude-sonnet-4-5", 200_000, 64_000],
    ["anthropic", "claude-sonnet-4-5-20250929", 200_000, 64_000],
    ["anthropic", "claude-haiku-4-5-20251001", 200_000, 64_000],
    ["anthropic", "claude-opus-4-1-20250805", 200_000, 32_000],
    ["anthropic", "claude-opus-4-20250514", 200_000, 32_000],
    ["anthropic", "claude-sonnet-4-20250514", 200_000, 64_000],
    ["anthropic", "claude-3-7-sonnet-latest", 200_000, 64_000],
    ["anthropic", "claude-3-5-sonnet-20241022", 200_000, 8_192],
    ["anthropic", "claude-3-5-haiku-20241022", 200_000, 8_192],
    ["openai", "gpt-4o", 128_000, 16_384],
    ["openai", "gpt-4o-2024-08-06", 128_000, 16_384],
    ["openai", "gpt-4o-mini", 128_000, 16_384],
    ["openai", "gpt-4.1", 1_047_576, 32_768],
    ["openai", "gpt-4.1-nano-2025-04-14", 1_047_576, 32_768],
    ["openai", "o1", 200_000, 100_000],
    ["openai", "o3-mini", 200_000, 100_000],
    ["openai", "o4-mini-2025-04-16", 200_000, 100_000],
    ["openai", "gpt-5", 400_000, 128_000],
    ["openai", "gpt-5-mini", 400_000, 128_000],
    ["openai", "gpt-5.1-codex", 400_000, 128_000],
    ["openai", "gpt-5-chat-latest", 128_000, 16_384],
  ] as const)("%s %s: window %i, max output %i", (provider, model, window, maxOut) => {
    const m = lookupModel(provider, model);
    expect(m.known).toBe(true);
    expect(m.contextWindow).toBe(window);
    expect(m.maxOutput).toBe(maxOut);
  });

  it("knows which models see images", () => {
    expect(lookupModel("anthropic", "claude-haiku-4-5").vision).toBe(true);
    expect(lookupModel("openai", "gpt-4o").vision).toBe(true);
    expect(lookupModel("openai", "o3-mini").vision).toBe(false);
  });

  it("does not let a short prefix swallow a longer id", () => {
    expect(lookupModel("openai", "o3-mini").vision).toBe(false);
    expect(lookupModel("openai", "o3").vision).toBe(true);
    expect(lookupModel("anthropic", "claude-opus-4-6").maxOutput).toBe(128_000);
    expect(lookupModel("anthropic", "claude-opus-4").maxOutput).toBe(32_000);
    // a snapshot matches (a date, "-latest"); any other tail is another model
    expect(lookupModel("openai", "gpt-4o-2024-11-20").known).toBe(true);
    expect(lookupModel("openai", "gpt-4o-extra").known).toBe(false);
    expect(lookupModel("openai", "gpt-4oo").known).toBe(false);
  });

  it("finds a model behind a gateway's vendor prefix or with a dotted version", () => {
    expect(lookupModel("openai", "anthropic/claude-sonnet-4.5").contextWindow).toBe(200_000);
    expect(lookupModel("openai", "openai/gpt-4.1").contextWindow).toBe(1_047_576);
    expect(lookupModel("anthropic", "claude-sonnet-4-5@20250929").contextWindow).toBe(200_000);
  });

  it("never guesses for an unknown model", () => {
    for (const [p, m] of [
      ["openai", "qwen2.5-coder:7b"],
      ["openai", "llama3.1"],
      ["anthropic", "claude-next-unknown"],
    ] as const) {
      const info = lookupModel(p, m);
      expect(info).toMatchObject({ vision: false, known: false });
      expect(info.contextWindow).toBeUndefined();
      expect(info.maxOutput).toBeUndefined();
      expect(info.assumed).toMatch(/^no window/);
    }
  });
});

describe("model helpers", () => {
  it("has a known default model for each provider", () => {
    expect(lookupModel("anthropic", defaultModel("anthropic")).known).toBe(true);
    expect(lookupModel("openai", defaultModel("openai")).known).toBe(true);
  });

  it("says which models want max_completion_tokens and which take adaptive thinking", () => {
    expect(["o1", "o3-mini", "gpt-5", "gpt-5.2"].every(wantsMaxCompletionTokens)).toBe(true);
    expect(["gpt-4o", "gpt-4.1", "llama3", "deepseek-chat"].some(wantsMaxCompletionTokens)).toBe(false);
    expect(["claude-opus-4-6", "claude-opus-4-7", "claude-sonnet-4-6"].every(usesAdaptiveThinking)).toBe(true);
    expect(["claude-sonnet-4-5", "claude-opus-4-5", "claude-3-7-sonnet"].some(usesAdaptiveThinking)).toBe(false);
  });
});
