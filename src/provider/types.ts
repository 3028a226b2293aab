// The provider-neutral request and the stream events out of every adapter.
// Secrets never appear here: keys live only inside a Provider instance.
import type { Block, ImageBlock, OpaqueBody, TextBlock } from "../record/types.js";

export type ProviderName = "anthropic" | "openai";

/** Who a request goes to, as the person reads it in a sentence. */
export interface ProviderIdentity {
  name: ProviderName;
  /** "Anthropic", "OpenAI", or "the server at localhost:8080" */
  label: string;
  /** what to set when the key is refused */
  keyHint: string;
}
export type ReasoningLevel = "off" | "low" | "medium" | "high";

// Content of a wire message, part by part. Replayed history is prose: it can hold only
// text and image parts, so no tool protocol (call ids, pairing rules, signed reasoning) can
// cross from one turn into another; the type refuses anything else. Only the live round (the
// turn in progress) uses the native parts, each in the role that can carry it.
// Text and images cross as they are stored.
export type TextPart = TextBlock;
export type ImagePart = ImageBlock;
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  input: unknown;
}
interface ToolResultPart {
  type: "tool_result";
  callId: string;
  name: string;
  output: string;
  isError: boolean;
}
export interface ReasoningPart {
  type: "reasoning";
  text: string;
  opaque?: OpaqueBody;
}

export type ProsePart = TextPart | ImagePart;
/** What a user message of the live round may hold: tool results answer the calls before it. */
export type UserPart = ProsePart | ToolResultPart;
/** What an assistant message of the live round may hold. */
export type AssistantPart = ProsePart | ToolCallPart | ReasoningPart;
export type WirePart = ProsePart | ToolCallPart | ToolResultPart | ReasoningPart;

/** A replayed message: prose only. */
export interface ProseMessage {
  role: "user" | "assistant";
  content: ProsePart[];
}

/** Any message on the wire; a live-round message holds native parts in their own role. */
export type WireMessage = { role: "user"; content: UserPart[] } | { role: "assistant"; content: AssistantPart[] };

/** One extension context item (AGENTS.md, workspace facts): sent as its own system text. */
export interface ContextItem {
  source: string;
  text: string;
}

export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the input object */
  inputSchema: Record<string, unknown>;
}

/** OpenAI's two wire shapes: Chat Completions (compatible servers) and the Responses API
 * (OpenAI's own endpoint). Anthropic has one. */
export type OpenAIApi = "chat" | "responses";

/** Prompt-caching hints for the adapter: `key` names the conversation (OpenAI's
 * prompt_cache_key: the session id), `ttl` the cache lifetime Anthropic is asked for. */
export interface RequestCache {
  key: string;
  ttl: "5m" | "1h";
  /** index into `history` of the previous turn's first message (its prompt), whose prefix
   * that turn's first request cached; set by turnRequest (Anthropic marks it when the API's
   * look-back would not reach it) */
  previousTurnStart?: number;
}

export interface Request {
  provider: ProviderName;
  /** which OpenAI API the request is encoded for; absent means Chat Completions */
  api?: OpenAIApi;
  model: string;
  system: string;
  context: ContextItem[];
  /** the stored history before this turn, replayed as prose */
  history: ProseMessage[];
  /** the turn in progress (its prompt, then each answer and its tool results), natively;
   * absent for a request that is all replay */
  live?: WireMessage[];
  tools: ToolSchema[];
  maxOutputTokens: number;
  reasoning: ReasoningLevel;
  /** prompt caching hints; absent: the adapter sends none */
  cache?: RequestCache;
}

/** The request's messages in the order they are sent: the replayed history, then the live round. */
export function requestMessages(req: Pick<Request, "history" | "live">): WireMessage[] {
  return req.live && req.live.length > 0 ? [...req.history, ...req.live] : req.history;
}

// ---------------------------------------------------------------- the encoded request
// An adapter's encoding of a Request: the JSON body it sends and, written in the same pass
// from the same values, that body's content as the wire has it: a stream of wire items, each
// opened by a header naming the inspector section it belongs to and its role, then its
// content blocks in body order, each opened by BLOCK and made of pieces. The provider sends
// `body`; the inspector reads `wire` (src/context/capture.ts); neither walks the Request on
// its own, so they cannot disagree. (A flat stream of shared headers rather than nested
// arrays: requests replay whole histories, and this allocates almost nothing per message.)

/** Which inspector section a wire item belongs to; `index` is the item's place in Request.context. */
export type WireSection = { kind: "system" } | { kind: "context"; index: number } | { kind: "history" } | { kind: "tools" };

/** Opens a wire item: a system text, a message (OpenAI's tool messages each count), a tool definition. */
export interface WireItemStart {
  type: "item";
  section: WireSection;
  /** the wire's role: "system", "user", "assistant", "tool" (a tool message or definition) */
  role: string;
}

/** Opens the next content block of the current item (a text block, a tool call, a field). */
export interface WireBlockStart {
  type: "block";
}

/** One piece of a content block, in body order. */
export type WireContent =
  /** content as sent, exactly (a text, a tool input's JSON, a tool result's text, reasoning) */
  | { type: "text"; text: string }
  /** names a native part or field ("tool_use id=… name=… input="): shown, not content */
  | { type: "label"; text: string }
  /** an image's base64 body as sent, with what is known of it */
  | { type: "image"; data: string; mediaType: string; bytes: number; width?: number; height?: number }
  /** an opaque provider body as sent (a thinking signature, redacted thinking) */
  | { type: "opaque"; kind: string; body: string }
  /** a tool definition: `json` is its JSON as it appears in the body, `value` the object */
  | { type: "schema"; json: string; value: unknown }
  /** a prompt-cache breakpoint on the block just written (Anthropic's cache_control): it is in
   * the body but is not content, so it adds no content bytes; the pages show it as a marker */
  | { type: "cache_breakpoint"; ttl: RequestCache["ttl"] };

export type WireEvent = WireItemStart | WireBlockStart | WireContent;

export interface EncodedRequest {
  provider: ProviderName;
  /** the JSON body, as sent */
  body: Record<string, unknown>;
  /** the body's content as wire items, in body order */
  wire: WireEvent[];
}

/** Provider-reported usage. inputTokens excludes cached input (Anthropic reports it so; the
 * OpenAI adapter subtracts cached_tokens), so the whole prompt is input + cacheRead + cacheWrite. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * Why an answer ended, one union for the three shapes (stop.ts says each in words): whole
 * ("end", "tool_use"), or cut: the output bound, a refusal (Anthropic), a content filter
 * (OpenAI), the window full, a paused turn (Anthropic's server tools), or the Responses API's
 * "incomplete" with a reason of its own. "other": a reason no shape names (nothing is said).
 */
export type StopReason =
  | "end"
  | "tool_use"
  | "max_tokens"
  | "refusal"
  | "content_filter"
  | "context_window"
  | "pause_turn"
  | "incomplete"
  | "other";

export type StreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; partialJson: string }
  | { type: "usage"; usage: Usage }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "warning"; message: string };

export interface StreamResult {
  /** assistant blocks in the order they arrived: reasoning, text, tool_use */
  blocks: Block[];
  stopReason: StopReason;
  /** the provider's own word for the stop, when it says more than the union does */
  stopSaid?: string;
  usage?: Usage;
}

export interface StreamOptions {
  signal?: AbortSignal;
  onEvent?: (e: StreamEvent) => void;
  /** awaited before the request is sent again changed (a field the server refused, left
   * out), with the encoding that goes: the turn records its capture again from it */
  onResend?: (enc: EncodedRequest) => Promise<void>;
}

export interface Provider {
  readonly name: ProviderName;
  /** who answers, as sentences name it ("Anthropic", "the server at localhost:8080") */
  readonly label?: string;
  stream(req: Request, opts?: StreamOptions): Promise<StreamResult>;
  /** The encoding this provider sends for `req` now (its endpoint's rules, the fields its
   * server refused this session): the one the turn captures. Absent: encodeRequest(req). */
  encode?(req: Request): EncodedRequest;
}

export type ProviderErrorKind =
  | "auth" // 401/403: the key was refused
  | "missing_key"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "context_length"
  | "bad_request"
  | "network"
  | "stream" // malformed or truncated stream
  | "too_large" // the answer passed the bound on what one answer may bring
  | "timeout"
  | "aborted";

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    readonly opts: {
      status?: number;
      /** what arrived before the failure: kept and stored as interrupted */
      partial?: Block[];
      /** true when any output had streamed before the failure */
      outputStarted?: boolean;
    } = {},
  ) {
    super(message);
    this.name = "ProviderError";
  }
  get status(): number | undefined {
    return this.opts.status;
  }
  get partial(): Block[] {
    return this.opts.partial ?? [];
  }
}
