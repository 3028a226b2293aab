// Tool schemas exactly as each provider receives them. The adapters put these objects in
// the body, and the inspector counts their JSON bytes, so both use these functions.
import type { ProviderName, ProsePart, ToolSchema, UserPart } from "./types.js";
import { assertNever } from "../record/types.js";
import { HISTORY_ITEM, type WireWriter } from "./encoded.js";
import type { Json } from "./json.js";

export function encodeAnthropicTool(t: ToolSchema): Record<string, unknown> {
  return { name: t.name, description: t.description, input_schema: t.inputSchema };
}

export function encodeOpenAITool(t: ToolSchema): Record<string, unknown> {
  return { type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } };
}

export function encodeTool(provider: ProviderName, t: ToolSchema): Record<string, unknown> {
  switch (provider) {
    case "anthropic":
      return encodeAnthropicTool(t);
    case "openai":
      return encodeOpenAITool(t);
    default:
      return assertNever(provider, "provider");
  }
}

/** The text a tool result carries on the wire. OpenAI's tool messages have no error flag,
 * so the failure is said in the text; the inspector counts these same bytes. */
export function toolResultText(provider: ProviderName, output: string, isError: boolean): string {
  switch (provider) {
    case "anthropic":
      return output;
    case "openai":
      return isError ? `Error: ${output}` : output;
    default:
      return assertNever(provider, "provider");
  }
}

type ToolResultPart = Extract<UserPart, { type: "tool_result" }>;

/** A user message for OpenAI's two APIs, which send each tool result as an item of its own:
 * `item` makes it from the result's wire text and it is pushed to `out`. A result `answers`
 * rejects (its call is not in the request) is said in the prose instead. Returns the prose
 * parts, in order, for the caller's user message. */
export function openAIToolResults(
  parts: readonly UserPart[],
  w: WireWriter,
  out: Json[],
  item: (p: ToolResultPart, text: string) => Json,
  answers: (p: ToolResultPart) => boolean = () => true,
): ProsePart[] {
  const rest: ProsePart[] = [];
  for (const p of parts) {
    switch (p.type) {
      case "tool_result":
        if (answers(p)) {
          w.item(HISTORY_ITEM.tool).block().label(`tool_result for id=${p.callId}: `);
          out.push(item(p, w.text(toolResultText("openai", p.output, p.isError))));
        } else {
          // a result whose call is not in this request answers nothing: it says what it said
          rest.push({ type: "text", text: `${p.isError ? "Error" : "Result"} (${p.name}): ${p.output}` });
        }
        break;
      case "text":
      case "image":
        rest.push(p);
        break;
      default:
        assertNever(p, "wire part");
    }
  }
  return rest;
}
