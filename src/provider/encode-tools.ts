// Tool schemas exactly as each provider receives them. The adapters put these objects in
// the body, and the inspector counts their JSON bytes, so both use these functions.
import type { ProviderName, ToolSchema } from "./types.js";
import { assertNever } from "../record/types.js";

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
