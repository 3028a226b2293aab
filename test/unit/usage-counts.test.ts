// A provider's usage is outside input: whatever numbers a server reports,
// the Usage the adapters give is whole, non-negative token counts, and the cached part is never
// more than the prompt, so the status line's hit share stays within 0–100 % and the answer's
// stored usage reads back (a stored value the store's schema refuses costs the figure).
import { describe, expect, it } from "vitest";
import { AnthropicStreamHandler } from "../../src/provider/anthropic/stream.js";
import { ResponsesStreamHandler } from "../../src/provider/responses/stream.js";
import { OpenAIStreamHandler } from "../../src/provider/chat/stream.js";
import { AnswerBudget } from "../../src/provider/budget.js";
import type { SseFrame } from "../../src/provider/sse.js";
import type { Usage } from "../../src/provider/types.js";
import { parseUsage } from "../../src/session/store/messages.js";
import { cacheHitShare } from "../../src/context/format.js";

const ctx = () => ({ emit: () => {}, budget: new AnswerBudget(1 << 20) });

function anthropic(start: Record<string, unknown>, delta: Record<string, unknown> = { output_tokens: 3 }): Usage | undefined {
  const h = new AnthropicStreamHandler(ctx());
  const events = [
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: start } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: delta },
    { type: "message_stop" },
  ];
  for (const e of events) h.onFrame({ event: e.type, data: JSON.stringify(e) } as SseFrame);
  return h.result().usage;
}

function chat(usage: Record<string, unknown>): Usage | undefined {
  const h = new OpenAIStreamHandler(ctx(), "OpenAI");
  const chunks = [
    { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: "hi" }, finish_reason: null }] },
    { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { id: "c", object: "chat.completion.chunk", choices: [], usage },
  ];
  for (const c of chunks) h.onFrame({ data: JSON.stringify(c) } as SseFrame);
  return h.result().usage;
}

function responses(usage: Record<string, unknown>): Usage | undefined {
  const h = new ResponsesStreamHandler(ctx(), "OpenAI");
  const events = [
    { type: "response.output_item.added", output_index: 0, item: { type: "message", id: "m", role: "assistant", content: [] } },
    { type: "response.output_text.delta", output_index: 0, delta: "hi" },
    { type: "response.completed", response: { status: "completed", usage } },
  ];
  for (const [i, e] of events.entries()) h.onFrame({ event: e.type, data: JSON.stringify({ sequence_number: i, ...e }) } as SseFrame);
  return h.result().usage;
}

/** What every Usage must be, whatever the server said. */
function sane(u: Usage | undefined): void {
  expect(u).toBeDefined();
  for (const v of [u!.inputTokens, u!.outputTokens, u!.cacheReadTokens ?? 0, u!.cacheWriteTokens ?? 0]) {
    expect(Number.isInteger(v) && v >= 0, JSON.stringify(u)).toBe(true);
  }
  const share = cacheHitShare(u!);
  if (share !== undefined) expect(share).toBeLessThanOrEqual(1);
  expect(parseUsage(JSON.stringify(u)).ok, JSON.stringify(u)).toBe(true);
}

describe("usage reported by a server is whole non-negative counts", () => {
  it("Chat Completions: cached more than the prompt, negative, fractional", () => {
    expect(chat({ prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 150 } })).toEqual({ inputTokens: 0, outputTokens: 5, cacheReadTokens: 100 });
    for (const u of [
      { prompt_tokens: -4, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0 } },
      { prompt_tokens: 100, completion_tokens: -1, prompt_tokens_details: { cached_tokens: -7 } },
      { prompt_tokens: 100.6, completion_tokens: 2.2, prompt_tokens_details: { cached_tokens: 50.5 } },
    ]) sane(chat(u));
    // the figures it gets right stay as they were
    expect(chat({ prompt_tokens: 2000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1024 } })).toEqual({ inputTokens: 976, outputTokens: 5, cacheReadTokens: 1024 });
  });

  it("Responses: cached more than the input, negative, fractional", () => {
    expect(responses({ input_tokens: 100, output_tokens: 5, input_tokens_details: { cached_tokens: 150 } })).toEqual({ inputTokens: 0, outputTokens: 5, cacheReadTokens: 100 });
    for (const u of [
      { input_tokens: -4, output_tokens: 5 },
      { input_tokens: 100, output_tokens: -1, input_tokens_details: { cached_tokens: -7 } },
      { input_tokens: 100.6, output_tokens: 2.2, input_tokens_details: { cached_tokens: 50.5 } },
    ]) sane(responses(u));
  });

  it("Anthropic: negative and fractional counts at the start and in the cumulative delta", () => {
    sane(anthropic({ input_tokens: -3, output_tokens: 1, cache_read_input_tokens: -10, cache_creation_input_tokens: 2.5 }));
    sane(anthropic({ input_tokens: 10, output_tokens: 1 }, { output_tokens: -2, input_tokens: 7.7, cache_read_input_tokens: -1 }));
    expect(anthropic({ input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 9000, cache_creation_input_tokens: 800 })).toEqual({
      inputTokens: 12,
      outputTokens: 3,
      cacheReadTokens: 9000,
      cacheWriteTokens: 800,
    });
  });
});
