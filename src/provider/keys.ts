// Which provider needs a key, and the sentence when it is missing: what the controller asks
// while the session loads. Apart from the adapters (create.ts), so a session shows before
// they are compiled; create.ts re-exports these.
import { assertNever } from "../record/types.js";
import type { OpenAIApi, ProviderName } from "./types.js";

/** Only OpenAI's own endpoint (the default base URL) is "hosted"; anything else is a compatible server. */
export function isOpenAIHosted(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined) return true;
  try {
    return new URL(baseUrl).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

const ENV_VAR: Record<ProviderName, string> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" };
const CONFIG_FIELD: Record<ProviderName, string> = { anthropic: "anthropicApiKey", openai: "openaiApiKey" };

/** The sentence shown (TUI) or printed (headless, exit 1) when a needed key is missing;
 * `configFile` is where this run reads its config. */
export function missingKeyMessage(provider: ProviderName, configFile = "~/.config/albedo/config.json"): string {
  return `No API key for ${provider}: set ${ENV_VAR[provider]} or "${CONFIG_FIELD[provider]}" in ${configFile}.`;
}

/** Anthropic always wants a key; an OpenAI-shaped local server usually does not. */
export function keyRequired(provider: ProviderName, baseUrl?: string): boolean {
  switch (provider) {
    case "anthropic":
      return true;
    case "openai":
      return isOpenAIHosted(baseUrl);
    default:
      return assertNever(provider, "provider");
  }
}

/** Which OpenAI API a run speaks: the config's `"api"` when set, else the Responses API on
 * OpenAI's own endpoint and Chat Completions on any other base URL (compatible servers). The
 * controller puts it into each Request (RequestSettings.api), and the request's `api` picks
 * both the encoding and the endpoint, so the capture and the wire cannot disagree. */
export function openaiApi(baseUrl: string | undefined, configured?: OpenAIApi): OpenAIApi {
  return configured ?? (isOpenAIHosted(baseUrl) ? "responses" : "chat");
}
