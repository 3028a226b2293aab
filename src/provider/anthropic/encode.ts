// The Anthropic Messages body (docs/providers.md, "Anthropic Messages"), pure: the system
// prompt and context items as system blocks, the messages, the tools, thinking, and the cache
// marks cache.ts places; each piece written through the WireWriter, so the capture reads
// what is sent.
import { assertNever } from "../../record/types.js";
import { supportsReasoning, usesAdaptiveThinking } from "../catalog.js";
import { contextItem, encodeOnce, HISTORY_ITEM, SYSTEM_ITEM, TOOL_ITEM, WireWriter } from "../encoded.js";
import { encodeAnthropicTool } from "../encode-tools.js";
import type { Json } from "../json.js";
import { requestMessages, type EncodedRequest, type ReasoningLevel, type Request, type WireItemStart, type WireMessage, type WirePart } from "../types.js";
import { markBreakpoint, planBreakpoints } from "./cache.js";
import { isBlank, isBlankText, nativeThinking, OPAQUE_REDACTED_THINKING, OPAQUE_THINKING_SIGNATURE } from "./parts.js";

const THINKING_BUDGET: Record<Exclude<ReasoningLevel, "off">, number> = {
  low: 2048,
  medium: 8192,
  high: 24576,
};
const MIN_THINKING_BUDGET = 1024;

/** The body and its wire items (docs/providers.md, "Anthropic Messages"), encoded once for the
 * request's capture and its sending. */
export function encodeAnthropic(req: Request): EncodedRequest {
  return encodeOnce(req, build);
}

export function encodeAnthropicBody(req: Request): Json {
  return encodeAnthropic(req).body;
}

function build(req: Request): EncodedRequest {
  const w = new WireWriter();
  const maxTokens = Math.max(1, Math.floor(req.maxOutputTokens));
  const body: Json = { model: req.model, max_tokens: maxTokens };
  const tools = req.tools.map(encodeAnthropicTool);
  const plan = planBreakpoints(req, tools);

  // The system prompt first, then each context item as its own block, so the inspector's
  // sections and the provider's view line up one to one. Empty blocks are rejected by the API.
  const system: Json[] = [];
  const systemBlock = (item: WireItemStart, text: string): void => {
    if (!isBlankText(text)) system.push({ type: "text", text: w.item(item).block().text(text) });
  };
  systemBlock(SYSTEM_ITEM, req.system);
  req.context.forEach((c, index) => systemBlock(contextItem(index), c.text));
  if (system.length > 0) {
    if (plan?.system) markBreakpoint(system[system.length - 1] as Json, plan.ttl, w);
    body["system"] = system;
  }

  body["messages"] = requestMessages(req).map((m, i) => {
    const msg = encodeMessage(m, w.item(HISTORY_ITEM[m.role]));
    if (plan?.messages.includes(i)) {
      const last = (msg["content"] as Json[])[(msg["content"] as Json[]).length - 1] as Json;
      // the API takes no cache_control on a thinking block; such a message goes unmarked
      if (last["type"] !== "thinking" && last["type"] !== "redacted_thinking") markBreakpoint(last, plan.ttl, w);
    }
    return msg;
  });
  if (tools.length > 0) {
    const sent = tools.map((t) => w.item(TOOL_ITEM).block().schema(t));
    // the schema's recorded JSON stays the definition as sent; the mark is on a copy
    if (plan?.tools) sent[sent.length - 1] = markBreakpoint({ ...(sent[sent.length - 1] as Json) }, plan.ttl, w);
    body["tools"] = sent;
  }
  if (!unsignedToolLoop(requestMessages(req))) Object.assign(body, thinkingFields(req.model, req.reasoning, maxTokens));
  body["stream"] = true;
  return { provider: "anthropic", body, wire: w.wire };
}

/**
 * Whether the assistant message of the tool loop in progress (the one whose calls the last
 * message answers) thought but will not start with its thinking block: its reasoning lost its
 * signature (the redactor drops a signature whose text held a key, src/session/turn/redact.ts) and
 * crosses as prose. With thinking on, the API refuses that ("a final `assistant` message must
 * start with a thinking block … To avoid this requirement, disable `thinking`"), so such a
 * request goes without thinking.
 */
function unsignedToolLoop(messages: readonly WireMessage[]): boolean {
  const last = messages[messages.length - 1];
  const prev = messages[messages.length - 2];
  if (last?.role !== "user" || prev?.role !== "assistant") return false;
  if (!last.content.some((p) => p.type === "tool_result") || !prev.content.some((p) => p.type === "tool_call")) return false;
  if (!prev.content.some((p) => p.type === "reasoning" && !nativeThinking(p))) return false;
  // the first part that is sent (blank ones are not)
  const first = prev.content.find((p) => !isBlank(p));
  return !(first?.type === "reasoning" && nativeThinking(first));
}

function thinkingFields(model: string, level: ReasoningLevel, maxTokens: number): Json {
  switch (level) {
    case "off":
      return {};
    case "low":
    case "medium":
    case "high": {
      // a model the catalog knows not to think (Claude 3.5, 3 Opus/Haiku) refuses the field
      // ("'claude-3-5-sonnet-20241022' does not support thinking."); one it does not know
      // gets the setting as asked, as in the OpenAI adapters
      if (supportsReasoning(model) === false) return {};
      // Opus 4.7+ refuse a budget; these models steer thinking by effort instead.
      if (usesAdaptiveThinking(model)) return { thinking: { type: "adaptive" }, output_config: { effort: level } };
      // The budget counts toward max_tokens: keep a quarter of it for the answer itself.
      const budget = Math.min(THINKING_BUDGET[level], Math.floor((maxTokens * 3) / 4));
      if (budget < MIN_THINKING_BUDGET) return {};
      return { thinking: { type: "enabled", budget_tokens: budget } };
    }
    default:
      return assertNever(level, "reasoning level");
  }
}

function encodeMessage(m: WireMessage, w: WireWriter): Json {
  const content: Json[] = [];
  // tool_result blocks lead their user message; any text the user added follows them
  for (const part of m.content) if (part.type === "tool_result") content.push(encodePart(part, w.block()));
  for (const part of m.content) {
    // the API refuses blank text blocks: they are not sent (nor recorded)
    if (part.type === "tool_result" || isBlank(part)) continue;
    content.push(encodePart(part, w.block()));
  }
  if (content.length === 0) content.push({ type: "text", text: w.block().text("(empty message)") });
  return { role: m.role, content };
}

function encodePart(part: WirePart, w: WireWriter): Json {
  switch (part.type) {
    case "text":
      return { type: "text", text: w.textPart(part) };
    case "image":
      return { type: "image", source: { type: "base64", media_type: part.mediaType, data: w.image(part) } };
    case "tool_call": {
      const input = asInputObject(part.input);
      // the body holds the object; its JSON is what crosses, so that is what is recorded
      w.label(`tool_use id=${part.id} name=${part.name} input=`).text(JSON.stringify(input));
      return { type: "tool_use", id: part.id, name: part.name, input };
    }
    case "tool_result": {
      const block: Json = { type: "tool_result", tool_use_id: part.callId };
      const has = part.output.length > 0;
      w.label(`tool_result for id=${part.callId}${part.isError ? " is_error" : ""}${has ? ": " : ""}`);
      // an empty string is not valid content; an absent one is
      if (has) block["content"] = w.text(part.output);
      if (part.isError) block["is_error"] = true;
      return block;
    }
    case "reasoning": {
      // Thinking blocks go back untouched (the type keeps reasoning in assistant messages);
      // anything else (no signature, another provider's opaque body) crosses as labelled prose.
      if (part.opaque?.kind === OPAQUE_THINKING_SIGNATURE) {
        const thinking = w.label("thinking: ").text(part.text);
        w.label(" ");
        return { type: "thinking", thinking, signature: w.opaque(part.opaque.kind, part.opaque.body) };
      }
      if (part.opaque?.kind === OPAQUE_REDACTED_THINKING) {
        return { type: "redacted_thinking", data: w.opaque(part.opaque.kind, part.opaque.body) };
      }
      return { type: "text", text: w.text(`[Reasoning]: ${part.text}`) };
    }
    default:
      return assertNever(part, "wire part");
  }
}

/** tool_use.input must be an object on the wire. */
function asInputObject(input: unknown): unknown {
  if (input === undefined || input === null) return {};
  if (typeof input === "object" && !Array.isArray(input)) return input;
  return { value: input };
}
