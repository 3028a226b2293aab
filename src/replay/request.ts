// How a request is built: the prepared prior history as prose, then the turn in progress
// natively (call ids kept, signed reasoning kept), so the provider's pairing rules hold
// inside the turn and never across it. The steps themselves are in replay.ts. Pure: no I/O;
// redaction is the caller's door (src/session/turn/turn.ts), so what is captured is what is sent.
import { wellFormedDeep } from "../text/well-formed.js";
import type { Block, StoredMessage } from "../record/types.js";
import type {
  ContextItem,
  OpenAIApi,
  ProviderName,
  ReasoningLevel,
  Request,
  RequestCache,
  ToolSchema,
  WireMessage,
} from "../provider/types.js";
import { OPAQUE_BYTES_PER_TOKEN } from "../tokens/count.js";
import { BLIND, boundOpaque, leadWithUser, liveMessage, replayMessages, targetForRequest, type ImageTarget } from "./replay.js";

/** Everything of a request that is not its messages. */
export interface RequestSettings {
  provider: ProviderName;
  model: string;
  system: string;
  context: ContextItem[];
  tools: ToolSchema[];
  maxOutputTokens: number;
  reasoning: ReasoningLevel;
  /** whether the model can see images, and what its provider takes (imageTarget): an image
   * the target cannot take crosses as a marker saying why */
  vision: ImageTarget;
  /** OpenAI's wire shape (absent: Chat Completions) */
  api?: OpenAIApi;
  /** prompt caching hints (absent: none) */
  cache?: RequestCache;
  /** the model's context window in tokens, when known: it bounds the live round's opaque bodies */
  contextWindow?: number;
}

/** The most bytes of opaque bodies one request carries, whatever the window: a provider
 * refuses bodies past a few tens of MB (Anthropic: 32 MB), and each request is held whole in
 * memory while it is sent. Real signatures and encrypted reasoning items are a few kB a round. */
export const OPAQUE_MAX_BYTES = 2 * 1024 * 1024;
/** ...and at most this share of the context window, counted as the estimate counts them
 * (tokens/count.ts, opaqueTokens): the live round's other content needs the rest. */
export const OPAQUE_WINDOW_SHARE = 0.25;

/** The bytes of opaque bodies a request may carry for a model with this window. */
export function opaqueBudget(contextWindow?: number): number {
  if (contextWindow === undefined || !Number.isFinite(contextWindow) || contextWindow <= 0) return OPAQUE_MAX_BYTES;
  return Math.min(OPAQUE_MAX_BYTES, Math.floor(contextWindow * OPAQUE_WINDOW_SHARE) * OPAQUE_BYTES_PER_TOKEN);
}

type Replayable = { role: StoredMessage["role"]; blocks: Block[] };

/**
 * The request for one model call of a turn. `prior` is the prepared history before the
 * turn, replayed as prose; `live` is the turn's stored messages so far (its prompt, then each
 * answer and its tool results), complete ones natively, an interrupted one as prose.
 */
export function turnRequest(
  prior: ReadonlyArray<Replayable>,
  live: ReadonlyArray<Replayable & { status: StoredMessage["status"] }>,
  settings: RequestSettings,
): Request {
  const opts = { vision: targetForRequest(settings.vision, [...prior, ...live]) };
  const liveWire = boundOpaque(
    live.map((m) => liveMessage(m, opts)),
    opaqueBudget(settings.contextWindow),
  );
  // a lone surrogate stored before the doors made text well-formed would be refused with
  // every request; copies only what changes
  const history = wellFormedDeep(leadWithUser(replayMessages(prior, opts), liveWire));
  return {
    provider: settings.provider,
    model: settings.model,
    system: settings.system,
    context: settings.context,
    history,
    live: wellFormedDeep(liveWire),
    tools: settings.tools,
    maxOutputTokens: settings.maxOutputTokens,
    reasoning: settings.reasoning,
    ...(settings.api ? { api: settings.api } : {}),
    ...(settings.cache ? { cache: withTurnStart(settings.cache, prior, history.length - prior.length) } : {}),
  };
}

/** The cache hints with where the previous turn began in the history: its prompt, the last
 * user message of `prior` that holds no tool results (replay keeps one wire message per stored
 * message; `shift` is the leading marker leadWithUser may add). */
function withTurnStart(cache: RequestCache, prior: ReadonlyArray<Replayable>, shift: number): RequestCache {
  const { previousTurnStart: _given, ...hints } = cache;
  for (let i = prior.length - 1; i >= 0; i--) {
    const m = prior[i]!;
    if (m.role === "user" && !m.blocks.some((b) => b.type === "tool_result")) return { ...hints, previousTurnStart: i + shift };
  }
  return hints;
}

/** The most a summary may take; a handover note is asked to stay under ~1,500 words. */
const SUMMARY_MAX_OUTPUT_TOKENS = 8192;

/**
 * The request that asks the model for a summary of `prefix`: the prefix as prose (images
 * blinded: the note is words), then the prompt. No project context, no tools, no reasoning.
 */
export function summaryRequest(
  prefix: ReadonlyArray<Replayable>,
  parts: { system: string; prompt: string },
  settings: { provider: ProviderName; model: string; maxOutputTokens: number; api?: OpenAIApi },
): Request {
  const live: WireMessage[] = [{ role: "user", content: [{ type: "text", text: parts.prompt }] }];
  return {
    provider: settings.provider,
    model: settings.model,
    system: parts.system,
    context: [],
    history: leadWithUser(replayMessages(prefix, { vision: BLIND }), live),
    live,
    tools: [],
    maxOutputTokens: Math.min(settings.maxOutputTokens, SUMMARY_MAX_OUTPUT_TOKENS),
    reasoning: "off",
    // the same API as the turn's requests: the summary is captured and sent like them
    ...(settings.api ? { api: settings.api } : {}),
  };
}
