// What we know about common models: context window, max output, vision
// (docs/providers.md, Model catalog).
// Unknown models get no window at all: a guessed window would drive compaction wrongly.
import type { ProviderName } from "./types.js";

export interface ModelInfo {
  /** tokens the model can hold (input + output); undefined when unknown */
  contextWindow?: number;
  /** largest max_tokens the model accepts; undefined when unknown (callers pick a default) */
  maxOutput?: number;
  vision: boolean;
  /** false when the catalog has no entry for the id */
  known: boolean;
}

interface Entry {
  /** matches the id itself or the id followed by "-…" (dated snapshots, "-latest") */
  prefix: string;
  contextWindow: number;
  maxOutput: number;
  vision: boolean;
}

// Order matters: more specific prefixes first ("claude-opus-4-6" before "claude-opus-4").
const ANTHROPIC: Entry[] = [
  { prefix: "claude-opus-4-8", contextWindow: 1_000_000, maxOutput: 128_000, vision: true },
  { prefix: "claude-opus-4-7", contextWindow: 1_000_000, maxOutput: 128_000, vision: true },
  { prefix: "claude-opus-4-6", contextWindow: 1_000_000, maxOutput: 128_000, vision: true },
  // sources disagree (64K vs 128K): the smaller one never makes a request the API rejects
  { prefix: "claude-sonnet-4-6", contextWindow: 1_000_000, maxOutput: 64_000, vision: true },
  { prefix: "claude-opus-4-5", contextWindow: 200_000, maxOutput: 64_000, vision: true },
  { prefix: "claude-sonnet-4-5", contextWindow: 200_000, maxOutput: 64_000, vision: true },
  { prefix: "claude-haiku-4-5", contextWindow: 200_000, maxOutput: 64_000, vision: true },
  { prefix: "claude-opus-4-1", contextWindow: 200_000, maxOutput: 32_000, vision: true },
  { prefix: "claude-opus-4", contextWindow: 200_000, maxOutput: 32_000, vision: true },
  // 1M only with a beta header we do not send
  { prefix: "claude-sonnet-4", contextWindow: 200_000, maxOutput: 64_000, vision: true },
  { prefix: "claude-3-7-sonnet", contextWindow: 200_000, maxOutput: 64_000, vision: true },
  { prefix: "claude-3-5-sonnet", contextWindow: 200_000, maxOutput: 8_192, vision: true },
  { prefix: "claude-3-5-haiku", contextWindow: 200_000, maxOutput: 8_192, vision: true },
  { prefix: "claude-3-opus", contextWindow: 200_000, maxOutput: 4_096, vision: true },
  { prefix: "claude-3-haiku", contextWindow: 200_000, maxOutput: 4_096, vision: true },
];

const OPENAI: Entry[] = [
  { prefix: "gpt-5-chat-latest", contextWindow: 128_000, maxOutput: 16_384, vision: true },
  { prefix: "gpt-5.1-chat-latest", contextWindow: 128_000, maxOutput: 16_384, vision: true },
  // sources disagree (1.05M vs 272K): the smaller one never overflows
  { prefix: "gpt-5.4", contextWindow: 272_000, maxOutput: 128_000, vision: true },
  { prefix: "gpt-5.2", contextWindow: 400_000, maxOutput: 128_000, vision: true },
  { prefix: "gpt-5.1", contextWindow: 400_000, maxOutput: 128_000, vision: true },
  { prefix: "gpt-5", contextWindow: 400_000, maxOutput: 128_000, vision: true },
  { prefix: "gpt-4.1", contextWindow: 1_047_576, maxOutput: 32_768, vision: true },
  { prefix: "gpt-4o", contextWindow: 128_000, maxOutput: 16_384, vision: true },
  { prefix: "gpt-4-turbo", contextWindow: 128_000, maxOutput: 4_096, vision: true },
  { prefix: "o4-mini", contextWindow: 200_000, maxOutput: 100_000, vision: true },
  { prefix: "o3-mini", contextWindow: 200_000, maxOutput: 100_000, vision: false },
  { prefix: "o3", contextWindow: 200_000, maxOutput: 100_000, vision: true },
  { prefix: "o1-preview", contextWindow: 128_000, maxOutput: 32_768, vision: false },
  { prefix: "o1-mini", contextWindow: 128_000, maxOutput: 65_536, vision: false },
  { prefix: "o1", contextWindow: 200_000, maxOutput: 100_000, vision: true },
];

function matches(id: string, prefix: string): boolean {
  return id === prefix || id.startsWith(prefix + "-");
}

/** Lower-cases, drops a gateway's "vendor/" prefix and Vertex's "@date", and spells Claude
 * versions with dashes ("claude-sonnet-4.5" → "claude-sonnet-4-5"). */
function normalize(model: string): string {
  let id = model.trim().toLowerCase();
  const slash = id.lastIndexOf("/");
  if (slash >= 0) id = id.slice(slash + 1);
  id = id.replace("@", "-");
  if (id.startsWith("claude-")) id = id.replace(/(\d)\.(\d)/g, "$1-$2");
  return id;
}

function find(table: Entry[], id: string): Entry | undefined {
  return table.find((e) => matches(id, e.prefix));
}

export function lookupModel(provider: ProviderName, model: string): ModelInfo {
  const id = normalize(model);
  // A gateway (OpenRouter, LiteLLM) may serve either family through either API shape, and
  // the model's limits do not depend on the wire format; the provider's own table goes first.
  const own = provider === "anthropic" ? ANTHROPIC : OPENAI;
  const other = provider === "anthropic" ? OPENAI : ANTHROPIC;
  const e = find(own, id) ?? find(other, id);
  if (!e) return { vision: false, known: false };
  return { contextWindow: e.contextWindow, maxOutput: e.maxOutput, vision: e.vision, known: true };
}

/**
 * Whose model this is, by the catalog: "gpt-4o" → openai, "claude-sonnet-4-5" → anthropic.
 * Undefined for a model the catalog does not list, and for a gateway's "vendor/model" id
 * (OpenRouter, LiteLLM), which names the model's maker, not the API that serves it.
 */
export function familyOf(model: string): ProviderName | undefined {
  if (model.includes("/")) return undefined;
  const id = normalize(model);
  if (find(ANTHROPIC, id)) return "anthropic";
  if (find(OPENAI, id)) return "openai";
  return undefined;
}

export function defaultModel(provider: ProviderName): string {
  return provider === "anthropic" ? "claude-sonnet-4-6" : "gpt-5";
}

/** OpenAI's own reasoning-era models reject `max_tokens` and want `max_completion_tokens`. */
export function wantsMaxCompletionTokens(model: string): boolean {
  const id = normalize(model);
  return /^o\d/.test(id) || id.startsWith("gpt-5");
}

/** Models that accept only adaptive thinking steered by an effort (docs/providers.md,
 * Anthropic Messages). */
export function usesAdaptiveThinking(model: string): boolean {
  return /(opus|sonnet)-4-[6-8]/.test(normalize(model));
}

/**
 * Whether the model takes a reasoning setting (OpenAI's `reasoning_effort` / `reasoning`,
 * Anthropic's thinking): true for the models the catalog knows to reason, false for the
 * ones it knows do not (gpt-4o, gpt-4.1, Claude 3.5), undefined for a model it does not
 * know (a local or gateway model: the user's setting is sent as asked).
 */
export function supportsReasoning(model: string): boolean | undefined {
  const id = normalize(model);
  if (/^o\d/.test(id)) return !id.startsWith("o1-mini") && !id.startsWith("o1-preview");
  if (id.startsWith("gpt-5")) return !/^gpt-5(\.\d+)?-chat/.test(id);
  if (/^gpt-4|^gpt-3/.test(id)) return false;
  if (id.startsWith("claude-")) return !/^claude-3-(5|opus|haiku|sonnet)/.test(id);
  return undefined;
}

/**
 * The shortest prefix, in tokens, that a Claude model caches (Anthropic's prompt-caching docs,
 * "minimum cacheable prompt length"): a cache breakpoint before it is ignored by the API, so
 * the adapter does not spend one there. Models the catalog does not know get the lowest
 * minimum: an ignored breakpoint costs nothing, a missing one costs every cache read.
 */
export function minCacheableTokens(model: string): number {
  const id = normalize(model);
  if (/^claude-(opus-4-[5-9]|haiku-4-5)/.test(id)) return 4096;
  if (/^claude-(sonnet-4-6|3-5-haiku|3-haiku)/.test(id)) return 2048;
  return 1024;
}

/** What one provider's API takes as an image (docs/providers.md, Images; the reference's
 * figures). A limit left out is one the provider does not state. */
export interface ImageLimits {
  provider: ProviderName;
  /** the largest base64 payload of one image (Anthropic counts the encoded size) */
  maxBase64Bytes?: number;
  /** the largest image file, decoded */
  maxBytes?: number;
  /** the largest width or height in pixels */
  maxSide?: number;
  /** a smaller side limit for requests that carry more than `over` images */
  manyImages?: { over: number; maxSide: number };
  /** what one request may carry in all: images each taken can still be too many together */
  perRequest?: { maxImages: number; maxBase64Bytes: number };
  mediaTypes: readonly string[];
}

const IMAGE_LIMITS: Record<ProviderName, ImageLimits> = {
  // "image exceeds 5 MB maximum: N bytes > 5242880 bytes"; 8000 px a side, 2000 px when a
  // request carries more than 20 images ("… max allowed size for many-image requests")
  anthropic: {
    provider: "anthropic",
    maxBase64Bytes: 5_242_880,
    maxSide: 8000,
    manyImages: { over: 20, maxSide: 2000 },
    // 100 images a request (200K-context models; 600 on others, the smaller kept); the body
    // whole is capped at 32 MB, so images get 24 MB of it and the text and tools the rest
    perRequest: { maxImages: 100, maxBase64Bytes: 24 * 1_048_576 },
    mediaTypes: ["image/jpeg", "image/png", "image/gif", "image/webp"],
  },
  // up to 500 images and 50 MB of them a request (the reference's figures, counted as base64
  // here: the stricter reading)
  openai: {
    provider: "openai",
    maxBytes: 20 * 1024 * 1024,
    perRequest: { maxImages: 500, maxBase64Bytes: 50 * 1_048_576 },
    mediaTypes: ["image/png", "image/jpeg", "image/webp", "image/gif"],
  },
};

export function imageLimits(provider: ProviderName): ImageLimits {
  return IMAGE_LIMITS[provider];
}

/** The models the catalog lists for a provider, in its order (the /model list). */
export function catalogModels(provider: ProviderName): string[] {
  return (provider === "anthropic" ? ANTHROPIC : OPENAI).map((e) => e.prefix);
}
