// The request bodies, as pure functions of the provider-neutral Request.
import { describe, expect, it } from "vitest";
import { encodeAnthropic, encodeAnthropicBody } from "../../src/provider/anthropic/encode.js";
import { CHAT_OPTIONAL_FIELDS, encodeOpenAI, encodeOpenAIBody, optionalFieldsOf, type ChatOptionalField } from "../../src/provider/chat/encode.js";
import { ChatSession, refusedFields } from "../../src/provider/chat/refused.js";
import { createProvider } from "../../src/provider/create.js";
import { encodeRequest } from "../../src/provider/encode.js";
import { encodeAnthropicTool, encodeOpenAITool } from "../../src/provider/encode-tools.js";
import type { EncodedRequest, Request, WireContent, WireMessage, WireSection } from "../../src/provider/types.js";
import { parseToolInput, toolInputJson } from "../../src/provider/tool-input.js";
import { blockToPart, imageTarget } from "../../src/replay/replay.js";
import { captureEncoded, captureRequest } from "../../src/context/capture.js";

const TOOL = { name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } };

function req(over: Partial<Request> = {}): Request {
  return {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    system: "SYSTEM",
    context: [
      { source: "AGENTS.md", text: "CTX-1" },
      { source: "workspace", text: "CTX-2" },
    ],
    history: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [TOOL],
    maxOutputTokens: 32000,
    reasoning: "off",
    ...over,
  };
}

type Body = Record<string, any>;

const liveRound: WireMessage[] = [
  { role: "user", content: [{ type: "text", text: "look at this" }, { type: "image", mediaType: "image/png", data: "AAAA", bytes: 3, width: 1, height: 1 }] },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "plan", opaque: { kind: "thinking_signature", body: "SIG" } },
      { type: "text", text: "Reading." },
      { type: "tool_call", id: "t1", name: "read", input: { path: "a" } },
      { type: "tool_call", id: "t2", name: "read", input: "b" },
    ],
  },
  {
    role: "user",
    content: [
      { type: "text", text: "and hurry" },
      { type: "tool_result", callId: "t1", name: "read", output: "A", isError: false },
      { type: "tool_result", callId: "t2", name: "read", output: "", isError: true },
    ],
  },
];

describe("encodeAnthropicBody", () => {
  it("puts the system text first, then one block per context item, in order", () => {
    const b = encodeAnthropicBody(req()) as Body;
    expect(b["system"]).toEqual([
      { type: "text", text: "SYSTEM" },
      { type: "text", text: "CTX-1" },
      { type: "text", text: "CTX-2" },
    ]);
    expect(b["model"]).toBe("claude-sonnet-4-5");
    expect(b["max_tokens"]).toBe(32000);
    expect(b["stream"]).toBe(true);
    expect(b["tools"]).toEqual([encodeAnthropicTool(TOOL)]);
    expect(b["thinking"]).toBeUndefined();
  });

  it("drops empty system text and omits tools when there are none", () => {
    const b = encodeAnthropicBody(req({ system: "", context: [], tools: [] })) as Body;
    expect(b["system"]).toBeUndefined();
    expect(b["tools"]).toBeUndefined();
  });

  it("maps every part kind, with tool results leading their user message", () => {
    const b = encodeAnthropicBody(req({ history: [], live: liveRound })) as Body;
    expect(b["messages"]).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look at this" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "plan", signature: "SIG" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "t1", name: "read", input: { path: "a" } },
          // the API wants an object: a bare value is wrapped rather than dropped
          { type: "tool_use", id: "t2", name: "read", input: { value: "b" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "A" },
          { type: "tool_result", tool_use_id: "t2", is_error: true },
          { type: "text", text: "and hurry" },
        ],
      },
    ]);
  });

  it("sends redacted thinking back as is, and reasoning without a signature as labelled text", () => {
    const b = encodeAnthropicBody(
      req({
        history: [{ role: "user", content: [{ type: "text", text: "q" }] }],
        live: [
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "", opaque: { kind: "redacted_thinking", body: "ENCRYPTED" } },
              { type: "reasoning", text: "unsigned thought" },
              { type: "reasoning", text: "from elsewhere", opaque: { kind: "openai_encrypted", body: "X" } },
              { type: "text", text: "answer" },
            ],
          },
        ],
      }),
    ) as Body;
    expect(b["messages"][1].content).toEqual([
      { type: "redacted_thinking", data: "ENCRYPTED" },
      { type: "text", text: "[Reasoning]: unsigned thought" },
      { type: "text", text: "[Reasoning]: from elsewhere" },
      { type: "text", text: "answer" },
    ]);
  });

  it("never sends an empty content array or blank text blocks", () => {
    const b = encodeAnthropicBody(req({ history: [{ role: "user", content: [{ type: "text", text: "  " }] }] })) as Body;
    expect(b["messages"][0].content).toEqual([{ type: "text", text: "(empty message)" }]);
  });

  it.each([
    ["low", 32000, { type: "enabled", budget_tokens: 2048 }],
    ["medium", 32000, { type: "enabled", budget_tokens: 8192 }],
    ["high", 32000, { type: "enabled", budget_tokens: 24000 }],
    ["high", 8192, { type: "enabled", budget_tokens: 6144 }],
  ] as const)("maps reasoning %s (max_tokens %i) to a budget below max_tokens and at least 1024", (level, max, thinking) => {
    const b = encodeAnthropicBody(req({ reasoning: level, maxOutputTokens: max })) as Body;
    expect(b["thinking"]).toEqual(thinking);
    expect(b["thinking"].budget_tokens).toBeLessThan(b["max_tokens"]);
    expect(b["thinking"].budget_tokens).toBeGreaterThanOrEqual(1024);
    expect(b["output_config"]).toBeUndefined();
  });

  it("leaves thinking off when max_tokens cannot hold the smallest budget", () => {
    const b = encodeAnthropicBody(req({ reasoning: "high", maxOutputTokens: 1200 })) as Body;
    expect(b["thinking"]).toBeUndefined();
  });

  it.each(["claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8-20260101", "claude-sonnet-4-6"])(
    "uses adaptive thinking with an effort for %s",
    (model) => {
      const b = encodeAnthropicBody(req({ model, reasoning: "medium" })) as Body;
      expect(b["thinking"]).toEqual({ type: "adaptive" });
      expect(b["output_config"]).toEqual({ effort: "medium" });
    },
  );
});

describe("encodeOpenAIBody", () => {
  const oreq = (over: Partial<Request> = {}): Request => req({ provider: "openai", model: "gpt-4o", ...over });

  it("sends the system text, then one system message per context item", () => {
    const b = encodeOpenAIBody(oreq()) as Body;
    expect(b["messages"]).toEqual([
      { role: "system", content: "SYSTEM" },
      { role: "system", content: "CTX-1" },
      { role: "system", content: "CTX-2" },
      { role: "user", content: "hi" },
    ]);
    expect(b["tools"]).toEqual([encodeOpenAITool(TOOL)]);
    expect(b["stream"]).toBe(true);
    expect(b["stream_options"]).toEqual({ include_usage: true });
    expect(b["reasoning_effort"]).toBeUndefined();
  });

  it("maps the live round: tool_calls, then tool messages, then the user's other parts", () => {
    const b = encodeOpenAIBody(oreq({ history: [], live: liveRound, context: [], system: "" })) as Body;
    expect(b["messages"]).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look at this" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [
          { id: "t1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          { id: "t2", type: "function", function: { name: "read", arguments: '"b"' } },
        ],
        reasoning_content: "plan",
      },
      { role: "tool", tool_call_id: "t1", content: "A" },
      { role: "tool", tool_call_id: "t2", content: "Error: " },
      { role: "user", content: "and hurry" },
    ]);
  });

  it("gives an assistant message made only of calls null content", () => {
    const b = encodeOpenAIBody(
      oreq({
        history: [{ role: "user", content: [{ type: "text", text: "q" }] }],
        live: [{ role: "assistant", content: [{ type: "tool_call", id: "c", name: "ls", input: {} }] }],
      }),
    ) as Body;
    expect(b["messages"].at(-1)).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "ls", arguments: "{}" } }],
    });
  });

  it.each([
    ["gpt-4o", "max_tokens"],
    ["gpt-4.1-mini", "max_tokens"],
    ["llama3.1:8b", "max_tokens"],
    ["o3", "max_completion_tokens"],
    ["o4-mini", "max_completion_tokens"],
    ["gpt-5", "max_completion_tokens"],
    ["gpt-5.1-codex", "max_completion_tokens"],
  ])("%s gets %s", (model, field) => {
    const b = encodeOpenAIBody(oreq({ model, maxOutputTokens: 1000 })) as Body;
    expect(b[field]).toBe(1000);
    const other = field === "max_tokens" ? "max_completion_tokens" : "max_tokens";
    expect(b[other]).toBeUndefined();
  });

  it("asks for reasoning_effort only when reasoning is on", () => {
    expect((encodeOpenAIBody(oreq({ model: "o3", reasoning: "high" })) as Body)["reasoning_effort"]).toBe("high");
    expect((encodeOpenAIBody(oreq({ model: "o3", reasoning: "off" })) as Body)["reasoning_effort"]).toBeUndefined();
  });

  it("is pure: the same request encodes to the same JSON and is not changed", () => {
    const r = oreq({ live: liveRound });
    const before = JSON.stringify(r);
    expect(JSON.stringify(encodeOpenAIBody(r))).toBe(JSON.stringify(encodeOpenAIBody(r)));
    expect(JSON.stringify(encodeAnthropicBody(r))).toBe(JSON.stringify(encodeAnthropicBody(r)));
    expect(JSON.stringify(r)).toBe(before);
  });
});

describe("a tool input's JSON, one rule both ways", () => {
  it("is sent the same in OpenAI's arguments, in replayed prose and in the inspector's count", () => {
    for (const input of [{ path: "ä.ts", n: [1, 2] }, "bare", null, undefined, 0]) {
      const json = toolInputJson(input);
      const b = encodeOpenAIBody(
        req({ provider: "openai", model: "gpt-4o", history: [], live: [{ role: "assistant", content: [{ type: "tool_call", id: "c", name: "ls", input }] }] }),
      ) as Body;
      expect(b["messages"].at(-1).tool_calls[0].function.arguments).toBe(json);
      expect(blockToPart({ type: "tool_use", id: "c", name: "ls", input }, { vision: imageTarget("openai", true) })).toEqual({ type: "text", text: `Tool use: ls(${json})` });
      const r = req({ provider: "openai", model: "gpt-4o", history: [], tools: [], live: [{ role: "assistant", content: [{ type: "tool_call", id: "c", name: "ls", input }] }] });
      const history = captureRequest(r, { iteration: 1, capturedAt: "t" }).sections.find((s) => s.kind === "history");
      expect(history?.bytes).toBe(Buffer.byteLength(json));
    }
    expect(toolInputJson(undefined)).toBe("{}");
  });

  it("reads a streamed input: empty is {}, text that is not JSON is kept whole as _raw", () => {
    expect(parseToolInput("")).toEqual({ input: {}, valid: true });
    expect(parseToolInput(' {"a":1} ')).toEqual({ input: { a: 1 }, valid: true });
    expect(parseToolInput('{"a":')).toEqual({ input: { _raw: '{"a":' }, valid: false });
  });
});

/** The wire stream grouped into items, for reading in tests. */
function itemsOf(enc: EncodedRequest): { section: WireSection; role: string; blocks: WireContent[][] }[] {
  const items: { section: WireSection; role: string; blocks: WireContent[][] }[] = [];
  for (const e of enc.wire) {
    if (e.type === "item") items.push({ section: e.section, role: e.role, blocks: [] });
    else if (e.type === "block") items.at(-1)!.blocks.push([]);
    else items.at(-1)!.blocks.at(-1)!.push(e);
  }
  return items;
}

describe("the encoding: one pass gives the body and its wire items", () => {
  it("records every content string it puts in the body, in body order, each tagged with its section", () => {
    const r = req({ live: liveRound, history: [] });
    const enc = encodeAnthropic(r);
    expect(itemsOf(enc).map((i) => `${JSON.stringify(i.section)}:${i.role}`)).toEqual([
      '{"kind":"system"}:system',
      '{"kind":"context","index":0}:system',
      '{"kind":"context","index":1}:system',
      '{"kind":"history"}:user',
      '{"kind":"history"}:assistant',
      '{"kind":"history"}:user',
      '{"kind":"tools"}:tool',
    ]);
    // the strings in the items are the very strings in the body
    const body = enc.body as Body;
    const pieces = itemsOf(enc).flatMap((i) => i.blocks.flat());
    const sent = (p: (typeof pieces)[number]): string | undefined =>
      p.type === "text" ? p.text : p.type === "image" ? p.data : p.type === "opaque" ? p.body : undefined;
    const texts = pieces.map(sent).filter((x): x is string => x !== undefined);
    expect(texts).toEqual([
      "SYSTEM",
      "CTX-1",
      "CTX-2",
      "look at this",
      "AAAA",
      "plan",
      "SIG",
      "Reading.",
      '{"path":"a"}',
      '{"value":"b"}',
      "A",
      "and hurry",
    ]);
    expect(body["messages"][2].content[0]).toEqual({ type: "tool_result", tool_use_id: "t1", content: "A" });
  });

  it("OpenAI: a tool message per result is its own item; joins and the Error: prefix are in the text", () => {
    const r = req({
      provider: "openai",
      model: "gpt-4o",
      system: "",
      context: [],
      history: [{ role: "assistant", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] }],
      live: liveRound,
    });
    const enc = encodeOpenAI(r);
    expect(itemsOf(enc).map((i) => i.role)).toEqual(["assistant", "user", "assistant", "tool", "tool", "user", "tool"]);
    const history = itemsOf(enc).filter((i) => i.section.kind === "history");
    // the joined string, piece by piece: each part as it was, and the join
    expect(history[0]!.blocks).toEqual([[{ type: "text", text: "one" }, { type: "text", text: "\n\n" }, { type: "text", text: "two" }]]);
    expect(history[4]!.blocks).toEqual([[{ type: "label", text: "tool_result for id=t2: " }, { type: "text", text: "Error: " }]]);
    expect((enc.body as Body)["messages"][0].content).toBe("one\n\ntwo");
  });

  it("encodes a request once: capture and send share one encoding", () => {
    const r = req({ live: liveRound });
    expect(encodeRequest(r)).toBe(encodeRequest(r));
    expect(encodeAnthropicBody(r)).toBe(encodeRequest(r).body);
    const o = req({ provider: "openai", model: "gpt-4o" });
    expect(encodeOpenAIBody(o)).toBe(encodeRequest(o).body);
  });
});

describe("Chat Completions: parameters per model and per endpoint", () => {
  const oreq = (over: Partial<Request> = {}): Request => req({ provider: "openai", model: "gpt-4o", ...over });
  const wire = (refused: ChatOptionalField[] = [], hosted = false) => ({ hosted, refused: new Set(refused) });
  const reasoningRound: WireMessage[] = [
    { role: "user", content: [{ type: "text", text: "go" }] },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "streamed thoughts" },
        { type: "tool_call", id: "c1", name: "read", input: { path: "a" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", callId: "c1", name: "read", output: "A", isError: false }] },
  ];
  const assistantOf = (b: Body) => (b["messages"] as Body[]).find((m) => m["role"] === "assistant")!;

  it.each([
    ["gpt-4o", undefined],
    ["gpt-4.1", undefined],
    ["gpt-4-turbo", undefined],
    ["gpt-5-chat-latest", undefined],
    ["o1-mini", undefined],
    ["o1-preview", undefined],
    ["o3", "high"],
    ["o4-mini", "high"],
    ["gpt-5", "high"],
    ["gpt-5.1-codex", "high"],
    // unknown to the catalog (a local or gateway model): what was asked
    ["qwen3:8b", "high"],
    ["deepseek-reasoner", "high"],
  ])("%s with reasoning high gets reasoning_effort %s", (model, effort) => {
    expect((encodeOpenAIBody(oreq({ model, reasoning: "high" })) as Body)["reasoning_effort"]).toBe(effort);
  });

  // every OpenAI model of the catalog, and a gateway's spelling of one
  it.each([
    ["gpt-5-chat-latest", "max_completion_tokens"],
    ["gpt-5.1-chat-latest", "max_completion_tokens"],
    ["gpt-5.4", "max_completion_tokens"],
    ["gpt-5.2", "max_completion_tokens"],
    ["gpt-5.1", "max_completion_tokens"],
    ["gpt-5-mini", "max_completion_tokens"],
    ["openai/gpt-5", "max_completion_tokens"],
    ["o4-mini", "max_completion_tokens"],
    ["o3-mini", "max_completion_tokens"],
    ["o1-preview", "max_completion_tokens"],
    ["o1-mini", "max_completion_tokens"],
    ["o1", "max_completion_tokens"],
    ["gpt-4.1", "max_tokens"],
    ["gpt-4o-mini", "max_tokens"],
    ["gpt-4-turbo", "max_tokens"],
    ["claude-sonnet-4-5", "max_tokens"],
    ["gpt-oss-120b", "max_tokens"],
  ])("%s gets its output limit as %s", (model, field) => {
    const b = encodeOpenAIBody(oreq({ model, maxOutputTokens: 777 })) as Body;
    expect(b[field]).toBe(777);
    expect(b[field === "max_tokens" ? "max_completion_tokens" : "max_tokens"]).toBeUndefined();
  });

  it("a server that refused the model's limit field gets the other one, and one that refused both gets none", () => {
    expect(encodeOpenAIBody(oreq({ maxOutputTokens: 500 }), wire(["max_tokens"]))).toMatchObject({ max_completion_tokens: 500 });
    expect(encodeOpenAIBody(oreq({ model: "o3", maxOutputTokens: 500 }), wire(["max_completion_tokens"]))).toMatchObject({ max_tokens: 500 });
    const none = encodeOpenAIBody(oreq(), wire(["max_tokens", "max_completion_tokens"]));
    expect(none["max_tokens"]).toBeUndefined();
    expect(none["max_completion_tokens"]).toBeUndefined();
  });

  it("echoes streamed reasoning to a compatible server, never to OpenAI's own endpoint nor to a server that refused it", () => {
    const r = oreq({ model: "deepseek-reasoner", history: [], live: reasoningRound });
    expect(assistantOf(encodeOpenAIBody(r))["reasoning_content"]).toBe("streamed thoughts");
    expect(assistantOf(encodeOpenAIBody(r, wire([], true)))).not.toHaveProperty("reasoning_content");
    expect(assistantOf(encodeOpenAIBody(r, wire(["reasoning_content"])))).not.toHaveProperty("reasoning_content");
    // and the capture, read from the provider's own encoding, has it exactly when the body does
    const historyOf = (enc: EncodedRequest) => captureRequestFrom(r, enc).sections.find((s) => s.kind === "history")!;
    const openai = createProvider({ provider: "openai", apiKey: "sk-test", baseUrl: "https://api.openai.com/v1" });
    const local = createProvider({ provider: "openai", baseUrl: "http://127.0.0.1:9/v1" });
    const sentToOpenAI = openai.encode!({ ...r, api: "chat" });
    const sentToLocal = local.encode!(r);
    expect(JSON.stringify(sentToOpenAI.body)).not.toContain("streamed thoughts");
    expect(JSON.stringify(sentToLocal.body)).toContain("streamed thoughts");
    expect(historyOf(sentToLocal).bytes - historyOf(sentToOpenAI).bytes).toBe(Buffer.byteLength("streamed thoughts"));
  });

  it("sends prompt_cache_key (the session id) when the request has cache hints, unless the server refused it", () => {
    const cache = { key: "01JSESSIONID", ttl: "5m" as const };
    expect(encodeOpenAIBody(oreq({ cache }))["prompt_cache_key"]).toBe("01JSESSIONID");
    expect(encodeOpenAIBody(oreq())).not.toHaveProperty("prompt_cache_key");
    expect(encodeOpenAIBody(oreq({ cache }), wire(["prompt_cache_key"]))).not.toHaveProperty("prompt_cache_key");
  });

  it("leaves out every refused optional field and nothing required", () => {
    const r = oreq({ model: "deepseek-reasoner", reasoning: "low", cache: { key: "k", ttl: "5m" }, live: reasoningRound });
    const all = encodeOpenAIBody(r);
    expect(optionalFieldsOf(all)).toEqual(["stream_options", "prompt_cache_key", "reasoning_effort", "max_tokens", "reasoning_content"]);
    const bare = encodeOpenAIBody(r, wire([...CHAT_OPTIONAL_FIELDS]));
    expect(optionalFieldsOf(bare)).toEqual([]);
    expect(Object.keys(bare).sort()).toEqual(["messages", "model", "stream", "tools"]);
  });

  it("a session's encoding is shared by capture and send, and changes only when a field is refused", () => {
    const session = new ChatSession(false);
    const r = oreq({ cache: { key: "k", ttl: "5m" } });
    const first = session.encode(r);
    expect(session.encode(r)).toBe(first);
    session.refuse("gpt-4o", ["prompt_cache_key"]);
    const after = session.encode(r);
    expect(after.body).not.toHaveProperty("prompt_cache_key");
    expect(after.body["stream_options"]).toEqual({ include_usage: true });
    // per model: another model on the same server still gets it
    expect(session.encode(oreq({ model: "qwen3:8b", cache: { key: "k", ttl: "5m" } })).body["prompt_cache_key"]).toBe("k");
  });
});

describe("refusedFields: the field a refusal names, in the wordings servers use", () => {
  const SENT: ChatOptionalField[] = ["stream_options", "prompt_cache_key", "reasoning_effort", "max_tokens", "reasoning_content"];
  it.each<[string, { message: string; text?: string; param?: string; code?: string; type?: string }, ChatOptionalField[]]>([
    ["Azure OpenAI", { message: "Unrecognized request argument supplied: prompt_cache_key" }, ["prompt_cache_key"]],
    ["Azure OpenAI, two", { message: "Unrecognized request arguments supplied: prompt_cache_key, stream_options" }, ["stream_options", "prompt_cache_key"]],
    ["a named field, and another one on a later line that is not refused", { message: "Unrecognized request argument supplied: max_tokens\nSee the docs for stream_options." }, ["max_tokens"]],
    ["a gateway", { message: "Unknown parameter: 'stream_options'.", param: "stream_options", code: "unknown_parameter" }, ["stream_options"]],
    ["param alone, with OpenAI's code", { message: "Invalid request.", param: "stream_options", code: "unsupported_parameter" }, ["stream_options"]],
    ["OpenAI, a model without the field", { message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.", param: "reasoning_effort", code: "unsupported_parameter" }, ["reasoning_effort"]],
    ["OpenAI, max_tokens", { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", param: "max_tokens" }, ["max_tokens"]],
    ["Azure AI inference", { message: "Extra parameters ['stream_options'] are not allowed when extra-parameters is not set or set to be 'error'." }, ["stream_options"]],
    ["Groq, on a message", { message: "'messages.3' : for 'role:assistant' the following must be satisfied[('messages.3' : property 'reasoning_content' is unsupported)]" }, ["reasoning_content"]],
    ["vLLM (pydantic)", { message: "[{'type': 'extra_forbidden', 'loc': ('body', 'prompt_cache_key'), 'msg': 'Extra inputs are not permitted', 'input': 'k'}]" }, ["prompt_cache_key"]],
    ["vLLM, on a message", { message: "[{'type': 'extra_forbidden', 'loc': ('body', 'messages', 2, 'typed-dict', 'reasoning_content'), 'msg': 'Extra inputs are not permitted', 'input': 'x'}]" }, ["reasoning_content"]],
    ["pydantic's text", { message: "1 validation error for ChatCompletionRequest\nstream_options\n  Extra inputs are not permitted [type=extra_forbidden, input_value={'include_usage': True}, input_type=dict]" }, ["stream_options"]],
    ["FastAPI's detail list", { message: "…", text: '{"detail":[{"type":"extra_forbidden","loc":["body","prompt_cache_key"],"msg":"Extra inputs are not permitted","input":"k"}]}' }, ["prompt_cache_key"]],
    ["LM Studio (zod)", { message: "Unrecognized key(s) in object: 'prompt_cache_key', 'stream_options'" }, ["stream_options", "prompt_cache_key"]],
    ["Go", { message: 'json: unknown field "prompt_cache_key"' }, ["prompt_cache_key"]],
    ["serde", { message: "Failed to deserialize the JSON body into the target type: unknown field `reasoning_effort`, expected one of `model`, `messages`" }, ["reasoning_effort"]],
    ["OpenAI's message schema", { message: "Invalid 'messages[3]': Additional properties are not allowed ('reasoning_content' was unexpected)", param: "messages[3]" }, ["reasoning_content"]],
    // not a refusal of an optional field: these stand
    ["a context overflow", { message: "This model's maximum context length is 128000 tokens.", param: "messages", code: "context_length_exceeded" }, []],
    ["a value too large", { message: "max_tokens is too large: 100000. This model supports at most 16384 completion tokens", param: "max_tokens", code: "invalid_value" }, []],
    ["a required field", { message: "Unrecognized request argument supplied: tools" }, []],
    ["a field not sent", { message: "Unrecognized request argument supplied: max_completion_tokens" }, []],
    ["a bad request about nothing named", { message: "Bad request" }, []],
  ])("%s", (_who, detail, expected) => {
    expect(refusedFields(detail, SENT)).toEqual(expected);
  });
});

function captureRequestFrom(r: Request, enc: EncodedRequest) {
  return captureEncoded(r, enc, { iteration: 1, capturedAt: "t" });
}
