// The provider-neutral request and the stream events out of every adapter.
// Secrets never appear here: keys live only inside a Provider instance.
import type { Block, ImageBlock, OpaqueBody, TextBlock } from "../record/types.js";

export type ProviderName = "anthropic" | "openai";
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
export interface ToolResultPart {
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

export interface Request {
  provider: ProviderName;
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
}

/** The request's messages in the order they are sent: the replayed history, then the live round. */
export function requestMessages(req: Pick<Request, "history" | "live">): WireMessage[] {
  return req.live && req.live.length > 0 ? [...req.history, ...req.live] : req.history;
}

/** Provider-reported usage. inputTokens excludes cached input (Anthropic reports it so; the
 * OpenAI adapter subtracts cached_tokens), so the whole prompt is input + cacheRead + cacheWrite. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export type StopReason = "end" | "tool_use" | "max_tokens" | "refusal" | "context_window" | "other";

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
  usage?: Usage;
}

export interface StreamOptions {
  signal?: AbortSignal;
  onEvent?: (e: StreamEvent) => void;
}

export interface Provider {
  readonly name: ProviderName;
  stream(req: Request, opts?: StreamOptions): Promise<StreamResult>;
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
