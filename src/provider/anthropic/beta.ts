// The beta headers a Messages body needs. Interleaved thinking (thinking between tool calls)
// comes with adaptive thinking by itself; a model that thinks by budget needs
// `interleaved-thinking-2025-05-14` for it (the SDK's AnthropicBeta list names the value;
// docs/providers.md, Anthropic Messages). Sent only when the body thinks by budget and
// carries tools, so a request without them stays as it was.
import type { Json } from "../json.js";
import { needsInterleavedBeta } from "../catalog.js";

export const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";

export function interleavedBeta(model: string, body: Json): Record<string, string> {
  const thinking = body["thinking"];
  const thinks = typeof thinking === "object" && thinking !== null && (thinking as Json)["type"] === "enabled";
  const tools = body["tools"];
  if (!thinks || !Array.isArray(tools) || tools.length === 0) return {};
  return needsInterleavedBeta(model) ? { "anthropic-beta": INTERLEAVED_THINKING_BETA } : {};
}
