// The OpenAI adapters' usage parsers and the cache figure: Usage.cacheReadTokens is what the
// server reported as cached, 0 included (a total miss is a figure: "cache 0%"), and absent
// only when the server reported no cached_tokens at all. The whole prompt stays
// input + cacheRead (input_tokens / prompt_tokens count the cached part).
import { describe, expect, it } from "vitest";
import { ResponsesStreamHandler } from "../../src/provider/responses/stream.js";
import { OpenAIStreamHandler } from "../../src/provider/chat/stream.js";
import { AnswerBudget } from "../../src/provider/budget.js";
import type { SseFrame } from "../../src/provider/sse.js";
import type { Usage } from "../../src/provider/types.js";
import { cacheHitShare, formatCacheShare } from "../../src/context/format.js";

function responsesUsage(usage: Record<string, unknown>): Usage | undefined {
  const h = new ResponsesStreamHandler({ emit: () => {}, budget: new AnswerBudget(1 << 20) }, "OpenAI");
  const events = [
    { type: "response.output_item.added", output_index: 0, item: { type: "message", id: "m", role: "assistant", content: [] } },
    { type: "response.output_text.delta", output_index: 0, delta: "hi" },
    { type: "response.completed", response: { status: "completed", usage } },
  ];
  for (const [i, e] of events.entries()) h.onFrame({ event: e.type, data: JSON.stringify({ sequence_number: i, ...e }) } as SseFrame);
  return h.result().usage;
}

function chatUsage(usage: Record<string, unknown>): Usage | undefined {
  const h = new OpenAIStreamHandler({ emit: () => {}, budget: new AnswerBudget(1 << 20) }, "OpenAI");
  const chunks = [
    { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: "hi" }, finish_reason: null }] },
    { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { id: "c", object: "chat.completion.chunk", choices: [], usage },
  ];
  for (const c of chunks) h.onFrame({ data: JSON.stringify(c) } as SseFrame);
  return h.result().usage;
}

describe("cached tokens as the OpenAI servers report them", () => {
  it("Responses: a hit, a reported miss, and no report", () => {
    expect(responsesUsage({ input_tokens: 2000, input_tokens_details: { cached_tokens: 1152 }, output_tokens: 5 })).toEqual({ inputTokens: 848, outputTokens: 5, cacheReadTokens: 1152 });
    expect(responsesUsage({ input_tokens: 2000, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5 })).toEqual({ inputTokens: 2000, outputTokens: 5, cacheReadTokens: 0 });
    expect(responsesUsage({ input_tokens: 2000, output_tokens: 5 })).toEqual({ inputTokens: 2000, outputTokens: 5 });
    expect(responsesUsage({ input_tokens: 2000, input_tokens_details: null, output_tokens: 5 })).toEqual({ inputTokens: 2000, outputTokens: 5 });
    expect(responsesUsage({ input_tokens: 2000, input_tokens_details: { cached_tokens: null }, output_tokens: 5 })).toEqual({ inputTokens: 2000, outputTokens: 5 });
  });

  it("Chat Completions: a hit, a reported miss, and no report", () => {
    expect(chatUsage({ prompt_tokens: 2000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1024 } })).toEqual({ inputTokens: 976, outputTokens: 5, cacheReadTokens: 1024 });
    expect(chatUsage({ prompt_tokens: 2000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0 } })).toEqual({ inputTokens: 2000, outputTokens: 5, cacheReadTokens: 0 });
    expect(chatUsage({ prompt_tokens: 2000, completion_tokens: 5 })).toEqual({ inputTokens: 2000, outputTokens: 5 });
    expect(chatUsage({ prompt_tokens: 2000, completion_tokens: 5, prompt_tokens_details: null })).toEqual({ inputTokens: 2000, outputTokens: 5 });
  });

  it("a reported miss is 'cache 0%'; no report, no share", () => {
    const miss = responsesUsage({ input_tokens: 2000, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5 })!;
    expect(formatCacheShare(cacheHitShare(miss)!)).toBe("cache 0%");
    expect(cacheHitShare(chatUsage({ prompt_tokens: 2000, completion_tokens: 5 })!)).toBeUndefined();
  });
});
