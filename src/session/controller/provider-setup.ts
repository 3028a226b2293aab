// How the session reaches its provider: where each provider's requests go, whether the key
// it needs is missing, OpenAI's wire shape, and the model in use with its provider client.
import type { OpenAIApi, Provider, ProviderName } from "../../provider/types.js";
import type { createProvider, serverMemory, ServerMemory } from "../../provider/create.js";
import { defaultModel, type ModelInfo } from "../../provider/catalog.js";
import { keyRequired, missingKeyMessage, openaiApi } from "../../provider/keys.js";
import { DEFAULT_BASE_URL } from "../../provider/base-urls.js";
import type { AppOptions } from "./options.js";
import { lookupModel, type ModelInUse } from "./model-choice.js";

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
function keyProblem(s: ProviderSettings, provider: ProviderName): string | undefined {
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
interface ProviderParts {
  createProvider: typeof createProvider;
  serverMemory: typeof serverMemory;
}

/** the settings the model in use is chosen and looked up with */
type ModelSettings = ProviderSettings & Pick<AppOptions, "model" | "contextWindow" | "vision">;

/** The model the session talks to, and the provider client for it: built from the parts when
 * they are in, and again when the model or the keys change. What each server refused is
 * remembered for the whole run, across /model and /reload. */
export class ProviderInUse {
  provider: ProviderName;
  model: string;
  /** built for the model and keys of the moment; undefined until then or after a change */
  private client: Provider | undefined;
  /** per provider and base URL: the optional fields its server refused */
  private readonly serverMemories = new Map<string, ServerMemory>();
  /** per base URL: the read of Anthropic's model list, once a run */
  private readonly modelLists = new Map<string, Promise<void>>();

  /** `s` is read at each call: /reload replaces the keys in it */
  constructor(
    private readonly s: ModelSettings,
    private readonly parts: { ifLoaded(): ProviderParts | undefined; loaded(): unknown },
  ) {
    this.provider = s.provider;
    this.model = s.model ?? defaultModel(s.provider);
  }

  /** the model in use, as data */
  now(): ModelInUse {
    return { provider: this.provider, model: this.model };
  }

  /** what is known of the model in use (model-choice.ts, lookupModel) */
  info(): ModelInfo {
    return lookupModel(this.provider, this.model, this.s);
  }

  /**
   * Reads the provider's own model list once a run per base URL: Anthropic's says each
   * model's window, output limit, thinking and images, which then beat the catalog's table
   * (provider/model-facts.ts). Bounded (provider/models.ts); a failure leaves the table.
   */
  learn(): Promise<void> {
    if (this.provider !== "anthropic") return Promise.resolve();
    const baseUrl = baseUrlFor(this.s, "anthropic");
    const apiKey = this.s.credentials.keys.anthropic;
    if (!apiKey && keyRequired("anthropic", baseUrl)) return Promise.resolve();
    let read = this.modelLists.get(baseUrl);
    if (!read) {
      read = import("../../provider/models.js")
        .then(({ fetchModels }) => fetchModels({ provider: "anthropic", baseUrl, ...(apiKey ? { apiKey } : {}) }))
        .then(
          () => this.rebuild(),
          () => undefined,
        );
      this.modelLists.set(baseUrl, read);
    }
    return read;
  }

  /** what the provider in use needs and lacks, in a sentence */
  keyProblem(): string | undefined {
    return keyProblem(this.s, this.provider);
  }

  /** switches to another model, and builds the client for it */
  use(m: ModelInUse): void {
    this.provider = m.provider;
    this.model = m.model;
    this.rebuild();
  }

  /** The client for the current model and keys: built now when the parts are in, else
   * when current() first needs it. */
  rebuild(): void {
    const parts = this.parts.ifLoaded();
    this.client = parts ? this.build(parts) : undefined;
  }

  /** the client; only once the parts are in */
  current(): Provider {
    this.parts.loaded();
    if (!this.client) this.rebuild();
    return this.client as Provider;
  }

  private build(parts: ProviderParts): Provider {
    const { createProvider, serverMemory } = parts;
    const info = this.info();
    const apiKey = this.s.credentials.keys[this.provider];
    const baseUrl = baseUrlFor(this.s, this.provider);
    const where = `${this.provider} ${baseUrl}`;
    let memory = this.serverMemories.get(where);
    if (!memory) this.serverMemories.set(where, (memory = serverMemory(baseUrl)));
    return createProvider({
      memory,
      provider: this.provider,
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      ...(info.contextWindow ? { contextWindow: info.contextWindow } : {}),
      ...(this.s.idleTimeoutMs ? { idleTimeoutMs: this.s.idleTimeoutMs } : {}),
    });
  }
}
