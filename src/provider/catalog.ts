// What we know of a model: context window, max output, thinking mode, vision, lifecycle
// (docs/providers.md, Model catalog). A provider's Models API (model-facts.ts) beats the
// built-in table (catalog-table.ts), which is the offline fallback. Unknown models get no
// window at all: a guessed window would drive compaction wrongly.
import type { ProviderName } from "./types.js";
import { ANTHROPIC, OPENAI, type Entry, type Lifecycle, type ThinkingMode } from "./catalog-table.js";
import { serverFacts } from "./model-facts.js";

export type { Lifecycle, ThinkingMode } from "./catalog-table.js";

export interface ModelInfo {
  /** tokens the model can hold (input + output); undefined when unknown */
  contextWindow?: number;
  /** largest max_tokens the model accepts; undefined when unknown (callers pick a default) */
  maxOutput?: number;
  vision: boolean;
  /** false when neither the provider's Models API nor the table knows the id */
  known: boolean;
  /** the reasoning setting the model takes; undefined when unknown (sent as asked) */
  thinking?: ThinkingMode;
  lifecycle?: Lifecycle;
  /** where the figures come from: the provider's Models API, the table, or the table's
   * line rule for an id no source gives figures for */
  source?: "server" | "catalog" | "line";
  /** what was assumed, in words, for a model no source knows or only its line */
  assumed?: string;
}

/** The output limit assumed for a model nobody knows (the turn's default). */
export const UNKNOWN_MAX_OUTPUT = 8192;

/** A snapshot or alias of an id: "-20251001", "-2025-04-14", OpenAI's "-0613", "-latest". */
const SNAPSHOT = /^-(\d{8}|\d{4}-\d{2}-\d{2}|\d{4}|latest)$/;

function matches(id: string, entry: string): boolean {
  return id === entry || (id.startsWith(entry) && SNAPSHOT.test(id.slice(entry.length)));
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
  return table.find((e) => matches(id, e.id));
}

function tableEntry(provider: ProviderName, id: string): Entry | undefined {
  // A gateway (OpenRouter, LiteLLM) may serve either family through either API shape, and
  // the model's limits do not depend on the wire format; the provider's own table goes first.
  const own = provider === "anthropic" ? ANTHROPIC : OPENAI;
  const other = provider === "anthropic" ? OPENAI : ANTHROPIC;
  return find(own, id) ?? find(other, id);
}

/** Claude's version from an id ("claude-opus-6-1" → 6.1), for an id the table lacks. */
function claudeVersion(id: string): number | undefined {
  const m = /^claude-[a-z]+-(\d+)(?:-(\d))?(?:-|$)/.exec(id);
  return m ? Number(m[1]) + Number(m[2] ?? 0) / 10 : undefined;
}

/** The thinking a Claude the table does not know is assumed to take: adaptive from 4.6 on
 * (every later model in the SDK's list takes it), a budget before. */
function assumedClaudeThinking(id: string): ThinkingMode | undefined {
  const v = claudeVersion(id);
  if (v === undefined) return undefined;
  return v >= 4.6 ? "adaptive" : "budget";
}

export function lookupModel(provider: ProviderName, model: string): ModelInfo {
  const id = normalize(model);
  const served = serverFacts(model.trim()) ?? serverFacts(id);
  const e = tableEntry(provider, id);
  if (served) {
    const info: ModelInfo = { vision: served.vision ?? e?.vision ?? false, known: true, source: "server" };
    // the server's max_input_tokens: what a request may hold, the figure compaction keeps under
    const window = served.contextWindow ?? e?.contextWindow;
    if (window !== undefined) info.contextWindow = window;
    const out = served.maxOutput ?? e?.maxOutput;
    if (out !== undefined) info.maxOutput = out;
    const thinking = served.thinking ?? e?.thinking;
    if (thinking) info.thinking = thinking;
    const lifecycle = served.lifecycle ?? e?.lifecycle;
    if (lifecycle) info.lifecycle = lifecycle;
    return info;
  }
  if (!e) {
    const thinking = id.startsWith("claude-") ? assumedClaudeThinking(id) : undefined;
    const info: ModelInfo = { vision: false, known: false, ...(thinking ? { thinking } : {}) };
    return { ...info, assumed: assumedFor(info) };
  }
  const info: ModelInfo = {
    contextWindow: e.contextWindow,
    maxOutput: e.maxOutput,
    vision: e.vision,
    known: true,
    thinking: e.thinking,
    lifecycle: e.lifecycle,
    source: e.basis === "line" ? "line" : "catalog",
  };
  if (e.basis === "line") info.assumed = `no source gives ${e.id}'s figures: its line's smaller ones are used`;
  return info;
}

/** What is assumed of a model no source knows, in words (the status line and /model say it);
 * `info` may carry the user's own window, output limit or vision from the config. */
export function assumedFor(info: Pick<ModelInfo, "contextWindow" | "maxOutput" | "vision" | "thinking">): string {
  const window = info.contextWindow !== undefined ? `a window of ${info.contextWindow.toLocaleString("en-US")} tokens (config)` : "no window (automatic compaction off)";
  const out = `at most ${(info.maxOutput ?? UNKNOWN_MAX_OUTPUT).toLocaleString("en-US")} output tokens`;
  const thinking = info.thinking ? `, ${info.thinking} thinking by its version` : "";
  return `${window}, ${out}, ${info.vision ? "images (config)" : "no images"}${thinking}`;
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
  return /^o\d/.test(id) || id.startsWith("gpt-5") || id.startsWith("codex-");
}

/** The thinking a model takes, by the provider's Models API, the table, or (for a Claude the
 * table lacks) its version; undefined when nothing says. */
export function thinkingMode(model: string): ThinkingMode | undefined {
  return lookupModel(normalize(model).startsWith("claude-") ? "anthropic" : "openai", model).thinking;
}

/** Models that accept only adaptive thinking steered by an effort (docs/providers.md,
 * Anthropic Messages). */
export function usesAdaptiveThinking(model: string): boolean {
  return thinkingMode(model) === "adaptive";
}

/**
 * Whether the model takes a reasoning setting (OpenAI's `reasoning_effort` / `reasoning`,
 * Anthropic's thinking): true for the models the catalog knows to reason, false for the
 * ones it knows do not (gpt-4o, gpt-4.1, chat-latest, Claude 3.5), undefined for a model it
 * does not know (a local or gateway model: the user's setting is sent as asked).
 */
export function supportsReasoning(model: string): boolean | undefined {
  const t = thinkingMode(model);
  if (t !== undefined) return t !== "none";
  const id = normalize(model);
  // the families' rules, for ids the table lacks
  if (/^gpt-5(\.\d+)?-chat/.test(id) || /^chatgpt-/.test(id)) return false;
  if (/^o\d/.test(id) || id.startsWith("gpt-5")) return true;
  if (/^gpt-4|^gpt-3/.test(id)) return false;
  return undefined;
}

/** Whether interleaved thinking between tool calls needs Anthropic's beta header for this
 * model: budget-thinking Claude 4 models do; adaptive thinking interleaves by itself. */
export function needsInterleavedBeta(model: string): boolean {
  const id = normalize(model);
  return id.startsWith("claude-") && !id.startsWith("claude-3-") && thinkingMode(model) === "budget";
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

/** The models the catalog offers for a provider, in its order (the /model list): retired
 * and legacy ones are left out (they still resolve, for stored sessions). */
export function catalogModels(provider: ProviderName): string[] {
  return (provider === "anthropic" ? ANTHROPIC : OPENAI).filter((e) => e.lifecycle !== "retired" && !e.legacy).map((e) => e.id);
}
