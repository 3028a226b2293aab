// The stream parsers check their hot events (text, thinking and tool-input deltas) by hand
// instead of a zod parse per event. zod stays the definition: here, on seeded
// random and hostile events, the hand check and zod agree on accept/reject for those shapes
// and give equal values, and an event the hand check refuses is worded by zod as before.
import { describe, expect, it } from "vitest";
import { anthropicDeltaSchemas, fastAnthropicDelta } from "../../src/provider/anthropic/events.js";
import { AnthropicStreamHandler } from "../../src/provider/anthropic/stream.js";
import { chatChunkSchema, fastChatChunk } from "../../src/provider/chat/events.js";
import { OpenAIStreamHandler } from "../../src/provider/chat/stream.js";
import { fastResponsesDelta, responsesEventSchemas } from "../../src/provider/responses/events.js";
import { ResponsesStreamHandler } from "../../src/provider/responses/stream.js";
import { AnswerBudget } from "../../src/provider/budget.js";
import type { StreamEvent } from "../../src/provider/types.js";
import { prng } from "../helpers/prng.js";

const RUNS = 6000;

/** A random value of the kinds JSON (and a hostile server) can bring, edge numbers included. */
function hostile(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * 16);
  switch (pick) {
    case 0:
      return null;
    case 1:
      return 0;
    case 2:
      return -1;
    case 3:
      return 1.5;
    case 4:
      return 2 ** 53; // not a safe integer: zod's .int() refuses it
    case 5:
      return -0;
    case 6:
      return Math.floor(r() * 5);
    case 7:
      return "";
    case 8:
      return "w" + Math.floor(r() * 100);
    case 9:
      return true;
    case 10:
      return depth > 1 ? [] : [hostile(r, depth + 1)];
    case 11:
      return depth > 1 ? {} : { type: hostile(r, depth + 1), text: hostile(r, depth + 1) };
    case 12:
      return "text_delta";
    case 13:
      return 2 ** 53 - 1;
    case 14:
      return 1e300;
    default:
      return undefined; // the field left out
  }
}

/** Take a valid event and break it a little: change, drop or add fields, at any depth. */
function mutate(r: () => number, v: unknown, depth = 0): unknown {
  if (typeof v !== "object" || v === null) return r() < 0.25 ? hostile(r) : v;
  if (Array.isArray(v)) {
    const a = v.map((x) => (r() < 0.5 ? mutate(r, x, depth + 1) : x));
    if (r() < 0.1) a.push(mutate(r, a[0], depth + 1));
    if (r() < 0.05) a.length = 0;
    return r() < 0.05 ? hostile(r) : a;
  }
  const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const k of Object.keys(o)) {
    const x = r();
    if (x < 0.12) o[k] = hostile(r);
    else if (x < 0.17) delete o[k];
    else if (x < 0.6) o[k] = mutate(r, o[k], depth + 1);
  }
  if (r() < 0.1) o["extra"] = hostile(r);
  return r() < 0.03 ? hostile(r) : o;
}

/** Through JSON, as events arrive; sometimes with a "__proto__" key, which JSON.parse makes an own field. */
function wire(r: () => number, v: unknown): unknown {
  const text = JSON.stringify(v) ?? "null";
  if (r() < 0.05 && text.startsWith("{") && text.length > 2) {
    return JSON.parse(`{"__proto__":{"text":"p","type":"text_delta","delta":"p","content":"p"},${text.slice(1)}`);
  }
  return JSON.parse(text);
}

const ctx = (events: StreamEvent[]) => ({ emit: (e: StreamEvent) => events.push(e), budget: new AnswerBudget(1 << 22) });

describe("Anthropic: the hand check of hot deltas agrees with zod", () => {
  const zodDelta = (raw: unknown) => {
    const ev = anthropicDeltaSchemas.event.safeParse(raw);
    if (!ev.success) return undefined;
    const d = anthropicDeltaSchemas.delta.safeParse(ev.data.delta);
    return d.success ? { index: ev.data.index, delta: d.data } : undefined;
  };
  const HOT = new Set(["text_delta", "thinking_delta", "input_json_delta"]);
  const seeds = [
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "word " } },
    { type: "content_block_delta", index: 2, delta: { type: "thinking_delta", thinking: "hm" } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"a"' } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  ];

  it("on random and hostile events: same accept/reject, same value", () => {
    const r = prng(19_001);
    let accepted = 0;
    for (let n = 0; n < RUNS; n++) {
      const raw = wire(r, mutate(r, seeds[n % seeds.length]));
      const fast = fastAnthropicDelta(raw);
      const z = zodDelta(raw);
      if (fast) {
        accepted++;
        expect(z, JSON.stringify(raw)).toBeDefined();
        expect(fast, JSON.stringify(raw)).toStrictEqual(z);
      } else if (z && HOT.has(z.delta.type)) {
        throw new Error(`zod accepts a hot delta the hand check refused: ${JSON.stringify(raw)}`);
      }
    }
    expect(accepted).toBeGreaterThan(RUNS / 10);
  });

  it("a refused hot delta gets zod's sentence, and a good one the same events", () => {
    const events: StreamEvent[] = [];
    const h = new AnthropicStreamHandler(ctx(events));
    const frame = (o: unknown) => h.onFrame({ data: JSON.stringify(o) });
    frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hello", extra: 1 } });
    expect(events).toEqual([{ type: "text_delta", text: "hello" }]);
    expect(() => frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: 5 } })).toThrow(
      /^Anthropic sent a malformed "content_block_delta" stream event: text: Invalid input: expected string, received number$/,
    );
    expect(() => frame({ type: "content_block_delta", index: -1, delta: { type: "text_delta", text: "x" } })).toThrow(
      /^Anthropic sent a malformed "content_block_delta" stream event: index: /,
    );
    expect(() => frame({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "x" } })).toThrow(
      "Anthropic sent a thinking_delta for a text block (index 0)",
    );
  });
});

describe("OpenAI Chat: the hand check of text chunks agrees with zod", () => {
  const seeds = [
    { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "word " }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { role: "assistant", content: "", reasoning_content: null, refusal: null } }], usage: null },
    { choices: [{ delta: { content: "x", tool_calls: null, reasoning: "r" }, finish_reason: "stop", usage: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "{" } }] } }] },
    { choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } },
  ];
  /** the shape the hand check covers, read off zod's value */
  const hot = (c: ReturnType<typeof chatChunkSchema.parse>) => {
    const ch = c.choices?.length === 1 ? c.choices[0]! : undefined;
    return (
      c.usage == null &&
      ch !== undefined &&
      ch.usage == null &&
      typeof ch.delta?.content === "string" &&
      ch.delta.refusal == null &&
      ch.delta.tool_calls == null
    );
  };

  it("on random and hostile chunks: same accept/reject, same value", () => {
    const r = prng(19_002);
    let accepted = 0;
    for (let n = 0; n < RUNS; n++) {
      const raw = wire(r, mutate(r, seeds[n % seeds.length]));
      const fast = fastChatChunk(raw);
      const z = chatChunkSchema.safeParse(raw);
      if (fast) {
        accepted++;
        expect(z.success, JSON.stringify(raw)).toBe(true);
        expect(fast, JSON.stringify(raw)).toStrictEqual(z.data);
      } else if (z.success && hot(z.data)) {
        throw new Error(`zod accepts a text chunk the hand check refused: ${JSON.stringify(raw)}`);
      }
    }
    expect(accepted).toBeGreaterThan(RUNS / 10);
  });

  it("a refused chunk gets zod's sentence", () => {
    const h = new OpenAIStreamHandler(ctx([]), "OpenAI");
    expect(() => h.onFrame({ data: JSON.stringify({ choices: [{ index: 0.5, delta: { content: "x" } }] }) })).toThrow(
      /^OpenAI sent a malformed stream chunk: choices\.0\.index: /,
    );
  });
});

describe("OpenAI Responses: the hand check of delta events agrees with zod", () => {
  const types = [
    "response.output_text.delta",
    "response.refusal.delta",
    "response.function_call_arguments.delta",
    "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta",
    "response.function_call_arguments.done",
  ];
  it("on random and hostile events: same accept/reject, same value", () => {
    const r = prng(19_003);
    let accepted = 0;
    for (let n = 0; n < RUNS; n++) {
      const type = types[n % types.length]!;
      const seed = { type, item_id: "m", output_index: 0, content_index: 0, summary_index: n % 3 === 0 ? 1 : undefined, delta: "word " };
      const raw = wire(r, mutate(r, seed));
      const fast = fastResponsesDelta(type, raw);
      const z = responsesEventSchemas[type]!.safeParse(raw);
      if (fast) {
        accepted++;
        expect(z.success, JSON.stringify(raw)).toBe(true);
        expect(fast, JSON.stringify(raw)).toStrictEqual(z.data);
      } else if (z.success && type !== "response.function_call_arguments.done" && !Object.hasOwn(raw as object, "__proto__")) {
        // (an own "__proto__" field, which zod's copy leaves out, is left to zod on purpose)
        throw new Error(`zod accepts a ${type} the hand check refused: ${JSON.stringify(raw)}`);
      }
    }
    expect(accepted).toBeGreaterThan(RUNS / 10);
  });

  it("a refused delta gets zod's sentence", () => {
    const h = new ResponsesStreamHandler(ctx([]), "OpenAI");
    const data = JSON.stringify({ type: "response.output_text.delta", output_index: 2 ** 53, delta: "x" });
    expect(() => h.onFrame({ data })).toThrow(/^OpenAI sent a malformed "response\.output_text\.delta" stream event: output_index: /);
  });
});
