// The request bodies, as pure functions of the provider-neutral Request.
import { describe, expect, it } from "vitest";
import { encodeAnthropic, encodeAnthropicBody } from "../../src/provider/anthropic.js";
import { encodeOpenAI, encodeOpenAIBody } from "../../src/provider/openai.js";
import { encodeRequest } from "../../src/provider/encode.js";
import { encodeAnthropicTool, encodeOpenAITool } from "../../src/provider/encode-tools.js";
import type { EncodedRequest, Request, WireContent, WireMessage, WireSection } from "../../src/provider/types.js";
import { parseToolInput, toolInputJson } from "../../src/provider/tool-input.js";
import { blockToPart, imageTarget } from "../../src/replay/replay.js";
import { captureEncoded, captureRequest } from "../../src/inspector/capture.js";

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
    expect((encodeOpenAIBody(oreq({ reasoning: "high" })) as Body)["reasoning_effort"]).toBe("high");
    expect((encodeOpenAIBody(oreq({ reasoning: "off" })) as Body)["reasoning_effort"]).toBeUndefined();
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
