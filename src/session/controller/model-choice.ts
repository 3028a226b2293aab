// Which provider and model /model means, and what is known of a model: data in, data out.
// The controller applies the choice; nothing here reads the settings or the network.
import type { ProviderName } from "../../provider/types.js";
import type { StoredMessage } from "../../record/types.js";
import { assumedFor, defaultModel, familyOf, lookupModel as catalogLookup, type ModelInfo } from "../../provider/catalog.js";
import { DEFAULT_BASE_URL } from "../../provider/base-urls.js";
import { unseenReason, type ImageTarget } from "../../replay/replay.js";

/** /model named a provider and model that cannot go together */
export class ModelChoiceError extends Error {}

const PROVIDER_LABEL: Record<ProviderName, string> = { anthropic: "Anthropic", openai: "OpenAI" };

/** the model a session talks to */
export interface ModelInUse {
  provider: ProviderName;
  model: string;
}

/** a /model choice, and a sentence when the choice is not the obvious one */
export interface ModelChoice extends ModelInUse {
  said?: string;
}

/** the provider's own API (not a gateway or a local server): it serves only its own models */
export function isOwnApi(provider: ProviderName, url: string): boolean {
  try {
    return new URL(url).hostname === new URL(DEFAULT_BASE_URL[provider]).hostname;
  } catch {
    return false;
  }
}

/** the catalog's facts, with the user's own figures (config contextWindow, vision) over them */
export function lookupModel(provider: ProviderName, model: string, own: { contextWindow?: number; vision?: boolean }): ModelInfo {
  const info = { ...catalogLookup(provider, model) };
  if (own.contextWindow !== undefined) info.contextWindow = own.contextWindow;
  if (own.vision !== undefined) info.vision = own.vision;
  if (!info.known) info.assumed = assumedFor(info);
  return info;
}

/**
 * Which provider serves the model /model names. "provider:NAME" says it; a bare NAME goes to
 * the provider whose model the catalog says it is, or stays with the current provider when
 * the catalog does not know it (local servers name their own). A pair that cannot work is
 * refused: a model the catalog lists as one provider's, named for the other provider's own
 * API. Through any other base URL (a gateway may serve both families in either shape) the
 * pair is allowed and said so. `baseUrls` is where each provider's requests go now.
 */
export function chooseModel(spec: string, now: ModelInUse, baseUrls: Readonly<Record<ProviderName, string>>): ModelChoice {
  const explicit = /^(anthropic|openai):(.*)$/i.exec(spec);
  if (explicit) {
    const provider = explicit[1]!.toLowerCase() as ProviderName;
    const model = explicit[2]!.trim() || defaultModel(provider);
    const family = familyOf(model);
    if (family === undefined || family === provider) return { provider, model };
    const url = baseUrls[provider];
    if (isOwnApi(provider, url)) {
      throw new ModelChoiceError(
        `${provider}:${model} cannot work: ${model} is ${PROVIDER_LABEL[family]}'s model (by the catalog), and ${PROVIDER_LABEL[provider]}'s API at ${url} does not serve it. The model stays ${now.provider}:${now.model}; use /model ${family}:${model}.`,
      );
    }
    return { provider, model, said: `The catalog lists ${model} as ${PROVIDER_LABEL[family]}'s; it is sent in the ${provider} API shape to ${url}, as a gateway would take it.` };
  }
  // a provider's name alone: its default model
  const alone = spec.toLowerCase();
  if (alone === "anthropic" || alone === "openai") return { provider: alone, model: defaultModel(alone) };
  const family = familyOf(spec);
  if (family === undefined || family === now.provider) return { provider: now.provider, model: spec };
  const was = now.provider;
  const wasUrl = baseUrls[was];
  // through a gateway the old provider might have served it too: say how to stay there
  const stay = isOwnApi(was, wasUrl) ? "" : ` (/model ${was}:${spec} sends it to ${wasUrl} instead.)`;
  return { provider: family, model: spec, said: `Provider switched from ${was} to ${family}: the catalog lists ${spec} as ${PROVIDER_LABEL[family]}'s.${stay}` };
}

/** how many stored images the target cannot take (attached under another provider), by
 * the rule each request applies (replay/replay.ts, unseenReason) */
export function imagesNotTaken(messages: readonly StoredMessage[], target: ImageTarget): number {
  let n = 0;
  for (const m of messages) for (const b of m.blocks) if (b.type === "image" && unseenReason(b, target)) n++;
  return n;
}
