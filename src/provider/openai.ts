// OpenAI Chat Completions and compatible servers: the request body (pure) and the
// streaming parser (docs/providers.md, "OpenAI Chat Completions" and "Errors and retries").
import { z } from "zod";
import { assertNever, type Block } from "../record/types.js";
import { supportsReasoning, wantsMaxCompletionTokens } from "./catalog.js";
import { encodeOpenAITool, toolResultText } from "./encode-tools.js";
import { parseToolInput, toolInputJson } from "./tool-input.js";
import {
  postStream,
  type AnswerContext,
  type FrameHandler,
  type TransportOptions,
} from "./http.js";
import type { AnswerBudget } from "./budget.js";
import { RequestRefused, type ErrorDetail } from "./error-body.js";
import { StreamFault } from "./failures.js";
import { hostOf } from "./url.js";
import type { SseFrame } from "./sse.js";
import type {
  Provider,
  ProviderIdentity,
  ProviderErrorKind,
  Request,
  StopReason,
  StreamEvent,
  StreamOptions,
  StreamResult,
  Usage,
  UserPart,
  AssistantPart,
  EncodedRequest,
  ProsePart,
  ToolCallPart,
  WireMessage,
  WireItemStart,
} from "./types.js";
import { RefusalMemory, namesRefused } from "./refusals.js";
import { contextItem, encodeOnce, HISTORY_ITEM, SYSTEM_ITEM, TOOL_ITEM, WireWriter } from "./encoded.js";
import { requestMessages } from "./types.js";
import { isOpenAIHosted } from "./keys.js";
import { splitPrompt, tokenCount } from "./usage.js";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

type Json = Record<string, unknown>;

// ---------------------------------------------------------------- request body

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
export interface ChatWire {
  /** OpenAI's own endpoint: it gets no reasoning_content back */
  hosted: boolean;
  /** optional fields the server refused for this model this session: not sent */
  refused: ReadonlySet<ChatOptionalField>;
}

const COMPATIBLE: ChatWire = Object.freeze({ hosted: false, refused: new Set<ChatOptionalField>() });
const buildCompatible = (req: Request): EncodedRequest => build(req, COMPATIBLE);

/** The body and its wire items (docs/providers.md, "OpenAI Chat Completions"), encoded once for the
 * request's capture and its sending. Without `wire`: for a compatible server that has refused
 * nothing; a provider encodes with its own (ChatSession). */
export function encodeOpenAI(req: Request, wire?: ChatWire): EncodedRequest {
  return wire === undefined ? encodeOnce(req, buildCompatible) : build(req, wire);
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

function build(req: Request, wire: ChatWire): EncodedRequest {
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

// ---------------------------------------------------------------- stream chunks

const usageSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
});

const toolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const choiceSchema = z.object({
  index: z.number().int().nullish(),
  delta: z
    .object({
      content: z.string().nullish(),
      refusal: z.string().nullish(),
      // servers disagree on the name and a few send other shapes here: strings only
      reasoning_content: z.unknown().optional(),
      reasoning: z.unknown().optional(),
      reasoning_text: z.unknown().optional(),
      tool_calls: z.array(toolCallDeltaSchema).nullish(),
    })
    .nullish(),
  finish_reason: z.string().nullish(),
  usage: usageSchema.nullish(),
});

const chunkSchema = z.object({
  choices: z.array(choiceSchema).nullish(),
  usage: usageSchema.nullish(),
});

const errorChunkSchema = z.object({
  error: z.object({
    message: z.string().nullish(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});

/** for the test that holds the fast path to zod */
export const chatChunkSchema = chunkSchema;
type Chunk = z.infer<typeof chunkSchema>;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A copy of `o` with those of `keys` it has: what z.object() gives for fields it accepted. */
function pick<T>(o: Record<string, unknown>, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in o) out[k] = o[k];
  return out as T;
}

const CHUNK_KEYS = ["choices", "usage"] as const;
const CHOICE_KEYS = ["index", "delta", "finish_reason", "usage"] as const;
const DELTA_KEYS = ["content", "refusal", "reasoning_content", "reasoning", "reasoning_text", "tool_calls"] as const;

/**
 * The hot chunk (one choice whose delta carries text, and no usage or tool calls: nearly
 * every chunk of an answer) checked by hand instead of a zod parse per chunk (the stream's
 * largest single cost). Each condition is chunkSchema's own for that shape and the value is
 * what it would give (declared fields only); anything else, or anything that fails here, goes
 * to zod, which also words the error. test/unit/stream-fast-path.test.ts holds the two to the
 * same answers on random and hostile chunks.
 */
export function fastChatChunk(raw: unknown): Chunk | undefined {
  if (!isObj(raw) || raw["usage"] != null) return undefined;
  const choices = raw["choices"];
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const c: unknown = choices[0];
  if (!isObj(c) || c["usage"] != null) return undefined;
  const index = c["index"];
  if (index != null && !Number.isSafeInteger(index)) return undefined;
  const finish = c["finish_reason"];
  if (finish != null && typeof finish !== "string") return undefined;
  const d = c["delta"];
  // reasoning_* are z.unknown(): any value passes, as in the schema
  if (!isObj(d) || typeof d["content"] !== "string" || d["refusal"] != null || d["tool_calls"] != null) return undefined;
  const choice = pick<Record<string, unknown>>(c, CHOICE_KEYS);
  choice["delta"] = pick(d, DELTA_KEYS);
  const chunk = pick<Record<string, unknown>>(raw, CHUNK_KEYS);
  chunk["choices"] = [choice];
  return chunk as Chunk;
}

interface Call {
  ordinal: number;
  /** the server's index for this call, when it sends one */
  index?: number;
  id: string;
  name: string;
  args: string;
}

type Segment = { kind: "text"; text: string } | { kind: "reasoning"; text: string } | { kind: "call"; call: Call };

export function mapOpenAIFinishReason(reason: string): StopReason {
  switch (reason) {
    case "stop":
      return "end";
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    case "model_context_window_exceeded":
      return "context_window";
    default:
      return "other";
  }
}

export class OpenAIStreamHandler implements FrameHandler {
  private readonly segments: Segment[] = [];
  private readonly calls: Call[] = [];
  private usage: Usage | undefined;
  private finish: string | undefined;
  private started = false;
  private finals: Block[] | undefined;
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
    const data = frame.data.trim();
    if (data === "[DONE]") return "done";
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      throw new StreamFault(`${this.label} sent a malformed stream chunk: not valid JSON: ${clip(data)}`, "stream");
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new StreamFault(`${this.label} sent a malformed stream chunk: not an object: ${clip(data)}`, "stream");
    }
    const obj = raw as Record<string, unknown>;
    if ("error" in obj && obj["error"] != null) {
      const parsed = errorChunkSchema.safeParse(obj);
      const e = parsed.success ? parsed.data.error : { message: clip(JSON.stringify(obj["error"])) };
      const code = e.code != null ? String(e.code) : undefined;
      const [kind, retryable] = errorKind(e.type ?? undefined, code);
      throw new StreamFault(
        `${this.label} reported an error mid-stream: ${e.message || "no message"}${code ? ` (${code})` : ""}`,
        kind,
        retryable,
      );
    }
    const named = frame.event !== undefined && frame.event !== "message";
    if (named || !("choices" in obj || "usage" in obj)) {
      const what = named ? `event "${frame.event}"` : `chunk ${clip(data, 60)}`;
      this.emit({ type: "warning", message: `ignored an unknown ${this.label} stream ${what}` });
      return "more";
    }
    const fast = fastChatChunk(obj);
    const parsed = fast ? { success: true as const, data: fast } : chunkSchema.safeParse(obj);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? issue.path.join(".") : "chunk";
      throw new StreamFault(
        `${this.label} sent a malformed stream chunk: ${where}: ${issue?.message ?? "invalid"}`,
        "stream",
      );
    }
    const chunk = parsed.data;
    for (const choice of chunk.choices ?? []) {
      // n > 1 is never requested; another index would be a second answer we did not ask for
      if (choice.index != null && choice.index !== 0) continue;
      const d = choice.delta;
      if (d) {
        const reasoning = firstText(d.reasoning_content, d.reasoning, d.reasoning_text);
        if (reasoning) this.append("reasoning", reasoning);
        if (d.content) this.append("text", d.content);
        if (d.refusal) this.append("text", d.refusal);
        for (const tc of d.tool_calls ?? []) this.toolDelta(tc);
      }
      if (choice.finish_reason) this.finish = choice.finish_reason;
      if (choice.usage) this.setUsage(choice.usage);
    }
    if (chunk.usage) this.setUsage(chunk.usage);
    return "more";
  }

  /** Some servers stop after the finish chunk without "[DONE]": that answer is whole. */
  completeWithoutFinal(): boolean {
    return this.finish !== undefined;
  }

  private append(kind: "text" | "reasoning", whole: string): void {
    const last = this.segments[this.segments.length - 1];
    const fresh = !last || last.kind !== kind;
    if (fresh) this.budget.block();
    const text = this.budget.take(whole);
    if (text) {
      if (fresh) this.segments.push({ kind, text });
      else last.text += text;
      this.started = true;
      this.emit(kind === "text" ? { type: "text_delta", text } : { type: "reasoning_delta", text });
    }
    this.budget.check();
  }

  private toolDelta(tc: z.infer<typeof toolCallDeltaSchema>): void {
    const id = tc.id ?? undefined;
    let call: Call | undefined;
    if (tc.index != null) {
      call = this.calls.find((c) => c.index === tc.index);
      // a server that reuses one index for parallel calls shows it by a new id
      if (call && id && call.id && call.id !== id) call = undefined;
    } else if (id) {
      call = this.calls.find((c) => c.id === id);
    } else {
      call = this.calls[this.calls.length - 1];
    }
    const name = tc.function?.name ?? undefined;
    const args = tc.function?.arguments ?? "";
    if (!call) {
      // a call whose id and name do not fit is not started at all
      this.budget.block();
      this.budget.take((id ?? "") + (name ?? ""));
      this.budget.check("the tool call it was starting is not run");
      call = { ordinal: this.calls.length, id: id ?? "", name: name ?? "", args: "" };
      if (tc.index != null) call.index = tc.index;
      this.calls.push(call);
      this.segments.push({ kind: "call", call });
      this.started = true;
      if (!call.id) call.id = `call_albedo_${call.ordinal}`;
      this.emit({ type: "tool_call_start", index: call.ordinal, id: call.id, name: call.name });
    } else {
      // repeated ids and names on every fragment are common: only fill what is missing
      if (id && call.id.startsWith("call_albedo_")) call.id = this.budget.take(id);
      if (name && !call.name) call.name = this.budget.take(name);
      this.budget.check("the tool call it was sending is not run");
    }
    const piece = this.budget.take(args);
    if (piece) {
      call.args += piece;
      this.emit({ type: "tool_call_delta", index: call.ordinal, partialJson: piece });
    }
    // an interrupted answer's calls are never kept, so the cut-off call is not run
    this.budget.check(`the input of the tool call "${call.name || "(unnamed)"}" was cut off there, and the call is not run`);
  }

  private setUsage(u: z.infer<typeof usageSchema>): void {
    // prompt_tokens includes cached tokens; Usage keeps them apart, as Anthropic reports them
    const reported = u.prompt_tokens_details?.cached_tokens;
    const { uncached, cached } = splitPrompt(u.prompt_tokens, reported ?? 0);
    const usage: Usage = { inputTokens: uncached, outputTokens: tokenCount(u.completion_tokens) };
    // a reported 0 is a miss the status line shows ("cache 0%"); no field, no figure
    if (typeof reported === "number") usage.cacheReadTokens = cached;
    this.usage = usage;
    this.emit({ type: "usage", usage: { ...usage } });
  }

  result(): StreamResult {
    const blocks = this.blocks(true);
    let stopReason: StopReason = this.finish ? mapOpenAIFinishReason(this.finish) : "other";
    // some servers say "stop" even when the answer is tool calls
    if (stopReason === "end" && blocks.some((b) => b.type === "tool_use")) stopReason = "tool_use";
    const r: StreamResult = { blocks, stopReason };
    if (this.usage) r.usage = { ...this.usage };
    return r;
  }

  partial(): Block[] {
    return this.blocks(false);
  }

  private blocks(final: boolean): Block[] {
    if (final && this.finals) return this.finals;
    const out: Block[] = [];
    for (const s of this.segments) {
      switch (s.kind) {
        case "text":
          out.push({ type: "text", text: s.text });
          break;
        case "reasoning":
          out.push({ type: "reasoning", text: s.text });
          break;
        case "call": {
          // the arguments of an interrupted answer are probably cut: such calls are not kept
          if (!final) break;
          const c = s.call;
          if (!c.name) {
            this.emit({ type: "warning", message: `dropped a tool call from ${this.label} that had no name` });
            break;
          }
          out.push({ type: "tool_use", id: c.id, name: c.name, input: this.parseArgs(c) });
          break;
        }
        default:
          assertNever(s, "segment");
      }
    }
    if (final) this.finals = out;
    return out;
  }

  private parseArgs(c: Call): unknown {
    const { input, valid } = parseToolInput(c.args);
    if (!valid) {
      this.emit({
        type: "warning",
        message: `the arguments ${this.label} sent for tool "${c.name}" are not valid JSON; kept as _raw`,
      });
    }
    return input;
  }
}

function firstText(...xs: unknown[]): string | undefined {
  for (const x of xs) if (typeof x === "string" && x.length > 0) return x;
  return undefined;
}

function errorKind(type: string | undefined, code: string | undefined): [ProviderErrorKind, boolean] {
  const t = `${type ?? ""} ${code ?? ""}`;
  if (/context_length_exceeded/.test(t)) return ["context_length", false];
  if (/rate_limit|429/.test(t)) return ["rate_limit", true];
  if (/overloaded|529|503/.test(t)) return ["overloaded", true];
  if (/server_error|internal|500|502/.test(t)) return ["server", true];
  if (/invalid_request/.test(t)) return ["bad_request", false];
  return ["server", false];
}

function clip(s: string, n = 120): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

// ---------------------------------------------------------------- refused fields

/**
 * What one provider instance (a session's) learnt of its server: the optional fields it
 * refused, per model (a server may take reasoning_effort for one model and refuse it for
 * another). Its encode() is the one the request is captured and sent with, so both leave out
 * the same fields; the builder stays the same object while nothing new is refused, so the
 * capture's encoding is the one sent (encodeOnce).
 */
export class ChatSession extends RefusalMemory<ChatOptionalField> {
  constructor(readonly hosted: boolean) {
    super((refused) => (req) => build(req, { hosted, refused }));
  }
}

/**
 * The optional fields a refused request names as not taken, of those it carried (the
 * wordings are in refusals.ts). Empty: the refusal is about something else, and stands.
 */
export function refusedFields(detail: ErrorDetail & { text?: string }, sent: readonly ChatOptionalField[]): ChatOptionalField[] {
  const named = namesRefused(detail);
  return sent.filter((f) => named.has(f));
}

/** The warning for fields dropped after a refusal (and the output limit's other field, when one was). */
function droppedWarning(label: string, model: string, fields: readonly ChatOptionalField[], now: ReadonlySet<ChatOptionalField>, e: RequestRefused): string {
  const list = fields.map((f) => `"${f}"`).join(", ");
  const limit = fields.some((f) => f === "max_tokens" || f === "max_completion_tokens") ? outputLimitField(model, now) : "none";
  const instead = limit && limit !== "none" && !fields.includes(limit) ? `; it gets "${limit}" instead` : "";
  return (
    `${label} refused ${list} (HTTP ${e.status ?? 400}: ${clip(e.detail.message, 200)}); ` +
    `sent the request again without ${fields.length === 1 ? "it" : "them"}${instead}, and ${model} will not get ${fields.length === 1 ? "it" : "them"} again this session`
  );
}

// ---------------------------------------------------------------- provider

export interface OpenAIConfig {
  baseUrl?: string;
  /** optional: local servers need none */
  apiKey?: string;
  transport: TransportOptions;
  /** what this session learnt of the server; a fresh one when absent */
  session?: ChatSession;
}

// in keys.ts, which the controller reads before the adapters load
export { isOpenAIHosted };

export function createOpenAIProvider(cfg: OpenAIConfig): Provider {
  const base = (cfg.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const url = `${base}/chat/completions`;
  const apiKey = cfg.apiKey; // lives only in this closure
  const session = cfg.session ?? new ChatSession(isOpenAIHosted(base));
  const who: ProviderIdentity = {
    name: "openai",
    label: isOpenAIHosted(base) ? "OpenAI" : `the server at ${hostOf(base)}`,
    keyHint: "OPENAI_API_KEY",
  };
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
      newHandler: (ctx: AnswerContext) => new OpenAIStreamHandler(ctx, who.label),
    };
    return postStream(apiKey ? { ...args, secret: apiKey } : args);
  };
  return {
    name: "openai",
    encode: (req: Request) => session.encode(req),
    async stream(req: Request, opts: StreamOptions = {}): Promise<StreamResult> {
      // A refusal that names optional fields the request carried is answered by sending it
      // again without them: once per field (each try drops at least one more, so this ends),
      // remembered for the session, said in a warning. Anything else stands.
      const dropped = new Set<ChatOptionalField>();
      let enc = session.encode(req);
      for (;;) {
        try {
          return await post(req, enc, opts);
        } catch (e) {
          if (!(e instanceof RequestRefused) || opts.signal?.aborted) throw e;
          const fields = refusedFields(e.detail, optionalFieldsOf(enc.body)).filter((f) => !dropped.has(f));
          if (fields.length === 0) throw e;
          for (const f of fields) dropped.add(f);
          session.refuse(req.model, fields);
          opts.onEvent?.({ type: "warning", message: droppedWarning(who.label, req.model, fields, session.refused(req.model), e) });
          enc = session.encodeAgain(req);
          // the capture is recorded again from the encoding now sent: the inspector still equals the wire
          await opts.onResend?.(enc);
        }
      }
    },
  };
}
