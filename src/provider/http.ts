// One streaming POST to a provider: retries before output, an idle timeout between bytes,
// and every failure turned into a ProviderError a person can read. The adapters only parse
// frames; what a status code or a broken socket means is decided here, once.
import type { request as undiciRequest } from "undici";
import type { Block } from "../record/types.js";
import { readSse, type SseFrame } from "./sse.js";
import {
  ProviderError,
  type ProviderErrorKind,
  type ProviderName,
  type StreamEvent,
  type StreamOptions,
  type StreamResult,
} from "./types.js";
import { formatInt } from "../record/numbers.js";

// undici is loaded with the first request, not at start-up: the screen should not wait for
// an HTTP client it does not use yet (about 60 ms and 11 MB on these machines).
let undiciLoad: Promise<typeof undiciRequest> | undefined;
function undici(): Promise<typeof undiciRequest> {
  undiciLoad ??= import("undici").then((m) => m.request);
  return undiciLoad;
}

export interface RetryOptions {
  /** retries after the first attempt (default 3) */
  maxRetries?: number;
  /** first backoff step (default 500 ms), doubled per retry */
  baseDelayMs?: number;
  /** backoff cap (default 8 s) */
  maxDelayMs?: number;
}

export interface TransportOptions {
  retry?: RetryOptions;
  /** longest silence allowed between bytes, headers included (default 90 s) */
  idleTimeoutMs?: number;
  /** the model's window, named in context-length errors when known */
  contextWindow?: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 8_000;
/** a server asking for a longer wait than this gets an error instead of a silent stall */
const LONGEST_HONOURED_WAIT_MS = 60_000;
/** after the final event, how long to wait for the server to end the body (keeps keep-alive) */
const END_GRACE_MS = 1_000;

const RETRY_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
const RETRY_NET_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
]);
const FATAL_NET_CODES = new Set(["ENOTFOUND", "CERT_HAS_EXPIRED", "DEPTH_ZERO_SELF_SIGNED_CERT", "UND_ERR_INVALID_ARG"]);

// Overflow texts of the providers and of the common compatible servers (providers.md §1.10, §2.8, §4).
const CONTEXT_OVERFLOW = [
  /prompt is too long/i,
  /exceed(?:s|ed)? (?:the )?context limit/i,
  /maximum context length/i,
  /exceeds the context window/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /model_context_window_exceeded/i,
];

/** A failure found while reading the stream. The transport adds the partial output. */
export class StreamFault extends Error {
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    /** worth another attempt if nothing has streamed yet (overload, cut connection) */
    readonly retryable = false,
  ) {
    super(message);
    this.name = "StreamFault";
  }
}

/** Per-attempt parser state of one adapter. */
export interface FrameHandler {
  /** "done" once the provider's final event (message_stop, [DONE]) arrived */
  onFrame(frame: SseFrame): "more" | "done";
  /** true when a body that ends without the final event is still a whole answer */
  completeWithoutFinal?(): boolean;
  result(): StreamResult;
  /** what arrived so far, as blocks worth keeping */
  partial(): Block[];
  /** true once any content has been handed to onEvent */
  readonly outputStarted: boolean;
}

export interface ProviderIdentity {
  name: ProviderName;
  /** "Anthropic", "OpenAI", or "the server at localhost:8080" */
  label: string;
  /** what to set when the key is refused */
  keyHint: string;
}

export interface PostArgs {
  who: ProviderIdentity;
  model: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** scrubbed from every message we build */
  secret?: string;
  transport: TransportOptions;
  stream: StreamOptions;
  newHandler(): FrameHandler;
}

type Attempt =
  | { ok: StreamResult }
  | { retry: { reason: string; delayMs?: number; error: ProviderError } }
  | { fail: ProviderError };

export async function postStream(args: PostArgs): Promise<StreamResult> {
  const retry = args.transport.retry ?? {};
  const maxRetries = Math.max(0, retry.maxRetries ?? DEFAULT_MAX_RETRIES);
  const base = retry.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const cap = retry.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const signal = args.stream.signal;
  const emit = (e: StreamEvent): void => args.stream.onEvent?.(e);

  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw abortedError(args, []);
    const out = await attemptOnce(args);
    if ("ok" in out) return out.ok;
    if ("fail" in out) throw out.fail;
    if (attempt >= maxRetries) {
      const e = out.retry.error;
      throw new ProviderError(
        `${e.message} (gave up after ${maxRetries} ${maxRetries === 1 ? "retry" : "retries"})`,
        e.kind,
        e.opts,
      );
    }
    const delayMs = Math.round(out.retry.delayMs ?? backoff(attempt, base, cap));
    emit({ type: "retry", attempt: attempt + 1, delayMs, reason: out.retry.reason });
    await sleep(delayMs, signal).catch(() => {
      throw abortedError(args, []);
    });
  }
}

async function attemptOnce(args: PostArgs): Promise<Attempt> {
  const { who } = args;
  const userSignal = args.stream.signal;
  const idleMs = args.transport.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const ac = new AbortController();
  let timedOut = false;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  /** bytes of the event stream that arrived since the last whole line */
  let trickled = 0;
  const onUserAbort = (): void => ac.abort(userSignal?.reason);
  userSignal?.addEventListener("abort", onUserAbort, { once: true });
  // Re-armed on progress: the limit is on silence, not on the length of an answer. In the
  // event stream progress is a whole line, so a server that drips a byte at a time (never
  // silent, never finishing anything) still hits the limit instead of holding the turn forever.
  const bump = (): void => {
    if (finished) return;
    trickled = 0;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      ac.abort(new Error("idle timeout"));
    }, idleMs);
  };
  const handler = args.newHandler();

  try {
    bump();
    const res = await (await undici())(args.url, {
      method: "POST",
      headers: args.headers,
      body: args.body,
      signal: ac.signal,
      // our own idle timer covers both; undici's defaults (300 s) would only get in the way
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    bump();
    const contentType = headerValue(res.headers, "content-type") ?? "";
    // An error or JSON body is short: it gets one idle period after the headers, whole, so a
    // dripped body cannot hold the turn either.
    const noProgress = (): void => undefined;
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const text = await readText(res.body, noProgress);
      return statusFailure(args, res.statusCode, res.headers, text);
    }
    if (/application\/json|text\/html/i.test(contentType)) {
      const text = await readText(res.body, noProgress);
      throw new StreamFault(
        `${who.label} answered with ${contentType.split(";")[0]} instead of an event stream: ${providerMessage(text)}`,
        "stream",
      );
    }
    const progress = { onChunk: (n: number) => (trickled += n), onLine: bump };
    for await (const frame of readSse(res.body, progress)) {
      if (finished) continue; // the body's tail after the final event; only its end matters
      if (handler.onFrame(frame) === "done") {
        finished = true;
        clearTimeout(timer);
        // the answer is whole; wait briefly for the body's end so the socket can be reused
        timer = setTimeout(() => ac.abort(new Error("end grace")), END_GRACE_MS);
      }
    }
    if (finished || handler.completeWithoutFinal?.()) return { ok: handler.result() };
    throw new StreamFault(
      `the stream ended before the provider finished (${who.label} closed the connection mid-answer)`,
      "stream",
      true,
    );
  } catch (err) {
    if (finished && !userSignal?.aborted) return { ok: handler.result() };
    return streamFailure(args, err, handler, { timedOut, idleMs, trickled, userAborted: userSignal?.aborted === true });
  } finally {
    clearTimeout(timer);
    userSignal?.removeEventListener("abort", onUserAbort);
  }
}

function streamFailure(
  args: PostArgs,
  err: unknown,
  handler: FrameHandler,
  st: { timedOut: boolean; idleMs: number; trickled: number; userAborted: boolean },
): Attempt {
  const { who } = args;
  const outputStarted = handler.outputStarted;
  const partial = handler.partial();
  const opts = { partial, outputStarted };
  const make = (message: string, kind: ProviderErrorKind): ProviderError =>
    new ProviderError(scrub(message, args.secret), kind, opts);

  if (st.userAborted) return { fail: abortedError(args, partial, outputStarted) };
  if (st.timedOut) {
    return {
      fail: make(
        `no data from the provider for ${seconds(st.idleMs)} s (${who.label}); gave up waiting` +
          (st.trickled > 0 ? ` (only ${st.trickled} ${st.trickled === 1 ? "byte" : "bytes"} trickled in, not one whole line)` : "") +
          (outputStarted ? ", the partial answer was kept" : ""),
        "timeout",
      ),
    };
  }
  if (err instanceof StreamFault) {
    const e = make(err.message, err.kind);
    if (err.retryable && !outputStarted) return { retry: { reason: err.message, error: e } };
    return { fail: e };
  }
  const code = netCode(err);
  if (code !== undefined) {
    const what = describeNetCode(code);
    if (outputStarted) {
      return { fail: make(`the connection to ${who.label} broke mid-answer (${what}); the partial answer was kept`, "network") };
    }
    // a label that already names the host needs no origin after it
    const where = who.label.includes(hostOf(args.url)) ? who.label : `${who.label} (${origin(args.url)})`;
    const e = make(`could not reach ${where}: ${what}`, "network");
    if (RETRY_NET_CODES.has(code)) return { retry: { reason: what, error: e } };
    return { fail: e };
  }
  // not a provider failure: a bug of ours or of a caller's onEvent; let it surface as is
  throw err;
}

function statusFailure(
  args: PostArgs,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): Attempt {
  const { who } = args;
  const detail = parseErrorBody(text);
  // no trailing period: the message is embedded in our own sentences
  const msg = (detail.message || `HTTP ${status}`).replace(/[.\s]+$/, "");
  const make = (message: string, kind: ProviderErrorKind): ProviderError =>
    new ProviderError(scrub(message, args.secret), kind, { status, partial: [], outputStarted: false });

  if (status === 401 || status === 403) {
    return {
      fail: make(
        `the key was refused by ${who.label} (HTTP ${status}): ${msg}. Check ${who.keyHint} or the config file.`,
        "auth",
      ),
    };
  }
  const overflowText = `${detail.message} ${detail.code ?? ""} ${detail.type ?? ""}`;
  if ((status === 400 || status === 413 || status === 422) && CONTEXT_OVERFLOW.some((re) => re.test(overflowText))) {
    const w = args.transport.contextWindow;
    const window = w ? `${args.model}'s context window of ${formatInt(w)} tokens` : `${args.model}'s context window`;
    return {
      fail: make(
        `the conversation is too long for ${window}: ${msg}. Run /compact to shrink it, or start a new session.`,
        "context_length",
      ),
    };
  }

  let kind: ProviderErrorKind;
  let message: string;
  if (status === 429) {
    kind = "rate_limit";
    message = `${who.label} is rate-limiting requests (HTTP 429): ${msg}`;
  } else if (status === 529 || detail.type === "overloaded_error") {
    kind = "overloaded";
    message = `${who.label} is overloaded (HTTP ${status}): ${msg}`;
  } else if (status >= 500) {
    kind = "server";
    message = `${who.label} had a server error (HTTP ${status}): ${msg}`;
  } else if (status === 408 || status === 409) {
    kind = "server";
    message = `${who.label} could not take the request (HTTP ${status}): ${msg}`;
  } else {
    kind = "bad_request";
    message = `${who.label} rejected the request (HTTP ${status}): ${msg}`;
  }
  const error = make(message, kind);

  const should = headerValue(headers, "x-should-retry");
  const retryable = should === "true" ? true : should === "false" ? false : RETRY_STATUSES.has(status);
  if (!retryable) return { fail: error };
  const wait = retryAfterMs(headers);
  if (wait !== undefined && wait > LONGEST_HONOURED_WAIT_MS) {
    return { fail: make(`${message}; the server asks to wait ${seconds(wait)} s before retrying`, kind) };
  }
  const reason = `HTTP ${status}${detail.type ? ` ${detail.type}` : ""}: ${msg}`;
  return { retry: { reason: scrub(reason, args.secret), delayMs: wait, error } };
}

function abortedError(args: PostArgs, partial: Block[], outputStarted = false): ProviderError {
  return new ProviderError(
    `the request to ${args.who.label} was cancelled` + (outputStarted ? "; the partial answer was kept" : ""),
    "aborted",
    { partial, outputStarted },
  );
}

/** 0.5 s × 2^n, capped, minus up to a quarter so that many clients do not retry in step. */
export function backoff(attempt: number, baseMs: number, capMs: number): number {
  const raw = Math.min(baseMs * 2 ** attempt, capMs);
  return raw * (1 - Math.random() * 0.25);
}

/** retry-after-ms, then retry-after (seconds or an HTTP date); undefined when neither says. */
export function retryAfterMs(
  headers: Record<string, string | string[] | undefined>,
  now: number = Date.now(),
): number | undefined {
  const ms = headerValue(headers, "retry-after-ms");
  if (ms !== undefined) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = headerValue(headers, "retry-after");
  if (ra !== undefined) {
    const s = Number(ra);
    if (ra.trim() !== "" && Number.isFinite(s) && s >= 0) return s * 1000;
    const at = Date.parse(ra);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  return undefined;
}

export interface ErrorDetail {
  message: string;
  type?: string;
  code?: string;
}

/** The message out of an error body of either provider, or of a compatible server. */
export function parseErrorBody(text: string): ErrorDetail {
  const trimmed = text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return { message: snippet(trimmed) };
  }
  const obj = asRecord(parsed);
  const err = obj?.["error"];
  const errObj = asRecord(err);
  if (errObj) {
    const out: ErrorDetail = { message: str(errObj["message"]) ?? snippet(JSON.stringify(errObj)) };
    const type = str(errObj["type"]);
    const code = str(errObj["code"]) ?? (typeof errObj["code"] === "number" ? String(errObj["code"]) : undefined);
    if (type) out.type = type;
    if (code) out.code = code;
    return out;
  }
  if (typeof err === "string") return { message: err };
  const message = str(obj?.["message"]) ?? str(obj?.["detail"]);
  return { message: message ?? snippet(trimmed) };
}

export function providerMessage(text: string): string {
  return parseErrorBody(text).message;
}

function asRecord(x: unknown): Record<string, unknown> | undefined {
  return typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

function str(x: unknown): string | undefined {
  return typeof x === "string" && x.length > 0 ? x : undefined;
}

function snippet(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 300 ? `${one.slice(0, 300)}…` : one;
}

export function scrub(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join("[redacted key]");
}

export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function netCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (RETRY_NET_CODES.has(code) || FATAL_NET_CODES.has(code) || /^E[A-Z]+$/.test(code))) {
      return code;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeNetCode(code: string): string {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (ECONNREFUSED)";
    case "ECONNRESET":
      return "connection reset (ECONNRESET)";
    case "UND_ERR_SOCKET":
      return "the server closed the connection (UND_ERR_SOCKET)";
    case "ENOTFOUND":
      return "host not found (ENOTFOUND); check the base URL";
    case "EAI_AGAIN":
      return "DNS lookup failed (EAI_AGAIN)";
    case "UND_ERR_CONNECT_TIMEOUT":
    case "ETIMEDOUT":
      return `connection timed out (${code})`;
    default:
      return code;
  }
}

export function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return String(Number(s.toFixed(s < 1 ? 2 : 1)));
}

async function readText(body: AsyncIterable<Uint8Array | string>, onChunk: () => void): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) {
    onChunk();
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    if (text.length > 64 * 1024) break; // an error page longer than this says nothing more
  }
  return text + decoder.decode();
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("aborted"));
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
