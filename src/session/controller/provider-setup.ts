// How the session reaches its provider: where each provider's requests go, whether the key
// it needs is missing, OpenAI's wire shape, and the provider client for the model in use.
import type { OpenAIApi, Provider, ProviderName } from "../../provider/types.js";
import type { createProvider, serverMemory, ServerMemory } from "../../provider/create.js";
import type { ModelInfo } from "../../provider/catalog.js";
import { keyRequired, missingKeyMessage, openaiApi } from "../../provider/keys.js";
import { DEFAULT_BASE_URL } from "../../provider/base-urls.js";
import type { AppOptions } from "./options.js";

/** the settings that say where a provider is and how it is reached */
export type ProviderSettings = Pick<AppOptions, "provider" | "baseUrl" | "credentials" | "configFile" | "api" | "idleTimeoutMs">;

/** --base-url for the provider chosen at start, else the config's for that provider, else its own API */
export function baseUrlFor(s: ProviderSettings, p: ProviderName): string {
  if (p === s.provider && s.baseUrl) return s.baseUrl;
  return s.credentials.baseUrls[p] ?? DEFAULT_BASE_URL[p];
}

/** where each provider's requests go now */
export function baseUrls(s: ProviderSettings): Record<ProviderName, string> {
  return { anthropic: baseUrlFor(s, "anthropic"), openai: baseUrlFor(s, "openai") };
}

/** a key is needed for Anthropic, and for OpenAI's own endpoint; local servers need none */
export function keyProblem(s: ProviderSettings, provider: ProviderName): string | undefined {
  const key = s.credentials.keys[provider];
  if (key) return undefined;
  // the same rule the provider client applies, so the two never disagree
  if (!keyRequired(provider, baseUrlFor(s, provider))) return undefined;
  return missingKeyMessage(provider, s.configFile);
}

/** OpenAI's wire shape for the provider and its base URL (provider/keys.ts, openaiApi): put
 * into every request, which picks both the encoding captured and the endpoint called. */
export function apiSetting(s: ProviderSettings, provider: ProviderName): { api?: OpenAIApi } {
  return provider === "openai" ? { api: openaiApi(baseUrlFor(s, "openai"), s.api) } : {};
}

/** what builds a provider client: the adapters (parts.ts), loaded after the session shows */
export interface ProviderParts {
  createProvider: typeof createProvider;
  serverMemory: typeof serverMemory;
}

/** The run's provider clients: each built for a model and the keys of the moment, with what
 * each server refused remembered for the whole run, across /model and /reload. */
export class ProviderClients {
  /** per provider and base URL: the optional fields its server refused */
  private readonly serverMemories = new Map<string, ServerMemory>();

  build(parts: ProviderParts, s: ProviderSettings, provider: ProviderName, info: ModelInfo): Provider {
    const { createProvider, serverMemory } = parts;
    const apiKey = s.credentials.keys[provider];
    const baseUrl = baseUrlFor(s, provider);
    const where = `${provider} ${baseUrl}`;
    let memory = this.serverMemories.get(where);
    if (!memory) this.serverMemories.set(where, (memory = serverMemory(baseUrl)));
    return createProvider({
      memory,
      provider,
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      ...(info.contextWindow ? { contextWindow: info.contextWindow } : {}),
      ...(s.idleTimeoutMs ? { idleTimeoutMs: s.idleTimeoutMs } : {}),
    });
  }
}
