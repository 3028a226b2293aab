// The provider-neutral request and the stream events out of every adapter.
// Secrets never appear here: keys live only inside a Provider instance.
import type { Block, OpaqueBody } from "../record/types.js";

export type ProviderName = "anthropic" | "openai";
export type ReasoningLevel = "off" | "low" | "medium" | "high";

/** Content of a wire message. Replayed history uses only text and image parts; the
 * live round of a turn (tool calls not yet stored as prose) also uses the native parts. */
export type WirePart =
  | { type: "text"; text: string }
  | { type: "image"; mediaType: string; data: string; bytes: number; width?: number; height?: number }
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | { type: "tool_result"; callId: string; name: string; output: string; isError: boolean }
  | { type: "reasoning"; text: string; opaque?: OpaqueBody };

export interface WireMessage {
  role: "user" | "assistant";
  content: WirePart[];
}

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
  history: WireMessage[];
  tools: ToolSchema[];
  maxOutputTokens: number;
  reasoning: ReasoningLevel;
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
