// What "/model" with no argument lists: for each configured provider (the one in use, and
// another with a key or base URL of its own) the catalog's models and what its server lists.
// A server that cannot list them gives a line saying why; the catalog's are there all the same.
import { catalogModels } from "../../provider/catalog.js";
import { keyRequired } from "../../provider/keys.js";
import type { ModelChoices, ProviderModels } from "../../provider/models.js";
import { messageOf } from "../../record/errors.js";
import type { ModelInUse } from "./model-choice.js";
import { baseUrlFor, type ProviderSettings } from "./provider-setup.js";

/** `redact` cuts the run's secrets out of a server's error (it may echo the key). */
export async function listModels(s: ProviderSettings, now: ModelInUse, redact: (t: string) => string): Promise<ModelChoices> {
  const creds = s.credentials;
  const others = (["anthropic", "openai"] as const).filter((p) => p !== now.provider && (creds.keys[p] || creds.baseUrls[p]));
  const providers = await Promise.all(
    [now.provider, ...others].map(async (provider): Promise<ProviderModels> => {
      const baseUrl = baseUrlFor(s, provider);
      const base: ProviderModels = { provider, baseUrl, catalog: catalogModels(provider) };
      const apiKey = creds.keys[provider];
      if (!apiKey && keyRequired(provider, baseUrl)) return { ...base, error: "not listed from the server: no API key" };
      try {
        // the list's client (zod, the adapters' constants) loads only when a list is asked for
        const { fetchModels } = await import("../../provider/models.js");
        const got = await fetchModels({ provider, baseUrl, ...(apiKey ? { apiKey } : {}) });
        return { ...base, served: got.models, ...(got.more ? { more: true } : {}) };
      } catch (e) {
        const why = e instanceof (await import("../../provider/models.js")).ModelsError ? e.message : `the model list failed: ${messageOf(e)}`;
        return { ...base, error: redact(why) };
      }
    }),
  );
  return { current: now, providers };
}
