// The fake provider's image limits and its models list, hooked
// into test/helpers/fake-provider.ts.
//
// Images: Anthropic refuses an image over 5 MB of base64, over 8000 px a side, or over
// 2000 px a side when the request carries more than 20 images, with a 400 whose wording is
// the real API's (anthropics/claude-code #4778, #9375; docs/providers.md). A fake that took
// any image would not show that a request built after /model is one the provider accepts.
//
// Models: GET /v1/models in both shapes (Anthropic: x-api-key and anthropic-version,
// `{data:[{type,id,display_name,created_at}], has_more, first_id, last_id}`; OpenAI:
// `{object:"list", data:[{id,object,created,owned_by}]}`), with failures a test asks for.
import type http from "node:http";
import { imageSize } from "image-size";

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

const MAX_BASE64 = 5_242_880;
const MAX_SIDE = 8000;
const MANY = 20;
const MANY_SIDE = 2000;
/** what one request may carry: 100 images (200K-context models), a 32 MB body */
const MAX_IMAGES = 100;
const MAX_REQUEST = 32 * 1_048_576;

/** The dimensions of a base64 image, read from its first bytes (the header), or undefined. */
function dimensions(data: string): { width: number; height: number } | undefined {
  try {
    // 64 KB of base64 holds every header image-size reads for PNG, GIF, WebP and most JPEGs
    const d = imageSize(Buffer.from(data.slice(0, 65_536), "base64"));
    return d.width && d.height ? { width: d.width, height: d.height } : undefined;
  } catch {
    return undefined;
  }
}

/** Every base64 image of an Anthropic body with its error path: in message content and
 * inside tool_result content. */
function images(body: Obj): Array<{ at: string; data: string }> {
  const out: Array<{ at: string; data: string }> = [];
  const messages = Array.isArray(body["messages"]) ? body["messages"] : [];
  const take = (b: unknown, at: string): void => {
    if (!isObj(b) || b["type"] !== "image") return;
    const src = b["source"];
    if (isObj(src) && typeof src["data"] === "string") out.push({ at, data: src["data"] });
  };
  messages.forEach((m: unknown, i: number) => {
    if (!isObj(m) || !Array.isArray(m["content"])) return;
    m["content"].forEach((b: unknown, j: number) => {
      take(b, `messages.${i}.content.${j}`);
      if (isObj(b) && b["type"] === "tool_result" && Array.isArray(b["content"])) {
        b["content"].forEach((c: unknown, k: number) => take(c, `messages.${i}.content.${j}.content.${k}`));
      }
    });
  });
  return out;
}

/** Anthropic's refusal of a request's images, in the real API's words, or undefined. */
export function anthropicImageRefusal(body: unknown): string | undefined {
  if (!isObj(body)) return undefined;
  const all = images(body);
  // the request's totals (the fake's wording; the real cap on the body answers 413 request_too_large)
  if (all.length > MAX_IMAGES) return `messages: too many images in the request: ${all.length} > ${MAX_IMAGES}`;
  const total = all.reduce((n, i) => n + i.data.length, 0);
  if (total > MAX_REQUEST) return `request_too_large: the request's images are ${total} bytes of base64, more than the ${MAX_REQUEST} bytes a request may be`;
  for (const { at, data } of all) {
    if (data.length > MAX_BASE64) return `${at}.image.source.base64: image exceeds 5 MB maximum: ${data.length} bytes > ${MAX_BASE64} bytes`;
    const d = dimensions(data);
    if (!d) continue;
    const side = Math.max(d.width, d.height);
    if (side > MAX_SIDE) return `${at}.image.source.base64.data: At least one of the image dimensions exceed max allowed size: ${MAX_SIDE} pixels`;
    if (all.length > MANY && side > MANY_SIDE) {
      return `${at}.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: ${MANY_SIDE} pixels`;
    }
  }
  return undefined;
}

/** The fields of Anthropic's ModelInfo (the SDK's resources/models.d.ts) beyond id and name. */
export interface AnthropicModelFacts {
  max_input_tokens: number | null;
  max_tokens: number | null;
  capabilities: unknown;
  lifecycle: "active" | "deprecated" | "retired";
}

const yes = { supported: true };
const no = { supported: false };

/** A whole ModelInfo entry in Anthropic's shape: every capability key present, as the API
 * sends them ("Keys are always present for all known capabilities"). */
export function anthropicModel(o: {
  id: string;
  display_name?: string;
  max_input_tokens: number;
  max_tokens: number;
  thinking: { adaptive: boolean; enabled: boolean };
  images: boolean;
  lifecycle?: "active" | "deprecated" | "retired";
}): { id: string; display_name?: string } & AnthropicModelFacts {
  const s = (b: boolean) => (b ? yes : no);
  return {
    id: o.id,
    ...(o.display_name ? { display_name: o.display_name } : {}),
    max_input_tokens: o.max_input_tokens,
    max_tokens: o.max_tokens,
    lifecycle: o.lifecycle ?? "active",
    capabilities: {
      batch: yes,
      citations: yes,
      code_execution: no,
      context_management: { supported: false, clear_thinking_20251015: null, clear_tool_uses_20250919: null, compact_20260112: null },
      effort: { supported: o.thinking.adaptive, low: s(o.thinking.adaptive), medium: s(o.thinking.adaptive), high: s(o.thinking.adaptive), max: no, xhigh: null },
      image_input: s(o.images),
      pdf_input: no,
      server_tools: { supported: false, code_execution: no, web_search: no },
      structured_outputs: yes,
      thinking: {
        supported: o.thinking.adaptive || o.thinking.enabled,
        types: { adaptive: s(o.thinking.adaptive), enabled: s(o.thinking.enabled), disabled: yes, between_tools: no },
      },
    },
  };
}

/** What GET /v1/models answers; a test may change it while the fake runs. */
export interface ServedModels {
  /** Anthropic's list (absent: the route answers 404, as a server without it would); each
   * entry's other fields are served as given (max_input_tokens, max_tokens, capabilities,
   * lifecycle: see anthropicModel for the whole shape) */
  anthropic?: Array<{ id: string; display_name?: string } & Partial<AnthropicModelFacts>>;
  /** OpenAI-shaped list, by id (absent: 404) */
  openai?: string[];
  /** answer with this status and an error body instead */
  failStatus?: number;
  /** never answer (the client's timeout must end the wait) */
  hang?: boolean;
  /** answer 200 with a body this many bytes long (the client's size cap must stop reading) */
  hugeBytes?: number;
  /** answer 200 with this text verbatim (a body that is not the expected JSON) */
  raw?: string;
}

const header = (h: http.IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Serves GET /v1/models. The shape follows the caller: a request with anthropic-version is
 * Anthropic's client, anything else OpenAI's. Keys are checked as on the POST routes.
 */
export function serveModels(req: http.IncomingMessage, res: http.ServerResponse, served: ServedModels | undefined, key: string | undefined): void {
  const send = (status: number, body: unknown): void => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const anthropic = header(req.headers, "anthropic-version") !== undefined;
  if (anthropic) {
    const apiKey = header(req.headers, "x-api-key");
    if (!apiKey || (key !== undefined && apiKey !== key)) {
      return send(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
    }
  } else if (key !== undefined && header(req.headers, "authorization") !== `Bearer ${key}`) {
    return send(401, { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
  }
  if (served?.hang) {
    // held open until the client gives up or the fake closes (closeAllConnections)
    return;
  }
  if (served?.failStatus !== undefined) {
    return send(served.failStatus, anthropic ? { type: "error", error: { type: "api_error", message: "Internal server error" } } : { error: { message: "The server had an error", type: "server_error" } });
  }
  if (served?.hugeBytes !== undefined) {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = Buffer.alloc(65_536, 0x20);
    let left = served.hugeBytes;
    const more = (): void => {
      while (left > 0) {
        left -= chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      res.end();
    };
    res.on("error", () => undefined);
    more();
    return;
  }
  if (served?.raw !== undefined) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(served.raw);
    return;
  }
  const list = anthropic ? served?.anthropic : served?.openai;
  if (!list) return send(404, { error: { message: "Not found", type: "not_found" } });
  if (anthropic) {
    const data = (list as NonNullable<ServedModels["anthropic"]>).map((m) => ({
      type: "model",
      created_at: "2025-09-29T00:00:00Z",
      deprecated_at: null,
      retires_at: null,
      line: null,
      max_input_tokens: null,
      max_tokens: null,
      capabilities: null,
      lifecycle: "active",
      ...m,
      display_name: m.display_name ?? m.id,
    }));
    return send(200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
  }
  const data = (list as string[]).map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" }));
  return send(200, { object: "list", data });
}

/**
 * What the real API refuses by a served model's own figures: a max_tokens above its
 * max_tokens, a thinking type its capabilities say it does not take. Models the fake does not
 * list (or lists without those fields) pass, as before.
 */
export function servedModelRefusal(body: unknown, served: ServedModels | undefined): string | undefined {
  if (!isObj(body) || typeof body["model"] !== "string") return undefined;
  const m = served?.anthropic?.find((x) => x.id === body["model"]);
  if (!m) return undefined;
  const max = body["max_tokens"];
  if (typeof m.max_tokens === "number" && typeof max === "number" && max > m.max_tokens) {
    return `max_tokens: ${max} > ${m.max_tokens}, which is the maximum allowed number of output tokens for ${m.id}`;
  }
  const thinking = body["thinking"];
  const type = isObj(thinking) ? thinking["type"] : undefined;
  const caps = isObj(m.capabilities) ? m.capabilities : undefined;
  const types = caps && isObj(caps["thinking"]) && isObj(caps["thinking"]["types"]) ? caps["thinking"]["types"] : undefined;
  if (typeof type === "string" && types && isObj(types[type]) && types[type]["supported"] === false) {
    return `thinking.type: '${type}' is not supported on ${m.id}`;
  }
  return undefined;
}
