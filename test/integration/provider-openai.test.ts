// The OpenAI Chat Completions adapter against the strict fake over real loopback HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { createProvider, type ProviderConfig } from "../../src/provider/create.js";
import {
  ProviderError,
  type Provider,
  type Request,
  type StreamEvent,
  type StreamResult,
  type WireMessage,
} from "../../src/provider/types.js";

const KEY = "sk-proj-test-SECRET-openai-5150";
let fake: FakeProvider;
let open: FakeProvider; // a local-server stand-in that wants no key

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  open = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
  await open.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  open.requests.length = 0;
});

function provider(over: Partial<ProviderConfig> = {}): Provider {
  return createProvider({
    provider: "openai",
    baseUrl: fake.openaiBase,
    apiKey: KEY,
    retry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 20 },
    ...over,
  });
}

function req(over: Partial<Request> = {}): Request {
  return {
    provider: "openai",
    model: "gpt-4o",
    system: "You are a careful coding agent.",
    context: [{ source: "AGENTS.md", text: "Use tabs." }],
    history: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    tools: [
      {
        name: "read",
        description: "Read a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
      { name: "ls", description: "List a folder", inputSchema: { type: "object", properties: {} } },
    ],
    maxOutputTokens: 4096,
    reasoning: "off",
    ...over,
  };
}

async function run(p: Provider, r: Request): Promise<{ result: StreamResult; events: StreamEvent[] }> {
  const events: StreamEvent[] = [];
  const result = await p.stream(r, { onEvent: (e) => events.push(e) });
  return { result, events };
}

async function failure(p: Provider, r: Request, events: StreamEvent[] = [], signal?: AbortSignal): Promise<ProviderError> {
  try {
    await p.stream(r, { onEvent: (e) => events.push(e), ...(signal ? { signal } : {}) });
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    const err = e as ProviderError;
    expect(err.message).not.toContain(KEY);
    return err;
  }
  throw new Error("expected the stream to fail");
}

const text = (events: StreamEvent[]): string => events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
const retries = (events: StreamEvent[]) => events.filter((e) => e.type === "retry");

const CALLS = [
  { name: "read", input: { path: "a.ts" }, id: "call_A" },
  { name: "ls", input: { dir: "src", depth: 2 }, id: "call_B" },
];
const EXPECTED_CALL_BLOCKS = [
  { type: "tool_use", id: "call_A", name: "read", input: { path: "a.ts" } },
  { type: "tool_use", id: "call_B", name: "ls", input: { dir: "src", depth: 2 } },
];

describe("openai: streaming", () => {
  it("streams text with usage, a Bearer key, and the body the API wants", async () => {
    fake.script({ text: "Hello from the chat completions shape.", usage: { input: 50, output: 7 } });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "Hello from the chat completions shape." }]);
    expect(result.stopReason).toBe("end");
    expect(result.usage).toEqual({ inputTokens: 50, outputTokens: 7 });
    expect(text(events)).toBe("Hello from the chat completions shape.");
    expect(events.filter((e) => e.type === "usage")).toHaveLength(1);

    const r = fake.requests[0]!;
    expect(r.rejected).toBeUndefined();
    expect(r.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(r.body.stream).toBe(true);
    expect(r.body.stream_options).toEqual({ include_usage: true });
    expect(r.body.max_tokens).toBe(4096);
    expect(r.body.messages.slice(0, 2)).toEqual([
      { role: "system", content: "You are a careful coding agent." },
      { role: "system", content: "Use tabs." },
    ]);
    expect(r.body.tools[0]).toEqual({
      type: "function",
      function: { name: "read", description: "Read a file", parameters: req().tools[0]!.inputSchema },
    });
  });

  it("sends max_completion_tokens and reasoning_effort to gpt-5 (which refuses max_tokens)", async () => {
    fake.script({ text: "ok" });
    await run(provider(), req({ model: "gpt-5", reasoning: "low" }));
    expect(fake.rejections()).toEqual([]);
    const body = fake.requests[0]!.body;
    expect(body.max_completion_tokens).toBe(4096);
    expect(body.max_tokens).toBeUndefined();
    expect(body.reasoning_effort).toBe("low");
  });

  it.each(["streamed", "whole", "repeat_ids"] as const)("parses parallel tool calls sent %s", async (style) => {
    fake.script({ toolCalls: CALLS, toolCallStyle: style });
    const { result, events } = await run(provider(), req());
    expect(result.stopReason).toBe("tool_use");
    expect(result.blocks).toEqual(EXPECTED_CALL_BLOCKS);
    expect(events.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "call_A", name: "read" },
      { type: "tool_call_start", index: 1, id: "call_B", name: "ls" },
    ]);
  });

  it("keeps arguments that are not JSON as _raw, with a warning", async () => {
    fake.script({ toolCalls: [{ name: "read", input: null, id: "call_R", rawArguments: '{"path": "a.ts"' }] });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "tool_use", id: "call_R", name: "read", input: { _raw: '{"path": "a.ts"' } }]);
    expect(events.filter((e) => e.type === "warning")).toEqual([
      { type: "warning", message: expect.stringContaining('"read" are not valid JSON') },
    ]);
  });

  it.each(["reasoning_content", "reasoning"] as const)("reads reasoning from %s and sends it back", async (field) => {
    fake.script({ reasoning: "Think first, then answer.", reasoningField: field, toolCalls: [CALLS[0]!] });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([
      { type: "reasoning", text: "Think first, then answer." },
      EXPECTED_CALL_BLOCKS[0],
    ]);
    expect(events.filter((e) => e.type === "reasoning_delta").map((e) => (e.type === "reasoning_delta" ? e.text : "")).join("")).toBe(
      "Think first, then answer.",
    );

    fake.script({ text: "done" });
    const live: WireMessage[] = [
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Think first, then answer." },
          { type: "tool_call", id: "call_A", name: "read", input: { path: "a.ts" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", callId: "call_A", name: "read", output: "x", isError: false }] },
    ];
    await run(provider(), req({ live }));
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests[1]!.body.messages[3]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_A", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }],
      reasoning_content: "Think first, then answer.",
    });
  });

  it("sends the live round as tool_calls followed by one tool message per id, then the user's other parts", async () => {
    fake.script({ text: "all read" });
    const live: WireMessage[] = [
      {
        role: "assistant",
        content: [
          { type: "tool_call", id: "call_A", name: "read", input: { path: "a.ts" } },
          { type: "tool_call", id: "call_B", name: "ls", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", callId: "call_A", name: "read", output: "a", isError: false },
          { type: "image", mediaType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIklEQVR4AWNkYGD4z8jOy8DIzsvAwiyqzsDIzsvAyM7LAAAceQGYlkTQgAAAAABJRU5ErkJggg==", bytes: 91 },
          { type: "tool_result", callId: "call_B", name: "ls", output: "denied", isError: true },
        ],
      },
    ];
    const { result } = await run(provider(), req({ live }));
    expect(result.blocks).toEqual([{ type: "text", text: "all read" }]);
    expect(fake.rejections()).toEqual([]);
    const msgs = fake.requests[0]!.body.messages as { role: string }[];
    expect(msgs.map((m) => m.role)).toEqual(["system", "system", "user", "assistant", "tool", "tool", "user"]);
    expect(msgs[5]).toEqual({ role: "tool", tool_call_id: "call_B", content: "Error: denied" });
    expect(msgs[6]).toEqual({
      role: "user",
      content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIklEQVR4AWNkYGD4z8jOy8DIzsvAwiyqzsDIzsvAyM7LAAAceQGYlkTQgAAAAABJRU5ErkJggg==" } }],
    });
  });

  it("talks to a local server with no key and sends no Authorization header", async () => {
    open.script({ text: "local answer" });
    const p = createProvider({ provider: "openai", baseUrl: open.openaiBase, retry: { baseDelayMs: 5 } });
    const { result } = await run(p, req({ model: "qwen2.5-coder:7b" }));
    expect(result.blocks).toEqual([{ type: "text", text: "local answer" }]);
    expect(open.requests[0]!.headers["authorization"]).toBeUndefined();
    expect(open.requests[0]!.body.max_tokens).toBe(4096);
  });

  it("ignores an unknown chunk and says so through a warning", async () => {
    fake.script({ fault: "unknown_event", text: "Still here." });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "Still here." }]);
    expect(events.filter((e) => e.type === "warning")).toEqual([
      { type: "warning", message: expect.stringContaining("albedo.mystery") },
    ]);
  });
});

describe("openai: the fake rejects what the real API rejects", () => {
  async function post(body: unknown, auth: string | null = `Bearer ${KEY}`) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (auth !== null) headers["authorization"] = auth;
    const res = await request(`${fake.openaiBase}/chat/completions`, { method: "POST", headers, body: JSON.stringify(body) });
    const json = (await res.body.json()) as { error: { message: string; code: string | null; param: string | null } };
    return { status: res.statusCode, error: json.error };
  }
  const base = { model: "gpt-4o", stream: true };
  const user = { role: "user", content: "hi" };
  const calls = {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } },
      { id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
    ],
  };

  it("tool_calls that are not followed by a tool message for every id", async () => {
    const r = await post({ ...base, messages: [user, calls, { role: "tool", tool_call_id: "call_1", content: "x" }, user] });
    expect(r.status).toBe(400);
    expect(r.error.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
    );
  });

  it("a tool message with an id the tool_calls never had", async () => {
    const r = await post({
      ...base,
      messages: [user, calls, { role: "tool", tool_call_id: "call_1", content: "x" }, { role: "tool", tool_call_id: "call_9", content: "y" }],
    });
    expect(r.status).toBe(400);
    expect(r.error.message).toBe("Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.");
  });

  it("a tool message that follows no tool_calls", async () => {
    const r = await post({ ...base, messages: [user, { role: "tool", tool_call_id: "call_1", content: "x" }] });
    expect(r.status).toBe(400);
    expect(r.error.message).toBe(
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
  });

  it("an empty messages array, max_tokens on gpt-5, object arguments", async () => {
    expect((await post({ ...base, messages: [] })).error.code).toBe("empty_array");
    const mt = await post({ model: "gpt-5", stream: true, max_tokens: 10, messages: [user] });
    expect(mt.error.code).toBe("unsupported_parameter");
    const args = await post({
      ...base,
      messages: [user, { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "ls", arguments: {} } }] }],
    });
    expect(args.error.message).toContain("expected a string, but got an object instead");
  });

  it("a missing or wrong Bearer key (401)", async () => {
    const none = await post({ ...base, messages: [user] }, null);
    expect(none.status).toBe(401);
    expect(none.error.message).toContain("You didn't provide an API key");
    const wrong = await post({ ...base, messages: [user] }, "Bearer sk-nope-12345678");
    expect(wrong.status).toBe(401);
    expect(wrong.error.code).toBe("invalid_api_key");
  });

  it("and the adapter surfaces a dangling tool call as bad_request with the API's text", async () => {
    const live: WireMessage[] = [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "tool_call", id: "call_D", name: "ls", input: {} }] },
      { role: "user", content: [{ type: "text", text: "no result" }] },
    ];
    const err = await failure(provider(), req({ history: [], live }));
    expect(err.kind).toBe("bad_request");
    expect(err.message).toContain("did not have response messages: call_D");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("openai: retries before output", () => {
  it("retries a 429 after retry-after-ms", async () => {
    fake.script({ status: 429, headers: { "retry-after-ms": "30" } }, { text: "after the wait" });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "after the wait" }]);
    expect(retries(events)).toEqual([{ type: "retry", attempt: 1, delayMs: 30, reason: expect.stringContaining("HTTP 429") }]);
  });

  it("retries 500/502/503 and a reset before the first byte, then succeeds", async () => {
    fake.script({ status: 500 }, { status: 502 }, { fault: "reset_before" }, { status: 503 }, { text: "made it" });
    const { result, events } = await run(provider({ retry: { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 4 } }), req());
    expect(result.blocks).toEqual([{ type: "text", text: "made it" }]);
    expect(retries(events)).toHaveLength(4);
    expect(fake.requests).toHaveLength(5);
  });

  it("retries an in-stream error that arrives before any output", async () => {
    fake.script({ fault: "error_event", text: "" }, { text: "second try" });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "second try" }]);
    expect(retries(events)).toHaveLength(1);
  });
});

describe("openai: failures", () => {
  it("never retries once output has streamed: a reset mid-answer keeps the partial", async () => {
    fake.script({ fault: "reset_mid", text: "Part of the answer" });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("network");
    expect(err.opts.outputStarted).toBe(true);
    expect(err.partial).toEqual([{ type: "text", text: "Part of the answer" }]);
    expect(retries(events)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it("a stream without [DONE] or a finish is an error with the partial kept", async () => {
    fake.script({ fault: "no_final", text: "Unfinished" });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("the stream ended before the provider finished");
    expect(err.partial).toEqual([{ type: "text", text: "Unfinished" }]);
  });

  it("a malformed chunk is a clear stream error", async () => {
    fake.script({ fault: "malformed_json", text: "Good words then junk and more words" });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("malformed stream chunk: not valid JSON");
    expect(err.partial).toEqual([{ type: "text", text: "Good words then junk and more " }]);
  });

  it("an in-stream error after output ends the stream with the partial kept", async () => {
    fake.script({ fault: "error_event", text: "Some words" });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("server");
    expect(err.message).toContain("reported an error mid-stream");
    expect(err.partial).toEqual([{ type: "text", text: "Some words" }]);
  });

  it("a dripping server trips the idle timeout", async () => {
    fake.script({ fault: "drip" });
    const err = await failure(provider({ idleTimeoutMs: 250 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("no data from the provider for 0.25 s");
  });

  it("a refused key is an auth error, with no retry, and without the key", async () => {
    const wrong = "sk-proj-wrong-key-ABCDEFGH";
    const err = await failure(provider({ apiKey: wrong }), req());
    expect(err.kind).toBe("auth");
    expect(err.message).toContain("the key was refused by");
    expect(err.message).toContain("Check OPENAI_API_KEY or the config file.");
    expect(err.message).not.toContain(wrong);
    expect(fake.requests).toHaveLength(1);
  });

  it("a context-length 400 is context_length, naming the window and /compact", async () => {
    fake.script({
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("context_length");
    expect(err.message).toContain("128,000 tokens");
    expect(err.message).toContain("/compact");
  });

  it("a context-length error from an unknown local model does not invent a window", async () => {
    open.script({ status: 400, body: { error: { message: "the request exceeds the available context size, try increasing it" } } });
    const p = createProvider({ provider: "openai", baseUrl: open.openaiBase });
    const err = await failure(p, req({ model: "my-local-model" }));
    expect(err.kind).toBe("context_length");
    expect(err.message).toContain("my-local-model's context window:");
    expect(err.message).not.toMatch(/\d,\d{3} tokens/);
  });

  it("an abort mid-stream keeps what arrived", async () => {
    fake.script({ fault: "hang_after_text", text: "Words before the stop" });
    const ac = new AbortController();
    const events: StreamEvent[] = [];
    const pending = failure(provider(), req(), events, ac.signal);
    const started = Date.now();
    while (!text(events).endsWith("stop") && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const err = await pending;
    expect(err.kind).toBe("aborted");
    expect(err.partial).toEqual([{ type: "text", text: "Words before the stop" }]);
  });
});

describe("openai: bounds on what one answer may bring", () => {
  const MB = 1024 * 1024;

  it("one 40 MB chunk is cut off as it arrives: too_large, the text before it kept, the rest never read", async () => {
    fake.script({ fault: "huge_event", text: "Here comes a lot:", bytes: 40 * MB });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("too_large");
    expect(err.message).toMatch(
      /^the provider sent more than 4 MB in one answer, in a single stream event; stopped reading it; what arrived up to the bound was kept \(the server at 127\.0\.0\.1:\d+; an answer may bring 16 bytes per max-output token, at least 4 MB\)$/,
    );
    expect(err.partial).toEqual([{ type: "text", text: "Here comes a lot:" }]);
    expect(retries(events)).toEqual([]);
    const sent = fake.faults.at(-1)!;
    expect(sent).toMatchObject({ fault: "huge_event", completed: false });
    expect(sent.bytes).toBeLessThan(30 * MB);
  });

  it("an endless stream of small deltas ends at a bound that follows max output tokens (400,000 × 16 bytes)", async () => {
    fake.script({ fault: "endless_text", text: "Starting." });
    const events: StreamEvent[] = [];
    const bound = 400_000 * 16;
    const err = await failure(provider(), req({ maxOutputTokens: 400_000 }), events);
    expect(err.kind).toBe("too_large");
    expect(err.message).toContain("the provider sent more than 6.1 MB in one answer; stopped reading it; what arrived up to the bound was kept");
    expect(err.partial).toHaveLength(1);
    const kept = err.partial[0]!;
    if (kept.type !== "text") throw new Error(`expected text, got ${kept.type}`);
    expect(kept.text.startsWith("Starting.lorem ipsum")).toBe(true);
    expect(Buffer.byteLength(kept.text)).toBeLessThanOrEqual(bound);
    expect(Buffer.byteLength(kept.text)).toBeGreaterThan(bound - 1024);
    expect(text(events)).toBe(kept.text);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "endless_text", completed: false });
  });

  it("a 50 MB tool argument is cut off at the bound, and the call is neither kept nor run", async () => {
    fake.script({ fault: "huge_tool_input", text: "I will write it." });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("too_large");
    expect(err.message).toContain(
      'the provider sent more than 4 MB in one answer; stopped reading it; the input of the tool call "write" was cut off there, and the call is not run',
    );
    expect(err.partial).toEqual([{ type: "text", text: "I will write it." }]);
    const streamed = events.reduce((n, e) => n + (e.type === "tool_call_delta" ? e.partialJson.length : 0), 0);
    expect(streamed).toBeLessThanOrEqual(4 * MB);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "huge_tool_input", completed: false });
  });

  it("a 40 MB error body is read only for its message", async () => {
    fake.script({ fault: "huge_error_body", bytes: 40 * MB });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("bad_request");
    // the body is cut short, so it is shown as text, clipped
    expect(err.message).toMatch(/rejected the request \(HTTP 400\): \{"error":\{"message":"lorem ipsum.*…$/);
    expect(err.message.length).toBeLessThan(1000);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "huge_error_body", completed: false });
  });

  it("comments, empty deltas and empty content alone end the wait for the first content at the idle timeout", async () => {
    fake.script({ fault: "pings_only", pingEveryMs: 40 });
    const err = await failure(provider({ idleTimeoutMs: 400 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toMatch(
      /^no content from the provider for 0\.4 s \(the server at 127\.0\.0\.1:\d+\) while waiting for the answer to start: only keep-alive pings or empty events arrived; gave up waiting/,
    );
    expect(err.partial).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it("pings between pieces of content do not stretch the wait between them", async () => {
    fake.script({ fault: "slow_content", text: "one two three four", contentEveryMs: 1500, pingEveryMs: 40 });
    const err = await failure(provider({ idleTimeoutMs: 400 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("while waiting after the last content: only keep-alive pings or empty events arrived");
    expect(err.partial).toEqual([{ type: "text", text: "one two " }]);
  });

  it("a flood of pings and empty events ends at the bound on the whole stream (64 MB), long before the idle timeout", async () => {
    fake.script({ fault: "ping_flood" });
    const err = await failure(provider({ idleTimeoutMs: 600_000 }), req());
    expect(err.kind).toBe("too_large");
    expect(err.message).toMatch(/^the provider sent more than 64 MB of event stream for one answer, most of it not content; stopped reading it \(/);
    expect(err.partial).toEqual([]);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "ping_flood", completed: false });
  });

  it("a pause inside a tool call's arguments gets no more than the idle timeout (OpenAI streams them token by token)", async () => {
    fake.script({ fault: "paused_tool_input", text: "Writing.", contentEveryMs: 1500, pingEveryMs: 40 });
    const err = await failure(provider({ idleTimeoutMs: 400 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("no content from the provider for 0.4 s");
    expect(err.message).toContain("while waiting after the last content");
    expect(err.partial).toEqual([{ type: "text", text: "Writing." }]);
  });

  it("content that keeps coming, with pings between, streams to its end", async () => {
    fake.script({ fault: "slow_content", text: "one two three four five six", contentEveryMs: 30, pingEveryMs: 10 });
    const { result } = await run(provider({ idleTimeoutMs: 5000 }), req());
    expect(result.blocks).toEqual([{ type: "text", text: "one two three four five six" }]);
  });
});

describe("openai: a field the server refuses is dropped, once, and remembered", () => {
  const cache = { key: "01JSESSIONKEY", ttl: "5m" as const };
  const warnings = (events: StreamEvent[]) => events.filter((e) => e.type === "warning").map((e) => (e.type === "warning" ? e.message : ""));

  async function localFake(local: Parameters<typeof startFakeProvider>[0]): Promise<{ fake: FakeProvider; p: Provider }> {
    const f = await startFakeProvider(local);
    return { fake: f, p: createProvider({ provider: "openai", baseUrl: f.openaiBase, retry: { maxRetries: 0 } }) };
  }

  it("prompt_cache_key goes to a server that takes it", async () => {
    fake.script({ text: "cached" });
    await run(provider(), req({ cache }));
    expect(fake.requests[0]!.body.prompt_cache_key).toBe("01JSESSIONKEY");
  });

  it("a server that refuses prompt_cache_key gets the request again without it, with a warning, and never again this session", async () => {
    const { fake: lm, p } = await localFake({ local: { server: "lmstudio", refuse: ["prompt_cache_key"] } });
    try {
      lm.script({ text: "first" }, { text: "second" });
      const first = await run(p, req({ model: "qwen2.5-coder-7b", cache }));
      expect(first.result.blocks).toEqual([{ type: "text", text: "first" }]);
      expect(lm.requests.map((r) => [r.body.prompt_cache_key, r.rejected])).toEqual([
        ["01JSESSIONKEY", "lmstudio refused prompt_cache_key"],
        [undefined, undefined],
      ]);
      expect(warnings(first.events)).toEqual([
        `the server at ${new URL(lm.url).host} refused "prompt_cache_key" (HTTP 400: Unrecognized key(s) in object: 'prompt_cache_key'); ` +
          `sent the request again without it, and qwen2.5-coder-7b will not get it again this session`,
      ]);
      // the retried body is the first one without that field, and nothing else
      const { prompt_cache_key: _dropped, ...rest } = lm.requests[0]!.body;
      expect(lm.requests[1]!.body).toEqual(rest);

      const second = await run(p, req({ model: "qwen2.5-coder-7b", cache }));
      expect(second.result.blocks).toEqual([{ type: "text", text: "second" }]);
      expect(lm.requests).toHaveLength(3);
      expect(lm.requests[2]!.body).not.toHaveProperty("prompt_cache_key");
      expect(warnings(second.events)).toEqual([]);
    } finally {
      await lm.close();
    }
  });

  it("fields refused one by one are each dropped once; a required one is never dropped and the refusal stands", async () => {
    const { fake: v, p } = await localFake({ local: { server: "llamacpp", refuse: ["prompt_cache_key", "stream_options"] } });
    try {
      v.script({ text: "done" });
      const { result, events } = await run(p, req({ model: "llama-3.1-8b", cache }));
      expect(result.blocks).toEqual([{ type: "text", text: "done" }]);
      // llama.cpp names one field per refusal: three requests, each without one more field
      expect(v.requests.map((r) => [Object.keys(r.body).filter((k) => k === "prompt_cache_key" || k === "stream_options"), r.rejected])).toEqual([
        [["stream_options", "prompt_cache_key"], "llamacpp refused prompt_cache_key, stream_options"],
        [["stream_options"], "llamacpp refused stream_options"],
        [[], undefined],
      ]);
      expect(warnings(events)).toHaveLength(2);
    } finally {
      await v.close();
    }
    // tools: required, so the refusal is the answer
    const { fake: t, p: pt } = await localFake({ local: { server: "llamacpp", refuse: ["tools"] } });
    try {
      const err = await failure(pt, req({ model: "llama-3.1-8b" }));
      expect(err.kind).toBe("bad_request");
      expect(err.message).toContain("Unsupported param: tools");
      expect(t.requests).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it("vLLM's extra_forbidden on a message: reasoning_content stops being echoed; another model is asked afresh", async () => {
    const { fake: v, p } = await localFake({ local: "vllm" });
    try {
      const live: WireMessage[] = [
        { role: "assistant", content: [{ type: "reasoning", text: "Think." }, { type: "tool_call", id: "call_A", name: "read", input: { path: "a.ts" } }] },
        { role: "user", content: [{ type: "tool_result", callId: "call_A", name: "read", output: "x", isError: false }] },
      ];
      v.script({ text: "one" }, { text: "two" });
      const resent: unknown[] = [];
      const events: StreamEvent[] = [];
      await p.stream(req({ model: "qwen3-32b", live }), {
        onEvent: (e) => events.push(e),
        onResend: async (enc) => {
          resent.push(enc.body);
        },
      });
      expect(v.requests.map((r) => r.rejected)).toEqual(["vllm refused reasoning_content", undefined]);
      expect(JSON.stringify(v.requests[0]!.body.messages)).toContain("reasoning_content");
      expect(JSON.stringify(v.requests[1]!.body.messages)).not.toContain("reasoning_content");
      // the turn was handed the very body that went, to capture again
      expect(resent).toEqual([v.requests[1]!.body]);
      expect(warnings(events)[0]).toContain('refused "reasoning_content" (HTTP 400: [{\'type\': \'extra_forbidden\'');
      // the memory is per model: another model on the same server sends it again
      await p.stream(req({ model: "deepseek-r1", live }));
      expect(JSON.stringify(v.requests[2]!.body.messages)).toContain("reasoning_content");
    } finally {
      await v.close();
    }
  });

  it("a refused output limit field is swapped for the other one (OpenAI's words for a model the catalog does not know)", async () => {
    fake.script(
      {
        status: 400,
        body: {
          error: {
            message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            type: "invalid_request_error",
            param: "max_tokens",
            code: "unsupported_parameter",
          },
        },
      },
      { text: "ok" },
    );
    const { events } = await run(provider(), req({ model: "gpt-7-preview" }));
    expect(fake.requests.map((r) => [r.body.max_tokens, r.body.max_completion_tokens])).toEqual([
      [4096, undefined],
      [undefined, 4096],
    ]);
    expect(warnings(events)[0]).toContain('refused "max_tokens"');
    expect(warnings(events)[0]).toContain('it gets "max_completion_tokens" instead');
  });

  it("a 400 that names no optional field stands, with no second request", async () => {
    fake.script({ status: 400, body: { error: { message: "Invalid 'messages[0].content': string too long.", type: "invalid_request_error", param: "messages[0].content", code: "string_above_max_length" } } });
    const err = await failure(provider(), req({ cache }));
    expect(err.kind).toBe("bad_request");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("openai: reasoning per model", () => {
  it("gpt-4o with reasoning high gets no reasoning_effort; o3 and an unknown local model get it", async () => {
    fake.script({ text: "a" }, { text: "b" }, { text: "c" });
    await run(provider(), req({ model: "gpt-4o", reasoning: "high" }));
    await run(provider(), req({ model: "o3", reasoning: "high" }));
    await run(provider(), req({ model: "qwen3:8b", reasoning: "high" }));
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests.map((r) => r.body.reasoning_effort)).toEqual([undefined, "high", "high"]);
  });
});
