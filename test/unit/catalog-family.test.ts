// Whose model a name is, by the catalog: /model uses it to pick the provider.
import { describe, expect, it } from "vitest";
import { familyOf } from "../../src/provider/catalog.js";

describe("familyOf", () => {
  it.each([
    ["gpt-4o", "openai"],
    ["GPT-4o-2024-08-06", "openai"],
    ["o3-mini", "openai"],
    ["gpt-5", "openai"],
    ["claude-sonnet-4-5", "anthropic"],
    ["claude-sonnet-4.5", "anthropic"],
    ["claude-haiku-4-5@20251001", "anthropic"],
  ] as const)("%s is %s's", (model, family) => {
    expect(familyOf(model)).toBe(family);
  });

  it.each(["llama3.2:3b", "qwen2.5-coder", "anthropic/claude-sonnet-4.5", "openai/gpt-4o", "gpt-4o-mini-but/not"])(
    "%s is nobody's: unknown, or a gateway's vendor/model id",
    (model) => {
      expect(familyOf(model)).toBeUndefined();
    },
  );
});
