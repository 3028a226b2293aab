// Anthropic Messages API: the request body (pure) and the streaming parser (docs/providers.md, "Anthropic Messages").
import { z } from "zod";
import { assertNever, type Block } from "../record/types.js";
import { minCacheableTokens, supportsReasoning, usesAdaptiveThinking } from "./catalog.js";
import { encodeAnthropicTool } from "./encode-tools.js";
import { parseToolInput } from "./tool-input.js";
import {
  postStream,
  type AnswerContext,
  type FrameHandler,
  type TransportOptions,
} from "./http.js";
import type { AnswerBudget } from "./budget.js";
import { StreamFault } from "./failures.js";
import { hostOf } from "./url.js";
import type { SseFrame } from "./sse.js";
import type {
  Provider,
  ProviderIdentity,
  ProviderErrorKind,
  ReasoningLevel,
  Request,
  RequestCache,
  StopReason,
  StreamEvent,
  StreamOptions,
  StreamResult,
  EncodedRequest,
  ReasoningPart,
  Usage,
  WireMessage,
  WirePart,
  WireItemStart,
} from "./types.js";
import { contextItem, encodeOnce, HISTORY_ITEM, SYSTEM_ITEM, TOOL_ITEM, WireWriter } from "./encoded.js";
import { requestMessages } from "./types.js";
import { tokenCount } from "./usage.js";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_VERSION = "2023-06-01";

/** Opaque kinds this adapter writes and reads back. */
export const OPAQUE_THINKING_SIGNATURE = "thinking_signature";
export const OPAQUE_REDACTED_THINKING = "redacted_thinking";

const THINKING_BUDGET: Record<Exclude<ReasoningLevel, "off">, number> = {
  low: 2048,
  medium: 8192,
  high: 24576,
};
const MIN_THINKING_BUDGET = 1024;

// ---------------------------------------------------------------- request body

type Json = Record<string, unknown>;

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

// ---------------------------------------------------------------- prompt caching
// Anthropic caches a prompt's prefix up to each block marked with cache_control, in the
// order tools → system → messages, at most 4 marks per request (docs/providers.md, Prompt
// caching). We mark, where the prefix is long enough for the model to cache: the last tool,
// the last system block (system prompt and context items), the previous turn's last message
// (the end of the replayed history), and the newest message. The newest mark writes this
// request's prefix; the next request reads it through the API's look-back (about 20 blocks
// from a mark). Where the previous request's prefix ends further back than that (the turn
// before replays as more prose than that, or one round brought many parallel calls), the
// mark on the previous turn's end moves to where that prefix ends, so it is read, not written
// again with all the history before it.

export const MAX_CACHE_BREAKPOINTS = 4;
/** Blocks between the previous request's end and the newest mark past which its prefix gets a
 * mark of its own: a margin under the API's look-back of about 20 blocks. */
export const READ_MARK_AFTER_BLOCKS = 15;

/** Characters per token of the placement estimate. It only decides whether a prefix is long
 * enough to mark (and errs long on code, short on prose); what is cached is the API's count. */
const CHARS_PER_TOKEN = 4;
/** What an image counts in the estimate: about a large image's tokens, as characters. */
const IMAGE_CHARS = 1600 * CHARS_PER_TOKEN;

interface BreakpointPlan {
  ttl: RequestCache["ttl"];
  tools: boolean;
  system: boolean;
  /** indexes into requestMessages(req) whose last block is marked */
  messages: number[];
}

/** The chars/4 estimate of a prefix's tokens (placement only). */
export function estimatePrefixTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function planBreakpoints(req: Request, tools: Json[]): BreakpointPlan | undefined {
  if (!req.cache) return undefined;
  const min = minCacheableTokens(req.model);
  const long = (chars: number): boolean => estimatePrefixTokens(chars) >= min;
  let chars = 0;
  for (const t of tools) chars += JSON.stringify(t).length;
  const toolsMark = tools.length > 0 && long(chars);
  const hasSystem = !isBlankText(req.system) || req.context.some((c) => !isBlankText(c.text));
  chars += req.system.length;
  for (const c of req.context) chars += c.text.length;
  const systemMark = hasSystem && long(chars);
  const messages: number[] = [];
  const all = requestMessages(req);
  const newest = all.length - 1;
  const read = previousRequestEnd(req);
  const far = read !== undefined && read >= 0 && read < newest && blocksIn(all.slice(read + 1)) > READ_MARK_AFTER_BLOCKS;
  const marked = [far ? read : req.history.length - 1, newest];
  all.forEach((m, i) => {
    for (const part of m.content) chars += partChars(part);
    if (marked.includes(i) && long(chars)) messages.push(i);
  });
  if (!toolsMark && !systemMark && messages.length === 0) return undefined;
  return { ttl: req.cache.ttl, tools: toolsMark, system: systemMark, messages };
}

/** Where the previous request's messages ended (an index into requestMessages): within a
 * turn, just before its newest answer; at a turn's first request, the previous turn's prompt,
 * which that turn's first request marked as its newest. */
function previousRequestEnd(req: Request): number | undefined {
  const live = req.live ?? [];
  for (let j = live.length - 1; j >= 0; j--) if (live[j]!.role === "assistant") return req.history.length + j - 1;
  return req.cache?.previousTurnStart;
}

/** The body blocks these messages become (encodeMessage: blank parts dropped, at least one). */
function blocksIn(messages: readonly WireMessage[]): number {
  let n = 0;
  for (const m of messages) n += Math.max(1, m.content.filter((p) => !isBlank(p)).length);
  return n;
}

function partChars(part: WirePart): number {
  switch (part.type) {
    case "text":
      return part.text.length;
    case "image":
      return IMAGE_CHARS;
    case "tool_call":
      return part.name.length + JSON.stringify(part.input ?? {}).length;
    case "tool_result":
      return part.output.length;
    case "reasoning":
      return part.text.length;
    default:
      return assertNever(part, "wire part");
  }
}

/** Marks a block of the body as a cache breakpoint, and records the mark on the wire right
 * after the block's content (the capture shows it as a marker; it is not content). */
function markBreakpoint(block: Json, ttl: RequestCache["ttl"], w: WireWriter): Json {
  // 5 minutes is the API's default: the field is sent only for the hour
  block["cache_control"] = ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  w.wire.push({ type: "cache_breakpoint", ttl });
  return block;
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

/** Parts that would cross as a blank text block. */
function isBlank(part: WirePart): boolean {
  switch (part.type) {
    case "text":
      return isBlankText(part.text);
    case "reasoning":
      return !nativeThinking(part) && isBlankText(part.text);
    case "image":
    case "tool_call":
    case "tool_result":
      return false;
    default:
      return assertNever(part, "wire part");
  }
}

/** Empty or whitespace only (the characters trim() removes), without copying the text. */
function isBlankText(s: string): boolean {
  return !/\S/.test(s);
}

function nativeThinking(part: ReasoningPart): boolean {
  return part.opaque?.kind === OPAQUE_THINKING_SIGNATURE || part.opaque?.kind === OPAQUE_REDACTED_THINKING;
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

// ---------------------------------------------------------------- stream events

const usageSchema = z.object({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

const contentBlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string().min(1) }),
  z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().nullish() }),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }),
]);
const KNOWN_BLOCKS = new Set(["text", "tool_use", "thinking", "redacted_thinking"]);

const deltaSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text_delta"), text: z.string() }),
  z.object({ type: z.literal("input_json_delta"), partial_json: z.string() }),
  z.object({ type: z.literal("thinking_delta"), thinking: z.string() }),
  z.object({ type: z.literal("signature_delta"), signature: z.string() }),
  z.object({ type: z.literal("citations_delta") }),
]);
const KNOWN_DELTAS = new Set(["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"]);

const index = z.number().int().nonnegative();

const eventSchemas = {
  message_start: z.object({
    type: z.literal("message_start"),
    message: z.object({ id: z.string().optional(), model: z.string().optional(), usage: usageSchema.nullish() }),
  }),
  content_block_start: z.object({
    type: z.literal("content_block_start"),
    index,
    content_block: z.object({ type: z.string() }).loose(),
  }),
  content_block_delta: z.object({
    type: z.literal("content_block_delta"),
    index,
    delta: z.object({ type: z.string() }).loose(),
  }),
  content_block_stop: z.object({ type: z.literal("content_block_stop"), index }),
  message_delta: z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullish() }),
    usage: usageSchema.nullish(),
  }),
  message_stop: z.object({ type: z.literal("message_stop") }),
  ping: z.object({ type: z.literal("ping") }),
  error: z.object({
    type: z.literal("error"),
    error: z.object({ type: z.string(), message: z.string() }),
  }),
} as const;
type EventType = keyof typeof eventSchemas;
/** for the test that holds the fast path to zod */
export const anthropicDeltaSchemas = { event: eventSchemas.content_block_delta, delta: deltaSchema };
type AnthropicEvent = z.infer<(typeof eventSchemas)[EventType]>;

function isEventType(t: string): t is EventType {
  return Object.prototype.hasOwnProperty.call(eventSchemas, t);
}

type DeltaParsed = z.infer<typeof deltaSchema>;
type HotDelta = Extract<DeltaParsed, { type: "text_delta" | "thinking_delta" | "input_json_delta" }>;

/** What z.object() takes: an object that is not an array. */
function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** zod's z.number().int().nonnegative(): a safe integer, not below 0. */
export function isIndex(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

/**
 * The hot events of a stream (a text, thinking or tool-input delta: nearly every event of an
 * answer), checked by hand: a zod parse per event would be the stream's largest single cost
 * (~190 ms of 0.36 s CPU for 20,000 words). Each condition is the zod schemas' own
 * (eventSchemas.content_block_delta, then deltaSchema), and the value is what they would give;
 * anything else, or anything that fails here, goes to zod, which also words the error.
 * test/unit/stream-fast-path.test.ts holds the two to the same answers on random and hostile events.
 */
export function fastAnthropicDelta(raw: unknown): { index: number; delta: HotDelta } | undefined {
  if (!isObj(raw) || raw["type"] !== "content_block_delta") return undefined;
  const index = raw["index"];
  const d = raw["delta"];
  if (!isIndex(index) || !isObj(d)) return undefined;
  switch (d["type"]) {
    case "text_delta": {
      const text = d["text"];
      return typeof text === "string" ? { index, delta: { type: "text_delta", text } } : undefined;
    }
    case "thinking_delta": {
      const thinking = d["thinking"];
      return typeof thinking === "string" ? { index, delta: { type: "thinking_delta", thinking } } : undefined;
    }
    case "input_json_delta": {
      const json = d["partial_json"];
      return typeof json === "string" ? { index, delta: { type: "input_json_delta", partial_json: json } } : undefined;
    }
    default:
      return undefined;
  }
}

type Acc =
  | { kind: "text"; text: string }
  | { kind: "tool"; ordinal: number; id: string; name: string; json: string; input?: unknown; done: boolean }
  | { kind: "thinking"; text: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "ignored" };

export function mapAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "end";
    case "tool_use":
      return "tool_use";
    case "max_tokens":
      return "max_tokens";
    case "refusal":
      return "refusal";
    case "model_context_window_exceeded":
      return "context_window";
    default:
      return "other"; // pause_turn and anything newer
  }
}

export class AnthropicStreamHandler implements FrameHandler {
  private readonly byIndex = new Map<number, Acc>();
  private readonly order: Acc[] = [];
  private tools = 0;
  private usage: Usage | undefined;
  private stopReason: StopReason = "other";
  private started = false;
  private readonly emit: (e: StreamEvent) => void;
  /** every piece of content passes through it: what one answer may bring is bounded */
  private readonly budget: AnswerBudget;

  constructor(
    ctx: AnswerContext,
    private readonly label = "Anthropic",
  ) {
    this.emit = ctx.emit;
    this.budget = ctx.budget;
  }

  get outputStarted(): boolean {
    return this.started;
  }

  toolInputOpen(): boolean {
    return this.order.some((acc) => acc.kind === "tool" && !acc.done);
  }

  onFrame(frame: SseFrame): "more" | "done" {
    let raw: unknown;
    try {
      raw = JSON.parse(frame.data);
    } catch {
      throw new StreamFault(
        `${this.label} sent a malformed stream event${frame.event ? ` (${frame.event})` : ""}: not valid JSON: ${clip(frame.data)}`,
        "stream",
      );
    }
    const type = typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
    if (typeof type !== "string") {
      throw new StreamFault(`${this.label} sent a malformed stream event: no "type" field: ${clip(frame.data)}`, "stream");
    }
    const hot = fastAnthropicDelta(raw);
    if (hot) {
      this.delta(hot.index, hot.delta, hot.delta);
      return "more";
    }
    if (!isEventType(type)) {
      this.emit({ type: "warning", message: `ignored an unknown Anthropic stream event "${type}"` });
      return "more";
    }
    const parsed = eventSchemas[type].safeParse(raw);
    if (!parsed.success) throw malformed(this.label, type, parsed.error);
    return this.handle(parsed.data);
  }

  private handle(ev: AnthropicEvent): "more" | "done" {
    switch (ev.type) {
      case "message_start":
        if (ev.message.usage) this.mergeUsage(ev.message.usage);
        return "more";
      case "content_block_start":
        this.start(ev.index, ev.content_block);
        return "more";
      case "content_block_delta":
        this.delta(ev.index, ev.delta);
        return "more";
      case "content_block_stop":
        this.stop(ev.index);
        return "more";
      case "message_delta":
        if (ev.delta.stop_reason) this.stopReason = mapAnthropicStopReason(ev.delta.stop_reason);
        if (ev.usage) this.mergeUsage(ev.usage);
        return "more";
      case "message_stop":
        return "done";
      case "ping":
        return "more";
      case "error": {
        const [kind, retryable] = errorKind(ev.error.type);
        throw new StreamFault(
          `${this.label} reported an error mid-stream: ${ev.error.message} (${ev.error.type})`,
          kind,
          retryable,
        );
      }
      default:
        return assertNever(ev, "Anthropic event");
    }
  }

  private start(i: number, rawBlock: { type: string }): void {
    if (this.byIndex.has(i)) throw new StreamFault(`${this.label} started content block ${i} twice`, "stream");
    // every block costs a little, ignored ones too: endless empty blocks reach the bound
    this.budget.block();
    this.budget.check();
    if (!KNOWN_BLOCKS.has(rawBlock.type)) {
      // server tools, citations and other newer kinds: nothing we can store yet
      this.emit({ type: "warning", message: `ignored an Anthropic content block of unknown type "${rawBlock.type}"` });
      this.byIndex.set(i, { kind: "ignored" });
      return;
    }
    const parsed = contentBlockSchema.safeParse(rawBlock);
    if (!parsed.success) throw malformed(this.label, "content_block_start", parsed.error);
    const b = parsed.data;
    let acc: Acc;
    switch (b.type) {
      case "text": {
        const text = this.budget.take(b.text);
        acc = { kind: "text", text };
        if (text) this.output({ type: "text_delta", text });
        break;
      }
      case "tool_use": {
        // a call whose id and name do not fit is not started at all
        this.budget.take(b.id + b.name);
        this.budget.check(`the tool call it was starting is not run`);
        // the empty `input: {}` of the start event is a placeholder: the deltas carry the input
        acc = { kind: "tool", ordinal: this.tools++, id: b.id, name: b.name, json: "", done: false };
        this.output({ type: "tool_call_start", index: acc.ordinal, id: b.id, name: b.name });
        break;
      }
      case "thinking": {
        const text = this.budget.take(b.thinking);
        const signature = this.budget.take(b.signature ?? "");
        // a signature cut short is worthless: the text is kept without one
        acc = { kind: "thinking", text, signature: this.budget.exceeded ? "" : signature };
        if (text) this.output({ type: "reasoning_delta", text });
        break;
      }
      case "redacted_thinking":
        // an opaque body cut short is worthless: not kept
        acc = { kind: "redacted", data: this.budget.take(b.data) };
        this.budget.check();
        this.started = true;
        break;
      default:
        return assertNever(b, "content block");
    }
    this.byIndex.set(i, acc);
    this.order.push(acc);
    this.budget.check();
  }

  /** `checked`: the delta already checked by fastAnthropicDelta, so zod is not run again */
  private delta(i: number, rawDelta: { type: string }, checked?: DeltaParsed): void {
    const acc = this.byIndex.get(i);
    if (!acc) throw new StreamFault(`${this.label} sent a delta for content block ${i}, which never started`, "stream");
    if (acc.kind === "ignored") return;
    if (!KNOWN_DELTAS.has(rawDelta.type)) {
      this.emit({ type: "warning", message: `ignored an Anthropic delta of unknown type "${rawDelta.type}"` });
      return;
    }
    let d = checked;
    if (!d) {
      const parsed = deltaSchema.safeParse(rawDelta);
      if (!parsed.success) throw malformed(this.label, "content_block_delta", parsed.error);
      d = parsed.data;
    }
    const dt = d.type;
    const mismatch = (): StreamFault =>
      new StreamFault(`${this.label} sent a ${dt} for a ${acc.kind} block (index ${i})`, "stream");
    switch (d.type) {
      case "text_delta": {
        if (acc.kind !== "text") throw mismatch();
        const text = this.budget.take(d.text);
        acc.text += text;
        this.output({ type: "text_delta", text });
        this.budget.check();
        return;
      }
      case "input_json_delta": {
        if (acc.kind !== "tool") throw mismatch();
        const json = this.budget.take(d.partial_json);
        acc.json += json;
        if (json) this.output({ type: "tool_call_delta", index: acc.ordinal, partialJson: json });
        // the call stays unfinished, and an unfinished call is neither kept nor run
        this.budget.check(`the input of the tool call "${acc.name}" was cut off there, and the call is not run`);
        return;
      }
      case "thinking_delta": {
        if (acc.kind !== "thinking") throw mismatch();
        const text = this.budget.take(d.thinking);
        acc.text += text;
        this.output({ type: "reasoning_delta", text });
        this.budget.check();
        return;
      }
      case "signature_delta":
        if (acc.kind !== "thinking") throw mismatch();
        {
          const signature = this.budget.take(d.signature);
          // a signature cut short is worthless: the text is kept without one
          acc.signature = this.budget.exceeded ? "" : acc.signature + signature;
        }
        this.budget.check();
        return;
      case "citations_delta":
        return; // citations annotate text we already have
      default:
        return assertNever(d, "Anthropic delta");
    }
  }

  private stop(i: number): void {
    const acc = this.byIndex.get(i);
    if (!acc) throw new StreamFault(`${this.label} stopped content block ${i}, which never started`, "stream");
    if (acc.kind !== "tool" || acc.done) return;
    acc.done = true;
    const { input, valid } = parseToolInput(acc.json);
    acc.input = input;
    if (!valid) {
      this.emit({
        type: "warning",
        message: `the input Anthropic streamed for tool "${acc.name}" is not valid JSON; kept as _raw`,
      });
    }
  }

  private output(e: StreamEvent): void {
    this.started = true;
    this.emit(e);
  }

  private mergeUsage(u: z.infer<typeof usageSchema>): void {
    // message_delta usage is cumulative and may carry only some fields: overwrite what it has
    const next: Usage = this.usage ?? { inputTokens: 0, outputTokens: 0 };
    if (u.input_tokens != null) next.inputTokens = tokenCount(u.input_tokens);
    if (u.output_tokens != null) next.outputTokens = tokenCount(u.output_tokens);
    if (u.cache_read_input_tokens != null) next.cacheReadTokens = tokenCount(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens != null) next.cacheWriteTokens = tokenCount(u.cache_creation_input_tokens);
    this.usage = next;
    this.emit({ type: "usage", usage: { ...next } });
  }

  result(): StreamResult {
    const r: StreamResult = { blocks: this.blocks(true), stopReason: this.stopReason };
    if (this.usage) r.usage = { ...this.usage };
    return r;
  }

  partial(): Block[] {
    return this.blocks(false);
  }

  private blocks(final: boolean): Block[] {
    const out: Block[] = [];
    for (const acc of this.order) {
      switch (acc.kind) {
        case "text":
          if (acc.text.length > 0) out.push({ type: "text", text: acc.text });
          break;
        case "tool":
          // a call whose input was cut off cannot be run or sent back: only whole calls are kept
          if (acc.done) out.push({ type: "tool_use", id: acc.id, name: acc.name, input: acc.input ?? {} });
          else if (final) out.push({ type: "tool_use", id: acc.id, name: acc.name, input: parseToolInput(acc.json).input });
          break;
        case "thinking":
          // without its signature a thinking block would be refused if sent back; keep the text
          if (acc.signature) {
            out.push({ type: "reasoning", text: acc.text, opaque: { kind: OPAQUE_THINKING_SIGNATURE, body: acc.signature } });
          } else if (acc.text.length > 0) {
            out.push({ type: "reasoning", text: acc.text });
          }
          break;
        case "redacted":
          out.push({ type: "reasoning", text: "", opaque: { kind: OPAQUE_REDACTED_THINKING, body: acc.data } });
          break;
        case "ignored":
          break;
        default:
          assertNever(acc, "accumulator");
      }
    }
    return out;
  }
}

function errorKind(type: string): [ProviderErrorKind, boolean] {
  switch (type) {
    case "overloaded_error":
      return ["overloaded", true];
    case "rate_limit_error":
      return ["rate_limit", true];
    case "api_error":
    case "timeout_error":
      return ["server", true];
    case "invalid_request_error":
      return ["bad_request", false];
    case "authentication_error":
    case "permission_error":
      return ["auth", false];
    default:
      return ["server", false];
  }
}

function malformed(label: string, type: string, error: z.ZodError): StreamFault {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") : "event";
  return new StreamFault(
    `${label} sent a malformed "${type}" stream event: ${where}: ${issue?.message ?? "invalid"}`,
    "stream",
  );
}

function clip(s: string): string {
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

// ---------------------------------------------------------------- provider

export interface AnthropicConfig {
  baseUrl?: string;
  apiKey: string;
  transport: TransportOptions;
}

export function createAnthropicProvider(cfg: AnthropicConfig): Provider {
  const base = (cfg.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const url = `${base}/v1/messages`;
  const apiKey = cfg.apiKey; // lives only in this closure
  const who: ProviderIdentity = {
    name: "anthropic",
    label: base === ANTHROPIC_DEFAULT_BASE_URL ? "Anthropic" : `the Anthropic-shaped server at ${hostOf(base)}`,
    keyHint: "ANTHROPIC_API_KEY",
  };
  return {
    name: "anthropic",
    stream(req: Request, opts: StreamOptions = {}): Promise<StreamResult> {
      return postStream({
        who,
        model: req.model,
        url,
        headers: {
          "x-api-key": apiKey,
          "anthropic-version": ANTHROPIC_VERSION,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify(encodeAnthropic(req).body),
        secret: apiKey,
        transport: cfg.transport,
        stream: opts,
        maxOutputTokens: req.maxOutputTokens,
        newHandler: (ctx) => new AnthropicStreamHandler(ctx, who.label),
      });
    },
  };
}
