// The Anthropic adapter against the strict fake over real loopback HTTP: streaming, tools,
// thinking, retries and every failure path. No mocks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { createProvider, missingKeyMessage, type ProviderConfig } from "../../src/provider/create.js";
import {
  ProviderError,
  type Provider,
  type Request,
  type StreamEvent,
  type StreamResult,
  type WireMessage,
} from "../../src/provider/types.js";

const KEY = "sk-ant-test-SECRET-key-7731";
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

function provider(over: Partial<ProviderConfig> = {}): Provider {
  return createProvider({
    provider: "anthropic",
    baseUrl: fake.anthropicBase,
    apiKey: KEY,
    retry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 20 },
    ...over,
  });
}

function req(over: Partial<Request> = {}): Request {
  return {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
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
    maxOutputTokens: 8192,
    reasoning: "off",
    ...over,
  };
}

async function run(p: Provider, r: Request, signal?: AbortSignal): Promise<{ result: StreamResult; events: StreamEvent[] }> {
  const events: StreamEvent[] = [];
  const result = await p.stream(r, { onEvent: (e) => events.push(e), ...(signal ? { signal } : {}) });
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

const text = (events: StreamEvent[]): string =>
  events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
const retries = (events: StreamEvent[]) => events.filter((e) => e.type === "retry");

describe("anthropic: streaming", () => {
  it("streams text, reports usage, and sends the headers and body the API wants", async () => {
    fake.script({ text: "Hello there, how can I help today?", wordsPerEvent: 1, usage: { input: 120, output: 9 } });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "Hello there, how can I help today?" }]);
    expect(result.stopReason).toBe("end");
    expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 9 });
    expect(text(events)).toBe("Hello there, how can I help today?");
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(3);

    const r = fake.requests[0]!;
    expect(r.rejected).toBeUndefined();
    expect(r.headers["x-api-key"]).toBe(KEY);
    expect(r.headers["anthropic-version"]).toBe("2023-06-01");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.body.stream).toBe(true);
    expect(r.body.max_tokens).toBe(8192);
    expect(r.body.system).toEqual([
      { type: "text", text: "You are a careful coding agent." },
      { type: "text", text: "Use tabs." },
    ]);
    expect(r.body.tools.map((t: { name: string }) => t.name)).toEqual(["read", "ls"]);
  });

  it("parses parallel tool calls from streamed JSON, and the live round's answer is accepted", async () => {
    fake.script({
      text: "Let me look.",
      toolCalls: [
        { name: "read", input: { path: "src/a.ts", range: [1, 20] }, id: "toolu_01A" },
        { name: "ls", input: {}, id: "toolu_01B" },
      ],
    });
    const { result, events } = await run(provider(), req());
    expect(result.stopReason).toBe("tool_use");
    expect(result.blocks).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "toolu_01A", name: "read", input: { path: "src/a.ts", range: [1, 20] } },
      { type: "tool_use", id: "toolu_01B", name: "ls", input: {} },
    ]);
    const starts = events.filter((e) => e.type === "tool_call_start");
    expect(starts).toEqual([
      { type: "tool_call_start", index: 0, id: "toolu_01A", name: "read" },
      { type: "tool_call_start", index: 1, id: "toolu_01B", name: "ls" },
    ]);
    const json0 = events.map((e) => (e.type === "tool_call_delta" && e.index === 0 ? e.partialJson : "")).join("");
    expect(JSON.parse(json0)).toEqual({ path: "src/a.ts", range: [1, 20] });

    // the live round: native tool_use / tool_result with the real ids
    fake.script({ text: "Done." });
    const live: WireMessage[] = [
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_call", id: "toolu_01A", name: "read", input: { path: "src/a.ts" } },
          { type: "tool_call", id: "toolu_01B", name: "ls", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "(also, be quick)" },
          { type: "tool_result", callId: "toolu_01A", name: "read", output: "export {}", isError: false },
          { type: "tool_result", callId: "toolu_01B", name: "ls", output: "no such folder", isError: true },
        ],
      },
    ];
    const second = await run(provider(), req({ live }));
    expect(second.result.blocks).toEqual([{ type: "text", text: "Done." }]);
    expect(fake.rejections()).toEqual([]);
    const sent = fake.requests[1]!.body.messages[2].content;
    expect(sent.map((b: { type: string }) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(sent[1]).toMatchObject({ tool_use_id: "toolu_01B", is_error: true, content: "no such folder" });
  });

  it("turns thinking with its signature into a reasoning block that goes back unmodified", async () => {
    fake.script({ reasoning: "The user greets me. I should greet back.", signature: "EqQBCkYIARgCKkBsig==", text: "Hi!" });
    const { result, events } = await run(provider(), req({ reasoning: "medium" }));
    expect(result.blocks).toEqual([
      {
        type: "reasoning",
        text: "The user greets me. I should greet back.",
        opaque: { kind: "thinking_signature", body: "EqQBCkYIARgCKkBsig==" },
      },
      { type: "text", text: "Hi!" },
    ]);
    expect(events.some((e) => e.type === "reasoning_delta")).toBe(true);
    expect(fake.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 6144 });

    fake.script({ text: "ok" });
    const reasoning = result.blocks[0]!;
    if (reasoning.type !== "reasoning") throw new Error("expected reasoning first");
    await run(
      provider(),
      req({
        reasoning: "medium",
        live: [
          { role: "assistant", content: [{ type: "reasoning", text: reasoning.text, ...(reasoning.opaque ? { opaque: reasoning.opaque } : {}) }, { type: "tool_call", id: "toolu_9", name: "ls", input: {} }] },
          { role: "user", content: [{ type: "tool_result", callId: "toolu_9", name: "ls", output: "a.ts", isError: false }] },
        ],
      }),
    );
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests[1]!.body.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: "The user greets me. I should greet back.",
      signature: "EqQBCkYIARgCKkBsig==",
    });
  });

  it("uses adaptive thinking with an effort for the models that accept only that", async () => {
    fake.script({ text: "ok" });
    await run(provider(), req({ model: "claude-opus-4-7", reasoning: "high" }));
    const body = fake.requests[0]!.body;
    expect(body.thinking).toEqual({ type: "adaptive" });
    expect(body.output_config).toEqual({ effort: "high" });
    expect(fake.rejections()).toEqual([]);
  });

  it("ignores an unknown event type and says so through a warning", async () => {
    fake.script({ fault: "unknown_event", text: "Still fine." });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "Still fine." }]);
    const warnings = events.filter((e) => e.type === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ message: expect.stringContaining("albedo_mystery") });
  });
});

describe("anthropic: the fake rejects what the real API rejects", () => {
  async function post(body: unknown, headers: Record<string, string> = {}) {
    const res = await request(`${fake.anthropicBase}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01", ...headers },
      body: JSON.stringify(body),
    });
    const json = (await res.body.json()) as { error: { type: string; message: string } };
    return { status: res.statusCode, error: json.error };
  }
  const user = (text: string) => ({ role: "user", content: text });
  const base = { model: "claude-sonnet-4-5", max_tokens: 100, stream: true };

  it("a tool_use that the next message does not answer", async () => {
    const r = await post({
      ...base,
      messages: [
        user("hi"),
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_X1", name: "ls", input: {} }] },
        user("never mind"),
      ],
    });
    expect(r.status).toBe(400);
    expect(r.error.message).toBe(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_X1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });

  it("a tool_result whose id the previous message never used", async () => {
    const r = await post({
      ...base,
      messages: [
        user("hi"),
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_A", name: "ls", input: {} }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_A", content: "x" },
            { type: "tool_result", tool_use_id: "toolu_GHOST", content: "y" },
          ],
        },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.error.message).toContain("unexpected `tool_use_id` found in `tool_result` blocks: toolu_GHOST");
  });

  it.each([
    ["no max_tokens", { model: "claude-sonnet-4-5", messages: [user("hi")] }, "max_tokens: Field required"],
    ["empty content", { ...base, messages: [user("hi"), { role: "assistant", content: [] }, user("x")] }, "all messages must have non-empty content"],
    ["an empty text block", { ...base, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }, "text content blocks must be non-empty"],
    ["an assistant first", { ...base, messages: [{ role: "assistant", content: "hi" }, user("x")] }, "first message must use the \"user\" role"],
    [
      "a tool name with a space",
      { ...base, messages: [user("hi")], tools: [{ name: "read file", input_schema: { type: "object" } }] },
      "String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    ],
    [
      "a thinking budget not below max_tokens",
      { ...base, messages: [user("hi")], thinking: { type: "enabled", budget_tokens: 2048 } },
      "`max_tokens` must be greater than `thinking.budget_tokens`",
    ],
  ])("%s", async (_name, body, text) => {
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(r.error.type).toBe("invalid_request_error");
    expect(r.error.message).toContain(text);
  });

  it("a request without x-api-key (401) or without anthropic-version (400)", async () => {
    const noKey = await request(`${fake.anthropicBase}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ ...base, messages: [user("hi")] }),
    });
    expect(noKey.statusCode).toBe(401);
    await noKey.body.dump();
    const r = await post({ ...base, messages: [user("hi")] }, { "anthropic-version": "" });
    expect(r.status).toBe(400);
    expect(r.error.message).toBe("anthropic-version: header is required");
  });

  it("and the adapter surfaces such a rejection as bad_request with the API's text", async () => {
    const live: WireMessage[] = [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "tool_call", id: "toolu_D", name: "ls", input: {} }] },
      { role: "user", content: [{ type: "text", text: "no result here" }] },
    ];
    const err = await failure(provider(), req({ history: [], live }));
    expect(err.kind).toBe("bad_request");
    expect(err.status).toBe(400);
    expect(err.message).toContain("`tool_use` ids were found without `tool_result` blocks");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("anthropic: retries before output", () => {
  it("retries a 429 after the wait retry-after asks for", async () => {
    fake.script({ status: 429, headers: { "retry-after": "1" } }, { text: "after the wait" });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "after the wait" }]);
    expect(retries(events)).toEqual([
      { type: "retry", attempt: 1, delayMs: 1000, reason: expect.stringContaining("HTTP 429") },
    ]);
    expect(fake.requests).toHaveLength(2);
  });

  it("honours retry-after-ms before retry-after", async () => {
    fake.script({ status: 529, headers: { "retry-after-ms": "40", "retry-after": "30" } }, { text: "ok" });
    const { events } = await run(provider(), req());
    expect(retries(events).map((e) => e.delayMs)).toEqual([40]);
  });

  it("retries 500, 502, 503 and 529, then succeeds", async () => {
    fake.script({ status: 500 }, { status: 502 }, { status: 503 }, { status: 529 }, { text: "finally" });
    const { result, events } = await run(provider({ retry: { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 4 } }), req());
    expect(result.blocks).toEqual([{ type: "text", text: "finally" }]);
    const r = retries(events);
    expect(r.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
    expect(r.map((e) => e.reason.slice(0, 8))).toEqual(["HTTP 500", "HTTP 502", "HTTP 503", "HTTP 529"]);
    expect(fake.requests).toHaveLength(5);
  });

  it("retries a connection reset before the first byte", async () => {
    fake.script({ fault: "reset_before" }, { text: "reconnected" });
    const { result, events } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: "reconnected" }]);
    expect(retries(events)).toHaveLength(1);
    expect(retries(events)[0]!.reason).toMatch(/reset|closed/);
  });

  it("gives up after maxRetries and says so", async () => {
    fake.script({ status: 503 }, { status: 503 }, { status: 503 });
    const err = await failure(provider({ retry: { maxRetries: 2, baseDelayMs: 1 } }), req());
    expect(err.kind).toBe("server");
    expect(err.message).toContain("gave up after 2 retries");
    expect(fake.requests).toHaveLength(3);
  });

  it("does not retry when the server says x-should-retry: false", async () => {
    // a retry would find the empty script's default "ok" and succeed
    fake.script({ status: 500, headers: { "x-should-retry": "false" } });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("server");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("anthropic: failures", () => {
  it("never retries once output has streamed: a reset mid-answer keeps the partial text", async () => {
    // a retry would find the empty script's default "ok" and succeed
    fake.script({ fault: "reset_mid", text: "Half of an answer that" });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("network");
    expect(err.opts.outputStarted).toBe(true);
    expect(err.partial).toEqual([{ type: "text", text: "Half of an answer that" }]);
    expect(retries(events)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it("a stream that ends without message_stop is an error, with the partial kept", async () => {
    fake.script({ fault: "no_final", text: "Cut short" });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("the stream ended before the provider finished");
    expect(err.partial).toEqual([{ type: "text", text: "Cut short" }]);
    expect(err.opts.outputStarted).toBe(true);
  });

  it("a malformed event is a clear stream error, not a crash", async () => {
    fake.script({ fault: "malformed_json", text: "Before the garbage arrives" });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("malformed stream event");
    expect(err.message).toContain("not valid JSON");
    expect(err.partial).toEqual([{ type: "text", text: "Before the " }]);
  });

  it("an error event after output has started ends the stream with the partial kept", async () => {
    fake.script({ fault: "error_event", text: "Working on it" });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("overloaded");
    expect(err.message).toContain("Overloaded");
    expect(err.partial).toEqual([{ type: "text", text: "Working on it" }]);
    expect(retries(events)).toEqual([]);
  });

  it("a server that drips one byte a second trips the idle timeout", async () => {
    fake.script({ fault: "drip" });
    const err = await failure(provider({ idleTimeoutMs: 300 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("no data from the provider for 0.3 s");
  });

  it("a refused key is an auth error naming what to set, with no retry", async () => {
    const err = await failure(provider({ apiKey: "sk-ant-wrong-key-000" }), req());
    expect(err.kind).toBe("auth");
    expect(err.status).toBe(401);
    expect(err.message).toContain("the key was refused by");
    expect(err.message).toContain("(HTTP 401): invalid x-api-key");
    expect(err.message).toContain("Check ANTHROPIC_API_KEY or the config file.");
    expect(err.message).not.toContain("sk-ant-wrong-key-000");
    expect(fake.requests).toHaveLength(1);
  });

  it("a prompt that is too long is a context_length error naming the window and /compact", async () => {
    fake.script({
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "prompt is too long: 213462 tokens > 200000 maximum" },
      },
    });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("context_length");
    expect(err.message).toContain("200,000 tokens");
    expect(err.message).toContain("prompt is too long");
    expect(err.message).toContain("/compact");
  });

  it("an abort mid-stream stops at once and keeps what arrived", async () => {
    fake.script({ fault: "hang_after_text", text: "Streaming along until" });
    const ac = new AbortController();
    const events: StreamEvent[] = [];
    const p = provider();
    const pending = failure(p, req(), events, ac.signal);
    // abort as soon as the last word of the opening text has arrived
    const started = Date.now();
    while (!text(events).endsWith("until") && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const err = await pending;
    expect(err.kind).toBe("aborted");
    expect(err.partial).toEqual([{ type: "text", text: "Streaming along until" }]);
    expect(err.opts.outputStarted).toBe(true);
  });

  it("never puts the key in an error, even when the server echoes it", async () => {
    fake.script({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: `bad header x-api-key=${KEY}` } } });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("bad_request");
    expect(err.message).toContain("[redacted key]");
    expect(JSON.stringify(err)).not.toContain(KEY);
  });

  it("without a key, every call fails with the sentence that says what to set", async () => {
    const err = await failure(createProvider({ provider: "anthropic", baseUrl: fake.anthropicBase }), req());
    expect(err.kind).toBe("missing_key");
    expect(err.message).toBe(missingKeyMessage("anthropic"));
    expect(err.message).toBe(
      'No API key for anthropic: set ANTHROPIC_API_KEY or "anthropicApiKey" in ~/.config/albedo/config.json.',
    );
    expect(fake.requests).toHaveLength(0);
  });
});

describe("anthropic: bounds on what one answer may bring", () => {
  const MB = 1024 * 1024;
  // req() asks for 8,192 output tokens: 16 bytes each is 128 KB, so the 4 MB floor applies
  const BOUND = 4 * MB;

  it("an answer under the bound is whole, even when one event carries 3 MB of it", async () => {
    const big = "x".repeat(3 * MB);
    fake.script({ text: `Short start. ${big}` });
    const { result } = await run(provider(), req());
    expect(result.blocks).toEqual([{ type: "text", text: `Short start. ${big}` }]);
  });

  it("one 40 MB event is cut off as it arrives: too_large, the text before it kept, the rest never read", async () => {
    fake.script({ fault: "huge_event", text: "Here comes a lot:", bytes: 40 * MB });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("too_large");
    expect(err.message).toMatch(
      /^the provider sent more than 4 MB in one answer, in a single stream event; stopped reading it; what arrived up to the bound was kept \(the Anthropic-shaped server at 127\.0\.0\.1:\d+; an answer may bring 16 bytes per max-output token, at least 4 MB\)$/,
    );
    expect(err.partial).toEqual([{ type: "text", text: "Here comes a lot:" }]);
    expect(retries(events)).toEqual([]);
    // the client hung up: the fake never got to the end of the event
    const sent = fake.faults.at(-1)!;
    expect(sent).toMatchObject({ fault: "huge_event", completed: false });
    expect(sent.bytes).toBeLessThan(30 * MB);
  });

  it("an endless stream of small deltas ends at the bound, with the text up to it kept", async () => {
    fake.script({ fault: "endless_text", text: "Starting." });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("too_large");
    expect(err.message).toContain("the provider sent more than 4 MB in one answer; stopped reading it; what arrived up to the bound was kept");
    expect(err.partial).toHaveLength(1);
    const kept = err.partial[0]!;
    if (kept.type !== "text") throw new Error(`expected text, got ${kept.type}`);
    expect(kept.text.startsWith("Starting.lorem ipsum")).toBe(true);
    expect(Buffer.byteLength(kept.text)).toBeLessThanOrEqual(BOUND);
    expect(Buffer.byteLength(kept.text)).toBeGreaterThan(BOUND - 1024);
    // the caller was handed exactly the text that is kept, no more
    expect(text(events)).toBe(kept.text);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "endless_text", completed: false });
  });

  it("a 50 MB tool input is cut off at the bound, and the call is neither kept nor run", async () => {
    fake.script({ fault: "huge_tool_input", text: "I will write it." });
    const events: StreamEvent[] = [];
    const err = await failure(provider(), req(), events);
    expect(err.kind).toBe("too_large");
    expect(err.message).toContain(
      'the provider sent more than 4 MB in one answer; stopped reading it; the input of the tool call "write" was cut off there, and the call is not run',
    );
    expect(err.partial).toEqual([{ type: "text", text: "I will write it." }]);
    const streamed = events.reduce((n, e) => n + (e.type === "tool_call_delta" ? e.partialJson.length : 0), 0);
    expect(streamed).toBeLessThanOrEqual(BOUND);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "huge_tool_input", completed: false });
  });

  it("a 40 MB error body is read only for its message", async () => {
    fake.script({ fault: "huge_error_body", bytes: 40 * MB });
    const err = await failure(provider(), req());
    expect(err.kind).toBe("bad_request");
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/rejected the request \(HTTP 400\): \{"type":"error".*lorem ipsum/);
    expect(err.message.length).toBeLessThan(1000);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "huge_error_body", completed: false });
  });

  it("keep-alive pings alone do not hold the turn: the wait for the first content ends at the idle timeout", async () => {
    fake.script({ fault: "pings_only", pingEveryMs: 40 });
    const err = await failure(provider({ idleTimeoutMs: 400 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toMatch(
      /^no content from the provider for 0\.4 s \(.+\) while waiting for the answer to start: only keep-alive pings or empty events arrived; gave up waiting \(the idle timeout, idleTimeoutSeconds in the config\)$/,
    );
    expect(err.partial).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it("pings between pieces of content do not stretch the wait between them", async () => {
    fake.script({ fault: "slow_content", text: "one two three four", contentEveryMs: 1500, pingEveryMs: 40 });
    const err = await failure(provider({ idleTimeoutMs: 400 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("no content from the provider for 0.4 s");
    expect(err.message).toContain("while waiting after the last content: only keep-alive pings or empty events arrived");
    expect(err.message).toContain(", the partial answer was kept");
    expect(err.partial).toEqual([{ type: "text", text: "one two " }]);
  });

  it("a flood of pings and empty events ends at the bound on the whole stream (64 MB), long before the idle timeout", async () => {
    fake.script({ fault: "ping_flood" });
    const err = await failure(provider({ idleTimeoutMs: 600_000 }), req());
    expect(err.kind).toBe("too_large");
    expect(err.message).toMatch(
      /^the provider sent more than 64 MB of event stream for one answer, most of it not content; stopped reading it \(.+; the event stream of one answer may take 512 bytes per max-output token, at least 64 MB\)$/,
    );
    expect(err.partial).toEqual([]);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "ping_flood", completed: false });
  });

  it("inside a tool input, pings may stretch the wait (Anthropic sends one whole key at a time)…", async () => {
    fake.script({ fault: "paused_tool_input", text: "Writing.", contentEveryMs: 900, pingEveryMs: 40 });
    const { result } = await run(provider({ idleTimeoutMs: 300 }), req());
    expect(result.blocks).toEqual([
      { type: "text", text: "Writing." },
      { type: "tool_use", id: expect.any(String), name: "write", input: { path: "notes.txt", content: "written after a pause" } },
    ]);
  });

  it("…but only to ten idle periods", async () => {
    fake.script({ fault: "paused_tool_input", text: "Writing.", contentEveryMs: 6000, pingEveryMs: 40 });
    const err = await failure(provider({ idleTimeoutMs: 200 }), req());
    expect(err.kind).toBe("timeout");
    expect(err.message).toMatch(
      /^no content from the provider for 2 s \(.+\) while waiting for the rest of a tool call's input: only keep-alive pings or empty events arrived; gave up waiting/,
    );
    expect(err.partial).toEqual([{ type: "text", text: "Writing." }]);
  });

  it("content that keeps coming, with pings between, streams to its end", async () => {
    fake.script({ fault: "slow_content", text: "one two three four five six", contentEveryMs: 30, pingEveryMs: 10 });
    const { result } = await run(provider({ idleTimeoutMs: 5000 }), req());
    expect(result.blocks).toEqual([{ type: "text", text: "one two three four five six" }]);
    expect(fake.faults.at(-1)).toMatchObject({ fault: "slow_content", completed: true });
  });
});
