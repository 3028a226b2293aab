// What one turn works with: the session's record and store, the provider, the request's
// settings, the tools, and where it reports. The turn reads these and writes only the
// record (through record.ts) and its events; what it learns (usage, what compaction did)
// it returns in its outcome.
import type { StoredMessage } from "../../record/types.js";
import type { ContextItem, EncodedRequest, Provider, Request, ProviderName, ReasoningLevel, RequestCache, Usage } from "../../provider/types.js";
import type { HistoryStore } from "../store/types.js";
import type { EventHub } from "./events.js";
import type { ToolContext, ToolDef } from "../../tools/types.js";
import type { PermissionMemory } from "../../tools/run.js";
import type { PrepareResult } from "../../compaction/prepare.js";
import type { TokenMethod } from "../../tokens/count.js";
import type { CompactionStrategy } from "../../compaction/types.js";
import type { Redactor } from "../../config/secrets.js";
import type { OpenAIApi } from "../../provider/types.js";
import type { ImageTarget } from "../../replay/replay.js";
import type { SteerInbox } from "./steer-inbox.js";

/** The hooks around each tool call of a turn (src/extensions/hooks.ts, wired by the controller). */
export interface TurnHooks {
  /** before the call, before its permission check: `block` answers the call with the reason
   * instead of running it; `stop` ends the turn once this answer's results are stored */
  before(call: { name: string; input: unknown }, signal: AbortSignal): Promise<{ block?: string; stop?: string; context: string[]; updatedInput?: Record<string, unknown> }>;
  /** after the call: `context` follows the output in the result the model sees */
  after(call: { name: string; input: unknown; output: string; isError: boolean }, signal: AbortSignal): Promise<{ stop?: string; context: string[] }>;
}

export interface TurnEnv {
  store: HistoryStore;
  sessionId: string;
  /** the loaded record of the session; the turn appends what it stores */
  history: StoredMessage[];
  provider: Provider;
  providerName: ProviderName;
  model: string;
  /** whether the model sees images, and what its provider takes (per image: replay/replay.ts) */
  vision: ImageTarget;
  contextWindow?: number;
  maxOutputTokens: number;
  reasoning: ReasoningLevel;
  /** prompt caching: the session's key and the TTL asked for (absent: none) */
  cache?: RequestCache;
  /** OpenAI's wire shape for this run's requests (absent: Chat Completions) */
  api?: OpenAIApi;
  system: string;
  context: ContextItem[];
  tools: ToolDef[];
  toolCtx: Omit<ToolContext, "signal">;
  /** cuts the configured keys out of everything stored or sent (tool output, prompts,
   * answers, summaries, requests): a project's .env or a config file may hold them, and
   * what is stored is sent with every later request */
  redact?: Redactor;
  memory: PermissionMemory;
  compaction: { strategy: CompactionStrategy; threshold: number; keepRounds: number; step?: number };
  tokenMethod: TokenMethod;
  events: EventHub;
  /** told of each request the inspector captures (the one the pane shows, for exact counts) */
  onCaptured?: (c: Captured) => void;
  /** usage the provider reported for the response before this turn (the first capture shows it) */
  previousUsage?: Usage;
  /** checkpoint interval for streamed text */
  checkpointMs?: number;
  maxIterations?: number;
  /** PreToolUse and PostToolUse hooks (absent: none) */
  hooks?: TurnHooks;
  /** set by a hook that ends the turn: why; the turn stops after the results are stored */
  hookStop?: string;
  /** messages sent into the running turn: stored before its next model call (steer.ts) */
  steer?: SteerInbox;
}

export interface TurnOutcome {
  ok: boolean;
  interrupted?: boolean;
  /** taken back before anything was stored or sent (Esc while it waited for the turn's code) */
  unsent?: boolean;
  error?: string;
  /** the answer was cut short (stop.ts): stored complete, and named in `error` */
  cut?: boolean;
  /** the assistant's last text, for headless mode */
  finalText: string;
  /** the last usage the provider reported during the turn */
  usage?: Usage;
  /** what compaction did for the turn's last request, for the status line */
  prepared?: PrepareResult;
}

/** A request whose capture was stored: the request, the encoding sent, when, in which session. */
export interface Captured {
  req: Request;
  capturedAt: string;
  enc: EncodedRequest;
  sessionId: string;
}
