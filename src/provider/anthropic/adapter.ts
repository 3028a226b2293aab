// The Anthropic adapter: Anthropic's endpoint and key, with the body (encode.ts) and the
// stream parser (stream.ts) plugged into the transport.
import { postStream, type TransportOptions } from "../http.js";
import type { Provider, ProviderIdentity, Request, StreamOptions, StreamResult } from "../types.js";
import { hostOf } from "../url.js";
import { encodeAnthropic } from "./encode.js";
import { AnthropicStreamHandler } from "./stream.js";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_VERSION = "2023-06-01";

export interface AnthropicConfig {
  baseUrl?: string;
  apiKey: string;
  transport: TransportOptions;
}

export function createAnthropicProvider(cfg: AnthropicConfig): Provider {
  const base = (cfg.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const url = `${base}/v1/messages`;
  const apiKey = cfg.apiKey; // lives only in this closure
  const who: ProviderIdentity = {
    name: "anthropic",
    label: base === ANTHROPIC_DEFAULT_BASE_URL ? "Anthropic" : `the Anthropic-shaped server at ${hostOf(base)}`,
    keyHint: "ANTHROPIC_API_KEY",
  };
  return {
    name: "anthropic",
    stream(req: Request, opts: StreamOptions = {}): Promise<StreamResult> {
      return postStream({
        who,
        model: req.model,
        url,
        headers: {
          "x-api-key": apiKey,
          "anthropic-version": ANTHROPIC_VERSION,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify(encodeAnthropic(req).body),
        secret: apiKey,
        transport: cfg.transport,
        stream: opts,
        maxOutputTokens: req.maxOutputTokens,
        newHandler: (ctx) => new AnthropicStreamHandler(ctx, who.label),
      });
    },
  };
}
