// A strict fake of both provider APIs over real loopback HTTP.
//
// It rejects what the real APIs reject (missing headers, empty content, unpaired tool calls,
// bad names…) with the real status codes and error texts (the pairing rules are in
// docs/providers.md, The live round): a fake that accepts everything would prove nothing
// about the requests we build. Each accepted request consumes one scripted Step, rendered in
// the shape of the endpoint that was hit. Rejected requests consume no step: they are the
// client's bug, not the script's.
//
// Standalone: node --import tsx test/helpers/fake-provider.ts --port N --script steps.json
//             [--key K] [--repeat] [--cache]   (prints its URL on stdout)
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo, Socket } from "node:net";
import { pathToFileURL } from "node:url";
import { anthropicImageRefusal, serveModels, servedModelRefusal, type ServedModels } from "./fake-images-models.js";
import { anthropicThinkingRefusal } from "./fake-thinking.js";
import { FakeCache, type AnthropicCacheUsage, type OpenAICacheUsage } from "./fake-cache.js";
import { localFrames, localRefusal, type LocalOptions, type LocalServer } from "./fake-local-servers.js";
import { serveResponses, type ResponsesFakeOptions } from "./fake-responses.js";
import { illFormedAt, imageRefusal, surrogateRefusal } from "./fake-strict-body.js";

export type Shape = "anthropic" | "openai";

export interface TextStep {
  text: string;
  reasoning?: string;
  signature?: string;
  /** the reasoning's opaque body, about this many bytes: Anthropic's signature, Responses'
   * encrypted_content (sent when the request asks for it) */
  opaqueBytes?: number;
  delayMs?: number;
  wordsPerEvent?: number;
  usage?: { input: number; output: number };
  /** OpenAI shape: which field carries reasoning (servers disagree); default reasoning_content */
  reasoningField?: "reasoning_content" | "reasoning" | "reasoning_text";
  /** why the answer ends, in the endpoint's own word: Anthropic's stop_reason, Chat's
   * finish_reason, or the Responses API's incomplete reason (then the response is incomplete) */
  stop?: string;
}

export interface ToolStep {
  /** rawArguments: sent verbatim instead of JSON.stringify(input), e.g. to send invalid JSON */
  toolCalls: { name: string; input: unknown; id?: string; rawArguments?: string }[];
  text?: string;
  reasoning?: string;
  signature?: string;
  /** as TextStep's */
  opaqueBytes?: number;
  delayMs?: number;
  usage?: { input: number; output: number };
  reasoningField?: "reasoning_content" | "reasoning" | "reasoning_text";
  /** as TextStep's */
  stop?: string;
  /** OpenAI shape: "streamed" (real OpenAI), "whole" (one chunk per call), "repeat_ids"
   * (id and name on every fragment, as some compatible servers do) */
  toolCallStyle?: "streamed" | "whole" | "repeat_ids";
}

export interface ErrorStep {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Fault =
  | "reset_before"
  | "reset_mid"
  | "no_final"
  | "malformed_json"
  | "unknown_event"
  | "drip"
  | "hang_after_text"
  /** some text, then the provider's in-stream error (Anthropic `error` event, OpenAI error chunk) */
  | "error_event"
  /** some text, then ONE text delta whose data line holds `bytes` of text (default 100 MB),
   * made as it is sent: the fake never holds it */
  | "huge_event"
  /** some text, then small text deltas without end, until the client hangs up */
  | "endless_text"
  /** some text, then a "write" tool call whose content argument is `bytes` long (default
   * 50 MB), streamed in 64 KB input deltas as a real server would */
  | "huge_tool_input"
  /** the stream opens, then only keep-alive pings every `pingEveryMs` (event: ping, ":"
   * comments, empty deltas), without end */
  | "pings_only"
  /** the stream opens, then keep-alive pings and empty events as fast as the client reads
   * them, without end */
  | "ping_flood"
  /** the text: its first content event at once, then one every `contentEveryMs`, with
   * keep-alive pings every `pingEveryMs` in between */
  | "slow_content"
  /** the text, then a "write" tool call whose input pauses after its first key for
   * `contentEveryMs` with keep-alive pings every `pingEveryMs` (Anthropic sends a tool's
   * input one whole key at a time and pings while it writes a long value), then ends */
  | "paused_tool_input"
  /** HTTP 400 whose JSON error body is `bytes` long (default 100 MB) */
  | "huge_error_body";

export interface FaultStep {
  fault: Fault;
  text?: string;
  /** huge_event, huge_tool_input, huge_error_body: the size of the huge part in bytes */
  bytes?: number;
  /** pings_only, slow_content: time between keep-alive pings (default 1000 ms) */
  pingEveryMs?: number;
  /** slow_content: time between content events (default 1000 ms) */
  contentEveryMs?: number;
  /** error_event: the error's message (default the provider's own overload sentence) */
  message?: string;
}

/** What the fake sent for one fault step: whether it got to the end, or the client hung up. */
export interface FaultRecord {
  fault: Fault;
  /** bytes of the body written */
  bytes: number;
  /** true when the whole scripted body was written */
  completed: boolean;
}

export type Step = TextStep | ToolStep | ErrorStep | FaultStep;

export interface RecordedRequest {
  /** "responses": OpenAI's Responses endpoint (test/helpers/fake-responses.ts) */
  shape: Shape | "responses";
  headers: Record<string, string | string[] | undefined>;
  body: any;
  rawBody: string;
  /** the error text, when the fake refused the request */
  rejected?: string;
}

export interface FakeProvider {
  url: string;
  anthropicBase: string;
  openaiBase: string;
  key: string | undefined;
  requests: RecordedRequest[];
  /** every POST /v1/messages/count_tokens, apart from the Messages requests */
  counts: RecordedRequest[];
  /** one entry per fault step rendered, filled in as it is sent */
  faults: FaultRecord[];
  rejections(): string[];
  /** the prompt-cache simulation, when started with `cache` (test/helpers/fake-cache.ts) */
  cache: FakeCache | undefined;
  script(...steps: Step[]): void;
  close(): Promise<void>;
}

export interface FakeOptions {
  /** the key requests must carry; undefined: Anthropic takes any x-api-key, OpenAI no auth */
  key?: string;
  port?: number;
  /** what GET /v1/models answers (test/helpers/fake-images-models.ts); absent: 404 */
  models?: ServedModels;
  /** replay the whole script again whenever it runs out (benchmarks) */
  repeat?: boolean;
  /** told the moment a request's headers arrive, before its body is read (bench/fake-server.ts
   * timestamps Enter → request at the provider with it) */
  onRequest?: (req: http.IncomingMessage) => void;
  /** simulate prompt caching: usage then reports cache reads and writes (test/helpers/fake-cache.ts) */
  cache?: FakeCache;
  /** how the Responses endpoint departs from OpenAI's own (test/helpers/fake-responses.ts) */
  responses?: ResponsesFakeOptions;
  /** a step chosen by the request itself, ahead of the script (bench/cache.ts answers each
   * summary request so, wherever compaction puts it); undefined: the script's next step */
  respond?: (shape: Shape, body: unknown) => Step | undefined;
  /** the Chat endpoint behaves like a local server: its refusals and stream quirks (test/helpers/fake-local-servers.ts) */
  local?: LocalServer | LocalOptions;
  /** refuse a request longer than this many tokens, in each API's words, as the real ones
   * refuse a prompt over the model's window; the fake counts the body's characters / 4 */
  contextWindow?: number;
  /** told when the answer to a request has ended (or the request was refused): a test that
   * sends megabytes can look at the body then and let it go */
  onBody?: (rec: RecordedRequest) => void;
}

/** The fake's token count of a request body (FakeOptions.contextWindow). */
export function fakeTokens(rawBody: string): number {
  return Math.ceil(rawBody.length / 4);
}

/** What each API answers a prompt over the window, as the real ones word it. */
function tooLongRefusal(shape: Shape | "responses", tokens: number, window: number): { status: number; body: unknown } {
  switch (shape) {
    case "anthropic":
      return { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: `prompt is too long: ${tokens} tokens > ${window} maximum` }, request_id: "req_fake" } };
    case "openai":
      return {
        status: 400,
        body: {
          error: {
            message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        },
      };
    case "responses":
      return {
        status: 400,
        body: { error: { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: "invalid_request_error", param: "input", code: "context_length_exceeded" } },
      };
    default: {
      const never: never = shape;
      throw new Error(`unknown shape ${String(never)}`);
    }
  }
}

interface Rejection {
  status: number;
  type: string;
  message: string;
  param?: string | null;
  code?: string | null;
}

const ANTHROPIC_TAGS = ["text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking", "document"];
const MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const DEFAULT_FAULT_TEXT = "This is the partial answer that was streaming when things went wrong.";

export async function startFakeProvider(opts: FakeOptions = {}): Promise<FakeProvider> {
  const key = opts.key;
  const requests: RecordedRequest[] = [];
  const counts: RecordedRequest[] = [];
  const faults: FaultRecord[] = [];
  const queue: Step[] = [];
  let lastScript: Step[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;
  const nextId = (): number => ++counter;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`fake provider crashed: ${String(err)}`);
      } else res.destroy();
    });
  });

  /** Refuses a request over the window (FakeOptions.contextWindow); true when it did. */
  function tooLong(rec: RecordedRequest, res: http.ServerResponse, shape: Shape | "responses"): boolean {
    if (opts.contextWindow === undefined) return false;
    const tokens = fakeTokens(rec.rawBody);
    if (tokens <= opts.contextWindow) return false;
    const r = tooLongRefusal(shape, tokens, opts.contextWindow);
    const b = r.body as { error: { message: string } };
    rec.rejected = b.error.message;
    sendJson(res, r.status, r.body);
    return true;
  }

  /** A lone surrogate or an undecodable image, refused as the real APIs refuse them. */
  function strictRefused(rec: RecordedRequest, res: http.ServerResponse, shape: Shape | "responses"): boolean {
    const at = illFormedAt(rec.body);
    const r = at !== undefined ? surrogateRefusal(shape, at) : imageRefusal(shape, rec.body);
    if (!r) return false;
    rec.rejected = r.message;
    sendJson(res, r.status, r.body);
    return true;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    opts.onRequest?.(req);
    const url = new URL(req.url ?? "/", "http://fake");
    if (req.method === "GET" && url.pathname === "/v1/models") return serveModels(req, res, opts.models, key);
    if (req.method === "POST" && url.pathname === "/v1/messages/count_tokens") {
      const raw = await readBody(req);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = undefined;
      }
      const rec: RecordedRequest = { shape: "anthropic", headers: { ...req.headers }, body: parsed, rawBody: raw };
      counts.push(rec);
      const refused = validateCount(req.headers, parsed, key);
      if (refused) {
        rec.rejected = refused.message;
        return sendJson(res, refused.status, errorBody("anthropic", refused));
      }
      return sendJson(res, 200, { input_tokens: fakeCountTokens(parsed) });
    }
    const shape: Shape | undefined =
      req.method === "POST" && url.pathname === "/v1/messages"
        ? "anthropic"
        : req.method === "POST" && url.pathname === "/v1/chat/completions"
          ? "openai"
          : undefined;
    const rawBody = await readBody(req);
    if (req.method === "POST" && url.pathname === "/v1/responses") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        parsed = undefined;
      }
      const rec: RecordedRequest = { shape: "responses", headers: { ...req.headers }, body: parsed, rawBody };
      requests.push(rec);
      if (opts.onBody) res.on("close", () => opts.onBody?.(rec));
      if (strictRefused(rec, res, "responses")) return;
      if (tooLong(rec, res, "responses")) return;
      const next = (): Step => {
        if (queue.length === 0 && opts.repeat && lastScript.length > 0) queue.push(...lastScript);
        return queue.shift() ?? { text: "ok" };
      };
      await serveResponses({ rec, req, res, key, next, timers, nextId, cache: opts.cache, ...(opts.responses ? { options: opts.responses } : {}) });
      return;
    }
    if (!shape) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route for ${req.method} ${url.pathname}`, type: "not_found" } }));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const rec: RecordedRequest = { shape, headers: { ...req.headers }, body, rawBody };
    requests.push(rec);
    if (opts.onBody) res.on("close", () => opts.onBody?.(rec));
    if (strictRefused(rec, res, shape)) return;
    const byModel = shape === "anthropic" ? servedModelRefusal(body, opts.models) : undefined;
    const rejection =
      shape === "anthropic"
        ? (validateAnthropic(req.headers, body, key) ?? (byModel ? { status: 400, type: "invalid_request_error", message: byModel } : undefined))
        : validateOpenAI(req.headers, body, key);
    if (rejection) {
      rec.rejected = rejection.message;
      sendJson(res, rejection.status, errorBody(shape, rejection));
      return;
    }
    if (tooLong(rec, res, shape)) return;
    const localRefused = shape === "openai" && opts.local ? localRefusal(opts.local, body as Record<string, unknown>) : undefined;
    if (localRefused) {
      rec.rejected = localRefused.message;
      sendJson(res, localRefused.status, localRefused.body);
      return;
    }
    const chosen = opts.respond?.(shape, body);
    if (!chosen && queue.length === 0 && opts.repeat && lastScript.length > 0) queue.push(...lastScript);
    const step = chosen ?? queue.shift() ?? { text: "ok" };
    const ctx: RenderCtx = { shape, body: body as Record<string, unknown>, rawBody, req, res, timers, nextId, faults };
    if (shape === "openai" && opts.local) ctx.local = opts.local;
    // a refused request (an error step) is not processed, so it caches nothing
    if (opts.cache && !isError(step)) {
      if (shape === "anthropic") {
        const r = opts.cache.anthropic(ctx.body);
        if ("error" in r) {
          if (!chosen) queue.unshift(step);
          rec.rejected = r.error;
          sendJson(res, 400, errorBody(shape, invalid(r.error)));
          return;
        }
        ctx.anthropicCache = r.usage;
      } else ctx.openaiCache = opts.cache.openai(ctx.body);
    }
    await render(ctx, step);
  }

  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    anthropicBase: url,
    openaiBase: `${url}/v1`,
    key,
    requests,
    counts,
    faults,
    rejections: () => requests.filter((r) => r.rejected !== undefined).map((r) => r.rejected as string),
    cache: opts.cache,
    script: (...steps: Step[]) => {
      queue.push(...steps);
      lastScript = [...steps];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

function errorBody(shape: Shape, r: Rejection): unknown {
  if (shape === "anthropic") {
    return { type: "error", error: { type: r.type, message: r.message }, request_id: "req_fake" };
  }
  return { error: { message: r.message, type: r.type, param: r.param ?? null, code: r.code ?? null } };
}

// ------------------------------------------------------------------ validation: Anthropic

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const header = (h: http.IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The one API version albedo-tui speaks, and the fake takes (docs/providers.md, API version). */
export const ANTHROPIC_API_VERSION = "2023-06-01";

function invalid(message: string): Rejection {
  return { status: 400, type: "invalid_request_error", message };
}

/**
 * The fake's own exact count (count_tokens): 3 for the request, then one per word (a run of
 * non-space characters) of every string in system, messages and tools, and one per message
 * and per tool. Not the real tokenizer: a rule of its own, so a test can tell its figures
 * from any estimate.
 */
export function fakeCountTokens(body: unknown): number {
  if (!isObj(body)) return 0;
  const words = (v: unknown): number => {
    if (typeof v === "string") return v.split(/\s+/).filter(Boolean).length;
    if (Array.isArray(v)) return v.reduce((n: number, x) => n + words(x), 0);
    if (isObj(v)) return Object.entries(v).reduce((n, [k, x]) => n + (k === "type" ? 0 : words(x)), 0);
    return 0;
  };
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  return 3 + words(body["system"]) + words(body["messages"]) + list(body["messages"]).length + words(body["tools"]) + list(body["tools"]).length;
}

/** count_tokens takes what Messages takes, less max_tokens and stream (it refuses them). */
function validateCount(h: http.IncomingHttpHeaders, body: unknown, key: string | undefined): Rejection | undefined {
  if (!isObj(body)) return invalid("There was an error parsing the body of your request: it is not a JSON object");
  for (const k of ["max_tokens", "stream", "metadata", "stop_sequences"]) if (k in body) return invalid(`${k}: Extra inputs are not permitted`);
  // the rest as a Messages request would be checked, with the fields it needs filled in
  return validateAnthropic(h, { ...body, max_tokens: 1 }, key);
}

function validateAnthropic(h: http.IncomingHttpHeaders, body: unknown, key: string | undefined): Rejection | undefined {
  const apiKey = header(h, "x-api-key");
  if (!apiKey) return { status: 401, type: "authentication_error", message: "x-api-key header is required" };
  if (key !== undefined && apiKey !== key) return { status: 401, type: "authentication_error", message: "invalid x-api-key" };
  const version = header(h, "anthropic-version");
  if (!version) return invalid("anthropic-version: header is required");
  // albedo-tui sends 2023-06-01 (docs/providers.md, API version); the fake holds it to that
  if (version !== ANTHROPIC_API_VERSION) return invalid(`anthropic-version: expected '${ANTHROPIC_API_VERSION}' (docs/providers.md, API version), got '${version}'`);
  if (!isObj(body)) return invalid("There was an error parsing the body of your request: it is not a JSON object");

  if (typeof body["model"] !== "string" || body["model"] === "") return invalid("model: Field required");
  const maxTokens = body["max_tokens"];
  if (maxTokens === undefined) return invalid("max_tokens: Field required");
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens)) return invalid("max_tokens: Input should be a valid integer");
  if (maxTokens < 1) return invalid("max_tokens: Input should be greater than or equal to 1");

  const sys = body["system"];
  if (sys !== undefined && typeof sys !== "string") {
    if (!Array.isArray(sys)) return invalid("system: Input should be a valid string or a list of text blocks");
    for (const [i, b] of sys.entries()) {
      if (!isObj(b) || b["type"] !== "text" || typeof b["text"] !== "string") return invalid(`system.${i}: Input should be a text block`);
      if (b["text"] === "") return invalid(`system.${i}.text: text content blocks must be non-empty`);
    }
  }

  const tools = body["tools"];
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return invalid("tools: Input should be a valid list");
    const names = new Set<string>();
    for (const [i, t] of tools.entries()) {
      if (!isObj(t) || typeof t["name"] !== "string") return invalid(`tools.${i}.custom.name: Field required`);
      if (!TOOL_NAME.test(t["name"])) return invalid(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      const schema = t["input_schema"];
      if (!isObj(schema)) return invalid(`tools.${i}.custom.input_schema: Field required`);
      if (schema["type"] !== "object") return invalid(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
      if (names.has(t["name"])) return invalid("tools: Tool names must be unique.");
      names.add(t["name"]);
    }
  }

  const thinking = body["thinking"];
  if (thinking !== undefined) {
    if (!isObj(thinking)) return invalid("thinking: Input should be an object");
    switch (thinking["type"]) {
      case "enabled": {
        const b = thinking["budget_tokens"];
        if (typeof b !== "number" || !Number.isInteger(b)) return invalid("thinking.enabled.budget_tokens: Field required");
        if (b < 1024) return invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
        if (b >= maxTokens) {
          return invalid(
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
          );
        }
        if (/opus-4-[78]/.test(body["model"])) return invalid(`"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`);
        break;
      }
      case "adaptive":
      case "disabled":
        break;
      default:
        return invalid(
          `thinking: Input tag '${String(thinking["type"])}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`,
        );
    }
  }
  const oc = body["output_config"];
  if (oc !== undefined) {
    if (!isObj(oc)) return invalid("output_config: Input should be an object");
    const effort = oc["effort"];
    if (effort !== undefined && !["low", "medium", "high", "xhigh", "max"].includes(String(effort))) {
      return invalid("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
    }
  }

  const messages = body["messages"];
  if (messages === undefined) return invalid("messages: Field required");
  if (!Array.isArray(messages)) return invalid("messages: Input should be a valid list");
  if (messages.length === 0) return invalid("messages: at least one message is required");

  interface Turn {
    role: string;
    first: number;
    toolUses: { id: string; msg: number }[];
    toolResults: { id: string; msg: number; block: number }[];
  }
  const turns: Turn[] = [];
  for (const [i, m] of messages.entries()) {
    if (!isObj(m)) return invalid(`messages.${i}: Input should be an object`);
    const role = m["role"];
    if (role !== "user" && role !== "assistant") return invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const isFinalAssistant = i === messages.length - 1 && role === "assistant";
    const content = m["content"];
    const empty = `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    let blocks: unknown[];
    if (typeof content === "string") {
      if (content === "" && !isFinalAssistant) return invalid(empty);
      blocks = content === "" ? [] : [{ type: "text", text: content }];
    } else if (Array.isArray(content)) {
      if (content.length === 0 && !isFinalAssistant) return invalid(empty);
      blocks = content;
    } else return invalid(`messages.${i}.content: Field required`);

    // consecutive same-role messages are merged into one turn, as the API documents
    let turn = turns[turns.length - 1];
    if (!turn || turn.role !== role) {
      turn = { role, first: i, toolUses: [], toolResults: [] };
      turns.push(turn);
    }
    for (const [j, b] of blocks.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (!isObj(b) || typeof b["type"] !== "string") return invalid(`${at}: Input should be a valid content block`);
      const type = b["type"];
      switch (type) {
        case "text":
          if (typeof b["text"] !== "string") return invalid(`${at}.text.text: Field required`);
          if (b["text"] === "") return invalid(`${at}.text: text content blocks must be non-empty`);
          if (b["text"].trim() === "") return invalid(`${at}.text: text content blocks must contain non-whitespace text`);
          break;
        case "image": {
          const src = b["source"];
          if (!isObj(src)) return invalid(`${at}.image.source: Field required`);
          if (src["type"] !== "base64") return invalid(`${at}.image.source: only base64 sources are supported by this fake`);
          if (!MEDIA_TYPES.includes(String(src["media_type"]))) {
            return invalid(`${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
          }
          if (typeof src["data"] !== "string" || src["data"] === "" || src["data"].startsWith("data:")) {
            return invalid(`${at}.image.source.base64.data: Input should be raw base64 data`);
          }
          break;
        }
        case "tool_use": {
          if (role !== "assistant") return invalid(`${at}: tool_use blocks are only allowed in assistant messages`);
          const id = b["id"];
          if (typeof id !== "string") return invalid(`${at}.tool_use.id: Field required`);
          if (!TOOL_ID.test(id)) return invalid(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
          if (typeof b["name"] !== "string" || !TOOL_NAME.test(b["name"])) {
            return invalid(`${at}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
          }
          if (!isObj(b["input"])) return invalid(`${at}.tool_use.input: Input should be a valid dictionary`);
          turn.toolUses.push({ id, msg: i });
          break;
        }
        case "tool_result": {
          if (role !== "user") return invalid(`${at}: tool_result blocks are only allowed in user messages`);
          const id = b["tool_use_id"];
          if (typeof id !== "string") return invalid(`${at}.tool_result.tool_use_id: Field required`);
          const c = b["content"];
          if (c !== undefined && typeof c !== "string" && !Array.isArray(c)) {
            return invalid(`${at}.tool_result.content: Input should be a valid string or list`);
          }
          if (b["is_error"] !== undefined && typeof b["is_error"] !== "boolean") {
            return invalid(`${at}.tool_result.is_error: Input should be a valid boolean`);
          }
          turn.toolResults.push({ id, msg: i, block: j });
          break;
        }
        case "thinking":
          if (role !== "assistant") return invalid(`${at}: thinking blocks are only allowed in assistant messages`);
          if (typeof b["thinking"] !== "string") return invalid(`${at}.thinking.thinking: Field required`);
          if (typeof b["signature"] !== "string" || b["signature"] === "") return invalid(`${at}.thinking.signature: Field required`);
          break;
        case "redacted_thinking":
          if (role !== "assistant") return invalid(`${at}: redacted_thinking blocks are only allowed in assistant messages`);
          if (typeof b["data"] !== "string") return invalid(`${at}.redacted_thinking.data: Field required`);
          break;
        default:
          return invalid(
            `${at}: Input tag '${type}' found using 'type' does not match any of the expected tags: ${ANTHROPIC_TAGS.map((t) => `'${t}'`).join(", ")}`,
          );
      }
    }
  }
  if (turns[0]?.role !== "user") return invalid('messages: first message must use the "user" role');

  // tool_use ↔ tool_result pairing, turn by turn (docs/providers.md, The live round)
  for (const [t, turn] of turns.entries()) {
    if (turn.role === "assistant" && turn.toolUses.length > 0) {
      const next = turns[t + 1];
      const answered = new Set(next?.role === "user" ? next.toolResults.map((r) => r.id) : []);
      const missing = turn.toolUses.filter((u) => !answered.has(u.id)).map((u) => u.id);
      if (missing.length > 0) {
        return invalid(
          `messages.${turn.toolUses[0]!.msg}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
    if (turn.role === "user" && turn.toolResults.length > 0) {
      const prev = turns[t - 1];
      const asked = new Set(prev?.role === "assistant" ? prev.toolUses.map((u) => u.id) : []);
      const orphan = turn.toolResults.find((r) => !asked.has(r.id));
      if (orphan) {
        return invalid(
          `messages.${orphan.msg}.content.${orphan.block}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphan.id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
  }
  // thinking refused by models from before it (test/helpers/fake-thinking.ts)
  const thinkingRefused = anthropicThinkingRefusal(body);
  if (thinkingRefused) return invalid(thinkingRefused);
  // the images' limits, in the real API's words (test/helpers/fake-images-models.ts)
  const images = anthropicImageRefusal(body);
  if (images) return invalid(images);
  return undefined;
}

// ------------------------------------------------------------------ validation: OpenAI

function oaInvalid(message: string, param: string | null = null, code: string | null = null): Rejection {
  return { status: 400, type: "invalid_request_error", message, param, code };
}

function maskKey(k: string): string {
  if (k.length <= 8) return "*".repeat(k.length);
  return `${k.slice(0, 3)}${"*".repeat(Math.max(4, k.length - 7))}${k.slice(-4)}`;
}

function validateOpenAI(h: http.IncomingHttpHeaders, body: unknown, key: string | undefined): Rejection | undefined {
  if (key !== undefined) {
    const auth = header(h, "authorization");
    if (!auth || !auth.startsWith("Bearer ")) {
      return {
        status: 401,
        type: "invalid_request_error",
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
        param: null,
        code: null,
      };
    }
    const given = auth.slice("Bearer ".length);
    if (given !== key) {
      return {
        status: 401,
        type: "invalid_request_error",
        message: `Incorrect API key provided: ${maskKey(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        param: null,
        code: "invalid_api_key",
      };
    }
  }
  if (!isObj(body)) {
    return oaInvalid(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
    );
  }
  const model = body["model"];
  if (typeof model !== "string" || model === "") return oaInvalid("you must provide a model parameter");
  if (body["max_tokens"] !== undefined && /^(o\d|gpt-5)/.test(model)) {
    return oaInvalid(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "max_tokens",
      "unsupported_parameter",
    );
  }
  if (body["stream_options"] !== undefined && body["stream"] !== true) {
    return oaInvalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");
  }

  const tools = body["tools"];
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return oaInvalid("Invalid type for 'tools': expected an array.", "tools");
    for (const [i, t] of tools.entries()) {
      if (!isObj(t) || t["type"] !== "function" || !isObj(t["function"])) {
        return oaInvalid(`Missing required parameter: 'tools[${i}].function'.`, `tools[${i}].function`);
      }
      const name = t["function"]["name"];
      if (typeof name !== "string" || !TOOL_NAME.test(name)) {
        return oaInvalid(
          `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].function.name`,
          "invalid_value",
        );
      }
    }
  }

  const messages = body["messages"];
  if (messages === undefined) return oaInvalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  if (!Array.isArray(messages)) return oaInvalid("Invalid type for 'messages': expected an array.", "messages");
  if (messages.length === 0) {
    return oaInvalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "messages",
      "empty_array",
    );
  }

  // ids of the latest assistant tool_calls, and which are still waiting for a tool message
  let group: { at: number; ids: Set<string> } | undefined;
  let pending = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (!isObj(m)) return oaInvalid(`Invalid type for 'messages[${i}]': expected an object.`, `messages[${i}]`);
    const role = m["role"];
    if (!["system", "developer", "user", "assistant", "tool", "function"].includes(String(role))) {
      return oaInvalid(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        "invalid_value",
      );
    }
    if (pending.size > 0 && role !== "tool") {
      return oaInvalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
        `messages.[${group?.at ?? i}].role`,
      );
    }
    const content = m["content"];
    switch (role) {
      case "system":
      case "developer":
        if (typeof content !== "string" && !Array.isArray(content)) {
          return oaInvalid(`Missing required parameter: 'messages[${i}].content'.`, `messages[${i}].content`);
        }
        group = undefined;
        break;
      case "user": {
        const bad = checkUserContent(content, i);
        if (bad) return bad;
        group = undefined;
        break;
      }
      case "assistant": {
        const calls = m["tool_calls"];
        if (calls === undefined || calls === null) {
          if (content === undefined || content === null) {
            return oaInvalid(`Invalid value for 'content': expected a string, got null.`, `messages.[${i}].content`);
          }
          group = undefined;
          break;
        }
        if (!Array.isArray(calls) || calls.length === 0) {
          return oaInvalid(
            `Invalid 'messages[${i}].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
            `messages[${i}].tool_calls`,
            "empty_array",
          );
        }
        const ids = new Set<string>();
        for (const [j, c] of calls.entries()) {
          const at = `messages[${i}].tool_calls[${j}]`;
          if (!isObj(c) || typeof c["id"] !== "string") return oaInvalid(`Missing required parameter: '${at}.id'.`, `${at}.id`);
          if (c["type"] !== "function") return oaInvalid(`Missing required parameter: '${at}.type'.`, `${at}.type`);
          const fn = c["function"];
          if (!isObj(fn) || typeof fn["name"] !== "string") return oaInvalid(`Missing required parameter: '${at}.function'.`, `${at}.function`);
          if (typeof fn["arguments"] !== "string") {
            return oaInvalid(
              `Invalid type for '${at}.function.arguments': expected a string, but got ${typeName(fn["arguments"])} instead.`,
              `${at}.function.arguments`,
              "invalid_type",
            );
          }
          ids.add(c["id"]);
        }
        group = { at: i, ids };
        pending = new Set(ids);
        break;
      }
      case "tool": {
        const id = m["tool_call_id"];
        if (typeof id !== "string") return oaInvalid(`Missing required parameter: 'messages[${i}].tool_call_id'.`, `messages[${i}].tool_call_id`);
        if (typeof content !== "string" && !Array.isArray(content)) {
          return oaInvalid(`Missing required parameter: 'messages[${i}].content'.`, `messages[${i}].content`);
        }
        if (!group) {
          return oaInvalid(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            `messages.[${i}].role`,
          );
        }
        if (!group.ids.has(id)) {
          return oaInvalid(`Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`, `messages.[${i}].tool_call_id`);
        }
        pending.delete(id);
        break;
      }
      default:
        return oaInvalid(`the fake does not implement role '${String(role)}'`, `messages[${i}].role`);
    }
  }
  if (pending.size > 0) {
    return oaInvalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
      `messages.[${group?.at ?? 0}].role`,
    );
  }
  return undefined;
}

function typeName(x: unknown): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return "an array";
  return typeof x === "object" ? "an object" : `a ${typeof x}`;
}

function checkUserContent(content: unknown, i: number): Rejection | undefined {
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content)) return oaInvalid(`Missing required parameter: 'messages[${i}].content'.`, `messages[${i}].content`);
  for (const [j, p] of content.entries()) {
    const at = `messages[${i}].content[${j}]`;
    if (!isObj(p)) return oaInvalid(`Invalid type for '${at}': expected an object.`, at);
    if (p["type"] === "text") {
      if (typeof p["text"] !== "string") return oaInvalid(`Missing required parameter: '${at}.text'.`, `${at}.text`);
    } else if (p["type"] === "image_url") {
      const iu = p["image_url"];
      const u = isObj(iu) ? iu["url"] : undefined;
      if (typeof u !== "string") return oaInvalid(`Missing required parameter: '${at}.image_url.url'.`, `${at}.image_url.url`);
      if (!/^https?:\/\//.test(u) && !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(u)) {
        return oaInvalid(
          `Invalid '${at}.image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.`,
          `${at}.image_url.url`,
          "invalid_value",
        );
      }
    } else {
      return oaInvalid(
        `Invalid value: '${String(p["type"])}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', and 'file'.`,
        `${at}.type`,
        "invalid_value",
      );
    }
  }
  return undefined;
}

// ------------------------------------------------------------------ rendering

interface RenderCtx {
  shape: Shape;
  body: Record<string, unknown>;
  rawBody: string;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  timers: Set<NodeJS.Timeout>;
  nextId(): number;
  faults: FaultRecord[];
  /** the cache simulation's figures for this request, when it runs */
  anthropicCache?: AnthropicCacheUsage;
  openaiCache?: OpenAICacheUsage;
  /** the local server the Chat endpoint behaves like */
  local?: LocalServer | LocalOptions;
}

function isError(s: Step): s is ErrorStep {
  return "status" in s;
}
function isFault(s: Step): s is FaultStep {
  return "fault" in s;
}
function isTools(s: Step): s is ToolStep {
  return "toolCalls" in s;
}

async function render(ctx: RenderCtx, step: Step): Promise<void> {
  if (isError(step)) {
    const body = step.body ?? defaultErrorBody(ctx.shape, step.status);
    sendJson(ctx.res, step.status, body, step.headers ?? {});
    return;
  }
  if (ctx.shape === "anthropic" && ctx.body["stream"] !== true) {
    sendJson(ctx.res, 400, errorBody("anthropic", invalid("the fake provider implements only stream: true")));
    return;
  }
  if (ctx.shape === "openai" && ctx.body["stream"] !== true) {
    sendJson(ctx.res, 400, errorBody("openai", oaInvalid("the fake provider implements only stream: true")));
    return;
  }
  if (isFault(step)) return renderFault(ctx, step);
  const frames = ctx.shape === "anthropic" ? anthropicFrames(ctx, step) : ctx.local ? localFrames(ctx.local, ctx.body, openaiFrames(ctx, step)) : openaiFrames(ctx, step);
  const out = new Out(ctx);
  out.head();
  for (const f of frames) {
    if (out.gone) return;
    out.write(f);
    const delay = step.delayMs ?? 0;
    if (delay > 0) await out.sleep(delay);
  }
  out.end();
}

async function renderFault(ctx: RenderCtx, step: FaultStep): Promise<void> {
  const text = step.text ?? DEFAULT_FAULT_TEXT;
  const reply: TextStep = { text };
  const all = ctx.shape === "anthropic" ? anthropicFrames(ctx, reply) : openaiFrames(ctx, reply);
  // the frames that carry the start of the answer, without any closing frame
  const opening = all.filter((f) => !isClosing(ctx.shape, f));
  const out = new Out(ctx);
  switch (step.fault) {
    case "reset_before":
      resetSocket(ctx.req.socket);
      return;
    case "reset_mid":
      out.head();
      for (const f of opening) out.write(f);
      // let the client read what was sent before the reset discards the socket
      await out.sleep(150);
      resetSocket(ctx.req.socket);
      return;
    case "no_final":
      out.head();
      for (const f of opening) out.write(f);
      out.end();
      return;
    case "malformed_json":
      out.head();
      for (const f of opening.slice(0, Math.min(opening.length, 4))) out.write(f);
      out.write(
        ctx.shape === "anthropic"
          ? 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut off\n\n'
          : 'data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"cut off\n\n',
      );
      out.end();
      return;
    case "unknown_event": {
      out.head();
      const mystery =
        ctx.shape === "anthropic"
          ? sse("albedo_mystery", { type: "albedo_mystery", note: "an event type this client has never seen" })
          : sse(undefined, { object: "albedo.mystery", note: "a chunk this client has never seen" });
      all.splice(1, 0, mystery);
      for (const f of all) out.write(f);
      out.end();
      return;
    }
    case "drip": {
      out.head();
      const bytes = Buffer.from(all.join(""), "utf8");
      let i = 0;
      const tick = (): void => {
        if (out.gone) return;
        if (i >= bytes.length) return out.end();
        ctx.res.write(bytes.subarray(i, i + 1));
        i++;
        out.later(tick, 1000);
      };
      tick();
      return;
    }
    case "error_event":
      out.head();
      for (const f of opening) out.write(f);
      out.write(
        ctx.shape === "anthropic"
          ? sse("error", { type: "error", error: { type: "overloaded_error", message: step.message ?? "Overloaded" } })
          : sse(undefined, { error: { message: step.message ?? "The server had an error while processing your request.", type: "server_error", param: null, code: null } }),
      );
      out.end();
      return;
    case "hang_after_text":
      out.head();
      for (const f of opening) out.write(f);
      // stays open and silent until the client goes away or the fake is closed
      return;
    case "huge_event":
    case "endless_text":
    case "huge_tool_input":
    case "paused_tool_input":
    case "pings_only":
    case "ping_flood":
    case "slow_content":
    case "huge_error_body":
      return renderBigFault(ctx, step, all, opening, out);
    default:
      return assertNeverFault(step.fault);
  }
}

const MB = 1024 * 1024;
/** 64 KB of plain words, safe inside a JSON string: the filler of the huge faults */
const FILLER = "lorem ipsum dolor sit amet ".repeat(Math.ceil(65536 / 27)).slice(0, 65536);

/** `bytes` of filler in pieces of at most 64 KB, made one at a time. */
function* filler(bytes: number): Generator<string> {
  for (let left = bytes; left > 0; left -= FILLER.length) yield left >= FILLER.length ? FILLER : FILLER.slice(0, left);
}

/** The faults that send much (or send for long): written with backpressure, never built whole. */
async function renderBigFault(ctx: RenderCtx, step: FaultStep, all: string[], opening: string[], out: Out): Promise<void> {
  const rec: FaultRecord = { fault: step.fault, bytes: 0, completed: false };
  ctx.faults.push(rec);
  out.onWrite = (n) => (rec.bytes += n);
  const anthropic = ctx.shape === "anthropic";
  const closing = all.filter((f) => isClosing(ctx.shape, f));
  const id = `chatcmpl-fake${ctx.nextId()}`;
  const oaChunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sse(undefined, { id, object: "chat.completion.chunk", created: 0, model: ctx.body["model"], choices: [{ index: 0, delta, finish_reason: finish }] });
  const textDelta = (text: string): string =>
    anthropic
      ? sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })
      : oaChunk({ content: text });
  // the kinds of keep-alive each provider (or a proxy in front of it) sends, in turn
  const pingKinds = anthropic
    ? [sse("ping", { type: "ping" }), ": keepalive\n\n"]
    : [": keepalive\n\n", oaChunk({}), oaChunk({ content: "" }), ": OPENROUTER PROCESSING\n\n"];
  let pings = 0;
  const ping = (): string => pingKinds[pings++ % pingKinds.length] as string;
  const pingEvery = step.pingEveryMs ?? 1000;

  switch (step.fault) {
    case "huge_event": {
      out.head();
      for (const f of opening) if (!(await out.send(f))) return;
      // one delta split around its text, so the text itself can be made as it is sent
      const [head, tail] = textDelta("\u0000").split("\\u0000") as [string, string];
      if (!(await out.send(head))) return;
      for (const piece of filler(step.bytes ?? 100 * MB)) if (!(await out.send(piece))) return;
      if (!(await out.send(tail))) return;
      for (const f of closing) if (!(await out.send(f))) return;
      break;
    }
    case "endless_text": {
      out.head();
      for (const f of opening) if (!(await out.send(f))) return;
      const batch = Array.from({ length: 256 }, () => textDelta("lorem ipsum dolor sit amet, ")).join("");
      for (;;) if (!(await out.send(batch))) return;
    }
    case "huge_tool_input":
    case "paused_tool_input": {
      out.head();
      const callId = anthropic ? `toolu_fake_${ctx.nextId()}` : `call_fake_${ctx.nextId()}`;
      const argDelta = (json: string): string =>
        anthropic
          ? sse("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: json } })
          : oaChunk({ tool_calls: [{ index: 0, function: { arguments: json } }] });
      const start = anthropic
        ? [
            sse("content_block_stop", { type: "content_block_stop", index: 0 }),
            sse("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: callId, name: "write", input: {} } }),
          ]
        : [oaChunk({ tool_calls: [{ index: 0, id: callId, type: "function", function: { name: "write", arguments: "" } }] })];
      const end = anthropic
        ? [
            sse("content_block_stop", { type: "content_block_stop", index: 1 }),
            sse("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 10 } }),
            sse("message_stop", { type: "message_stop" }),
          ]
        : [oaChunk({}, "tool_calls"), "data: [DONE]\n\n"];
      if (step.fault === "paused_tool_input") {
        for (const f of [...opening, ...start, argDelta('{"path":"notes.txt",')]) if (!(await out.send(f))) return;
        const until = Date.now() + (step.contentEveryMs ?? 1000);
        while (Date.now() < until) {
          await out.sleep(Math.min(pingEvery, Math.max(1, until - Date.now())));
          if (!(await out.send(ping()))) return;
        }
        for (const f of [argDelta('"content":"written after a pause"}'), ...end]) if (!(await out.send(f))) return;
        break;
      }
      for (const f of [...opening, ...start, argDelta('{"path":"huge.txt","content":"')]) if (!(await out.send(f))) return;
      for (const piece of filler(step.bytes ?? 50 * MB)) if (!(await out.send(argDelta(piece)))) return;
      for (const f of [argDelta('"}'), ...end]) if (!(await out.send(f))) return;
      break;
    }
    case "pings_only": {
      out.head();
      if (!(await out.send(all[0] as string))) return;
      for (;;) {
        await out.sleep(pingEvery);
        if (!(await out.send(ping()))) return;
      }
    }
    case "ping_flood": {
      out.head();
      if (!(await out.send(all[0] as string))) return;
      const batch = Array.from({ length: 512 }, ping).join("");
      for (;;) if (!(await out.send(batch))) return;
    }
    case "slow_content": {
      out.head();
      const contentEvery = step.contentEveryMs ?? 1000;
      const isContent = (f: string): boolean =>
        anthropic ? f.startsWith("event: content_block_delta") : /"delta":\{"content":"[^"]/.test(f);
      let first = true;
      for (const f of all) {
        if (isContent(f) && !first) {
          // the wait before each content event, filled with pings no further apart than pingEvery
          const n = Math.max(1, Math.ceil(contentEvery / pingEvery));
          for (let i = 0; i < n; i++) {
            await out.sleep(contentEvery / n);
            if (!(await out.send(ping()))) return;
          }
        }
        if (isContent(f)) first = false;
        if (!(await out.send(f))) return;
      }
      break;
    }
    case "huge_error_body": {
      ctx.res.writeHead(400, { "content-type": "application/json" });
      const [head, tail] = JSON.stringify(errorBody(ctx.shape, invalid("\u0000"))).split("\\u0000") as [string, string];
      if (!(await out.send(head))) return;
      for (const piece of filler(step.bytes ?? 100 * MB)) if (!(await out.send(piece))) return;
      if (!(await out.send(tail))) return;
      break;
    }
    default:
      throw new Error(`renderBigFault: ${step.fault} is not one of its faults`);
  }
  rec.completed = true;
  out.end();
}

function assertNeverFault(x: never): never {
  throw new Error(`unknown fault ${String(x)}`);
}

function isClosing(shape: Shape, frame: string): boolean {
  if (shape === "anthropic") return /^event: (content_block_stop|message_delta|message_stop)\n/.test(frame);
  return frame.startsWith("data: [DONE]") || /"finish_reason":"/.test(frame) || /"choices":\[\],"usage"/.test(frame);
}

function resetSocket(socket: Socket): void {
  // an RST, as a crashed or cut connection looks to the client (not a clean FIN)
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

class Out {
  gone = false;
  onWrite: (bytes: number) => void = () => undefined;
  private wake: (() => void) | undefined;
  constructor(private readonly ctx: RenderCtx) {
    ctx.res.on("close", () => {
      this.gone = true;
      this.wake?.();
    });
    ctx.res.on("drain", () => this.wake?.());
  }
  /** Writes and waits while the client is behind; false once the client has gone. */
  async send(piece: string): Promise<boolean> {
    if (this.gone) return false;
    this.onWrite(Buffer.byteLength(piece));
    if (!this.ctx.res.write(piece)) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    return !this.gone;
  }
  head(): void {
    this.ctx.res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "request-id": `req_fake_${this.ctx.nextId()}`,
    });
    this.ctx.res.flushHeaders();
  }
  write(frame: string): void {
    if (!this.gone) this.ctx.res.write(frame);
  }
  end(): void {
    if (!this.gone) this.ctx.res.end();
  }
  later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.ctx.timers.delete(t);
      fn();
    }, ms);
    this.ctx.timers.add(t);
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.later(resolve, ms));
  }
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

/** Words with their trailing space, grouped a few per event, as models stream them. */
function pieces(text: string, perEvent = 2): string[] {
  const words = text.split(/(?<=\s)(?=\S)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += perEvent) out.push(words.slice(i, i + perEvent).join(""));
  return out.filter((p) => p.length > 0);
}

function jsonPieces(json: string): string[] {
  const n = Math.max(1, Math.ceil(json.length / 3));
  return [json.slice(0, n), json.slice(n, 2 * n), json.slice(2 * n)].filter((p) => p.length > 0);
}

function usageOf(ctx: RenderCtx, step: TextStep | ToolStep): { input: number; output: number } {
  if (step.usage) return step.usage;
  const out = (step.text ?? "").split(/\s+/).filter(Boolean).length + (isTools(step) ? 10 * step.toolCalls.length : 0);
  return { input: Math.ceil(ctx.rawBody.length / 4), output: Math.max(1, out) };
}

function anthropicFrames(ctx: RenderCtx, step: TextStep | ToolStep): string[] {
  const frames: string[] = [];
  const usage = usageOf(ctx, step);
  const per = "wordsPerEvent" in step ? step.wordsPerEvent : undefined;
  frames.push(
    sse("message_start", {
      type: "message_start",
      message: {
        id: `msg_fake_${ctx.nextId()}`,
        type: "message",
        role: "assistant",
        model: ctx.body["model"],
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: ctx.anthropicCache
          ? { ...ctx.anthropicCache, output_tokens: 1 }
          : { input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    }),
  );
  frames.push(sse("ping", { type: "ping" }));
  let index = 0;
  if (step.reasoning !== undefined) {
    frames.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const p of pieces(step.reasoning, per)) {
      frames.push(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: p } }));
    }
    const signature = step.signature ?? padded(`sig_fake_${ctx.nextId()}_`, step.opaqueBytes);
    frames.push(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature } }));
    frames.push(sse("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  if (step.text !== undefined && step.text !== "") {
    frames.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    for (const p of pieces(step.text, per)) {
      frames.push(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: p } }));
    }
    frames.push(sse("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  const calls = isTools(step) ? step.toolCalls : [];
  for (const c of calls) {
    const id = c.id ?? `toolu_fake_${ctx.nextId()}`;
    frames.push(
      sse("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id, name: c.name, input: {} } }),
    );
    frames.push(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } }));
    for (const p of jsonPieces(c.rawArguments ?? JSON.stringify(c.input ?? {}))) {
      frames.push(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
    }
    frames.push(sse("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  frames.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: step.stop ?? (calls.length > 0 ? "tool_use" : "end_turn"), stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
  );
  frames.push(sse("message_stop", { type: "message_stop" }));
  return frames;
}

/** `start`, made about `bytes` long with base64-like filler (no more than `start` when absent) */
export function padded(start: string, bytes: number | undefined): string {
  return bytes === undefined || bytes <= start.length ? start : start + "Qk9EWQ".repeat(Math.ceil((bytes - start.length) / 6)).slice(0, bytes - start.length);
}

function openaiFrames(ctx: RenderCtx, step: TextStep | ToolStep): string[] {
  const frames: string[] = [];
  const id = `chatcmpl-fake${ctx.nextId()}`;
  const created = Math.floor(Date.now() / 1000);
  const model = ctx.body["model"];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sse(undefined, { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const per = "wordsPerEvent" in step ? step.wordsPerEvent : undefined;

  frames.push(chunk({ role: "assistant", content: "" }));
  if (step.reasoning !== undefined) {
    const field = step.reasoningField ?? "reasoning_content";
    for (const p of pieces(step.reasoning, per)) frames.push(chunk({ [field]: p }));
  }
  if (step.text) for (const p of pieces(step.text, per)) frames.push(chunk({ content: p }));
  const calls = isTools(step) ? step.toolCalls : [];
  const style = isTools(step) ? (step.toolCallStyle ?? "streamed") : "streamed";
  for (const [i, c] of calls.entries()) {
    const callId = c.id ?? `call_fake_${ctx.nextId()}`;
    const args = c.rawArguments ?? JSON.stringify(c.input ?? {});
    switch (style) {
      case "whole":
        frames.push(chunk({ tool_calls: [{ index: i, id: callId, type: "function", function: { name: c.name, arguments: args } }] }));
        break;
      case "repeat_ids":
        frames.push(chunk({ tool_calls: [{ index: i, id: callId, type: "function", function: { name: c.name, arguments: "" } }] }));
        for (const p of jsonPieces(args)) {
          frames.push(chunk({ tool_calls: [{ index: i, id: callId, type: "function", function: { name: c.name, arguments: p } }] }));
        }
        break;
      case "streamed":
        frames.push(chunk({ tool_calls: [{ index: i, id: callId, type: "function", function: { name: c.name, arguments: "" } }] }));
        for (const p of jsonPieces(args)) frames.push(chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }));
        break;
      default: {
        const unknown: never = style;
        throw new Error(`unknown tool call style ${String(unknown)}`);
      }
    }
  }
  frames.push(chunk({}, step.stop ?? (calls.length > 0 ? "tool_calls" : "stop")));
  const so = ctx.body["stream_options"];
  if (isObj(so) && so["include_usage"] === true) {
    const u = usageOf(ctx, step);
    frames.push(
      sse(undefined, {
        id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [],
        usage: ctx.openaiCache
          ? {
              prompt_tokens: ctx.openaiCache.prompt_tokens,
              completion_tokens: u.output,
              total_tokens: ctx.openaiCache.prompt_tokens + u.output,
              prompt_tokens_details: { cached_tokens: ctx.openaiCache.cached_tokens },
            }
          : { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
      }),
    );
  }
  frames.push("data: [DONE]\n\n");
  return frames;
}

function defaultErrorBody(shape: Shape, status: number): unknown {
  const [type, message] = ((): [string, string] => {
    switch (status) {
      case 400:
        return ["invalid_request_error", "Bad request"];
      case 401:
        return ["authentication_error", "invalid x-api-key"];
      case 403:
        return ["permission_error", "Your API key does not have permission to use the specified resource."];
      case 404:
        return ["not_found_error", "Not found"];
      case 413:
        return ["request_too_large", "Request exceeds the maximum allowed number of bytes."];
      case 429:
        return ["rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"];
      case 529:
        return ["overloaded_error", "Overloaded"];
      default:
        return status >= 500 ? ["api_error", "Internal server error"] : ["invalid_request_error", `HTTP ${status}`];
    }
  })();
  if (shape === "anthropic") return { type: "error", error: { type, message }, request_id: "req_fake" };
  const oaType = status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error";
  const oaCode = status === 429 ? "rate_limit_exceeded" : null;
  return { error: { message, type: oaType, param: null, code: oaCode } };
}

// ------------------------------------------------------------------ standalone

export async function fakeProviderMain(argv: string[] = process.argv.slice(2)): Promise<FakeProvider> {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const opts: FakeOptions = { repeat: argv.includes("--repeat") };
  if (argv.includes("--cache")) opts.cache = new FakeCache();
  const port = arg("--port");
  if (port !== undefined) opts.port = Number(port);
  const key = arg("--key");
  if (key !== undefined) opts.key = key;
  const fake = await startFakeProvider(opts);
  const scriptFile = arg("--script");
  if (scriptFile) {
    const steps = JSON.parse(fs.readFileSync(scriptFile, "utf8")) as Step[];
    if (!Array.isArray(steps)) throw new Error(`${scriptFile}: expected a JSON array of steps`);
    fake.script(...steps);
  }
  process.stdout.write(`${fake.url}\n`);
  const stop = (): void => {
    void fake.close().then(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return fake;
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(path.resolve(entry)).href) {
  fakeProviderMain().catch((err: unknown) => {
    process.stderr.write(`fake provider: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
