// Writes test/unit/sdk-wire-types.ts: albedo's encodings of the requests in
// test/helpers/wire-cases.ts, each held (by `satisfies`) to the official SDK's parameter type,
// so `npm run check:types` fails when a body is one the SDK's types refuse.
//   node --import tsx scripts/sdk-wire-bodies.ts
import fs from "node:fs";
import { encodeAnthropicBody } from "../src/provider/anthropic/encode.js";
import { encodeOpenAIBody } from "../src/provider/chat/encode.js";
import { encodeResponsesBody } from "../src/provider/responses/encode.js";
import { ANTHROPIC_CASES, CHAT_CASES, RESPONSES_CASES } from "../test/helpers/wire-cases.js";

const map = (cases: Record<string, Parameters<typeof encodeAnthropicBody>[0]>, enc: (r: (typeof cases)[string]) => unknown): string =>
  "{\n" + Object.entries(cases).map(([k, r]) => `  ${k}: ${JSON.stringify(enc(r), null, 2).replace(/\n/g, "\n  ")}`).join(",\n") + ",\n}";

const out = `// Written by scripts/sdk-wire-bodies.ts from test/helpers/wire-cases.ts: do not edit by hand.
// albedo's encoded request bodies, held to the official SDKs' parameter types by \`satisfies\`
// (npm run check:types compiles this file); test/unit/sdk-wire-bodies.test.ts checks they are
// still what the encoders write.
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";

/**
 * The one place the SDK's types are stricter than the API: an assistant message replayed
 * with output_text parts is typed as a ResponseOutputMessage (id, status and annotations
 * required), which the API does not ask of input items. Everything else of the body is the
 * SDK's own ResponseCreateParams.
 */
type AssistantMessageAsSent = {
  type: "message";
  role: "assistant";
  content: Array<Pick<OpenAI.Responses.ResponseOutputText, "type" | "text">>;
  phase?: OpenAI.Responses.ResponseOutputMessage["phase"];
};
type ResponsesBody = Omit<OpenAI.Responses.ResponseCreateParams, "input"> & {
  input: Array<OpenAI.Responses.ResponseInputItem | AssistantMessageAsSent>;
};

export const ANTHROPIC_BODIES = ${map(ANTHROPIC_CASES, encodeAnthropicBody)} satisfies Record<string, Anthropic.MessageCreateParams>;

export const CHAT_BODIES = ${map(CHAT_CASES, (r) => encodeOpenAIBody(r))} satisfies Record<string, OpenAI.Chat.ChatCompletionCreateParams>;

export const RESPONSES_BODIES = ${map(RESPONSES_CASES, encodeResponsesBody)} satisfies Record<string, ResponsesBody>;
`;
fs.writeFileSync(new URL("../test/unit/sdk-wire-types.ts", import.meta.url), out);
console.log("wrote test/unit/sdk-wire-types.ts");
