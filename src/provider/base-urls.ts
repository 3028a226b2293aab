// Each provider's own API: where a run sends its requests when neither --base-url nor the
// config names another server. Apart from the adapters, so the controller reads it while the
// session loads, before they are compiled.
import type { ProviderName } from "./types.js";

export const DEFAULT_BASE_URL: Record<ProviderName, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
};
