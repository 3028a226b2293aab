// A server's own list of models: GET {baseUrl}/models in OpenAI's shape
// (`{data:[{id}]}`; local servers such as Ollama, LM Studio, vLLM and llama.cpp serve it too)
// and GET /v1/models in Anthropic's (`{data:[{id, display_name, max_input_tokens, max_tokens,
// capabilities, lifecycle}]}`, x-api-key and anthropic-version). Bounded like every read from
// outside: a time limit on the whole call, a cap on the body, and zod on what it says. What
// Anthropic's list says of each model is kept for the run (model-facts.ts) and beats the
// catalog's table. A failure is a ModelsError whose message says what went wrong, for a line
// in the list; it never takes the screen down.
import { z } from "zod";
import type { ProviderName } from "./types.js";
import { ANTHROPIC_VERSION } from "./anthropic/adapter.js";
import { assertNever } from "../record/types.js";
import { rememberServerFacts, type ServerFacts } from "./model-facts.js";
import type { Lifecycle, ThinkingMode } from "./catalog-table.js";
import { userAgent } from "./user-agent.js";

interface ServedModel {
  id: string;
  /** the server's own name for it, when it gives one (Anthropic's display_name) */
  displayName?: string;
}

export class ModelsError extends Error {}

/** The whole call, connect to last byte: a list is a convenience, not worth a long wait. */
const MODELS_TIMEOUT_MS = 5000;
/** OpenAI's own list is about 100 kB; a local server's far less. */
const MODELS_MAX_BYTES = 2 * 1024 * 1024;
/** More than anyone picks from; the rest are said to be left out. */
const MODELS_MAX_COUNT = 500;

const OpenAIList = z.object({ data: z.array(z.object({ id: z.string().min(1) })) });
/** A figure a model may really have; beyond it a server's figure is not believed (and the
 * answer bounds that follow max_tokens stay sane). */
const MAX_WINDOW = 100_000_000;
const MAX_OUTPUT = 1_000_000;
const bounded = (max: number) => z.number().int().positive().max(max).nullable().optional().catch(undefined);
const Support = z.object({ supported: z.boolean() });
/** Each part read on its own: a part in another shape is left out, not the model. */
const Capabilities = z
  .object({
    image_input: Support.optional().catch(undefined),
    thinking: z
      .object({
        supported: z.boolean(),
        types: z
          .object({ adaptive: Support.optional().catch(undefined), enabled: Support.optional().catch(undefined) })
          .optional()
          .catch(undefined),
      })
      .optional()
      .catch(undefined),
  })
  .nullable()
  .optional()
  .catch(undefined);
const AnthropicModel = z.object({
  id: z.string().min(1).max(200),
  display_name: z.string().max(200).optional().catch(undefined),
  max_input_tokens: bounded(MAX_WINDOW),
  max_tokens: bounded(MAX_OUTPUT),
  capabilities: Capabilities,
  lifecycle: z.enum(["active", "deprecated", "retired"]).optional().catch(undefined),
});
const AnthropicList = z.object({
  data: z.array(AnthropicModel),
  has_more: z.boolean().optional(),
});

/** What one model's entry says, in the catalog's terms. */
function factsOf(m: z.infer<typeof AnthropicModel>): ServerFacts {
  const f: ServerFacts = {};
  if (m.max_input_tokens) f.contextWindow = m.max_input_tokens;
  if (m.max_tokens) f.maxOutput = m.max_tokens;
  const c = m.capabilities;
  if (c?.image_input) f.vision = c.image_input.supported;
  const t = c?.thinking;
  if (t) {
    // adaptive where the model takes it, else a budget, else none
    let mode: ThinkingMode | undefined;
    if (!t.supported) mode = "none";
    else if (t.types?.adaptive?.supported) mode = "adaptive";
    else if (t.types?.enabled?.supported) mode = "budget";
    else if (t.types) mode = "none";
    if (mode) f.thinking = mode;
  }
  if (m.lifecycle) f.lifecycle = m.lifecycle satisfies Lifecycle;
  return f;
}

interface FetchModelsOptions {
  provider: ProviderName;
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

/** Where the list is: OpenAI's base URL already ends in /v1, Anthropic's does not. */
function modelsUrl(provider: ProviderName, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  switch (provider) {
    case "anthropic":
      return `${base}/v1/models?limit=1000`;
    case "openai":
      return `${base}/models`;
    default:
      return assertNever(provider, "provider");
  }
}

export async function fetchModels(o: FetchModelsOptions): Promise<{ models: ServedModel[]; more: boolean }> {
  const url = modelsUrl(o.provider, o.baseUrl);
  const timeoutMs = o.timeoutMs ?? MODELS_TIMEOUT_MS;
  const maxBytes = o.maxBytes ?? MODELS_MAX_BYTES;
  const headers: Record<string, string> = { accept: "application/json", "user-agent": userAgent() };
  if (o.provider === "anthropic") {
    headers["anthropic-version"] = ANTHROPIC_VERSION;
    if (o.apiKey) headers["x-api-key"] = o.apiKey;
  } else if (o.apiKey) {
    headers["authorization"] = `Bearer ${o.apiKey}`;
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const where = new URL(url).origin;
  let text: string;
  let status: number;
  try {
    // loaded here, not at start-up: the screen does not wait for an HTTP client (http.ts)
    const { request } = await import("undici");
    // undici 7 follows no redirects unless asked: a 3xx is a status like any other
    const res = await request(url, { method: "GET", headers, signal });
    status = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new ModelsError(`${where} sent a model list larger than ${Math.round(maxBytes / 1024)} kB; it was not read`);
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString("utf8");
  } catch (e) {
    if (e instanceof ModelsError) throw e;
    if (timeout.aborted) throw new ModelsError(`${where} did not send its model list within ${timeoutMs / 1000} s`);
    if (o.signal?.aborted) throw new ModelsError("the model list was not fetched: cancelled");
    throw new ModelsError(`${where} could not be reached for its model list: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (status === 404) throw new ModelsError(`${where} does not offer a model list (404)`);
  if (status === 401 || status === 403) throw new ModelsError(`${where} refused the model list (${status}): check the API key`);
  if (status < 200 || status >= 300) throw new ModelsError(`${where} answered the model list with status ${status}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ModelsError(`${where} sent a model list that is not JSON`);
  }
  if (o.provider === "anthropic") {
    const r = AnthropicList.safeParse(json);
    if (!r.success) throw new ModelsError(`${where} sent a model list not in Anthropic's shape (${r.error.issues[0]?.message ?? "invalid"})`);
    rememberServerFacts(r.data.data.slice(0, MODELS_MAX_COUNT).map((m) => ({ id: m.id, facts: factsOf(m) })));
    const all = r.data.data.map((m) => (m.display_name && m.display_name !== m.id ? { id: m.id, displayName: m.display_name } : { id: m.id }));
    return { models: all.slice(0, MODELS_MAX_COUNT), more: r.data.has_more === true || all.length > MODELS_MAX_COUNT };
  }
  const r = OpenAIList.safeParse(json);
  if (!r.success) throw new ModelsError(`${where} sent a model list not in OpenAI's shape (${r.error.issues[0]?.message ?? "invalid"})`);
  const all = r.data.data.map((m) => ({ id: m.id }));
  return { models: all.slice(0, MODELS_MAX_COUNT), more: all.length > MODELS_MAX_COUNT };
}

/** One configured provider's models: the catalog's, and what its server lists (or why not). */
export interface ProviderModels {
  provider: ProviderName;
  baseUrl: string;
  catalog: string[];
  served?: ServedModel[];
  /** the server has more than were read */
  more?: boolean;
  /** why the server's list is not there (a ModelsError's message, or no key) */
  error?: string;
}

/** What /model with no argument lists: the model in use and each configured provider's. */
export interface ModelChoices {
  current: { provider: ProviderName; model: string };
  providers: ProviderModels[];
}
