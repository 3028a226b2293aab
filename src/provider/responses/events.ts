// The Responses API's stream events as zod takes them, the hand-checked fast path for the hot
// deltas, the items they carry, and what an incomplete reason or an error code means.
import { z } from "zod";
import { isObj, type Json } from "../json.js";
import type { ProviderErrorKind, StopReason } from "../types.js";

export const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  input_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
});

export const responseSchema = z
  .object({
    status: z.string().nullish(),
    usage: usageSchema.nullish(),
    incomplete_details: z.object({ reason: z.string().nullish() }).nullish(),
    error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  })
  .loose();

const outputIndex = z.number().int().nonnegative();
const item = z.object({ type: z.string() }).loose();

export const eventSchemas = {
  "response.created": z.object({ response: responseSchema }).loose(),
  "response.in_progress": z.object({}).loose(),
  "response.queued": z.object({}).loose(),
  "response.output_item.added": z.object({ output_index: outputIndex, item }).loose(),
  "response.output_item.done": z.object({ output_index: outputIndex, item }).loose(),
  "response.content_part.added": z.object({}).loose(),
  "response.content_part.done": z.object({}).loose(),
  "response.output_text.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.output_text.done": z.object({}).loose(),
  "response.output_text.annotation.added": z.object({}).loose(),
  "response.refusal.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.refusal.done": z.object({}).loose(),
  "response.function_call_arguments.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.function_call_arguments.done": z.object({ output_index: outputIndex, arguments: z.string() }).loose(),
  "response.reasoning_summary_part.added": z.object({ output_index: outputIndex, summary_index: z.number().int() }).loose(),
  "response.reasoning_summary_part.done": z.object({}).loose(),
  "response.reasoning_summary_text.delta": z
    .object({ output_index: outputIndex, summary_index: z.number().int().nullish(), delta: z.string() })
    .loose(),
  "response.reasoning_summary_text.done": z.object({}).loose(),
  "response.reasoning_text.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.reasoning_text.done": z.object({}).loose(),
  "response.completed": z.object({ response: responseSchema }).loose(),
  "response.incomplete": z.object({ response: responseSchema }).loose(),
  "response.failed": z.object({ response: responseSchema }).loose(),
  error: z.object({ message: z.string().nullish(), code: z.string().nullish(), param: z.string().nullish() }).loose(),
} as const;
export type EventType = keyof typeof eventSchemas;

export function isEventType(t: string): t is EventType {
  return Object.prototype.hasOwnProperty.call(eventSchemas, t);
}
/** for the test that holds the fast path to zod */
export const responsesEventSchemas: Readonly<Record<string, z.ZodType>> = eventSchemas;

// The deltas that carry an answer's words: nearly every event of a stream.
const HOT_EVENTS = new Set<string>([
  "response.output_text.delta",
  "response.refusal.delta",
  "response.function_call_arguments.delta",
  "response.reasoning_summary_text.delta",
  "response.reasoning_text.delta",
]);

/**
 * The hot deltas checked by hand instead of a zod parse per event (the stream's largest single
 * cost): each condition is that event's zod schema's (output_index a safe integer ≥ 0, delta a
 * string, a summary delta's summary_index absent, null or a safe integer; other fields kept, as
 * .loose() keeps them), and the value is the event itself, equal to zod's copy. Anything else,
 * or anything that fails here, goes to zod, which also words the error; the equivalence is
 * tested in test/unit/stream-fast-path.test.ts.
 */
export function fastResponsesDelta(type: string, raw: unknown): Json | undefined {
  if (!HOT_EVENTS.has(type) || !isObj(raw)) return undefined;
  const ev = raw;
  const i = ev["output_index"];
  if (!Number.isSafeInteger(i) || (i as number) < 0 || typeof ev["delta"] !== "string") return undefined;
  if (type === "response.reasoning_summary_text.delta") {
    const si = ev["summary_index"];
    if (si !== undefined && si !== null && !Number.isSafeInteger(si)) return undefined;
  }
  // zod's copy leaves out an own "__proto__" field (JSON.parse makes one): rare, so zod's
  return Object.hasOwn(ev, "__proto__") ? undefined : ev;
}

export const functionCallItem = z.object({ type: z.literal("function_call"), call_id: z.string().min(1), name: z.string(), arguments: z.string().nullish() }).loose();
export const messageItem = z.object({ type: z.literal("message"), content: z.array(z.object({ type: z.string(), text: z.string().nullish(), refusal: z.string().nullish() }).loose()).nullish() }).loose();
export const summaryItem = z.object({ type: z.literal("reasoning"), summary: z.array(z.object({ text: z.string().nullish() }).loose()).nullish() }).loose();

export function incompleteReason(reason: string | undefined): StopReason {
  switch (reason) {
    case "max_output_tokens":
      return "max_tokens";
    case "content_filter":
      return "content_filter";
    default:
      return "incomplete"; // its reason is said with it (stopSaid)
  }
}

export function errorKind(code: string | undefined): [ProviderErrorKind, boolean] {
  const c = code ?? "";
  if (/context_length_exceeded/.test(c)) return ["context_length", false];
  if (/rate_limit/.test(c)) return ["rate_limit", true];
  if (/overloaded|server_is_overloaded|slow_down/.test(c)) return ["overloaded", true];
  if (/server_error|internal/.test(c)) return ["server", true];
  if (/invalid/.test(c)) return ["bad_request", false];
  return ["server", false];
}
