// What /model means, decided from data alone: the current model, where each provider's
// requests go, and the catalog. The controller applies the answer (controller-commands.test.ts).
import { describe, expect, it } from "vitest";
import { chooseModel, imagesNotTaken, isOwnApi, lookupModel, ModelChoiceError } from "../../src/session/controller/model-choice.js";
import { imageTarget } from "../../src/replay/replay.js";
import type { ImageBlock, StoredMessage } from "../../src/record/types.js";

const OWN = { anthropic: "https://api.anthropic.com", openai: "https://api.openai.com/v1" } as const;
const GATEWAY = { anthropic: "http://127.0.0.1:4000", openai: "http://127.0.0.1:4000/v1" } as const;
const onAnthropic = { provider: "anthropic", model: "claude-sonnet-4-5" } as const;
const onOpenai = { provider: "openai", model: "gpt-4o" } as const;

describe("chooseModel", () => {
  it("takes an explicit provider:NAME of the provider's own family as it is", () => {
    expect(chooseModel("openai:gpt-4o-mini", onAnthropic, OWN)).toEqual({ provider: "openai", model: "gpt-4o-mini" });
    expect(chooseModel("Anthropic:claude-haiku-4-5", onOpenai, OWN)).toEqual({ provider: "anthropic", model: "claude-haiku-4-5" });
  });

  it("gives a provider's default model for its name alone, or for provider: with no name", () => {
    expect(chooseModel("openai", onAnthropic, OWN)).toEqual({ provider: "openai", model: "gpt-5" });
    expect(chooseModel("ANTHROPIC", onOpenai, OWN)).toEqual({ provider: "anthropic", model: "claude-sonnet-4-6" });
    expect(chooseModel("openai: ", onAnthropic, OWN)).toEqual({ provider: "openai", model: "gpt-5" });
  });

  it("refuses another family's model named for a provider's own API, and says what stays and what to type", () => {
    const refused = (): unknown => chooseModel("anthropic:gpt-4o", onOpenai, OWN);
    expect(refused).toThrow(ModelChoiceError);
    expect(refused).toThrow(
      "anthropic:gpt-4o cannot work: gpt-4o is OpenAI's model (by the catalog), and Anthropic's API at https://api.anthropic.com does not serve it. The model stays openai:gpt-4o; use /model openai:gpt-4o.",
    );
  });

  it("allows another family's model through a gateway, and says how it is sent", () => {
    expect(chooseModel("anthropic:gpt-4o", onOpenai, GATEWAY)).toEqual({
      provider: "anthropic",
      model: "gpt-4o",
      said: "The catalog lists gpt-4o as OpenAI's; it is sent in the anthropic API shape to http://127.0.0.1:4000, as a gateway would take it.",
    });
  });

  it("sends a bare catalog name to its family's provider, and says the provider switched", () => {
    expect(chooseModel("gpt-4o", onAnthropic, OWN)).toEqual({
      provider: "openai",
      model: "gpt-4o",
      said: "Provider switched from anthropic to openai: the catalog lists gpt-4o as OpenAI's.",
    });
  });

  it("through a gateway, says how to stay with the old provider", () => {
    expect(chooseModel("claude-haiku-4-5", onOpenai, GATEWAY).said).toBe(
      "Provider switched from openai to anthropic: the catalog lists claude-haiku-4-5 as Anthropic's. (/model openai:claude-haiku-4-5 sends it to http://127.0.0.1:4000/v1 instead.)",
    );
  });

  it("keeps the current provider for a name the catalog does not know, or of its own family", () => {
    expect(chooseModel("llama3.2:3b", onOpenai, GATEWAY)).toEqual({ provider: "openai", model: "llama3.2:3b" });
    expect(chooseModel("anthropic/claude-sonnet-4.5", onOpenai, GATEWAY)).toEqual({ provider: "openai", model: "anthropic/claude-sonnet-4.5" });
    expect(chooseModel("claude-haiku-4-5", onAnthropic, OWN)).toEqual({ provider: "anthropic", model: "claude-haiku-4-5" });
  });
});

describe("isOwnApi", () => {
  it("is the provider's default host, whatever the path; anything else, or no URL at all, is not", () => {
    expect(isOwnApi("openai", "https://api.openai.com/v2")).toBe(true);
    expect(isOwnApi("anthropic", "https://api.anthropic.com")).toBe(true);
    expect(isOwnApi("anthropic", "https://api.openai.com/v1")).toBe(false);
    expect(isOwnApi("openai", "http://127.0.0.1:11434/v1")).toBe(false);
    expect(isOwnApi("openai", "not a url")).toBe(false);
  });
});

describe("lookupModel", () => {
  it("gives the catalog's facts, with the user's own window and vision over them", () => {
    expect(lookupModel("anthropic", "claude-sonnet-4-5", {})).toMatchObject({ contextWindow: 200_000, vision: true, known: true });
    expect(lookupModel("anthropic", "claude-sonnet-4-5", { contextWindow: 50_000, vision: false })).toMatchObject({ contextWindow: 50_000, vision: false, known: true });
    expect(lookupModel("openai", "llama3.2:3b", {})).toEqual({
      vision: false,
      known: false,
      assumed: "no window (automatic compaction off), at most 8,192 output tokens, no images",
    });
    expect(lookupModel("openai", "llama3.2:3b", { contextWindow: 8192, vision: true })).toEqual({
      contextWindow: 8192,
      vision: true,
      known: false,
      assumed: "a window of 8,192 tokens (config), at most 8,192 output tokens, images (config)",
    });
  });
});

describe("imagesNotTaken", () => {
  const image = (bytes: number): ImageBlock => ({ type: "image", mediaType: "image/png", data: "", bytes, width: 3, height: 2 });
  const message = (seq: number, blocks: StoredMessage["blocks"]): StoredMessage => ({ id: seq, sessionId: "s", seq, role: "user", blocks, status: "complete", createdAt: "2025-01-01T00:00:00.000Z" });
  const history = [message(1, [image(1000), { type: "text", text: "look" }]), message(2, [image(5 * 1024 * 1024)])];

  it("counts the stored images the target's limits refuse", () => {
    expect(imagesNotTaken(history, imageTarget("anthropic", true))).toBe(1);
    expect(imagesNotTaken(history, imageTarget("openai", true))).toBe(0);
  });

  it("counts every image for a model that cannot see", () => {
    expect(imagesNotTaken(history, imageTarget("anthropic", false))).toBe(2);
  });
});
