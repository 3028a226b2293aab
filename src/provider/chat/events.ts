// Chat Completions stream chunks as zod takes them, the hand-checked fast path for the hot
// chunk, and what a finish reason or an error type means.
import { z } from "zod";
import { isObj } from "../json.js";
import type { ProviderErrorKind, StopReason } from "../types.js";

export const usageSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
});

export const toolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const choiceSchema = z.object({
  index: z.number().int().nullish(),
  delta: z
    .object({
      content: z.string().nullish(),
      refusal: z.string().nullish(),
      // servers disagree on the name and a few send other shapes here: strings only
      reasoning_content: z.unknown().optional(),
      reasoning: z.unknown().optional(),
      reasoning_text: z.unknown().optional(),
      tool_calls: z.array(toolCallDeltaSchema).nullish(),
    })
    .nullish(),
  finish_reason: z.string().nullish(),
  usage: usageSchema.nullish(),
});

export const chunkSchema = z.object({
  choices: z.array(choiceSchema).nullish(),
  usage: usageSchema.nullish(),
});

export const errorChunkSchema = z.object({
  error: z.object({
    message: z.string().nullish(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});

/** for the test that holds the fast path to zod */
export const chatChunkSchema = chunkSchema;
type Chunk = z.infer<typeof chunkSchema>;

/** A copy of `o` with those of `keys` it has: what z.object() gives for fields it accepted. */
function pick<T>(o: Record<string, unknown>, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in o) out[k] = o[k];
  return out as T;
}

const CHUNK_KEYS = ["choices", "usage"] as const;
const CHOICE_KEYS = ["index", "delta", "finish_reason", "usage"] as const;
const DELTA_KEYS = ["content", "refusal", "reasoning_content", "reasoning", "reasoning_text", "tool_calls"] as const;

/**
 * The hot chunk (one choice whose delta carries text, and no usage or tool calls: nearly
 * every chunk of an answer) checked by hand instead of a zod parse per chunk (the stream's
 * largest single cost). Each condition is chunkSchema's own for that shape and the value is
 * what it would give (declared fields only); anything else, or anything that fails here, goes
 * to zod, which also words the error. test/unit/stream-fast-path.test.ts holds the two to the
 * same answers on random and hostile chunks.
 */
export function fastChatChunk(raw: unknown): Chunk | undefined {
  if (!isObj(raw) || raw["usage"] != null) return undefined;
  const choices = raw["choices"];
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const c: unknown = choices[0];
  if (!isObj(c) || c["usage"] != null) return undefined;
  const index = c["index"];
  if (index != null && !Number.isSafeInteger(index)) return undefined;
  const finish = c["finish_reason"];
  if (finish != null && typeof finish !== "string") return undefined;
  const d = c["delta"];
  // reasoning_* are z.unknown(): any value passes, as in the schema
  if (!isObj(d) || typeof d["content"] !== "string" || d["refusal"] != null || d["tool_calls"] != null) return undefined;
  const choice = pick<Record<string, unknown>>(c, CHOICE_KEYS);
  choice["delta"] = pick(d, DELTA_KEYS);
  const chunk = pick<Record<string, unknown>>(raw, CHUNK_KEYS);
  chunk["choices"] = [choice];
  return chunk as Chunk;
}

export function mapOpenAIFinishReason(reason: string): StopReason {
  switch (reason) {
    case "stop":
      return "end";
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "content_filter";
    case "model_context_window_exceeded":
      return "context_window";
    default:
      return "other";
  }
}

export function errorKind(type: string | undefined, code: string | undefined): [ProviderErrorKind, boolean] {
  const t = `${type ?? ""} ${code ?? ""}`;
  if (/context_length_exceeded/.test(t)) return ["context_length", false];
  if (/rate_limit|429/.test(t)) return ["rate_limit", true];
  if (/overloaded|529|503/.test(t)) return ["overloaded", true];
  if (/server_error|internal|500|502/.test(t)) return ["server", true];
  if (/invalid_request/.test(t)) return ["bad_request", false];
  return ["server", false];
}
