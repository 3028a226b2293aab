// The OpenAI Chat Completions body, for OpenAI and the compatible servers, pure
// (docs/providers.md, "OpenAI Chat Completions"): what it carries depends on the endpoint
// (ChatWire) as well as the Request.
import { assertNever } from "../../record/types.js";
import { supportsReasoning, wantsMaxCompletionTokens } from "../catalog.js";
import { contextItem, encodeOnce, HISTORY_ITEM, SYSTEM_ITEM, TOOL_ITEM, WireWriter } from "../encoded.js";
import { encodeOpenAITool, toolResultText } from "../encode-tools.js";
import type { Json } from "../json.js";
import { toolInputJson } from "../tool-input.js";
import {
  requestMessages,
  type AssistantPart,
  type EncodedRequest,
  type ProsePart,
  type Request,
  type ToolCallPart,
  type UserPart,
  type WireItemStart,
  type WireMessage,
} from "../types.js";

/** The fields of a Chat request a server may refuse by name and the request still stand
 * without (docs/providers.md, "Refused fields"): `reasoning_content` is the assistant
 * message's field, the others are top-level. model, messages, tools and stream are required
 * and never dropped. */
export const CHAT_OPTIONAL_FIELDS = [
  "stream_options",
  "prompt_cache_key",
  "reasoning_effort",
  "max_tokens",
  "max_completion_tokens",
  "reasoning_content",
] as const;
export type ChatOptionalField = (typeof CHAT_OPTIONAL_FIELDS)[number];

/** What the encoding knows of the endpoint besides the Request: the same Request may be sent
 * differently to OpenAI and to a compatible server, and to a server that refused a field. */
interface ChatWire {
  /** OpenAI's own endpoint: it gets no reasoning_content back */
  hosted: boolean;
  /** optional fields the server refused for this model this session: not sent */
  refused: ReadonlySet<ChatOptionalField>;
}

const COMPATIBLE: ChatWire = Object.freeze({ hosted: false, refused: new Set<ChatOptionalField>() });
const buildCompatible = (req: Request): EncodedRequest => buildBody(req, COMPATIBLE);

/** The body and its wire items (docs/providers.md, "OpenAI Chat Completions"), encoded once for the
 * request's capture and its sending. Without `wire`: for a compatible server that has refused
 * nothing; a provider encodes with its own (ChatSession). */
export function encodeOpenAI(req: Request, wire?: ChatWire): EncodedRequest {
  return wire === undefined ? encodeOnce(req, buildCompatible) : buildBody(req, wire);
}

export function encodeOpenAIBody(req: Request, wire?: ChatWire): Json {
  return encodeOpenAI(req, wire).body;
}

/**
 * The field that carries the output limit. OpenAI's reasoning-era models refuse max_tokens
 * and most compatible servers only know it; a server that refused one gets the other, and one
 * that refused both gets none (its own default limit; the answer's bounds still follow
 * req.maxOutputTokens).
 */
export function outputLimitField(model: string, refused: ReadonlySet<ChatOptionalField>): "max_tokens" | "max_completion_tokens" | undefined {
  const first = wantsMaxCompletionTokens(model) ? "max_completion_tokens" : "max_tokens";
  const second = first === "max_tokens" ? "max_completion_tokens" : "max_tokens";
  if (!refused.has(first)) return first;
  return refused.has(second) ? undefined : second;
}

/** The body for an endpoint and what its server refused. */
export function buildBody(req: Request, wire: ChatWire): EncodedRequest {
  const w = new WireWriter();
  const messages: Json[] = [];
  // the system prompt, then one system message per context item (the inspector's sections)
  const system = (item: WireItemStart, text: string): void => {
    if (text.trim().length > 0) messages.push({ role: "system", content: w.item(item).block().text(text) });
  };
  system(SYSTEM_ITEM, req.system);
  req.context.forEach((c, index) => system(contextItem(index), c.text));
  // reasoning goes back only to a compatible server that has not refused it (DeepSeek-style
  // servers require it with tools); OpenAI keeps its reasoning to itself and takes none back
  const echoReasoning = !wire.hosted && !wire.refused.has("reasoning_content");
  for (const m of requestMessages(req)) encodeMessage(m, w, messages, echoReasoning);

  const body: Json = { model: req.model, messages };
  if (req.tools.length > 0) {
    body["tools"] = req.tools.map((t) => w.item(TOOL_ITEM).block().schema(encodeOpenAITool(t)));
  }
  const limit = outputLimitField(req.model, wire.refused);
  if (limit) body[limit] = Math.max(1, Math.floor(req.maxOutputTokens));
  // a model the catalog knows not to reason gets no setting (OpenAI refuses it); an unknown
  // one (a local or gateway model) gets what was asked
  if (req.reasoning !== "off" && supportsReasoning(req.model) !== false && !wire.refused.has("reasoning_effort")) {
    body["reasoning_effort"] = req.reasoning;
  }
  body["stream"] = true;
  if (!wire.refused.has("stream_options")) body["stream_options"] = { include_usage: true };
  // OpenAI routes requests with one key to the same cache: the session's id
  if (req.cache && !wire.refused.has("prompt_cache_key")) body["prompt_cache_key"] = req.cache.key;
  return { provider: "openai", body, wire: w.wire };
}

/** The optional fields a body carries, in CHAT_OPTIONAL_FIELDS order. */
export function optionalFieldsOf(body: Json): ChatOptionalField[] {
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as unknown[]) : [];
  return CHAT_OPTIONAL_FIELDS.filter((f) =>
    f === "reasoning_content"
      ? messages.some((m) => typeof m === "object" && m !== null && f in m)
      : body[f] !== undefined,
  );
}

function encodeMessage(m: WireMessage, w: WireWriter, out: Json[], echoReasoning: boolean): void {
  switch (m.role) {
    case "user":
      encodeUser(m.content, w, out);
      return;
    case "assistant":
      out.push(encodeAssistant(m.content, w.item(HISTORY_ITEM.assistant), echoReasoning));
      return;
    default:
      return assertNever(m, "message");
  }
}

/** Tool results become `tool` messages (they must directly follow the assistant's
 * tool_calls); whatever else the user message held follows as a user message. */
function encodeUser(parts: readonly UserPart[], w: WireWriter, out: Json[]): void {
  const start = out.length;
  const rest: ProsePart[] = [];
  for (const p of parts) {
    switch (p.type) {
      case "tool_result": {
        w.item(HISTORY_ITEM.tool).block().label(`tool_result for id=${p.callId}: `);
        out.push({ role: "tool", tool_call_id: p.callId, content: w.text(toolResultText("openai", p.output, p.isError)) });
        break;
      }
      case "text":
      case "image":
        rest.push(p);
        break;
      default:
        assertNever(p, "wire part");
    }
  }
  if (rest.length > 0 || out.length === start) {
    w.item(HISTORY_ITEM.user);
    const only = rest.length === 1 ? rest[0] : undefined;
    // one text part goes as a plain string: the form every compatible server accepts
    const content =
      only?.type === "text"
        ? w.block().textPart(only)
        : rest.length > 0
          ? rest.map((p) => encodeUserPart(p, w.block()))
          : w.block().text("(empty message)");
    out.push({ role: "user", content });
  }
}

function encodeUserPart(p: ProsePart, w: WireWriter): Json {
  switch (p.type) {
    case "text":
      return { type: "text", text: w.textPart(p) };
    case "image":
      return { type: "image_url", image_url: { url: `data:${p.mediaType};base64,${w.image(p)}` } };
    default:
      return assertNever(p, "prose part");
  }
}

function encodeAssistant(parts: readonly AssistantPart[], w: WireWriter, echoReasoning: boolean): Json {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCallPart[] = [];
  for (const p of parts) {
    switch (p.type) {
      case "text":
        texts.push(p.text);
        break;
      case "reasoning":
        // DeepSeek-style servers require their reasoning back on the assistant message (the
        // live round's reasoning is this server's: a turn keeps its provider)
        if (echoReasoning && p.text.length > 0) reasoning.push(p.text);
        break;
      case "tool_call":
        calls.push(p);
        break;
      case "image":
        texts.push(`[image: ${p.mediaType}, ${p.bytes} bytes]`);
        break;
      default:
        assertNever(p, "wire part");
    }
  }
  // the parts cross as one content string: the joins are part of what is sent
  const empty = texts.length === 0 || (texts.length === 1 && texts[0] === "");
  const msg: Json = { role: "assistant", content: calls.length > 0 && empty ? null : w.block().joined(texts, "\n\n") };
  if (calls.length > 0) {
    msg["tool_calls"] = calls.map((c) => {
      const args = w.block().label(`tool_call id=${c.id} name=${c.name} arguments=`).text(toolInputJson(c.input));
      return { id: c.id, type: "function", function: { name: c.name, arguments: args } };
    });
  }
  if (reasoning.length > 0) msg["reasoning_content"] = w.block().label("reasoning_content: ").joined(reasoning, "\n\n");
  return msg;
}
