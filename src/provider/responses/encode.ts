// The OpenAI Responses API body (`/v1/responses`, OpenAI's own endpoint), pure
// (docs/providers.md, "OpenAI Responses").
//
// Stateless: `store: false` with `include: ["reasoning.encrypted_content"]`, so nothing lives
// on OpenAI's side between requests. Each reasoning item comes back encrypted; the complete
// item from `response.output_item.done` is kept as the reasoning block's opaque body (when the
// item it preceded is one that is sent again) and, in its own live round only, replayed
// verbatim just before that item. Replayed history is prose, one input item per stored
// message (src/replay/), so no call id or reasoning item ever crosses from one turn into
// another.
import { z } from "zod";
import { assertNever, type TextPhase } from "../../record/types.js";
import { supportsReasoning } from "../catalog.js";
import { contextItem, encodeOnce, HISTORY_ITEM, SYSTEM_ITEM, TOOL_ITEM, WireWriter } from "../encoded.js";
import { openAIToolResults } from "../encode-tools.js";
import type { Json } from "../json.js";
import { toolInputJson } from "../tool-input.js";
import {
  requestMessages,
  type AssistantPart,
  type EncodedRequest,
  type ProsePart,
  type ReasoningPart,
  type Request,
  type ToolSchema,
  type UserPart,
  type WireMessage,
} from "../types.js";

/** The opaque kind of a Responses reasoning item: its body is the item's JSON as received. */
export const OPAQUE_OPENAI_REASONING = "openai_encrypted_reasoning";

/** The API refuses a smaller max_output_tokens ("Expected a value >= 16"). */
const MIN_OUTPUT_TOKENS = 16;

/** The body and its wire items (docs/providers.md, "OpenAI Responses"), encoded once for the
 * request's capture and its sending. */
export function encodeResponses(req: Request): EncodedRequest {
  return encodeOnce(req, buildWhole);
}

/** Fields the body may go without: a server (or an account) that refuses one gets the request
 * again without it. OpenAI refuses reasoning summaries to organizations it has not verified;
 * a local server forced to this shape may not know `include` or `prompt_cache_key`; a model
 * the catalog does not know may take no reasoning setting at all ("reasoning": the whole
 * object, as Chat's reasoning_effort is optional). */
export type ResponsesOptionalField = "reasoning.summary" | "reasoning" | "include" | "prompt_cache_key";
const NONE: ReadonlySet<ResponsesOptionalField> = new Set();

/** The body with every optional field the request asks for. */
export function buildWhole(req: Request): EncodedRequest {
  return buildBody(req, NONE);
}

export function encodeResponsesBody(req: Request): Json {
  return encodeResponses(req).body;
}

/** A tool definition as the Responses API takes it: flat, and not strict (strict mode wants
 * every property required and no others allowed, which our schemas do not promise). */
function encodeResponsesTool(t: ToolSchema): Json {
  return { type: "function", name: t.name, description: t.description, parameters: t.inputSchema, strict: false };
}

/** The body without the optional fields `refused`. */
export function buildBody(req: Request, refused: ReadonlySet<ResponsesOptionalField>): EncodedRequest {
  const w = new WireWriter();
  const body: Json = { model: req.model };
  if (/\S/.test(req.system)) body["instructions"] = w.item(SYSTEM_ITEM).block().text(req.system);
  const input: Json[] = [];
  // one system message per context item, before the conversation: the inspector's sections
  req.context.forEach((c, index) => {
    if (/\S/.test(c.text)) input.push({ type: "message", role: "system", content: w.item(contextItem(index)).block().text(c.text) });
  });
  const messages = requestMessages(req);
  const ids = callIds(messages);
  for (const m of messages) encodeMessage(m, w, input, ids);
  body["input"] = input;
  if (req.tools.length > 0) body["tools"] = req.tools.map((t) => w.item(TOOL_ITEM).block().schema(encodeResponsesTool(t)));
  body["max_output_tokens"] = Math.max(MIN_OUTPUT_TOKENS, Math.floor(req.maxOutputTokens));
  // a model the catalog knows not to reason gets no reasoning field (it would be refused)
  const reasons = supportsReasoning(req.model);
  if (req.reasoning !== "off" && reasons !== false && !refused.has("reasoning")) {
    body["reasoning"] = refused.has("reasoning.summary") ? { effort: req.reasoning } : { effort: req.reasoning, summary: "auto" };
  }
  // stateless: reasoning models reason even when not asked to, and their items must come
  // back encrypted to be replayed within the live round
  body["store"] = false;
  if (reasons !== false && !refused.has("include")) body["include"] = ["reasoning.encrypted_content"];
  if (req.cache && !refused.has("prompt_cache_key")) body["prompt_cache_key"] = req.cache.key;
  body["stream"] = true;
  return { provider: "openai", body, wire: w.wire };
}

/** The call ids the request both calls and answers natively: only these cross as
 * function_call / function_call_output items (the API refuses either without the other). */
function callIds(messages: readonly WireMessage[]): Set<string> {
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    for (const p of m.content) {
      if (p.type === "tool_call") called.add(p.id);
      else if (p.type === "tool_result" && called.has(p.callId)) answered.add(p.callId);
    }
  }
  return answered;
}

function encodeMessage(m: WireMessage, w: WireWriter, out: Json[], ids: ReadonlySet<string>): void {
  switch (m.role) {
    case "user":
      encodeUser(m.content, w, out, ids);
      return;
    case "assistant":
      encodeAssistant(m.content, w, out, ids);
      return;
    default:
      return assertNever(m, "message");
  }
}

/** Tool results become function_call_output items (ahead of the rest, as they answer the calls
 * just before); whatever else the message held follows as one user message item. */
function encodeUser(parts: readonly UserPart[], w: WireWriter, out: Json[], ids: ReadonlySet<string>): void {
  const start = out.length;
  const rest = openAIToolResults(
    parts,
    w,
    out,
    (p, text) => ({ type: "function_call_output", call_id: p.callId, output: text }),
    (p) => ids.has(p.callId),
  );
  if (rest.length > 0 || out.length === start) {
    w.item(HISTORY_ITEM.user);
    const content = rest.length > 0 ? rest.map((p) => userPart(p, w.block())) : [{ type: "input_text", text: w.block().text("(empty message)") }];
    out.push({ type: "message", role: "user", content });
  }
}

function userPart(p: ProsePart, w: WireWriter): Json {
  switch (p.type) {
    case "text":
      return { type: "input_text", text: w.textPart(p) };
    case "image":
      // detail "auto", as the SDK's ResponseInputImage spells it: the server picks the resolution
      return { type: "input_image", image_url: `data:${p.mediaType};base64,${w.image(p)}`, detail: "auto" };
    default:
      return assertNever(p, "prose part");
  }
}

/**
 * An assistant message as the items it was: its texts as one message item (output_text
 * parts) until a call or a reasoning item comes between, each call a function_call item,
 * and encrypted reasoning as its own item, verbatim, right before the item it preceded.
 */
function encodeAssistant(parts: readonly AssistantPart[], w: WireWriter, out: Json[], ids: ReadonlySet<string>): void {
  const start = out.length;
  let texts: string[] = [];
  // the phase of the texts gathered: a text of another phase starts a message item of its own
  let phase: TextPhase | undefined;
  const flush = (): void => {
    if (texts.length === 0) return;
    w.item(HISTORY_ITEM.assistant);
    const content = texts.map((t) => ({ type: "output_text", text: w.block().text(t) }));
    out.push(phase ? { type: "message", role: "assistant", content, phase } : { type: "message", role: "assistant", content });
    texts = [];
    phase = undefined;
  };
  parts.forEach((p, i) => {
    switch (p.type) {
      case "text":
        if (p.phase !== phase && texts.length > 0) flush();
        if (p.phase) phase = p.phase;
        texts.push(p.text);
        break;
      case "image":
        texts.push(`[image: ${p.mediaType}, ${p.bytes} bytes]`);
        break;
      case "tool_call":
        if (ids.has(p.id)) {
          flush();
          const args = w.item(HISTORY_ITEM.assistant).block().label(`tool_call id=${p.id} name=${p.name} arguments=`).text(toolInputJson(p.input));
          out.push({ type: "function_call", call_id: p.id, name: p.name, arguments: args });
        } else {
          texts.push(`Tool use: ${p.name}(${toolInputJson(p.input)})`);
        }
        break;
      case "reasoning": {
        const item = replayableItem(p, parts[i + 1], ids);
        if (item) {
          flush();
          w.item(HISTORY_ITEM.assistant).block().label("reasoning ");
          // the body holds the item itself; its JSON is what crosses, so that is recorded
          w.opaque(OPAQUE_OPENAI_REASONING, JSON.stringify(item));
          out.push(item);
        } else if (/\S/.test(p.text)) {
          // unencrypted reasoning (another provider's, or a cut-off item) is prose
          texts.push(`[Reasoning]: ${p.text}`);
        }
        break;
      }
      default:
        assertNever(p, "wire part");
    }
  });
  flush();
  if (out.length === start) {
    w.item(HISTORY_ITEM.assistant);
    out.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: w.block().text("(empty message)") }] });
  }
}

const reasoningItemSchema = z
  .object({ type: z.literal("reasoning"), encrypted_content: z.string().min(1), summary: z.array(z.unknown()) })
  .loose();

/** The stored reasoning item, when it can be replayed here: ours, whole, and followed in its
 * message by an item that will be sent natively (the API refuses a reasoning item without
 * the item it preceded). */
function replayableItem(p: ReasoningPart, next: AssistantPart | undefined, ids: ReadonlySet<string>): Json | undefined {
  if (p.opaque?.kind !== OPAQUE_OPENAI_REASONING) return undefined;
  const follows = next !== undefined && (next.type === "text" || next.type === "image" || (next.type === "tool_call" && ids.has(next.id)));
  if (!follows) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(p.opaque.body);
  } catch {
    return undefined;
  }
  const parsed = reasoningItemSchema.safeParse(raw);
  return parsed.success ? (parsed.data as Json) : undefined;
}
