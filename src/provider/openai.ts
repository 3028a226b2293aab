// The OpenAI adapter: OpenAI's endpoint, or a compatible server's, with its key (if any), in
// the shape the request names: Chat Completions (chat/) or the Responses API (responses/).
import { assertNever } from "../record/types.js";
import { createAdapter, type Endpoint } from "./adapter.js";
import { chatShape } from "./chat/adapter.js";
import { ChatSession } from "./chat/refused.js";
import type { TransportOptions } from "./http.js";
import { isOpenAIHosted } from "./keys.js";
import { responsesShape } from "./responses/adapter.js";
import { ResponsesSession } from "./responses/refused.js";
import type { OpenAIApi, Provider } from "./types.js";
import { baseUrl, hostOf } from "./url.js";

const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The optional fields one OpenAI-shaped server refused, per model, in either API. */
export interface ServerMemory {
  chat: ChatSession;
  responses: ResponsesSession;
}

export function serverMemory(baseUrl: string | undefined): ServerMemory {
  return { chat: new ChatSession(isOpenAIHosted(baseUrl)), responses: new ResponsesSession() };
}

interface OpenAIConfig {
  baseUrl?: string;
  /** optional: local servers need none */
  apiKey?: string;
  transport: TransportOptions;
  /** the shape the request is sent in */
  api: OpenAIApi;
  /** what this session learnt of the server; a fresh one when absent */
  memory?: ServerMemory;
}

export function createOpenAIProvider(cfg: OpenAIConfig): Provider {
  const base = baseUrl(cfg.baseUrl, OPENAI_DEFAULT_BASE_URL);
  const apiKey = cfg.apiKey; // lives only in the adapter's closure
  const memory = cfg.memory ?? serverMemory(base);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (apiKey) headers["authorization"] = `Bearer ${apiKey}`;
  const endpoint: Endpoint = {
    who: { name: "openai", label: isOpenAIHosted(base) ? "OpenAI" : `the server at ${hostOf(base)}`, keyHint: "OPENAI_API_KEY" },
    base,
    headers,
    ...(apiKey ? { secret: apiKey } : {}),
    transport: cfg.transport,
  };
  switch (cfg.api) {
    case "chat":
      return createAdapter(endpoint, chatShape(memory.chat));
    case "responses":
      return createAdapter(endpoint, responsesShape(memory.responses));
    default:
      return assertNever(cfg.api, "OpenAI API");
  }
}
