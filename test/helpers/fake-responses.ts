// The strict fake's OpenAI Responses endpoint (`POST /v1/responses`), mounted by
// fake-provider.ts. It refuses what the real API refuses, with its status codes and error
// texts (unknown parameters and item types, a function_call_output that answers no
// function_call of the same request, a function_call left without its output, a reasoning
// item without the item it preceded or not replayed verbatim), and streams the Responses
// events, each with its sequence_number. Reasoning items carry encrypted content only when
// the request asks for it (`include: ["reasoning.encrypted_content"]`), as with store:false
// on the real API; the fake's "encryption" is base64 JSON naming the item's id, summary and
// the item that followed it, so a replay that is not verbatim or not in place is caught.
import type http from "node:http";
import type { Socket } from "node:net";
import type { ErrorStep, FaultStep, RecordedRequest, Step, TextStep, ToolStep } from "./fake-provider.js";
import type { FakeCache, OpenAICacheUsage } from "./fake-cache.js";

/** How this endpoint departs from OpenAI's own, account by account or server by server. */
export interface ResponsesFakeOptions {
  /** an organization OpenAI has not verified: reasoning summaries are refused, in its words */
  unverifiedOrg?: boolean;
  /** parameters this server does not know (a local server serving /v1/responses) */
  unknownParams?: string[];
  /** models beyond the fake's own list that refuse a reasoning setting (ones the catalog does not know) */
  nonReasoningModels?: string[];
  /** message items carry a phase, as gpt-5.3-codex and later send it: `commentary` on text
   * that comes with calls, `final_answer` on the last; a request that resends an assistant
   * message of a function-call round without it is recorded in `phaseDropped` */
  phases?: boolean;
  /** input item indexes of live-round assistant messages (those a function_call follows)
   * that came back without their phase, filled in while `phases` is on */
  phaseDropped?: number[];
}

export interface ResponsesServe {
  options?: ResponsesFakeOptions;
  rec: RecordedRequest;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** the key requests must carry; undefined: no auth */
  key: string | undefined;
  /** the next scripted step; taken only for an accepted request */
  next(): Step;
  timers: Set<NodeJS.Timeout>;
  nextId(): number;
  /** the prompt-cache simulation: usage reports its cached_tokens (test/helpers/fake-cache.ts) */
  cache?: FakeCache | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

interface Rejection {
  status: number;
  message: string;
  param?: string | null;
  code?: string | null;
  type?: string;
}

const bad = (message: string, param: string | null = null, code: string | null = null): Rejection => ({ status: 400, message, param, code });

/** Top-level parameters the real API takes (a subset that covers every client we know). */
const PARAMS = new Set([
  "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "max_output_tokens", "max_tool_calls",
  "reasoning", "store", "include", "stream", "stream_options", "prompt_cache_key", "prompt_cache_retention", "temperature",
  "top_p", "top_logprobs", "metadata", "previous_response_id", "conversation", "text", "truncation", "user",
  "safety_identifier", "service_tier", "background", "prompt",
]);
const INCLUDES = new Set([
  "reasoning.encrypted_content", "message.output_text.logprobs", "file_search_call.results", "web_search_call.results",
  "web_search_call.action.sources", "message.input_image.image_url", "computer_call_output.output.image_url", "code_interpreter_call.outputs",
]);
const ITEM_TYPES = ["message", "reasoning", "function_call", "function_call_output"];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** models the fake knows not to reason: they refuse a reasoning setting, as the real API does */
const NON_REASONING = /^(gpt-4|gpt-3\.5|gpt-5(\.\d+)?-chat)/;

export interface Sealed {
  id: string;
  summary: string;
  follows: { type: "message" } | { type: "function_call"; call_id: string };
  /** filler that makes the sealed body as large as a step asks (TextStep.opaqueBytes) */
  pad?: string;
}

/** What the fake's stream would have put in a reasoning item's encrypted_content: tests that
 * make up a stored answer seal its reasoning items the same way. */
export function sealReasoning(s: Sealed): string {
  return seal(s);
}

function seal(s: Sealed): string {
  return `fake_enc_${Buffer.from(JSON.stringify(s), "utf8").toString("base64")}`;
}

function unseal(enc: string): Sealed | undefined {
  if (!enc.startsWith("fake_enc_")) return undefined;
  try {
    const v = JSON.parse(Buffer.from(enc.slice("fake_enc_".length), "base64").toString("utf8")) as unknown;
    return isObj(v) && typeof v["id"] === "string" && isObj(v["follows"]) ? (v as unknown as Sealed) : undefined;
  } catch {
    return undefined;
  }
}

function summaryText(summary: unknown): string {
  return Array.isArray(summary) ? summary.map((p) => (isObj(p) && typeof p["text"] === "string" ? p["text"] : "")).join("\n\n") : "";
}

/** What the real API would refuse in this request, or undefined. */
export function validateResponses(h: http.IncomingHttpHeaders, body: unknown, key: string | undefined, options: ResponsesFakeOptions = {}): Rejection | undefined {
  if (key !== undefined) {
    const auth = h["authorization"];
    const a = Array.isArray(auth) ? auth[0] : auth;
    if (!a || !a.startsWith("Bearer ")) {
      return { status: 401, message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", type: "invalid_request_error" };
    }
    if (a.slice("Bearer ".length) !== key) return { status: 401, message: "Incorrect API key provided.", code: "invalid_api_key" };
  }
  if (!isObj(body)) return bad("We could not parse the JSON body of your request.");
  for (const k of Object.keys(body)) {
    if (!PARAMS.has(k) || options.unknownParams?.includes(k)) return bad(`Unknown parameter: '${k}'.`, k, "unknown_parameter");
  }
  const model = body["model"];
  if (typeof model !== "string" || model === "") return bad("Missing required parameter: 'model'.", "model", "missing_required_parameter");
  if (body["instructions"] !== undefined && typeof body["instructions"] !== "string") return bad("Invalid type for 'instructions': expected a string.", "instructions", "invalid_type");
  const mot = body["max_output_tokens"];
  if (mot !== undefined) {
    if (typeof mot !== "number" || !Number.isInteger(mot)) return bad("Invalid type for 'max_output_tokens': expected an integer.", "max_output_tokens", "invalid_type");
    if (mot < 16) return bad(`Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${mot} instead.`, "max_output_tokens", "integer_below_min_value");
  }
  if (body["store"] !== undefined && typeof body["store"] !== "boolean") return bad("Invalid type for 'store': expected a boolean.", "store", "invalid_type");
  if (body["prompt_cache_key"] !== undefined && typeof body["prompt_cache_key"] !== "string") {
    return bad("Invalid type for 'prompt_cache_key': expected a string.", "prompt_cache_key", "invalid_type");
  }
  const include = body["include"];
  if (include !== undefined) {
    if (!Array.isArray(include)) return bad("Invalid type for 'include': expected an array.", "include", "invalid_type");
    for (const [i, v] of include.entries()) {
      if (!INCLUDES.has(String(v))) return bad(`Invalid value: '${String(v)}'. Supported values are: ${[...INCLUDES].map((x) => `'${x}'`).join(", ")}.`, `include[${i}]`, "invalid_value");
    }
  }
  const reasoning = body["reasoning"];
  if (reasoning !== undefined) {
    if (!isObj(reasoning)) return bad("Invalid type for 'reasoning': expected an object.", "reasoning", "invalid_type");
    const effort = reasoning["effort"];
    if (effort !== undefined && !["none", "minimal", "low", "medium", "high", "xhigh"].includes(String(effort))) {
      return bad(`Invalid value: '${String(effort)}'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.`, "reasoning.effort", "invalid_value");
    }
    const summary = reasoning["summary"];
    if (summary !== undefined && !["auto", "concise", "detailed"].includes(String(summary))) {
      return bad(`Invalid value: '${String(summary)}'. Supported values are: 'auto', 'concise', and 'detailed'.`, "reasoning.summary", "invalid_value");
    }
    if (summary !== undefined && options.unverifiedOrg) {
      return bad(
        "Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.",
        "reasoning.summary",
        "unsupported_value",
      );
    }
    if (effort !== undefined && (NON_REASONING.test(model) || options.nonReasoningModels?.includes(model))) {
      return bad("Unsupported parameter: 'reasoning.effort' is not supported with this model.", "reasoning.effort", "unsupported_parameter");
    }
  }

  const tools = body["tools"];
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return bad("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
    for (const [i, t] of tools.entries()) {
      const at = `tools[${i}]`;
      if (!isObj(t) || t["type"] !== "function") return bad(`Missing required parameter: '${at}.type'.`, `${at}.type`, "missing_required_parameter");
      // the Chat Completions shape nests the function: the Responses API wants it flat
      if (typeof t["name"] !== "string") return bad(`Missing required parameter: '${at}.name'.`, `${at}.name`, "missing_required_parameter");
      if (!TOOL_NAME.test(t["name"])) return bad(`Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `${at}.name`, "invalid_value");
      const params = t["parameters"];
      if (!isObj(params)) return bad(`Missing required parameter: '${at}.parameters'.`, `${at}.parameters`, "missing_required_parameter");
      // strict is the default: it wants every property required and no others allowed
      if (t["strict"] !== false && params["additionalProperties"] !== false) {
        return bad(`Invalid schema for function '${t["name"]}': In context=(), 'additionalProperties' is required to be supplied and to be false.`, `${at}.parameters`, "invalid_function_parameters");
      }
    }
  }

  const input = body["input"];
  if (input === undefined) return bad("Missing required parameter: 'input'.", "input", "missing_required_parameter");
  if (typeof input === "string") return undefined;
  if (!Array.isArray(input)) return bad("Invalid type for 'input': expected a string or an array.", "input", "invalid_type");
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  for (const [i, it] of input.entries()) {
    const at = `input[${i}]`;
    if (!isObj(it)) return bad(`Invalid type for '${at}': expected an object.`, at, "invalid_type");
    const type = it["type"] ?? (it["role"] !== undefined ? "message" : undefined);
    switch (type) {
      case "message": {
        const r = checkMessage(it, at);
        if (r) return r;
        break;
      }
      case "function_call": {
        const id = it["call_id"];
        if (typeof id !== "string" || id === "") return bad(`Missing required parameter: '${at}.call_id'.`, `${at}.call_id`, "missing_required_parameter");
        if (typeof it["name"] !== "string" || !TOOL_NAME.test(it["name"])) return bad(`Missing required parameter: '${at}.name'.`, `${at}.name`, "missing_required_parameter");
        if (typeof it["arguments"] !== "string") return bad(`Invalid type for '${at}.arguments': expected a string.`, `${at}.arguments`, "invalid_type");
        if (calls.has(id)) return bad(`Duplicate item found with call_id ${id}.`, `${at}.call_id`, "invalid_value");
        calls.set(id, i);
        break;
      }
      case "function_call_output": {
        const id = it["call_id"];
        if (typeof id !== "string" || id === "") return bad(`Missing required parameter: '${at}.call_id'.`, `${at}.call_id`, "missing_required_parameter");
        const out = it["output"];
        if (typeof out !== "string" && !Array.isArray(out)) return bad(`Invalid type for '${at}.output': expected a string or an array.`, `${at}.output`, "invalid_type");
        if (!calls.has(id)) return bad(`No tool call found for function call output with call_id ${id}.`, "input", "invalid_value");
        answered.add(id);
        break;
      }
      case "reasoning": {
        const id = typeof it["id"] === "string" ? it["id"] : "(no id)";
        if (!Array.isArray(it["summary"])) return bad(`Missing required parameter: '${at}.summary'.`, `${at}.summary`, "missing_required_parameter");
        const enc = it["encrypted_content"];
        if (typeof enc !== "string" || enc === "") {
          if (body["store"] === false) {
            return bad(`Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, "input", null);
          }
          return bad(`Item with id '${id}' not found.`, "input", null);
        }
        const sealed = unseal(enc);
        if (!sealed || sealed.id !== id || sealed.summary !== summaryText(it["summary"])) {
          return bad(`The encrypted content for item ${id} could not be verified.`, "input", "invalid_encrypted_content");
        }
        const next = input[i + 1];
        const ok =
          isObj(next) &&
          (sealed.follows.type === "message"
            ? (next["type"] ?? "message") === "message" && next["role"] === "assistant"
            : next["type"] === "function_call" && next["call_id"] === sealed.follows.call_id);
        if (!ok) return bad(`Item '${id}' of type 'reasoning' was provided without its required following item.`, "input", null);
        break;
      }
      default:
        return bad(`Invalid value: '${String(type)}'. Supported values are: ${ITEM_TYPES.map((t) => `'${t}'`).join(", ")}.`, `${at}.type`, "invalid_value");
    }
  }
  for (const [id] of calls) if (!answered.has(id)) return bad(`No tool output found for function call ${id}.`, "input", null);
  return undefined;
}

function checkMessage(it: Obj, at: string): Rejection | undefined {
  const role = it["role"];
  if (!["user", "assistant", "system", "developer"].includes(String(role))) {
    return bad(`Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`, `${at}.role`, "invalid_value");
  }
  const phase = it["phase"];
  if (phase !== undefined && phase !== null) {
    if (phase !== "commentary" && phase !== "final_answer") {
      return bad(`Invalid value: '${String(phase)}'. Supported values are: 'commentary' and 'final_answer'.`, `${at}.phase`, "invalid_value");
    }
    if (role !== "assistant") return bad(`Invalid '${at}.phase': phase is only supported on assistant messages.`, `${at}.phase`, "invalid_value");
  }
  const content = it["content"];
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content)) return bad(`Missing required parameter: '${at}.content'.`, `${at}.content`, "missing_required_parameter");
  const allowed = role === "assistant" ? ["output_text", "refusal"] : ["input_text", "input_image", "input_file"];
  for (const [j, p] of content.entries()) {
    const pat = `${at}.content[${j}]`;
    if (!isObj(p) || !allowed.includes(String(p["type"]))) {
      const t = isObj(p) ? String(p["type"]) : typeof p;
      return bad(`Invalid value: '${t}'. Supported values are: ${allowed.map((x) => `'${x}'`).join(" and ")}.`, `${pat}.type`, "invalid_value");
    }
    if ((p["type"] === "input_text" || p["type"] === "output_text") && typeof p["text"] !== "string") {
      return bad(`Missing required parameter: '${pat}.text'.`, `${pat}.text`, "missing_required_parameter");
    }
    if (p["type"] === "input_image") {
      const d = p["detail"];
      if (d !== undefined && !["low", "high", "auto", "original"].includes(String(d))) {
        return bad(`Invalid value: '${String(d)}'. Supported values are: 'low', 'high', 'auto', and 'original'.`, `${pat}.detail`, "invalid_value");
      }
      const u = p["image_url"];
      if (typeof u !== "string" || (!/^https?:\/\//.test(u) && !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(u))) {
        return bad(`Invalid '${pat}.image_url'. Expected a base64-encoded data URL with an image MIME type.`, `${pat}.image_url`, "invalid_value");
      }
    }
  }
  return undefined;
}

// ------------------------------------------------------------------ serving

export async function serveResponses(s: ResponsesServe): Promise<void> {
  const r = validateResponses(s.req.headers, s.rec.body, s.key, s.options);
  if (r) {
    s.rec.rejected = r.message;
    json(s.res, r.status, { error: { message: r.message, type: r.type ?? "invalid_request_error", param: r.param ?? null, code: r.code ?? null } });
    return;
  }
  const body = s.rec.body as Obj;
  if (s.options?.phases) {
    const input = Array.isArray(body["input"]) ? (body["input"] as unknown[]) : [];
    input.forEach((it, i) => {
      const next = input[i + 1];
      if (isObj(it) && it["role"] === "assistant" && isObj(next) && next["type"] === "function_call" && it["phase"] === undefined) {
        (s.options!.phaseDropped ??= []).push(i);
      }
    });
  }
  if (body["stream"] !== true) {
    json(s.res, 400, { error: { message: "the fake provider implements only stream: true", type: "invalid_request_error", param: "stream", code: null } });
    return;
  }
  const step = s.next();
  if ("status" in step) {
    const e = step as ErrorStep;
    json(s.res, e.status, e.body ?? { error: { message: e.status === 429 ? "Rate limit reached" : `HTTP ${e.status}`, type: e.status >= 500 ? "server_error" : "invalid_request_error", param: null, code: e.status === 429 ? "rate_limit_exceeded" : null } }, e.headers ?? {});
    return;
  }
  // an accepted request is cached as OpenAI caches any prompt: per prompt_cache_key, from 1024 tokens in 128-token steps
  const frames = new Frames(s, body, "fault" in step ? undefined : s.cache?.openai(body));
  if ("fault" in step) return renderFault(s, frames, step as FaultStep);
  const events = frames.answer(step as TextStep | ToolStep);
  head(s.res, s.nextId());
  for (const e of events) {
    if (s.res.destroyed) return;
    s.res.write(e);
    const delay = (step as TextStep).delayMs ?? 0;
    if (delay > 0) await sleep(s, delay);
  }
  s.res.end();
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function head(res: http.ServerResponse, id: number): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": `req_fake_${id}` });
  res.flushHeaders();
}

function sleep(s: ResponsesServe, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      s.timers.delete(t);
      resolve();
    }, ms);
    s.timers.add(t);
  });
}

/** Words with their trailing space, a few per event, as models stream them. */
function pieces(text: string, perEvent = 2): string[] {
  const words = text.split(/(?<=\s)(?=\S)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += perEvent) out.push(words.slice(i, i + perEvent).join(""));
  return out.filter((p) => p.length > 0);
}

class Frames {
  private seq = 0;
  readonly responseId: string;
  private readonly model: unknown;
  private readonly encrypted: boolean;
  constructor(
    private readonly s: ResponsesServe,
    private readonly body: Obj,
    private readonly cached?: OpenAICacheUsage,
  ) {
    this.responseId = `resp_fake_${s.nextId()}`;
    this.model = body["model"];
    const inc = body["include"];
    this.encrypted = Array.isArray(inc) && inc.includes("reasoning.encrypted_content");
  }

  event(type: string, data: Obj): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...data })}\n\n`;
  }

  private response(status: string, output: unknown[], extra: Obj = {}): Obj {
    return { id: this.responseId, object: "response", created_at: 0, status, model: this.model, output, ...extra };
  }

  opening(): string[] {
    return [this.event("response.created", { response: this.response("in_progress", []) }), this.event("response.in_progress", { response: this.response("in_progress", []) })];
  }

  /** The whole answer of a text or tool step: reasoning, text, calls, then response.completed. */
  answer(step: TextStep | ToolStep): string[] {
    const out = this.opening();
    const output: Obj[] = [];
    const per = "wordsPerEvent" in step ? step.wordsPerEvent : undefined;
    const calls = "toolCalls" in step ? step.toolCalls.map((c) => ({ ...c, callId: c.id ?? `call_fake_${this.s.nextId()}` })) : [];
    const text = step.text ?? "";
    if (step.reasoning !== undefined) {
      const follows: Sealed["follows"] = text !== "" || calls.length === 0 ? { type: "message" } : { type: "function_call", call_id: calls[0]!.callId };
      out.push(...this.reasoning(output.length, step.reasoning, follows, per, output, step.opaqueBytes));
    }
    const phase = this.s.options?.phases ? (calls.length > 0 ? "commentary" : "final_answer") : undefined;
    if (text !== "" || calls.length === 0) out.push(...this.message(output.length, text, per, output, phase));
    for (const c of calls) out.push(...this.call(output.length, c.callId, c.name, c.rawArguments ?? JSON.stringify(c.input ?? {}), output));
    const u = step.usage ?? { input: Math.ceil(JSON.stringify(this.body).length / 4), output: Math.max(1, text.split(/\s+/).filter(Boolean).length + 10 * calls.length) };
    // input_tokens counts the cached part too, as OpenAI reports it
    const input = this.cached?.prompt_tokens ?? u.input;
    const usage = {
      input_tokens: input,
      input_tokens_details: { cached_tokens: this.cached?.cached_tokens ?? 0 },
      output_tokens: u.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + u.output,
    };
    if (step.stop !== undefined) {
      out.push(this.event("response.incomplete", { response: this.response("incomplete", output, { usage, incomplete_details: { reason: step.stop } }) }));
    } else out.push(this.event("response.completed", { response: this.response("completed", output, { usage }) }));
    return out;
  }

  reasoning(index: number, text: string, follows: Sealed["follows"], per: number | undefined, output: Obj[], opaqueBytes?: number): string[] {
    const id = `rs_fake_${this.s.nextId()}`;
    const out = [this.event("response.output_item.added", { output_index: index, item: { id, type: "reasoning", summary: [] } })];
    out.push(this.event("response.reasoning_summary_part.added", { item_id: id, output_index: index, summary_index: 0, part: { type: "summary_text", text: "" } }));
    for (const p of pieces(text, per)) out.push(this.event("response.reasoning_summary_text.delta", { item_id: id, output_index: index, summary_index: 0, delta: p }));
    out.push(this.event("response.reasoning_summary_text.done", { item_id: id, output_index: index, summary_index: 0, text }));
    out.push(this.event("response.reasoning_summary_part.done", { item_id: id, output_index: index, summary_index: 0, part: { type: "summary_text", text } }));
    const item: Obj = { id, type: "reasoning", summary: [{ type: "summary_text", text }] };
    // the real API sends the encrypted reasoning only when asked to (store:false clients must)
    // base64 makes 4 characters of every 3 bytes of the sealed JSON
    const pad = opaqueBytes !== undefined ? "p".repeat(Math.max(0, Math.floor((opaqueBytes * 3) / 4) - 100)) : undefined;
    if (this.encrypted) item["encrypted_content"] = seal({ id, summary: text, follows, ...(pad ? { pad } : {}) });
    out.push(this.event("response.output_item.done", { output_index: index, item }));
    output.push(item);
    return out;
  }

  message(index: number, text: string, per: number | undefined, output: Obj[], phase?: string): string[] {
    const id = `msg_fake_${this.s.nextId()}`;
    const ph = phase ? { phase } : {};
    const out = [this.event("response.output_item.added", { output_index: index, item: { id, type: "message", status: "in_progress", role: "assistant", content: [], ...ph } })];
    out.push(this.event("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }));
    for (const p of pieces(text, per)) out.push(this.event("response.output_text.delta", { item_id: id, output_index: index, content_index: 0, delta: p, logprobs: [] }));
    out.push(this.event("response.output_text.done", { item_id: id, output_index: index, content_index: 0, text, logprobs: [] }));
    const part = { type: "output_text", text, annotations: [] };
    out.push(this.event("response.content_part.done", { item_id: id, output_index: index, content_index: 0, part }));
    const item = { id, type: "message", status: "completed", role: "assistant", content: [part], ...ph };
    out.push(this.event("response.output_item.done", { output_index: index, item }));
    output.push(item);
    return out;
  }

  call(index: number, callId: string, name: string, args: string, output: Obj[]): string[] {
    const id = `fc_fake_${this.s.nextId()}`;
    const out = [this.event("response.output_item.added", { output_index: index, item: { id, type: "function_call", status: "in_progress", call_id: callId, name, arguments: "" } })];
    const n = Math.max(1, Math.ceil(args.length / 3));
    for (const p of [args.slice(0, n), args.slice(n, 2 * n), args.slice(2 * n)].filter((x) => x.length > 0)) {
      out.push(this.event("response.function_call_arguments.delta", { item_id: id, output_index: index, delta: p }));
    }
    out.push(this.event("response.function_call_arguments.done", { item_id: id, output_index: index, arguments: args }));
    const item = { id, type: "function_call", status: "completed", call_id: callId, name, arguments: args };
    out.push(this.event("response.output_item.done", { output_index: index, item }));
    output.push(item);
    return out;
  }
}

function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

/** The faults this endpoint renders; another is a loud 500, never a silent pass. */
async function renderFault(s: ResponsesServe, f: Frames, step: FaultStep): Promise<void> {
  const text = step.text ?? "This is the partial answer that was streaming when things went wrong.";
  const all = f.answer({ text });
  // everything before the message item is done: the start of the answer, nothing closing
  const cut = all.findIndex((e) => e.startsWith("event: response.output_text.done"));
  const opening = all.slice(0, cut);
  switch (step.fault) {
    case "reset_before":
      resetSocket(s.req.socket);
      return;
    case "reset_mid":
      head(s.res, s.nextId());
      for (const e of opening) s.res.write(e);
      await sleep(s, 150);
      resetSocket(s.req.socket);
      return;
    case "no_final":
      head(s.res, s.nextId());
      for (const e of opening) s.res.write(e);
      s.res.end();
      return;
    case "malformed_json":
      head(s.res, s.nextId());
      for (const e of opening) s.res.write(e);
      s.res.write('event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"delta":"cut off\n\n');
      s.res.end();
      return;
    case "unknown_event":
      head(s.res, s.nextId());
      all.splice(2, 0, f.event("response.albedo_mystery", { note: "an event type this client has never seen" }));
      for (const e of all) s.res.write(e);
      s.res.end();
      return;
    case "error_event":
      head(s.res, s.nextId());
      for (const e of opening) s.res.write(e);
      s.res.write(f.event("response.failed", { response: { id: f.responseId, object: "response", status: "failed", error: { code: "server_error", message: "The server had an error while processing your request." } } }));
      s.res.end();
      return;
    case "hang_after_text":
      head(s.res, s.nextId());
      for (const e of opening) s.res.write(e);
      return;
    default:
      json(s.res, 500, { error: { message: `the fake's Responses endpoint does not implement the fault "${step.fault}"`, type: "server_error", param: null, code: null } });
  }
}
