// The one way the app gets a Provider. The key is handed in here and stays inside the
// instance: it is not in the Request, not in errors, not anywhere else.
import { createAnthropicProvider } from "./anthropic/adapter.js";
import { lookupModel } from "./catalog.js";
import type { RetryOptions, TransportOptions } from "./http.js";
import { createOpenAIProvider, serverMemory, type ServerMemory } from "./openai.js";
import { keyRequired, missingKeyMessage } from "./keys.js";
import { encodeRequest } from "./encode.js";
import { ProviderError, type Provider, type ProviderName, type Request, type StreamOptions } from "./types.js";
import { assertNever } from "../record/types.js";

export interface ProviderConfig {
  provider: ProviderName;
  baseUrl?: string;
  apiKey?: string;
  /** the model's window when the caller knows it (config); otherwise the catalog's, per request */
  contextWindow?: number;
  retry?: RetryOptions;
  idleTimeoutMs?: number;
  /** what this server refused so far (serverMemory): kept by the caller for the session, as
   * a provider is built again on /model and /reload */
  memory?: ServerMemory;
}

export { serverMemory, type ServerMemory };

export function createProvider(cfg: ProviderConfig): Provider {
  const key = cfg.apiKey && cfg.apiKey.length > 0 ? cfg.apiKey : undefined;
  if (keyRequired(cfg.provider, cfg.baseUrl) && key === undefined) return missingKeyProvider(cfg.provider);
  const transport = (req: Request): TransportOptions => {
    const t: TransportOptions = {};
    if (cfg.retry) t.retry = cfg.retry;
    if (cfg.idleTimeoutMs !== undefined) t.idleTimeoutMs = cfg.idleTimeoutMs;
    const window = cfg.contextWindow ?? lookupModel(cfg.provider, req.model).contextWindow;
    if (window !== undefined) t.contextWindow = window;
    return t;
  };
  switch (cfg.provider) {
    case "anthropic": {
      const base = { ...(cfg.baseUrl ? { baseUrl: cfg.baseUrl } : {}), apiKey: key as string };
      return perRequest("anthropic", (req) => createAnthropicProvider({ ...base, transport: transport(req) }));
    }
    case "openai": {
      const base = { ...(cfg.baseUrl ? { baseUrl: cfg.baseUrl } : {}), ...(key ? { apiKey: key } : {}) };
      // what the server refused lives as long as the caller keeps it (the app's session)
      const memory = cfg.memory ?? serverMemory(cfg.baseUrl);
      // the API the request names; absent is Chat Completions (compatible servers)
      return perRequest("openai", (req) => createOpenAIProvider({ ...base, transport: transport(req), api: req.api ?? "chat", memory }));
    }
    default:
      return assertNever(cfg.provider, "provider");
  }
}

/** The window named in context-length errors depends on the request's model. */
function perRequest(name: ProviderName, make: (req: Request) => Provider): Provider {
  return {
    name,
    stream: (req: Request, opts?: StreamOptions) => make(req).stream(req, opts),
    // the adapter's own encoding, so the capture leaves out what the sending will
    encode: (req: Request) => make(req).encode?.(req) ?? encodeRequest(req),
    // only Anthropic's adapter has a counter (count_tokens); the others' counts stay the tokenizer's
    ...(name === "anthropic"
      ? {
          countTokens: (req: Request, signal?: AbortSignal) => {
            const p = make(req);
            return p.countTokens ? p.countTokens(req, signal) : Promise.reject(new Error(`${name} has no token counter`));
          },
        }
      : {}),
  };
}

/** A provider without its key: the app still opens, and every call says what to set. */
function missingKeyProvider(name: ProviderName): Provider {
  return {
    name,
    stream: () => Promise.reject(new ProviderError(missingKeyMessage(name), "missing_key")),
  };
}

export { lookupModel, defaultModel } from "./catalog.js";
export { keyRequired, missingKeyMessage, openaiApi } from "./keys.js";
export type { ModelInfo } from "./catalog.js";
export type { RetryOptions, TransportOptions } from "./http.js";
export { encodeAnthropicBody } from "./anthropic/encode.js";
export { encodeOpenAIBody } from "./chat/encode.js";
export { encodeResponsesBody } from "./responses/encode.js";
