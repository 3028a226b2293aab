// The bodies test/unit/sdk-wire-types.ts holds to the official SDKs' parameter types (by
// `satisfies`, compiled by npm run check:types) are still the ones albedo's encoders write:
// were an encoder to change, this fails until the file is written again
// (node --import tsx scripts/sdk-wire-bodies.ts) and type-checks again.
import { describe, expect, it } from "vitest";
import { encodeAnthropicBody } from "../../src/provider/anthropic/encode.js";
import { encodeOpenAIBody } from "../../src/provider/chat/encode.js";
import { encodeResponsesBody } from "../../src/provider/responses/encode.js";
import { ANTHROPIC_CASES, CHAT_CASES, RESPONSES_CASES } from "../helpers/wire-cases.js";
import { ANTHROPIC_BODIES, CHAT_BODIES, RESPONSES_BODIES } from "./sdk-wire-types.js";

describe("the SDK-typed bodies are albedo's encodings", () => {
  it.each(Object.keys(ANTHROPIC_CASES))("anthropic %s", (k) => {
    expect(encodeAnthropicBody(ANTHROPIC_CASES[k]!)).toEqual(ANTHROPIC_BODIES[k as keyof typeof ANTHROPIC_BODIES]);
  });
  it.each(Object.keys(CHAT_CASES))("chat %s", (k) => {
    expect(encodeOpenAIBody(CHAT_CASES[k]!)).toEqual(CHAT_BODIES[k as keyof typeof CHAT_BODIES]);
  });
  it.each(Object.keys(RESPONSES_CASES))("responses %s", (k) => {
    expect(encodeResponsesBody(RESPONSES_CASES[k]!)).toEqual(RESPONSES_BODIES[k as keyof typeof RESPONSES_BODIES]);
  });

  it("cover adaptive and budget thinking, a live round's phase and image detail", () => {
    expect(ANTHROPIC_BODIES.adaptive_live_round.thinking).toEqual({ type: "adaptive" });
    expect(ANTHROPIC_BODIES.budget_with_tools.thinking.type).toBe("enabled");
    const json = JSON.stringify(RESPONSES_BODIES.live_round_with_phase);
    expect(json).toContain('"phase":"commentary"');
    expect(json).toContain('"detail":"auto"');
  });
});
