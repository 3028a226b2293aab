// The Anthropic adapter: the Messages shape (the body from encode.ts, the stream parsed by
// stream.ts) on Anthropic's endpoint, or an Anthropic-shaped server's, with its key.
import { createAdapter, type Shape } from "../adapter.js";
import type { TransportOptions } from "../http.js";
import type { Provider } from "../types.js";
import { baseUrl, hostOf } from "../url.js";
import { encodeAnthropic } from "./encode.js";
import { interleavedBeta } from "./beta.js";
import { AnthropicStreamHandler } from "./stream.js";

const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
import { ANTHROPIC_VERSION } from "./version.js";

export { ANTHROPIC_VERSION };

/** Anthropic refuses no optional field this adapter sends: a refusal stands. */
const messagesShape: Shape = {
  path: "/v1/messages",
  encode: encodeAnthropic,
  parser: (ctx, label) => new AnthropicStreamHandler(ctx, label),
  headers: (req, enc) => interleavedBeta(req.model, enc.body),
};

interface AnthropicConfig {
  baseUrl?: string;
  apiKey: string;
  transport: TransportOptions;
}

export function createAnthropicProvider(cfg: AnthropicConfig): Provider {
  const base = baseUrl(cfg.baseUrl, ANTHROPIC_DEFAULT_BASE_URL);
  const apiKey = cfg.apiKey; // lives only in the adapter's closure
  const adapter = createAdapter(
    {
      who: {
        name: "anthropic",
        label: base === ANTHROPIC_DEFAULT_BASE_URL ? "Anthropic" : `the Anthropic-shaped server at ${hostOf(base)}`,
        keyHint: "ANTHROPIC_API_KEY",
      },
      base,
      headers: {
        "x-api-key": apiKey,
        "anthropic-version": ANTHROPIC_VERSION,
        "content-type": "application/json",
        accept: "text/event-stream",
      },
      secret: apiKey,
      transport: cfg.transport,
    },
    messagesShape,
  );
  return {
    ...adapter,
    async countTokens(req, signal) {
      const [{ countSections, contextSourcesSent }, { encodeAnthropicBody }] = await Promise.all([import("./count-tokens.js"), import("./encode.js")]);
      return countSections(encodeAnthropicBody(req), contextSourcesSent(req), { baseUrl: base, apiKey, ...(signal ? { signal } : {}) });
    },
  };
}
