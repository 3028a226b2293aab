// Every model id in the official SDKs' model lists, through the catalog: each gets the
// window, output limit, thinking mode and vision written here by hand (docs/providers.md,
// Model catalog, names the sources), and none the SDK lists as current is unknown.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catalogModels, familyOf, lookupModel, supportsReasoning, type ThinkingMode } from "../../src/provider/catalog.js";
import {
  ANTHROPIC_MODEL_IDS,
  ANTHROPIC_SDK_VERSION,
  OPENAI_CHAT_MODEL_IDS,
  OPENAI_RESPONSES_MODEL_IDS,
  OPENAI_SDK_VERSION,
} from "../helpers/sdk-models.js";

/** the quoted ids of `export type NAME = ...;` in a .d.ts file */
function unionIds(file: string, name: string): string[] {
  const src = readFileSync(file, "utf8");
  const m = new RegExp(`export type ${name} = ([^;]*);`).exec(src);
  if (!m) throw new Error(`${name} not found in ${file}`);
  return [...m[1]!.matchAll(/'([^']+)'/g)].map((x) => x[1]!);
}

/** a file of an installed package (the SDKs export no package.json, so it is read by path) */
function sdkFile(pkg: string, rel: string): string {
  return new URL(`../../node_modules/${pkg}/${rel}`, import.meta.url).pathname;
}

describe("the fixture is the installed SDKs' lists", () => {
  it("names the installed versions", () => {
    const version = (pkg: string): string => (JSON.parse(readFileSync(sdkFile(pkg, "package.json"), "utf8")) as { version: string }).version;
    expect(version("@anthropic-ai/sdk")).toBe(ANTHROPIC_SDK_VERSION);
    expect(version("openai")).toBe(OPENAI_SDK_VERSION);
  });

  it("holds every id of Anthropic's Model type and OpenAI's ChatModel and ResponsesModel", () => {
    expect(unionIds(sdkFile("@anthropic-ai/sdk", "resources/messages/messages.d.ts"), "Model")).toEqual(ANTHROPIC_MODEL_IDS);
    const shared = sdkFile("openai", "resources/shared.d.ts");
    const chat = unionIds(shared, "ChatModel");
    expect(chat).toEqual(OPENAI_CHAT_MODEL_IDS);
    expect(unionIds(shared, "ResponsesModel").filter((id) => !chat.includes(id))).toEqual(OPENAI_RESPONSES_MODEL_IDS);
  });
});

interface Want {
  window: number;
  output: number;
  thinking: ThinkingMode;
  vision: boolean;
}

const M = 1_000_000;
const want = (window: number, output: number, thinking: ThinkingMode, vision = true): Want => ({ window, output, thinking, vision });

/** What each id must get, by hand: the date suffix of a snapshot is cut before looking here. */
const ANTHROPIC_WANT: Record<string, Want> = {
  "claude-fable-5-2": want(M, 128_000, "adaptive"),
  "claude-fable-5-1": want(M, 128_000, "adaptive"),
  "claude-fable-5": want(M, 128_000, "adaptive"),
  "claude-opus-5-5": want(M, 128_000, "adaptive"),
  "claude-opus-5": want(M, 128_000, "adaptive"),
  "claude-sonnet-5": want(M, 128_000, "adaptive"),
  // no source gives these figures: the line's conservative ones
  "claude-sonnet-5-5": want(200_000, 64_000, "adaptive"),
  "claude-haiku-5-5": want(200_000, 64_000, "adaptive"),
  "claude-mythos-5-2": want(200_000, 64_000, "adaptive"),
  "claude-mythos-5-1": want(200_000, 64_000, "adaptive"),
  "claude-mythos-5": want(200_000, 64_000, "adaptive"),
  "claude-mythos-preview": want(200_000, 64_000, "adaptive"),
  "claude-opus-4-8": want(M, 128_000, "adaptive"),
  "claude-opus-4-7": want(M, 128_000, "adaptive"),
  "claude-opus-4-6": want(M, 128_000, "adaptive"),
  "claude-sonnet-4-6": want(M, 64_000, "adaptive"),
  "claude-haiku-4-5": want(200_000, 64_000, "budget"),
  "claude-opus-4-5": want(200_000, 64_000, "budget"),
};

const GPT5 = (thinking: ThinkingMode = "effort"): Want => want(400_000, 128_000, thinking);
const GPT54 = want(272_000, 128_000, "effort");
const CHAT_LATEST = want(128_000, 16_384, "none");
const O = want(200_000, 100_000, "effort");
const GPT4O = want(128_000, 16_384, "none");
const GPT41 = want(1_047_576, 32_768, "none");
const PREVIEW_4O = want(128_000, 16_384, "none", false);
const TURBO_PREVIEW = want(128_000, 4_096, "none", false);

const OPENAI_WANT: Record<string, Want> = {
  "gpt-5.6-sol": GPT54,
  "gpt-5.6-terra": GPT54,
  "gpt-5.6-luna": GPT54,
  "gpt-5.4": GPT54,
  "gpt-5.4-mini": GPT54,
  "gpt-5.4-nano": GPT54,
  "gpt-5.3-chat-latest": CHAT_LATEST,
  "gpt-5.2": GPT5(),
  "gpt-5.2-chat-latest": CHAT_LATEST,
  "gpt-5.2-pro": GPT5(),
  "gpt-5.1": GPT5(),
  "gpt-5.1-codex": GPT5(),
  "gpt-5.1-codex-max": GPT5(),
  "gpt-5.1-mini": GPT5(),
  "gpt-5.1-chat-latest": CHAT_LATEST,
  "gpt-5": GPT5(),
  "gpt-5-mini": GPT5(),
  "gpt-5-nano": GPT5(),
  "gpt-5-chat-latest": CHAT_LATEST,
  "gpt-5-codex": GPT5(),
  "gpt-5-pro": GPT5(),
  "gpt-4.1": GPT41,
  "gpt-4.1-mini": GPT41,
  "gpt-4.1-nano": GPT41,
  "o4-mini": O,
  "o3": O,
  "o3-mini": want(200_000, 100_000, "effort", false),
  "o3-pro": O,
  "o3-deep-research": O,
  "o4-mini-deep-research": O,
  "o1": O,
  "o1-pro": O,
  "o1-preview": want(128_000, 32_768, "none", false),
  "o1-mini": want(128_000, 65_536, "none", false),
  "codex-mini-latest": O,
  "gpt-4o": GPT4O,
  "gpt-4o-mini": GPT4O,
  "chatgpt-4o-latest": GPT4O,
  "gpt-4o-audio-preview": PREVIEW_4O,
  "gpt-4o-mini-audio-preview": PREVIEW_4O,
  "gpt-4o-search-preview": PREVIEW_4O,
  "gpt-4o-mini-search-preview": PREVIEW_4O,
  "computer-use-preview": want(8_192, 1_024, "none"),
  "gpt-4-turbo": want(128_000, 4_096, "none"),
  "gpt-4-turbo-preview": TURBO_PREVIEW,
  "gpt-4-0125-preview": TURBO_PREVIEW,
  "gpt-4-1106-preview": TURBO_PREVIEW,
  "gpt-4-vision-preview": want(128_000, 4_096, "none"),
  "gpt-4": want(8_192, 8_192, "none", false),
  "gpt-4-32k": want(32_768, 8_192, "none", false),
  "gpt-3.5-turbo": want(16_385, 4_096, "none", false),
  "gpt-3.5-turbo-16k": want(16_385, 4_096, "none", false),
};

/** the id without a snapshot date ("-20251001", "-2025-04-14", "-0613") */
function base(id: string): string {
  return id.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|\d{4})$/, "");
}

describe.each([
  ["anthropic", ANTHROPIC_MODEL_IDS, ANTHROPIC_WANT],
  ["openai", [...OPENAI_CHAT_MODEL_IDS, ...OPENAI_RESPONSES_MODEL_IDS], OPENAI_WANT],
] as const)("every %s id in the SDK", (provider, ids, table) => {
  it.each(ids.map((id) => [id]))("%s", (id) => {
    const w = table[id] ?? table[base(id)];
    expect(w, `no expectation written for ${id}`).toBeDefined();
    const m = lookupModel(provider, id);
    expect(m.known).toBe(true);
    expect({ window: m.contextWindow, output: m.maxOutput, thinking: m.thinking, vision: m.vision }).toEqual(w);
    // the family rule finds the same provider, and reasoning follows the thinking mode
    expect(familyOf(id)).toBe(provider);
    expect(supportsReasoning(id)).toBe(w!.thinking !== "none");
    expect(m.lifecycle).not.toBe("retired");
  });
});

describe("what the issue named", () => {
  it("chat-latest entries are ChatGPT's: 128K / 16,384 and no reasoning setting", () => {
    for (const id of ["gpt-5-chat-latest", "gpt-5.1-chat-latest", "gpt-5.2-chat-latest", "gpt-5.3-chat-latest", "chatgpt-4o-latest"]) {
      const m = lookupModel("openai", id);
      expect([m.contextWindow, m.maxOutput, supportsReasoning(id)]).toEqual([128_000, 16_384, false]);
    }
  });

  it("no family swallows a neighbour", () => {
    expect(lookupModel("openai", "gpt-4o-mini-search-preview").vision).toBe(false);
    expect(lookupModel("openai", "gpt-4o-mini").vision).toBe(true);
    expect(lookupModel("openai", "gpt-5.2-chat-latest").contextWindow).toBe(128_000);
    expect(lookupModel("openai", "gpt-5.2").contextWindow).toBe(400_000);
    expect(lookupModel("anthropic", "claude-opus-5-5").known).toBe(true);
    expect(lookupModel("anthropic", "claude-opus-5-6").known).toBe(false);
    expect(lookupModel("anthropic", "claude-opus-4").maxOutput).toBe(32_000);
    expect(lookupModel("openai", "gpt-4o-extra").known).toBe(false);
    expect(lookupModel("openai", "gpt-5.6").known).toBe(false);
  });

  it("/model offers no retired or legacy model, and every SDK-current Claude", () => {
    const offered = catalogModels("anthropic");
    for (const gone of ["claude-sonnet-4-5", "claude-opus-4-1", "claude-opus-4", "claude-sonnet-4", "claude-3-7-sonnet", "claude-3-5-sonnet", "claude-3-opus"]) {
      expect(offered).not.toContain(gone);
      // still resolved, for stored sessions
      expect(lookupModel("anthropic", gone).lifecycle).toBe("retired");
    }
    for (const id of ANTHROPIC_MODEL_IDS) if (base(id) === id && id !== "claude-mythos-preview") expect(offered).toContain(id);
    expect(catalogModels("openai")).not.toContain("gpt-3.5-turbo");
    expect(catalogModels("openai")).toContain("gpt-5.6-sol");
  });

  it("a Claude no source knows is unknown, with what was assumed", () => {
    const m = lookupModel("anthropic", "claude-opus-6");
    expect(m.known).toBe(false);
    expect(m.contextWindow).toBeUndefined();
    expect(m.thinking).toBe("adaptive");
    expect(m.assumed).toMatch(/no window .* 8,192 output tokens.*adaptive thinking/);
  });
});
