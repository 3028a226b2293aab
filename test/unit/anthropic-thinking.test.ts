// Anthropic thinking per model and per tool loop (encode, pure), with the strict fake's rules
// for the same cases (test/helpers/fake-thinking.ts): a model the catalog knows not to think
// (Claude 3.5, 3 Opus/Sonnet/Haiku) gets no thinking field whatever the setting, as the OpenAI
// adapters do; a model the catalog does not know gets the setting as asked; and a tool loop
// whose thinking lost its signature (the redactor dropped it) goes without thinking, which the
// API would otherwise refuse.
import { describe, expect, it } from "vitest";
import { encodeAnthropicBody } from "../../src/provider/anthropic/encode.js";
import { OPAQUE_THINKING_SIGNATURE } from "../../src/provider/anthropic/parts.js";
import { supportsReasoning } from "../../src/provider/catalog.js";
import type { ReasoningLevel, Request, WireMessage } from "../../src/provider/types.js";
import { anthropicThinkingRefusal, toolLoopThinkingRefusal } from "../helpers/fake-thinking.js";

function req(model: string, reasoning: ReasoningLevel, live?: WireMessage[]): Request {
  return {
    provider: "anthropic",
    model,
    system: "You are albedo.",
    context: [],
    history: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    ...(live ? { live } : {}),
    tools: [{ name: "ls", description: "List a folder", inputSchema: { type: "object", properties: {} } }],
    maxOutputTokens: 64_000,
    reasoning,
  };
}

const NON_THINKING = [
  "claude-3-5-sonnet-20241022",
  "claude-3-5-sonnet-latest",
  "claude-3-5-haiku-20241022",
  "claude-3-opus-20240229",
  "claude-3-sonnet-20240229",
  "claude-3-haiku-20240307",
];
const THINKING = ["claude-3-7-sonnet-20250219", "claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"];

describe("Anthropic thinking per model", () => {
  for (const model of NON_THINKING) {
    it(`${model}: no thinking field at any level, and the fake refuses one in the API's words`, () => {
      expect(supportsReasoning(model)).toBe(false);
      for (const level of ["low", "medium", "high"] as const) {
        const body = encodeAnthropicBody(req(model, level));
        expect(body).not.toHaveProperty("thinking");
        expect(body).not.toHaveProperty("output_config");
        expect(anthropicThinkingRefusal(body)).toBeUndefined();
      }
      // the older request shape (budget_tokens): refused
      const old = { ...encodeAnthropicBody(req(model, "high")), thinking: { type: "enabled", budget_tokens: 24576 } };
      expect(anthropicThinkingRefusal(old)).toBe(`'${model}' does not support thinking.`);
    });
  }

  for (const model of THINKING) {
    it(`${model}: thinking as asked`, () => {
      expect(encodeAnthropicBody(req(model, "high"))["thinking"]).toEqual({ type: "enabled", budget_tokens: 24576 });
      expect(encodeAnthropicBody(req(model, "off"))).not.toHaveProperty("thinking");
    });
  }

  it("a Claude 3.5 id written with a dot is the same model to the catalog", () => {
    expect(encodeAnthropicBody(req("claude-3.5-sonnet", "high"))).not.toHaveProperty("thinking");
  });

  it("a model the catalog does not know gets the setting as asked", () => {
    expect(supportsReasoning("my-gateway-model")).toBeUndefined();
    expect(encodeAnthropicBody(req("my-gateway-model", "low"))["thinking"]).toEqual({ type: "enabled", budget_tokens: 2048 });
  });
});

describe("a tool loop whose thinking lost its signature", () => {
  const call: WireMessage = { role: "user", content: [{ type: "text", text: "list it" }] };
  const results: WireMessage = { role: "user", content: [{ type: "tool_result", callId: "toolu_1", name: "ls", output: "a.ts", isError: false }] };
  const signed: WireMessage = {
    role: "assistant",
    content: [
      { type: "reasoning", text: "I should list.", opaque: { kind: OPAQUE_THINKING_SIGNATURE, body: "EqQBsig==" } },
      { type: "tool_call", id: "toolu_1", name: "ls", input: {} },
    ],
  };
  // what the redactor leaves of thinking whose text held a key: the text, no signature
  const unsigned: WireMessage = {
    role: "assistant",
    content: [
      { type: "reasoning", text: "I will use [redacted key]." },
      { type: "tool_call", id: "toolu_1", name: "ls", input: {} },
    ],
  };
  // redacted thinking whose data held a key: nothing readable is left
  const emptied: WireMessage = { role: "assistant", content: [{ type: "reasoning", text: "" }, { type: "tool_call", id: "toolu_1", name: "ls", input: {} }] };

  it("goes without thinking (the fake, like the API, refuses it with thinking on)", () => {
    for (const m of [unsigned, emptied]) {
      const body = encodeAnthropicBody(req("claude-sonnet-4-5", "high", [call, m, results]));
      expect(body).not.toHaveProperty("thinking");
      expect(toolLoopThinkingRefusal(body)).toBeUndefined();
      const withThinking = { ...body, thinking: { type: "enabled", budget_tokens: 24576 } };
      expect(toolLoopThinkingRefusal(withThinking)).toMatch(
        /^messages\.2\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `(text|tool_use)`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
      );
    }
  });

  it("keeps thinking when the loop's thinking is signed, or the model did not think, or the loop is over", () => {
    const signedBody = encodeAnthropicBody(req("claude-sonnet-4-5", "high", [call, signed, results]));
    expect(signedBody["thinking"]).toEqual({ type: "enabled", budget_tokens: 24576 });
    expect(toolLoopThinkingRefusal(signedBody)).toBeUndefined();
    // no reasoning at all: nothing was lost, the setting stands
    const plain: WireMessage = { role: "assistant", content: [{ type: "tool_call", id: "toolu_1", name: "ls", input: {} }] };
    expect(encodeAnthropicBody(req("claude-sonnet-4-5", "high", [call, plain, results]))["thinking"]).toBeDefined();
    // the unsigned reasoning is an earlier round's: the loop in progress is signed
    const next: WireMessage = { role: "user", content: [{ type: "tool_result", callId: "toolu_2", name: "ls", output: "b.ts", isError: false }] };
    const signed2: WireMessage = {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Again.", opaque: { kind: OPAQUE_THINKING_SIGNATURE, body: "EqQBsig2==" } },
        { type: "tool_call", id: "toolu_2", name: "ls", input: {} },
      ],
    };
    expect(encodeAnthropicBody(req("claude-sonnet-4-5", "high", [call, unsigned, results, signed2, next]))["thinking"]).toBeDefined();
  });
});
