// What a turn works with, and the request a turn started now would send: both made from the
// same composition (the model in use, the settings, the context and the tools of the moment),
// so the status line's estimate and the inspector's comparison are of the request a turn sends.
import type { BackgroundShells } from "../../tools/background.js";
import type { ContextItem, Provider, Request, RequestCache, Usage } from "../../provider/types.js";
import type { ModelInfo } from "../../provider/catalog.js";
import type { StoredMessage } from "../../record/types.js";
import type { PermissionMemory, toolSchemas } from "../../tools/run.js";
import type { ToolContext, ToolDef } from "../../tools/types.js";
import type { CommandSandbox } from "../../tools/spawn-command.js";
import type { Redactor } from "../../config/secrets.js";
import type { Capture } from "../../context/types.js";
import type { captureRequest } from "../../context/capture.js";
import { methodFor } from "../../tokens/count.js";
import { imageTarget } from "../../replay/replay.js";
import { turnRequest } from "../../replay/request.js";
import type { TurnEnv } from "../turn/turn.js";
import type { Captured } from "../turn/env.js";
import type { EventHub } from "../turn/events.js";
import type { SteerInbox } from "../turn/steer-inbox.js";
import { redactRequest } from "../turn/redact.js";
import { withTaskList } from "../turn/task-list.js";
import type { ModelInUse } from "./model-choice.js";
import type { AppOptions } from "./options.js";
import { SYSTEM_PROMPT } from "./project-context.js";
import { apiSetting } from "./provider-setup.js";
import { UNATTENDED } from "./sentences.js";

/** what the session's next request is made of, at this moment */
export interface Composition {
  settings: AppOptions;
  model: ModelInUse;
  /** what is known of the model (model-choice.ts, lookupModel) */
  info: ModelInfo;
  sessionId: string;
  /** the project's context items, then each MCP server's instructions */
  context: ContextItem[];
  /** the built-in tools, then the MCP servers' */
  tools: ToolDef[];
  redact: Redactor;
  /** the session's background commands */
  shells?: BackgroundShells;
  /** the session's record: after a summary, the task list it stood in for is sent (turn/task-list.ts) */
  history?: readonly StoredMessage[];
}

/** Prompt caching for this session's requests: keyed by the session (OpenAI's
 * prompt_cache_key), with the configured TTL (Anthropic's breakpoints). */
function cacheHints(c: Composition): RequestCache {
  return { key: c.sessionId, ttl: c.settings.cacheTtl ?? "5m" };
}

/** what the next request's capture is made with: the adapters and the tools (parts.ts) */
interface CaptureParts {
  toolSchemas: typeof toolSchemas;
  captureRequest: typeof captureRequest;
}

/**
 * The request a turn started now would send before its prompt, built as the turn builds
 * each of its requests (src/session/turn/turn.ts, buildRequest): the prepared prior history
 * through turnRequest, then the redactor. No live round yet.
 */
function nextRequest(c: Composition, schemas: typeof toolSchemas, prior: Parameters<typeof turnRequest>[0]): Request {
  const { provider, model } = c.model;
  const m = c.info;
  const req = turnRequest(prior, [], {
    provider,
    model,
    system: SYSTEM_PROMPT,
    context: withTaskList(c.context, prior, c.history ?? []),
    tools: schemas(c.tools),
    maxOutputTokens: c.settings.maxOutputTokens ?? m.maxOutput ?? 8192,
    reasoning: c.settings.reasoning,
    vision: imageTarget(provider, m.vision),
    cache: cacheHints(c),
    ...apiSetting(c.settings, provider),
  });
  return redactRequest(req, c.redact);
}

/** That request as the inspector would capture it (nothing is stored): what the status line
 * estimates while the view is pending, and what a stored request is compared with. */
export function captureNext(c: Composition, parts: CaptureParts, prior: Parameters<typeof turnRequest>[0]): Capture {
  const req = nextRequest(c, parts.toolSchemas, prior);
  const window = c.info.contextWindow;
  return parts.captureRequest(req, { iteration: 1, capturedAt: new Date().toISOString(), ...(window !== undefined ? { contextWindow: window } : {}) });
}

/** what a turn has beside the composition: the record it appends to and what it reports through */
interface TurnSetting {
  history: StoredMessage[];
  provider: Provider;
  memory: PermissionMemory;
  askPermission: ToolContext["askPermission"];
  events: EventHub;
  /** what the provider reported for the last response (the first capture shows it) */
  previousUsage: Usage | undefined;
  /** where commands run (sandbox-setup.ts); absent: unsandboxed */
  sandbox?: CommandSandbox | undefined;
  onCaptured?: (c: Captured) => void;
}

/** what a turn works with */
export function turnEnv(c: Composition, t: TurnSetting, steer?: SteerInbox): TurnEnv {
  const { provider: providerName, model } = c.model;
  const m = c.info;
  const s = c.settings;
  const env: TurnEnv = {
    store: s.store,
    sessionId: c.sessionId,
    history: t.history,
    provider: t.provider,
    providerName,
    model,
    vision: imageTarget(providerName, m.vision),
    ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
    maxOutputTokens: s.maxOutputTokens ?? m.maxOutput ?? 8192,
    reasoning: s.reasoning,
    cache: cacheHints(c),
    ...apiSetting(s, providerName),
    system: SYSTEM_PROMPT,
    context: c.context,
    tools: c.tools,
    toolCtx: {
      workspace: s.workspace,
      policy: s.permission,
      askPermission: t.askPermission,
      ...(t.sandbox ? { sandbox: t.sandbox } : {}),
      ...(s.rules ? { rules: s.rules } : {}),
      redact: c.redact,
      ...(c.shells ? { shells: c.shells } : {}),
      ...(s.headless ? { unattended: UNATTENDED } : {}),
    },
    memory: t.memory,
    redact: c.redact,
    compaction: {
      strategy: s.compaction,
      threshold: s.compactionThreshold,
      keepRounds: s.keepToolRounds,
      ...(s.microcompactStep !== undefined ? { step: s.microcompactStep } : {}),
    },
    tokenMethod: methodFor(providerName, model),
    events: t.events,
    ...(t.onCaptured ? { onCaptured: t.onCaptured } : {}),
    ...(t.previousUsage ? { previousUsage: t.previousUsage } : {}),
    ...(steer ? { steer } : {}),
  };
  return env;
}
