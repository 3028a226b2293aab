// OpenAI Responses API (`/v1/responses`, OpenAI's own endpoint): the request body (pure) and
// the streaming parser (docs/providers.md, "OpenAI Responses").
//
// Stateless: `store: false` with `include: ["reasoning.encrypted_content"]`, so nothing lives
// on OpenAI's side between requests. Each reasoning item comes back encrypted; the complete
// item from `response.output_item.done` is kept as the reasoning block's opaque body (when the
// item it preceded is one that is sent again) and, in its own live round only, replayed
// verbatim just before that item. Replayed
// history is prose, one input item per stored message (src/replay/), so no call id or
// reasoning item ever crosses from one turn into another.
import { z } from "zod";
import { assertNever, type Block } from "../record/types.js";
import { supportsReasoning } from "./catalog.js";
import { toolResultText } from "./encode-tools.js";
import { parseToolInput, toolInputJson } from "./tool-input.js";
import {
  postStream,
  type AnswerContext,
  type FrameHandler,
  type TransportOptions,
} from "./http.js";
import type { AnswerBudget } from "./budget.js";
import { RequestRefused } from "./error-body.js";
import { StreamFault } from "./failures.js";
import { hostOf } from "./url.js";
import { isOpenAIHosted, OPENAI_DEFAULT_BASE_URL } from "./openai.js";
import type { SseFrame } from "./sse.js";
import type {
  AssistantPart,
  ProviderIdentity,
  EncodedRequest,
  ProsePart,
  Provider,
  ProviderErrorKind,
  ReasoningPart,
  Request,
  StopReason,
  StreamEvent,
  StreamOptions,
  StreamResult,
  ToolSchema,
  Usage,
  UserPart,
  WireMessage,
} from "./types.js";
import { contextItem, encodeOnce, HISTORY_ITEM, SYSTEM_ITEM, TOOL_ITEM, WireWriter } from "./encoded.js";
import { RefusalMemory, pathsRefused } from "./refusals.js";
import { requestMessages } from "./types.js";
import { splitPrompt, tokenCount } from "./usage.js";

/** The opaque kind of a Responses reasoning item: its body is the item's JSON as received. */
export const OPAQUE_OPENAI_REASONING = "openai_encrypted_reasoning";

/** The API refuses a smaller max_output_tokens ("Expected a value >= 16"). */
export const MIN_OUTPUT_TOKENS = 16;

type Json = Record<string, unknown>;

// ---------------------------------------------------------------- request body

/** The body and its wire items (docs/providers.md, "OpenAI Responses"), encoded once for the
 * request's capture and its sending. */
export function encodeResponses(req: Request): EncodedRequest {
  return encodeOnce(req, buildAll);
}

/** Fields the body may go without: a server (or an account) that refuses one gets the request
 * again without it. OpenAI refuses reasoning summaries to organizations it has not verified;
 * a local server forced to this shape may not know `include` or `prompt_cache_key`; a model
 * the catalog does not know may take no reasoning setting at all ("reasoning": the whole
 * object, as Chat's reasoning_effort is optional). */
export type ResponsesOptionalField = "reasoning.summary" | "reasoning" | "include" | "prompt_cache_key";
const OPTIONAL_FIELDS: readonly ResponsesOptionalField[] = ["reasoning.summary", "reasoning", "include", "prompt_cache_key"];
const NONE: ReadonlySet<ResponsesOptionalField> = new Set();

function buildAll(req: Request): EncodedRequest {
  return build(req, NONE);
}

/** What one provider's server refused, per model, for the provider's life (the session): the
 * capture (Provider.encode) and the sending use the same encoding. */
export class ResponsesSession extends RefusalMemory<ResponsesOptionalField> {
  constructor() {
    // nothing refused: the builder encodeResponses uses, so encodeOnce's copy is shared
    super((refused) => (refused.size === 0 ? buildAll : (req) => build(req, refused)));
  }
}

/** The optional fields of `body` that a refusal names: by `error.param`, by any of the
 * wordings servers use (refusals.ts, as for Chat), by the field named in quotes beside a word
 * of refusal, or (summaries) by OpenAI's verification sentence. */
export function refusedFields(e: RequestRefused, body: Json): ResponsesOptionalField[] {
  const d = e.detail;
  const present = OPTIONAL_FIELDS.filter((f) => (f === "reasoning.summary" ? (body["reasoning"] as Json | undefined)?.["summary"] !== undefined : body[f] !== undefined));
  const refusal = /unknown|unrecogni[sz]ed|unsupported|not supported|not permitted|not allowed|unexpected|extra|must be verified/i.test(d.message);
  // paths from the body's top: a key of an input item (input.3.reasoning.encrypted_content,
  // where replayed reasoning lives) is not the top-level field of the same name
  const top = pathsRefused(d);
  const named = (first: string, second?: string) => top.some((p) => p[0] === first && (second === undefined ? p.length === 1 : p[1] === second));
  // a name in quotes beside a word of refusal, for wordings no pattern knows; not when a
  // pattern found where the refusal points (a quoted 'reasoning' may be a key in an input item)
  const quoted = (re: RegExp) => top.length === 0 && refusal && re.test(d.message);
  return present.filter((f) => {
    if (d.param === f) return true;
    switch (f) {
      case "reasoning.summary":
        return /reasoning summar/i.test(d.message) || named("reasoning", "summary") || quoted(/['"`]reasoning\.summary['"`]/);
      case "reasoning":
        // the effort is the setting itself: a model that refuses it takes no reasoning object
        return d.param === "reasoning.effort" || named("reasoning") || named("reasoning", "effort") || quoted(/['"`]reasoning(\.effort)?['"`]/);
      case "include":
      case "prompt_cache_key":
        return named(f) || quoted(new RegExp(`['"\`]${f}['"\`]`));
      default:
        return assertNever(f, "refused field");
    }
  });
}

export function encodeResponsesBody(req: Request): Json {
  return encodeResponses(req).body;
}

/** A tool definition as the Responses API takes it: flat, and not strict (strict mode wants
 * every property required and no others allowed, which our schemas do not promise). */
export function encodeResponsesTool(t: ToolSchema): Json {
  return { type: "function", name: t.name, description: t.description, parameters: t.inputSchema, strict: false };
}

function build(req: Request, refused: ReadonlySet<ResponsesOptionalField>): EncodedRequest {
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

/** Tool results become function_call_output items (before the rest, as they answer the calls
 * just before); whatever else the message held follows as one user message item. */
function encodeUser(parts: readonly UserPart[], w: WireWriter, out: Json[], ids: ReadonlySet<string>): void {
  const start = out.length;
  const rest: ProsePart[] = [];
  for (const p of parts) {
    switch (p.type) {
      case "tool_result":
        if (ids.has(p.callId)) {
          w.item(HISTORY_ITEM.tool).block().label(`tool_result for id=${p.callId}: `);
          out.push({ type: "function_call_output", call_id: p.callId, output: w.text(toolResultText("openai", p.output, p.isError)) });
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
      return { type: "input_image", image_url: `data:${p.mediaType};base64,${w.image(p)}` };
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
  const flush = (): void => {
    if (texts.length === 0) return;
    w.item(HISTORY_ITEM.assistant);
    out.push({ type: "message", role: "assistant", content: texts.map((t) => ({ type: "output_text", text: w.block().text(t) })) });
    texts = [];
  };
  parts.forEach((p, i) => {
    switch (p.type) {
      case "text":
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

// ---------------------------------------------------------------- stream events

const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  input_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
});

const responseSchema = z
  .object({
    status: z.string().nullish(),
    usage: usageSchema.nullish(),
    incomplete_details: z.object({ reason: z.string().nullish() }).nullish(),
    error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  })
  .loose();

const outputIndex = z.number().int().nonnegative();
const item = z.object({ type: z.string() }).loose();

const eventSchemas = {
  "response.created": z.object({ response: responseSchema }).loose(),
  "response.in_progress": z.object({}).loose(),
  "response.queued": z.object({}).loose(),
  "response.output_item.added": z.object({ output_index: outputIndex, item }).loose(),
  "response.output_item.done": z.object({ output_index: outputIndex, item }).loose(),
  "response.content_part.added": z.object({}).loose(),
  "response.content_part.done": z.object({}).loose(),
  "response.output_text.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.output_text.done": z.object({}).loose(),
  "response.output_text.annotation.added": z.object({}).loose(),
  "response.refusal.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.refusal.done": z.object({}).loose(),
  "response.function_call_arguments.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.function_call_arguments.done": z.object({ output_index: outputIndex, arguments: z.string() }).loose(),
  "response.reasoning_summary_part.added": z.object({ output_index: outputIndex, summary_index: z.number().int() }).loose(),
  "response.reasoning_summary_part.done": z.object({}).loose(),
  "response.reasoning_summary_text.delta": z
    .object({ output_index: outputIndex, summary_index: z.number().int().nullish(), delta: z.string() })
    .loose(),
  "response.reasoning_summary_text.done": z.object({}).loose(),
  "response.reasoning_text.delta": z.object({ output_index: outputIndex, delta: z.string() }).loose(),
  "response.reasoning_text.done": z.object({}).loose(),
  "response.completed": z.object({ response: responseSchema }).loose(),
  "response.incomplete": z.object({ response: responseSchema }).loose(),
  "response.failed": z.object({ response: responseSchema }).loose(),
  error: z.object({ message: z.string().nullish(), code: z.string().nullish(), param: z.string().nullish() }).loose(),
} as const;
type EventType = keyof typeof eventSchemas;

function isEventType(t: string): t is EventType {
  return Object.prototype.hasOwnProperty.call(eventSchemas, t);
}
/** for the test that holds the fast path to zod */
export const responsesEventSchemas: Readonly<Record<string, z.ZodType>> = eventSchemas;

// The deltas that carry an answer's words: nearly every event of a stream.
const HOT_EVENTS = new Set<string>([
  "response.output_text.delta",
  "response.refusal.delta",
  "response.function_call_arguments.delta",
  "response.reasoning_summary_text.delta",
  "response.reasoning_text.delta",
]);

/**
 * The hot deltas checked by hand instead of a zod parse per event (the stream's largest single
 * cost): each condition is that event's zod schema's (output_index a safe integer ≥ 0, delta a
 * string, a summary delta's summary_index absent, null or a safe integer; other fields kept, as
 * .loose() keeps them), and the value is the event itself, equal to zod's copy. Anything else,
 * or anything that fails here, goes to zod, which also words the error; the equivalence is
 * tested in test/unit/stream-fast-path.test.ts.
 */
export function fastResponsesDelta(type: string, raw: unknown): Json | undefined {
  if (!HOT_EVENTS.has(type) || typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  const ev = raw as Json;
  const i = ev["output_index"];
  if (!Number.isSafeInteger(i) || (i as number) < 0 || typeof ev["delta"] !== "string") return undefined;
  if (type === "response.reasoning_summary_text.delta") {
    const si = ev["summary_index"];
    if (si !== undefined && si !== null && !Number.isSafeInteger(si)) return undefined;
  }
  // zod's copy leaves out an own "__proto__" field (JSON.parse makes one): rare, so zod's
  return Object.hasOwn(ev, "__proto__") ? undefined : ev;
}

const functionCallItem = z.object({ type: z.literal("function_call"), call_id: z.string().min(1), name: z.string(), arguments: z.string().nullish() }).loose();
const messageItem = z.object({ type: z.literal("message"), content: z.array(z.object({ type: z.string(), text: z.string().nullish(), refusal: z.string().nullish() }).loose()).nullish() }).loose();
const summaryItem = z.object({ type: z.literal("reasoning"), summary: z.array(z.object({ text: z.string().nullish() }).loose()).nullish() }).loose();

type Acc =
  | { kind: "message"; text: string }
  | { kind: "call"; ordinal: number; id: string; name: string; args: string; done: boolean }
  | { kind: "reasoning"; text: string; part: number; opaque?: string }
  | { kind: "ignored" };

export class ResponsesStreamHandler implements FrameHandler {
  private readonly byIndex = new Map<number, Acc>();
  private readonly order: Acc[] = [];
  private calls = 0;
  private usage: Usage | undefined;
  private stop: StopReason | undefined;
  private started = false;
  private readonly emit: (e: StreamEvent) => void;
  /** every piece of content passes through it: what one answer may bring is bounded */
  private readonly budget: AnswerBudget;

  constructor(
    ctx: AnswerContext,
    private readonly label: string,
  ) {
    this.emit = ctx.emit;
    this.budget = ctx.budget;
  }

  get outputStarted(): boolean {
    return this.started;
  }

  onFrame(frame: SseFrame): "more" | "done" {
    let raw: unknown;
    try {
      raw = JSON.parse(frame.data);
    } catch {
      throw new StreamFault(`${this.label} sent a malformed stream event${frame.event ? ` (${frame.event})` : ""}: not valid JSON: ${clip(frame.data)}`, "stream");
    }
    const type = typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
    if (typeof type !== "string") throw new StreamFault(`${this.label} sent a malformed stream event: no "type" field: ${clip(frame.data)}`, "stream");
    if (!isEventType(type)) {
      this.emit({ type: "warning", message: `ignored an unknown stream event "${type}" from ${this.label}` });
      return "more";
    }
    const hot = fastResponsesDelta(type, raw);
    if (hot) return this.handle(type, hot);
    const parsed = eventSchemas[type].safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? issue.path.join(".") : "event";
      throw new StreamFault(`${this.label} sent a malformed "${type}" stream event: ${where}: ${issue?.message ?? "invalid"}`, "stream");
    }
    return this.handle(type, parsed.data as Json);
  }

  private handle(type: EventType, ev: Json): "more" | "done" {
    switch (type) {
      case "response.output_item.added":
        this.added(ev["output_index"] as number, ev["item"] as Json);
        return "more";
      case "response.output_item.done":
        this.itemDone(ev["output_index"] as number, ev["item"] as Json);
        return "more";
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.text(ev["output_index"] as number, ev["delta"] as string);
        return "more";
      case "response.function_call_arguments.delta":
        this.args(ev["output_index"] as number, ev["delta"] as string);
        return "more";
      case "response.function_call_arguments.done": {
        const acc = this.byIndex.get(ev["output_index"] as number);
        // the whole arguments, for a server that sent no deltas
        if (acc?.kind === "call" && acc.args === "") this.args(ev["output_index"] as number, ev["arguments"] as string);
        return "more";
      }
      case "response.reasoning_summary_part.added": {
        const acc = this.reasoningAt(ev["output_index"] as number);
        const part = ev["summary_index"] as number;
        // summary parts are paragraphs: a blank line between them
        if (acc && part !== acc.part && acc.text.length > 0) this.reason(acc, "\n\n");
        if (acc) acc.part = part;
        return "more";
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const acc = this.reasoningAt(ev["output_index"] as number);
        if (acc) this.reason(acc, ev["delta"] as string);
        return "more";
      }
      case "response.completed":
      case "response.incomplete": {
        const r = ev["response"] as z.infer<typeof responseSchema>;
        if (r.usage) this.setUsage(r.usage);
        this.stop = type === "response.completed" ? "end" : incompleteReason(r.incomplete_details?.reason ?? undefined);
        return "done";
      }
      case "response.failed": {
        const e = (ev["response"] as z.infer<typeof responseSchema>).error;
        throw failure(this.label, e?.code ?? undefined, e?.message ?? undefined);
      }
      case "error":
        throw failure(this.label, (ev["code"] as string | null | undefined) ?? undefined, (ev["message"] as string | null | undefined) ?? undefined);
      case "response.created":
      case "response.in_progress":
      case "response.queued":
      case "response.content_part.added":
      case "response.content_part.done":
      case "response.output_text.done":
      case "response.output_text.annotation.added":
      case "response.refusal.done":
      case "response.reasoning_summary_part.done":
      case "response.reasoning_summary_text.done":
      case "response.reasoning_text.done":
        return "more";
      default:
        return assertNever(type, "Responses event");
    }
  }

  private added(i: number, it: Json): void {
    if (this.byIndex.has(i)) throw new StreamFault(`${this.label} started output item ${i} twice`, "stream");
    // every item costs a little, ignored ones too: endless empty items reach the bound
    this.budget.block();
    this.budget.check();
    let acc: Acc;
    switch (it["type"]) {
      case "message":
        acc = { kind: "message", text: "" };
        break;
      case "function_call": {
        const parsed = functionCallItem.safeParse(it);
        if (!parsed.success) throw new StreamFault(`${this.label} started a function_call item without a call_id or name`, "stream");
        // a call whose id and name do not fit is not started at all
        this.budget.take(parsed.data.call_id + parsed.data.name);
        this.budget.check("the tool call it was starting is not run");
        acc = { kind: "call", ordinal: this.calls++, id: parsed.data.call_id, name: parsed.data.name, args: "", done: false };
        this.started = true;
        this.emit({ type: "tool_call_start", index: acc.ordinal, id: acc.id, name: acc.name });
        break;
      }
      case "reasoning":
        acc = { kind: "reasoning", text: "", part: 0 };
        break;
      default:
        // web search, file search and other hosted tools: nothing we asked for or can store
        this.emit({ type: "warning", message: `ignored an output item of unknown type "${String(it["type"])}" from ${this.label}` });
        acc = { kind: "ignored" };
    }
    this.byIndex.set(i, acc);
    this.order.push(acc);
  }

  private accAt(i: number, what: string): Acc {
    const acc = this.byIndex.get(i);
    if (!acc) throw new StreamFault(`${this.label} sent ${what} for output item ${i}, which never started`, "stream");
    return acc;
  }

  private reasoningAt(i: number): Extract<Acc, { kind: "reasoning" }> | undefined {
    const acc = this.accAt(i, "reasoning");
    if (acc.kind === "ignored") return undefined;
    if (acc.kind !== "reasoning") throw new StreamFault(`${this.label} sent reasoning for a ${acc.kind} item (output ${i})`, "stream");
    return acc;
  }

  private text(i: number, delta: string): void {
    const acc = this.accAt(i, "text");
    if (acc.kind === "ignored") return;
    if (acc.kind !== "message") throw new StreamFault(`${this.label} sent text for a ${acc.kind} item (output ${i})`, "stream");
    const text = this.budget.take(delta);
    if (text) {
      acc.text += text;
      this.started = true;
      this.emit({ type: "text_delta", text });
    }
    this.budget.check();
  }

  private reason(acc: Extract<Acc, { kind: "reasoning" }>, delta: string): void {
    const text = this.budget.take(delta);
    if (text) {
      acc.text += text;
      this.started = true;
      this.emit({ type: "reasoning_delta", text });
    }
    this.budget.check();
  }

  private args(i: number, delta: string): void {
    const acc = this.accAt(i, "arguments");
    if (acc.kind === "ignored") return;
    if (acc.kind !== "call") throw new StreamFault(`${this.label} sent call arguments for a ${acc.kind} item (output ${i})`, "stream");
    const piece = this.budget.take(delta);
    if (piece) {
      acc.args += piece;
      this.emit({ type: "tool_call_delta", index: acc.ordinal, partialJson: piece });
    }
    // an unfinished call is neither kept nor run
    this.budget.check(`the input of the tool call "${acc.name}" was cut off there, and the call is not run`);
  }

  /** The complete item: what the deltas did not bring, and a reasoning item's opaque body. */
  private itemDone(i: number, it: Json): void {
    const acc = this.accAt(i, "the end");
    switch (acc.kind) {
      case "message": {
        const m = messageItem.safeParse(it);
        if (acc.text === "" && m.success) {
          const whole = (m.data.content ?? []).map((c) => c.text ?? c.refusal ?? "").join("");
          if (whole) this.text(i, whole);
        }
        return;
      }
      case "call": {
        const c = functionCallItem.safeParse(it);
        if (acc.args === "" && c.success && c.data.arguments) this.args(i, c.data.arguments);
        acc.done = true;
        return;
      }
      case "reasoning": {
        const s = summaryItem.safeParse(it);
        if (acc.text === "" && s.success) {
          const whole = (s.data.summary ?? []).map((p) => p.text ?? "").filter((t) => t.length > 0).join("\n\n");
          if (whole) this.reason(acc, whole);
        }
        const encrypted = it["encrypted_content"];
        if (typeof encrypted === "string" && encrypted.length > 0) {
          const body = JSON.stringify(it);
          const kept = this.budget.take(body);
          // an opaque body cut short is worthless: the text is kept without it
          if (!this.budget.exceeded && kept === body) acc.opaque = body;
          this.started = true;
          this.budget.check();
        }
        return;
      }
      case "ignored":
        return;
      default:
        return assertNever(acc, "accumulator");
    }
  }

  private setUsage(u: z.infer<typeof usageSchema>): void {
    // input_tokens includes cached tokens; Usage keeps them apart, as Anthropic reports them
    const reported = u.input_tokens_details?.cached_tokens;
    const { uncached, cached } = splitPrompt(u.input_tokens, reported ?? 0);
    const usage: Usage = { inputTokens: uncached, outputTokens: tokenCount(u.output_tokens) };
    // a reported 0 is a miss the status line shows ("cache 0%"); no field, no figure
    if (typeof reported === "number") usage.cacheReadTokens = cached;
    this.usage = usage;
    this.emit({ type: "usage", usage: { ...usage } });
  }

  result(): StreamResult {
    const blocks = this.blocks(true);
    let stopReason: StopReason = this.stop ?? "other";
    // the Responses API has no "tool_calls" status: a finished answer with calls asks for them
    if (stopReason === "end" && blocks.some((b) => b.type === "tool_use")) stopReason = "tool_use";
    const r: StreamResult = { blocks, stopReason };
    if (this.usage) r.usage = { ...this.usage };
    return r;
  }

  partial(): Block[] {
    return this.blocks(false);
  }

  private blocks(final: boolean): Block[] {
    const out: Block[] = [];
    for (const [i, acc] of this.order.entries()) {
      switch (acc.kind) {
        case "message":
          if (acc.text.length > 0) out.push({ type: "text", text: acc.text });
          break;
        case "call":
          // a call whose arguments were cut off cannot be run: only finished calls are kept
          if (acc.done || final) out.push({ type: "tool_use", id: acc.id, name: acc.name, input: this.parseArgs(acc, final) });
          break;
        case "reasoning":
          if (acc.opaque && precedesKept(this.order[i + 1])) out.push({ type: "reasoning", text: acc.text, opaque: { kind: OPAQUE_OPENAI_REASONING, body: acc.opaque } });
          else if (acc.text.length > 0) out.push({ type: "reasoning", text: acc.text });
          break;
        case "ignored":
          break;
        default:
          assertNever(acc, "accumulator");
      }
    }
    return out;
  }

  private parseArgs(acc: Extract<Acc, { kind: "call" }>, warn: boolean): unknown {
    const { input, valid } = parseToolInput(acc.args);
    if (!valid && warn) {
      this.emit({ type: "warning", message: `the arguments ${this.label} sent for tool "${acc.name}" are not valid JSON; kept as _raw` });
    }
    return input;
  }
}

/**
 * Whether the item after a reasoning item will be sent again as its own item: the reasoning
 * item goes back only right before the item it preceded (the API refuses it elsewhere). A
 * message of blank text is dropped when the round is replayed (src/replay/replay.ts,
 * dropBlankText: providers refuse blank text), an ignored item never was a block, and nothing
 * follows the last item; before any of these the reasoning keeps its text and loses its
 * encrypted item, so it crosses as prose.
 */
function precedesKept(next: Acc | undefined): boolean {
  if (next === undefined) return false;
  switch (next.kind) {
    case "call":
      return true;
    case "message":
      return /\S/.test(next.text);
    case "reasoning":
    case "ignored":
      return false;
    default:
      return assertNever(next, "accumulator");
  }
}

function incompleteReason(reason: string | undefined): StopReason {
  switch (reason) {
    case "max_output_tokens":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "other";
  }
}

function failure(label: string, code: string | undefined, message: string | undefined): StreamFault {
  const [kind, retryable] = errorKind(code);
  return new StreamFault(`${label} reported an error mid-stream: ${message || "no message"}${code ? ` (${code})` : ""}`, kind, retryable);
}

function errorKind(code: string | undefined): [ProviderErrorKind, boolean] {
  const c = code ?? "";
  if (/context_length_exceeded/.test(c)) return ["context_length", false];
  if (/rate_limit/.test(c)) return ["rate_limit", true];
  if (/overloaded|server_is_overloaded|slow_down/.test(c)) return ["overloaded", true];
  if (/server_error|internal/.test(c)) return ["server", true];
  if (/invalid/.test(c)) return ["bad_request", false];
  return ["server", false];
}

function clip(s: string): string {
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

// ---------------------------------------------------------------- provider

export interface ResponsesConfig {
  baseUrl?: string;
  /** optional: a local server forced to this shape may need none */
  apiKey?: string;
  transport: TransportOptions;
  /** what the server refused so far; one per provider, so it lasts the session */
  session?: ResponsesSession;
}

export function createResponsesProvider(cfg: ResponsesConfig): Provider {
  const base = (cfg.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const url = `${base}/responses`;
  const apiKey = cfg.apiKey; // lives only in this closure
  const who: ProviderIdentity = {
    name: "openai",
    label: isOpenAIHosted(base) ? "OpenAI" : `the server at ${hostOf(base)}`,
    keyHint: "OPENAI_API_KEY",
  };
  const session = cfg.session ?? new ResponsesSession();
  const post = (req: Request, enc: EncodedRequest, opts: StreamOptions): Promise<StreamResult> => {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (apiKey) headers["authorization"] = `Bearer ${apiKey}`;
    const args = {
      who,
      model: req.model,
      url,
      headers,
      body: JSON.stringify(enc.body),
      transport: cfg.transport,
      stream: opts,
      maxOutputTokens: req.maxOutputTokens,
      newHandler: (ctx: AnswerContext) => new ResponsesStreamHandler(ctx, who.label),
    };
    return postStream(apiKey ? { ...args, secret: apiKey } : args);
  };
  return {
    name: "openai",
    encode: (req: Request) => session.encode(req),
    async stream(req: Request, opts: StreamOptions = {}): Promise<StreamResult> {
      // A refusal that names an optional field the request carried is answered by sending it
      // again without it: each try drops at least one more (so this ends), remembered for the
      // session, said in a warning. Anything else stands.
      let enc = session.encode(req);
      for (;;) {
        try {
          return await post(req, enc, opts);
        } catch (e) {
          if (!(e instanceof RequestRefused) || opts.signal?.aborted) throw e;
          const fields = refusedFields(e, enc.body);
          if (fields.length === 0) throw e;
          session.refuse(req.model, fields);
          const list = fields.map((f) => `"${f}"`).join(", ");
          opts.onEvent?.({
            type: "warning",
            message: `${who.label} refused ${list} (HTTP ${e.status ?? 400}: ${clip(e.detail.message)}); sent the request again without ${fields.length === 1 ? "it" : "them"}, and ${req.model} will not get ${fields.length === 1 ? "it" : "them"} again this session`,
          });
          enc = session.encodeAgain(req);
          // the capture is recorded again from the encoding now sent: the inspector still equals the wire
          await opts.onResend?.(enc);
        }
      }
    },
  };
}

