// The OpenAI Responses adapter against the strict fake's /v1/responses over real loopback
// HTTP: the body, the stream, encrypted reasoning kept and replayed in its own live round,
// persisted turns as prose, and the fake's own rules (a fake that accepts anything would
// prove nothing about what we send).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { createProvider, openaiApi } from "../../src/provider/create.js";
import { OPAQUE_OPENAI_REASONING } from "../../src/provider/responses/encode.js";
import { ResponsesStreamHandler } from "../../src/provider/responses/stream.js";
import { AnswerBudget } from "../../src/provider/budget.js";
import type { SseFrame } from "../../src/provider/sse.js";
import { summaryRequest } from "../../src/replay/request.js";
import type { Block } from "../../src/record/types.js";
import {
  ProviderError,
  type AssistantPart,
  type ProseMessage,
  type Provider,
  type Request,
  type StreamEvent,
  type StreamResult,
  type WireMessage,
} from "../../src/provider/types.js";

const KEY = "sk-proj-test-SECRET-responses-6061";
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

function provider(): Provider {
  return createProvider({ provider: "openai", baseUrl: fake.openaiBase, apiKey: KEY, retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 } });
}

function req(over: Partial<Request> = {}): Request {
  return {
    provider: "openai",
    api: "responses",
    model: "gpt-5",
    system: "You are a careful coding agent.",
    context: [{ source: "AGENTS.md", text: "Use tabs." }],
    history: [],
    live: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    tools: [
      { name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
      { name: "ls", description: "List a folder", inputSchema: { type: "object", properties: {} } },
    ],
    maxOutputTokens: 4096,
    reasoning: "medium",
    ...over,
  };
}

async function run(p: Provider, r: Request): Promise<{ result: StreamResult; events: StreamEvent[] }> {
  const events: StreamEvent[] = [];
  const result = await p.stream(r, { onEvent: (e) => events.push(e) });
  return { result, events };
}

/** A stored answer's blocks as the live round sends them (as src/replay/ does for a complete message). */
function liveAnswer(blocks: Block[]): WireMessage {
  const content: AssistantPart[] = blocks.map((b): AssistantPart => {
    switch (b.type) {
      case "tool_use":
        return { type: "tool_call", id: b.id, name: b.name, input: b.input };
      case "reasoning":
        return b.opaque ? { type: "reasoning", text: b.text, opaque: b.opaque } : { type: "reasoning", text: b.text };
      case "text":
        return b;
      default:
        throw new Error(`not in an answer: ${b.type}`);
    }
  });
  return { role: "assistant", content };
}

const results = (blocks: Block[], output = "file body"): WireMessage => ({
  role: "user",
  content: blocks.flatMap((b) => (b.type === "tool_use" ? [{ type: "tool_result" as const, callId: b.id, name: b.name, output, isError: false }] : [])),
});

describe("responses: which API", () => {
  it("is Responses on OpenAI's own endpoint and Chat on any other base URL; the config forces either", () => {
    expect(openaiApi(undefined)).toBe("responses");
    expect(openaiApi("https://api.openai.com/v1")).toBe("responses");
    expect(openaiApi("http://127.0.0.1:11434/v1")).toBe("chat");
    expect(openaiApi("https://openrouter.ai/api/v1")).toBe("chat");
    expect(openaiApi("http://127.0.0.1:11434/v1", "responses")).toBe("responses");
    expect(openaiApi(undefined, "chat")).toBe("chat");
  });

  it("a request that names the Responses API goes to /v1/responses, one without it to /v1/chat/completions", async () => {
    fake.script({ text: "one" }, { text: "two" });
    await run(provider(), req());
    const { api: _api, ...chat } = req({ model: "gpt-4o", reasoning: "off" });
    await run(provider(), chat);
    expect(fake.requests.map((r) => r.shape)).toEqual(["responses", "openai"]);
    expect(fake.rejections()).toEqual([]);
  });
});

describe("responses: the body", () => {
  it("is stateless, flat-tooled, with instructions, context as system items and the encrypted reasoning asked for", async () => {
    fake.script({ text: "Hello from the Responses shape.", usage: { input: 40, output: 6 } });
    const { result, events } = await run(provider(), req());
    // the fake reports cached_tokens 0, as OpenAI does on a miss: a figure, not an absence
    expect(result).toEqual({ blocks: [{ type: "text", text: "Hello from the Responses shape." }], stopReason: "end", usage: { inputTokens: 40, outputTokens: 6, cacheReadTokens: 0 } });
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.text : "")).join("")).toBe("Hello from the Responses shape.");
    const r = fake.requests[0]!;
    expect(r.rejected).toBeUndefined();
    expect(r.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(r.body).toEqual({
      model: "gpt-5",
      instructions: "You are a careful coding agent.",
      input: [
        { type: "message", role: "system", content: "Use tabs." },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Hello" }] },
      ],
      tools: [
        { type: "function", name: "read", description: "Read a file", parameters: req().tools[0]!.inputSchema, strict: false },
        { type: "function", name: "ls", description: "List a folder", parameters: { type: "object", properties: {} }, strict: false },
      ],
      max_output_tokens: 4096,
      reasoning: { effort: "medium", summary: "auto" },
      store: false,
      include: ["reasoning.encrypted_content"],
      stream: true,
    });
  });

  it("sends a reasoning setting only to models that take one (never to gpt-4o), and a cache key when the request has one", async () => {
    fake.script({ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" });
    await run(provider(), req({ model: "gpt-4o", reasoning: "high" }));
    await run(provider(), req({ model: "o4-mini", reasoning: "high", cache: { key: "session-1234", ttl: "5m" } }));
    await run(provider(), req({ model: "my-local-model", reasoning: "low" }));
    await run(provider(), req({ model: "gpt-5", reasoning: "off" }));
    expect(fake.rejections()).toEqual([]);
    const [gpt4o, o4, local, off] = fake.requests.map((r) => r.body);
    expect(gpt4o.reasoning).toBeUndefined();
    expect(gpt4o.include).toBeUndefined();
    expect(gpt4o.prompt_cache_key).toBeUndefined();
    expect(o4.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(o4.prompt_cache_key).toBe("session-1234");
    // a model the catalog does not know gets the setting as asked
    expect(local.reasoning).toEqual({ effort: "low", summary: "auto" });
    // off asks for nothing, but a reasoning model still reasons: its items must come back encrypted
    expect(off.reasoning).toBeUndefined();
    expect(off.include).toEqual(["reasoning.encrypted_content"]);
  });

  it("never asks for fewer than 16 output tokens (the API's minimum)", async () => {
    fake.script({ text: "ok" });
    await run(provider(), req({ maxOutputTokens: 3 }));
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests[0]!.body.max_output_tokens).toBe(16);
  });
});

describe("responses: the live round", () => {
  it("keeps encrypted reasoning as an opaque body and replays it verbatim before its call, across two tool rounds", async () => {
    fake.script(
      { reasoning: "Read the file first.", toolCalls: [{ name: "read", input: { path: "a.ts" }, id: "call_A" }] },
      { reasoning: "Now list the folder.", text: "Listing.", toolCalls: [{ name: "ls", input: {}, id: "call_B" }] },
      { text: "Done: a.ts read, src listed." },
    );
    const first = await run(provider(), req());
    expect(first.result.stopReason).toBe("tool_use");
    const [reasoning, call] = first.result.blocks;
    expect(call).toEqual({ type: "tool_use", id: "call_A", name: "read", input: { path: "a.ts" } });
    expect(reasoning).toMatchObject({ type: "reasoning", text: "Read the file first.", opaque: { kind: OPAQUE_OPENAI_REASONING } });
    const item = JSON.parse((reasoning as Extract<Block, { type: "reasoning" }>).opaque!.body);
    expect(item).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "Read the file first." }], encrypted_content: expect.any(String) });
    expect(first.events.some((e) => e.type === "reasoning_delta")).toBe(true);

    const live1: WireMessage[] = [...req().live!, liveAnswer(first.result.blocks), results(first.result.blocks)];
    const second = await run(provider(), req({ live: live1 }));
    expect(fake.rejections()).toEqual([]);
    const input1 = fake.requests[1]!.body.input;
    expect(input1.slice(2)).toEqual([
      item,
      { type: "function_call", call_id: "call_A", name: "read", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_A", output: "file body" },
    ]);

    // reasoning, then text, then a call: the reasoning item goes right before the message it preceded
    const live2: WireMessage[] = [...live1, liveAnswer(second.result.blocks), results(second.result.blocks, "")];
    const third = await run(provider(), req({ live: live2 }));
    expect(fake.rejections()).toEqual([]);
    expect(third.result.blocks).toEqual([{ type: "text", text: "Done: a.ts read, src listed." }]);
    const types = fake.requests[2]!.body.input.map((i: { type: string; role?: string }) => i.type + (i.role ? `:${i.role}` : ""));
    expect(types).toEqual([
      "message:system",
      "message:user",
      "reasoning",
      "function_call",
      "function_call_output",
      "reasoning",
      "message:assistant",
      "function_call",
      "function_call_output",
    ]);
  });

  it("without encrypted content (a model asked for none) the reasoning is kept as text and crosses as prose", async () => {
    // gpt-4o gets no include, so the fake (like the API) sends the item without encryption
    fake.script({ reasoning: "Plain thoughts.", toolCalls: [{ name: "read", input: { path: "b" }, id: "call_P" }] }, { text: "ok" });
    const first = await run(provider(), req({ model: "gpt-4o", reasoning: "off" }));
    expect(first.result.blocks[0]).toEqual({ type: "reasoning", text: "Plain thoughts." });
    await run(provider(), req({ model: "gpt-4o", reasoning: "off", live: [...req().live!, liveAnswer(first.result.blocks), results(first.result.blocks)] }));
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests[1]!.body.input[2]).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "[Reasoning]: Plain thoughts." }] });
  });

  it("sends encrypted reasoning that has no item after it in its answer as prose, never alone", async () => {
    fake.script({ reasoning: "Thinking, then cut off.", toolCalls: [{ name: "read", input: {}, id: "call_Q" }] }, { text: "ok" });
    const first = await run(provider(), req());
    const onlyReasoning = first.result.blocks.filter((b) => b.type === "reasoning");
    const live: WireMessage[] = [...req().live!, liveAnswer(onlyReasoning), { role: "user", content: [{ type: "text", text: "go on" }] }];
    await run(provider(), req({ live }));
    expect(fake.rejections()).toEqual([]);
    const input = fake.requests[1]!.body.input;
    expect(input.some((i: { type: string }) => i.type === "reasoning")).toBe(false);
    expect(input[2]).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "[Reasoning]: Thinking, then cut off." }] });
  });

  it("a result or a call without its partner in the request crosses as prose, so no function_call_output is orphaned", async () => {
    fake.script({ text: "ok" });
    const live: WireMessage[] = [
      { role: "user", content: [{ type: "tool_result", callId: "call_gone", name: "read", output: "x", isError: true }, { type: "text", text: "and?" }] },
      { role: "assistant", content: [{ type: "tool_call", id: "call_unanswered", name: "ls", input: { dir: "." } }] },
      { role: "user", content: [{ type: "text", text: "continue" }] },
    ];
    await run(provider(), req({ live }));
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests[0]!.body.input.slice(1)).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Error (read): x" }, { type: "input_text", text: "and?" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: 'Tool use: ls({"dir":"."})' }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "continue" }] },
    ]);
  });
});

describe("responses: persisted turns", () => {
  it("cross as prose, one input item per stored message, with no reasoning items or call obligations", async () => {
    fake.script({ text: "next" });
    // what src/replay/ makes of an earlier turn with encrypted reasoning and a call
    const history: ProseMessage[] = [
      { role: "user", content: [{ type: "text", text: "read a" }] },
      { role: "assistant", content: [{ type: "text", text: "[Reasoning]: Read the file first." }, { type: "text", text: 'Tool use: read({"path":"a.ts"})' }] },
      { role: "user", content: [{ type: "text", text: "Result (read): file body" }] },
      { role: "assistant", content: [{ type: "text", text: "Done." }] },
    ];
    await run(provider(), req({ history, live: [{ role: "user", content: [{ type: "text", text: "and b?" }] }] }));
    expect(fake.rejections()).toEqual([]);
    const input = fake.requests[0]!.body.input;
    expect(input).toHaveLength(1 + history.length + 1);
    expect(input.map((i: { type: string }) => i.type)).toEqual(Array(6).fill("message"));
    expect(input[2]).toEqual({
      type: "message",
      role: "assistant",
      content: [
        { type: "output_text", text: "[Reasoning]: Read the file first." },
        { type: "output_text", text: 'Tool use: read({"path":"a.ts"})' },
      ],
    });
  });

  it("images cross as input_image data URLs", async () => {
    fake.script({ text: "a cat" });
    await run(provider(), req({ live: [{ role: "user", content: [{ type: "text", text: "what is it?" }, { type: "image", mediaType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIklEQVR4AWNkYGD4z8jOy8DIzsvAwiyqzsDIzsvAyM7LAAAceQGYlkTQgAAAAABJRU5ErkJggg==", bytes: 91 }] }] }));
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests[0]!.body.input[1].content[1]).toEqual({ type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIklEQVR4AWNkYGD4z8jOy8DIzsvAwiyqzsDIzsvAyM7LAAAceQGYlkTQgAAAAABJRU5ErkJggg==", detail: "auto" });
  });
});

describe("responses: the stream's failures", () => {
  it("an unknown event is a warning, the answer whole", async () => {
    fake.script({ fault: "unknown_event", text: "still here" });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "still here" }]);
    expect(events.filter((e) => e.type === "warning")).toEqual([{ type: "warning", message: `ignored an unknown stream event "response.albedo_mystery" from the server at ${new URL(fake.url).host}` }]);
  });

  it("response.failed after text is a server error that keeps what arrived", async () => {
    fake.script({ fault: "error_event", text: "partial words" });
    const err = await provider().stream(req()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProviderError);
    const e = err as ProviderError;
    expect(e.kind).toBe("server");
    expect(e.message).toContain("The server had an error while processing your request. (server_error)");
    expect(e.partial).toEqual([{ type: "text", text: "partial words" }]);
  });

  it("a stream that ends after text but before response.completed fails as cut off, keeping the text", async () => {
    fake.script({ fault: "no_final", text: "half an answer" });
    const err = await provider().stream(req()).then(
      () => undefined,
      (e: unknown) => e as ProviderError,
    );
    expect(err?.kind).toBe("stream");
    expect(err?.partial).toEqual([{ type: "text", text: "half an answer" }]);
  });
});

describe("the fake's /v1/responses refuses what the real API refuses", () => {
  async function post(body: unknown): Promise<{ status: number; message: string }> {
    const r = await request(`${fake.openaiBase}/responses`, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const text = await r.body.text();
    return { status: r.statusCode, message: r.statusCode === 200 ? text : (JSON.parse(text) as { error: { message: string } }).error.message };
  }
  const base = { model: "gpt-5", stream: true, store: false };
  const user = { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] };

  it.each([
    ["a function_call_output that answers no call of the request", { input: [user, { type: "function_call_output", call_id: "call_X", output: "x" }] }, "No tool call found for function call output with call_id call_X."],
    ["a function_call without its output", { input: [user, { type: "function_call", call_id: "call_Y", name: "read", arguments: "{}" }] }, "No tool output found for function call call_Y."],
    ["a reasoning item without encrypted content under store:false", { input: [user, { type: "reasoning", id: "rs_1", summary: [] }] }, "Items are not persisted when `store` is set to false"],
    ["an unknown item type, named", { input: [user, { type: "tool_result", call_id: "c" }] }, "Invalid value: 'tool_result'. Supported values are: 'message', 'reasoning', 'function_call', 'function_call_output'."],
    ["a Chat-shaped tool", { input: [user], tools: [{ type: "function", function: { name: "read", parameters: {} } }] }, "Missing required parameter: 'tools[0].name'."],
    ["an unknown parameter", { input: [user], messages: [] }, "Unknown parameter: 'messages'."],
    ["input_text in an assistant message", { input: [user, { type: "message", role: "assistant", content: [{ type: "input_text", text: "x" }] }] }, "Invalid value: 'input_text'."],
    ["a reasoning setting for gpt-4o", { model: "gpt-4o", input: [user], reasoning: { effort: "high" } }, "Unsupported parameter: 'reasoning.effort'"],
  ])("%s", async (_what, body, message) => {
    const r = await post({ ...base, ...body });
    expect(r.status).toBe(400);
    expect(r.message).toContain(message);
  });

  it("a reasoning item not followed by the item it preceded, or not replayed verbatim", async () => {
    fake.script({ reasoning: "why", toolCalls: [{ name: "read", input: {}, id: "call_V" }] });
    const first = await run(provider(), req());
    const item = JSON.parse((first.result.blocks[0] as Extract<Block, { type: "reasoning" }>).opaque!.body);
    const call = { type: "function_call", call_id: "call_V", name: "read", arguments: "{}" };
    const out = { type: "function_call_output", call_id: "call_V", output: "x" };
    const misplaced = await post({ ...base, input: [user, item, { type: "message", role: "assistant", content: [{ type: "output_text", text: "hm" }] }, call, out] });
    expect(misplaced.message).toBe(`Item '${item.id}' of type 'reasoning' was provided without its required following item.`);
    const edited = await post({ ...base, input: [user, { ...item, summary: [{ type: "summary_text", text: "changed" }] }, call, out] });
    expect(edited.message).toBe(`The encrypted content for item ${item.id} could not be verified.`);
    const verbatim = await post({ ...base, input: [user, item, call, out] });
    expect(verbatim.status).toBe(200);
  });
});

describe("responses: the summary request", () => {
  it("goes in the same shape as the turn's requests, all prose", async () => {
    fake.script({ text: "The note." });
    const prefix = [
      { role: "user" as const, blocks: [{ type: "text" as const, text: "read a" }] },
      {
        role: "assistant" as const,
        blocks: [
          { type: "reasoning" as const, text: "first", opaque: { kind: OPAQUE_OPENAI_REASONING, body: '{"type":"reasoning","id":"rs_x","summary":[],"encrypted_content":"zzz"}' } },
          { type: "tool_use" as const, id: "call_S", name: "read", input: { path: "a" } },
        ],
      },
      { role: "user" as const, blocks: [{ type: "tool_result" as const, toolUseId: "call_S", name: "read", output: "A", isError: false }] },
    ];
    const r = summaryRequest(prefix, { system: "Summarise.", prompt: "Write the note." }, { provider: "openai", model: "gpt-5", maxOutputTokens: 4096, api: "responses" });
    expect(r.api).toBe("responses");
    const { result } = await run(provider(), r);
    expect(result.blocks).toEqual([{ type: "text", text: "The note." }]);
    expect(fake.rejections()).toEqual([]);
    const input = fake.requests[0]!.body.input as { type: string }[];
    expect(input.every((i) => i.type === "message")).toBe(true);
    expect(JSON.stringify(input)).not.toContain("zzz");
  });
});

describe("responses: the stream parser on what the fake does not send", () => {
  /** Feeds events to the real parser, as postStream would. */
  function parse(events: Record<string, unknown>[], budgetBytes = 1 << 20): { handler: ResponsesStreamHandler; events: StreamEvent[]; error?: unknown } {
    const out: StreamEvent[] = [];
    const handler = new ResponsesStreamHandler({ emit: (e) => out.push(e), budget: new AnswerBudget(budgetBytes) }, "OpenAI");
    try {
      for (const [i, e] of events.entries()) handler.onFrame({ event: String(e["type"]), data: JSON.stringify({ sequence_number: i, ...e }) } as SseFrame);
    } catch (error) {
      return { handler, events: out, error };
    }
    return { handler, events: out };
  }
  const done = { type: "response.completed", response: { status: "completed", usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 60 }, output_tokens: 5 } } };

  it("takes arguments and text from the finished items when no deltas came, and joins summary parts with a blank line", () => {
    const { handler } = parse([
      { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
      { type: "response.reasoning_summary_part.added", output_index: 0, summary_index: 0 },
      { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 0, delta: "One." },
      { type: "response.reasoning_summary_part.added", output_index: 0, summary_index: 1 },
      { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 1, delta: "Two." },
      { type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
      { type: "response.output_item.added", output_index: 1, item: { type: "message", role: "assistant", content: [] } },
      { type: "response.output_item.done", output_index: 1, item: { type: "message", role: "assistant", content: [{ type: "output_text", text: "Whole text." }] } },
      { type: "response.output_item.added", output_index: 2, item: { type: "function_call", call_id: "call_1", name: "read", arguments: "" } },
      { type: "response.function_call_arguments.done", output_index: 2, arguments: '{"path":"a"}' },
      { type: "response.output_item.done", output_index: 2, item: { type: "function_call", call_id: "call_1", name: "read", arguments: '{"path":"a"}' } },
      { type: "response.output_item.added", output_index: 3, item: { type: "web_search_call", id: "ws_1" } },
      done,
    ]);
    expect(handler.result()).toEqual({
      blocks: [
        { type: "reasoning", text: "One.\n\nTwo." },
        { type: "text", text: "Whole text." },
        { type: "tool_use", id: "call_1", name: "read", input: { path: "a" } },
      ],
      stopReason: "tool_use",
      usage: { inputTokens: 40, outputTokens: 5, cacheReadTokens: 60 },
    });
  });

  it("an incomplete answer says why; a failed one is an error naming its code", () => {
    const cut = parse([
      { type: "response.output_item.added", output_index: 0, item: { type: "message" } },
      { type: "response.output_text.delta", output_index: 0, delta: "Half" },
      { type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } } },
    ]);
    expect(cut.handler.result().stopReason).toBe("max_tokens");
    const failed = parse([{ type: "response.failed", response: { status: "failed", error: { code: "rate_limit_exceeded", message: "slow down" } } }]);
    expect(failed.error).toMatchObject({ kind: "rate_limit", retryable: true, message: "OpenAI reported an error mid-stream: slow down (rate_limit_exceeded)" });
    const bad = parse([{ type: "response.output_text.delta", output_index: 4, delta: "x" }]);
    expect((bad.error as Error).message).toBe("OpenAI sent text for output item 4, which never started");
  });

  it("an encrypted item that passes the answer's bound is not kept (a cut body is worthless); its text is", () => {
    const big = "E".repeat(5000);
    const r = parse(
      [
        { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_b", summary: [] } },
        { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 0, delta: "short thought" },
        { type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: "rs_b", summary: [{ type: "summary_text", text: "short thought" }], encrypted_content: big } },
      ],
      1000,
    );
    expect(r.error).toMatchObject({ kind: "too_large" });
    expect(r.handler.partial()).toEqual([{ type: "reasoning", text: "short thought" }]);
  });
});

describe("responses: a refused optional field is sent again without it, for the session", () => {
  it("an organization OpenAI has not verified gets no reasoning summaries: one refusal, a warning, then none again", async () => {
    const unverified = await startFakeProvider({ key: KEY, responses: { unverifiedOrg: true } });
    try {
      const p = createProvider({ provider: "openai", baseUrl: unverified.openaiBase, apiKey: KEY, retry: { maxRetries: 0 } });
      unverified.script({ text: "first" }, { text: "second" });
      const resent: Record<string, unknown>[] = [];
      const events: StreamEvent[] = [];
      const r = req({ reasoning: "high" });
      // the capture is taken from the provider's own encoding, as the turn takes it
      const captured = p.encode!(r).body;
      const first = await p.stream(r, { onEvent: (e) => events.push(e), onResend: async (enc) => void resent.push(enc.body) });
      expect(first.blocks).toEqual([{ type: "text", text: "first" }]);
      expect(captured["reasoning"]).toEqual({ effort: "high", summary: "auto" });
      expect(unverified.rejections()).toEqual([expect.stringContaining("must be verified to generate reasoning summaries")]);
      // what was sent again is what the capture was recorded again from
      expect(resent).toEqual([unverified.requests[1]!.body]);
      expect(unverified.requests[1]!.body.reasoning).toEqual({ effort: "high" });
      expect(events.filter((e) => e.type === "warning")).toEqual([
        { type: "warning", message: expect.stringMatching(/refused "reasoning\.summary" \(HTTP 400: Your organization must be verified.*sent the request again without it, and gpt-5 will not get it again this session/) },
      ]);
      // the next request of the session goes without at once, and its capture says so
      const next = req({ reasoning: "high", live: [{ role: "user", content: [{ type: "text", text: "again" }] }] });
      expect(p.encode!(next).body["reasoning"]).toEqual({ effort: "high" });
      await p.stream(next);
      expect(unverified.rejections()).toHaveLength(1);
      expect(unverified.requests).toHaveLength(3);
    } finally {
      await unverified.close();
    }
  });

  it("a model the catalog does not know that refuses a reasoning setting gets the request again without it, for the session", async () => {
    // the catalog cannot know every model (a gateway's, a dated snapshot, a local one):
    // its refusal must not fail this and every later request while --reasoning is on
    const f = await startFakeProvider({ key: KEY, responses: { nonReasoningModels: ["acme-chat-9"] } });
    try {
      const p = createProvider({ provider: "openai", baseUrl: f.openaiBase, apiKey: KEY, retry: { maxRetries: 0 } });
      f.script({ text: "first" }, { text: "second" });
      const events: StreamEvent[] = [];
      const resent: Record<string, unknown>[] = [];
      const r = req({ model: "acme-chat-9", reasoning: "high" });
      expect(p.encode!(r).body["reasoning"]).toEqual({ effort: "high", summary: "auto" });
      const first = await p.stream(r, { onEvent: (e) => events.push(e), onResend: async (enc) => void resent.push(enc.body) });
      expect(first.blocks).toEqual([{ type: "text", text: "first" }]);
      expect(f.rejections()).toEqual(["Unsupported parameter: 'reasoning.effort' is not supported with this model."]);
      expect(f.requests[1]!.body.reasoning).toBeUndefined();
      expect(resent).toEqual([f.requests[1]!.body]);
      expect(events.filter((e) => e.type === "warning")).toEqual([
        { type: "warning", message: expect.stringMatching(/refused "reasoning" \(HTTP 400: Unsupported parameter: 'reasoning\.effort'.*acme-chat-9 will not get it again this session/) },
      ]);
      // the next request goes without at once; another model is asked afresh
      expect(p.encode!(r).body["reasoning"]).toBeUndefined();
      expect(p.encode!(req({ reasoning: "high" })).body["reasoning"]).toEqual({ effort: "high", summary: "auto" });
      await p.stream(r);
      expect(f.rejections()).toHaveLength(1);
      expect(f.requests).toHaveLength(3);
    } finally {
      await f.close();
    }
  });

  it("a local server that knows neither include nor prompt_cache_key keeps working; a refusal of anything else stands", async () => {
    const local = await startFakeProvider({ responses: { unknownParams: ["include", "prompt_cache_key"] } });
    try {
      const p = createProvider({ provider: "openai", baseUrl: local.openaiBase, retry: { maxRetries: 0 } });
      local.script({ text: "works" });
      const events: StreamEvent[] = [];
      const out = await p.stream(req({ cache: { key: "s-1", ttl: "5m" } }), { onEvent: (e) => events.push(e) });
      expect(out.blocks).toEqual([{ type: "text", text: "works" }]);
      expect(local.rejections()).toEqual(["Unknown parameter: 'include'.", "Unknown parameter: 'prompt_cache_key'."]);
      const sent = local.requests[2]!.body;
      expect(sent.include).toBeUndefined();
      expect(sent.prompt_cache_key).toBeUndefined();
      expect(events.filter((e) => e.type === "warning")).toHaveLength(2);

      // max_output_tokens is not optional: its refusal is the error it was
      const strict = await startFakeProvider({ responses: { unknownParams: ["max_output_tokens"] } });
      try {
        const q = createProvider({ provider: "openai", baseUrl: strict.openaiBase, retry: { maxRetries: 0 } });
        const err = await q.stream(req()).then(() => undefined, (e: unknown) => e as ProviderError);
        expect(err?.kind).toBe("bad_request");
        expect(err?.message).toContain("Unknown parameter: 'max_output_tokens'");
        expect(strict.requests).toHaveLength(1);
      } finally {
        await strict.close();
      }
    } finally {
      await local.close();
    }
  });
});
