// Anthropic's stream events as zod takes them, the hand-checked fast path for the hot deltas,
// and what a stop reason or an error type means.
import { z } from "zod";
import { isObj } from "../json.js";
import type { ProviderErrorKind, StopReason } from "../types.js";

export const usageSchema = z.object({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

export const contentBlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string().min(1) }),
  z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().nullish() }),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }),
]);
export const KNOWN_BLOCKS = new Set(["text", "tool_use", "thinking", "redacted_thinking"]);

export const deltaSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text_delta"), text: z.string() }),
  z.object({ type: z.literal("input_json_delta"), partial_json: z.string() }),
  z.object({ type: z.literal("thinking_delta"), thinking: z.string() }),
  z.object({ type: z.literal("signature_delta"), signature: z.string() }),
  z.object({ type: z.literal("citations_delta") }),
]);
export const KNOWN_DELTAS = new Set(["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"]);

const index = z.number().int().nonnegative();

export const eventSchemas = {
  message_start: z.object({
    type: z.literal("message_start"),
    message: z.object({ id: z.string().optional(), model: z.string().optional(), usage: usageSchema.nullish() }),
  }),
  content_block_start: z.object({
    type: z.literal("content_block_start"),
    index,
    content_block: z.object({ type: z.string() }).loose(),
  }),
  content_block_delta: z.object({
    type: z.literal("content_block_delta"),
    index,
    delta: z.object({ type: z.string() }).loose(),
  }),
  content_block_stop: z.object({ type: z.literal("content_block_stop"), index }),
  message_delta: z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullish() }),
    usage: usageSchema.nullish(),
  }),
  message_stop: z.object({ type: z.literal("message_stop") }),
  ping: z.object({ type: z.literal("ping") }),
  error: z.object({
    type: z.literal("error"),
    error: z.object({ type: z.string(), message: z.string() }),
  }),
} as const;
type EventType = keyof typeof eventSchemas;
/** for the test that holds the fast path to zod */
export const anthropicDeltaSchemas = { event: eventSchemas.content_block_delta, delta: deltaSchema };
export type AnthropicEvent = z.infer<(typeof eventSchemas)[EventType]>;

export function isEventType(t: string): t is EventType {
  return Object.prototype.hasOwnProperty.call(eventSchemas, t);
}

export type DeltaParsed = z.infer<typeof deltaSchema>;
type HotDelta = Extract<DeltaParsed, { type: "text_delta" | "thinking_delta" | "input_json_delta" }>;

/** zod's z.number().int().nonnegative(): a safe integer, not below 0. */
function isIndex(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

/**
 * The hot events of a stream (a text, thinking or tool-input delta: nearly every event of an
 * answer), checked by hand: a zod parse per event would be the stream's largest single cost
 * (~190 ms of 0.36 s CPU for 20,000 words). Each condition is the zod schemas' own
 * (eventSchemas.content_block_delta, then deltaSchema), and the value is what they would give;
 * anything else, or anything that fails here, goes to zod, which also words the error.
 * test/unit/stream-fast-path.test.ts holds the two to the same answers on random and hostile events.
 */
export function fastAnthropicDelta(raw: unknown): { index: number; delta: HotDelta } | undefined {
  if (!isObj(raw) || raw["type"] !== "content_block_delta") return undefined;
  const index = raw["index"];
  const d = raw["delta"];
  if (!isIndex(index) || !isObj(d)) return undefined;
  switch (d["type"]) {
    case "text_delta": {
      const text = d["text"];
      return typeof text === "string" ? { index, delta: { type: "text_delta", text } } : undefined;
    }
    case "thinking_delta": {
      const thinking = d["thinking"];
      return typeof thinking === "string" ? { index, delta: { type: "thinking_delta", thinking } } : undefined;
    }
    case "input_json_delta": {
      const json = d["partial_json"];
      return typeof json === "string" ? { index, delta: { type: "input_json_delta", partial_json: json } } : undefined;
    }
    default:
      return undefined;
  }
}

export function mapAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "end";
    case "tool_use":
      return "tool_use";
    case "max_tokens":
      return "max_tokens";
    case "refusal":
      return "refusal";
    case "model_context_window_exceeded":
      return "context_window";
    case "pause_turn":
      return "pause_turn";
    default:
      return "other"; // anything newer
  }
}

export function errorKind(type: string): [ProviderErrorKind, boolean] {
  switch (type) {
    case "overloaded_error":
      return ["overloaded", true];
    case "rate_limit_error":
      return ["rate_limit", true];
    case "api_error":
    case "timeout_error":
      return ["server", true];
    case "invalid_request_error":
      return ["bad_request", false];
    case "authentication_error":
    case "permission_error":
      return ["auth", false];
    default:
      return ["server", false];
  }
}
