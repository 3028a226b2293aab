// One streaming POST to a provider: retries before output, an idle timeout between pieces of
// content, bounds on what one answer may bring, and every failure named as a Failure and
// thrown as a ProviderError (its sentence is made in failures.ts). The adapters only parse
// frames; what a status code, a broken socket or an oversize answer means is decided here, once.
import type { Dispatcher, request as undiciRequest } from "undici";
import type { Block } from "../record/types.js";
import { readSseBatches, SseEventTooLarge, type SseFrame } from "./sse.js";
import {
  ProviderError,
  type ProviderIdentity,
  type StreamEvent,
  type StreamOptions,
  type StreamResult,
} from "./types.js";
import { REDACTED, redactorFor } from "../record/redaction.js";
import { answerBounds, type AnswerBounds } from "./bounds.js";
import { AnswerBudget } from "./budget.js";
import {
  endedEarlyText,
  eventBoundText,
  failureKind,
  failureText,
  gaveUpText,
  notAStreamText,
  retryReason,
  StreamFault,
  wireBoundText,
  type Failure,
  type StatusMeaning,
} from "./failures.js";
import { IdleTimer } from "./idle-timer.js";
import { userAgent } from "./user-agent.js";
import type { AnswerContext, FrameHandler } from "./parser.js";
import { parseErrorBody, providerMessage, RequestRefused, type ErrorDetail } from "./error-body.js";

// undici is loaded with the first request, not at start-up: the screen should not wait for
// an HTTP client it does not use yet (about 60 ms and 11 MB on these machines).
let undiciLoad: Promise<typeof undiciRequest> | undefined;
function undici(): Promise<typeof undiciRequest> {
  undiciLoad ??= import("undici").then((m) => m.request);
  return undiciLoad;
}

/** Loads undici ahead of the first request: the screen calls it once the session is up, so
 * Enter does not wait 100–250 ms for it. Loading twice is a no-op; a failure is left for the
 * request to report. */
export function preloadHttpClient(): Promise<void> {
  return undici().then(
    () => undefined,
    () => undefined,
  );
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
  /** longest wait for the first content of an answer, and between pieces of content
   * (default 90 s); keep-alive pings do not restart it */
  idleTimeoutMs?: number;
  /** the model's window, named in context-length errors when known */
  contextWindow?: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 90_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 8_000;
/** a server asking for a longer wait than this gets an error instead of a silent stall */
const LONGEST_HONOURED_WAIT_MS = 60_000;
/** after the final event, how long to wait for the server to end the body (keeps keep-alive) */
const END_GRACE_MS = 1_000;

/** an error body is read for its message; longer ones say nothing more */
const ERROR_BODY_BYTES = 64 * 1024;
/** warnings one answer may raise (repeats are dropped): each becomes a line for the person */
const MAX_WARNINGS = 20;

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

// Overflow texts of the providers and of the common compatible servers
// (docs/providers.md, Errors and retries).
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

interface PostArgs {
  who: ProviderIdentity;
  model: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** scrubbed from every message we build */
  secret?: string;
  transport: TransportOptions;
  stream: StreamOptions;
  /** the request's max output tokens: the answer's bounds follow from it */
  maxOutputTokens: number;
  newHandler(ctx: AnswerContext): FrameHandler;
}

type Attempt =
  | { ok: StreamResult }
  | { retry: { failure: Failure; delayMs?: number | undefined; error: ProviderError } }
  | { fail: ProviderError };

export async function postStream(args: PostArgs): Promise<StreamResult> {
  const retry = args.transport.retry ?? {};
  const maxRetries = Math.max(0, retry.maxRetries ?? DEFAULT_MAX_RETRIES);
  const base = retry.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const cap = retry.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const signal = args.stream.signal;
  const emit = (e: StreamEvent): void => args.stream.onEvent?.(e);

  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw cancelledError(args);
    const out = await attemptOnce(args);
    if ("ok" in out) return out.ok;
    if ("fail" in out) throw out.fail;
    if (attempt >= maxRetries) {
      const e = out.retry.error;
      throw new ProviderError(gaveUpText(e.message, maxRetries), e.kind, e.opts);
    }
    const delayMs = Math.round(out.retry.delayMs ?? backoff(attempt, base, cap));
    emit({ type: "retry", attempt: attempt + 1, delayMs, reason: scrub(retryReason(out.retry.failure, args.who), args.secret) });
    await sleep(delayMs, signal).catch(() => {
      throw cancelledError(args);
    });
  }
}

/** One POST and its answer: sent, refused or read to its end, every failure told apart. */
async function attemptOnce(args: PostArgs): Promise<Attempt> {
  const userSignal = args.stream.signal;
  const bounds = answerBounds(args.maxOutputTokens);
  const cancel = followAbort(userSignal);
  const idle = new IdleTimer({
    idleMs: args.transport.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    toolInputOpen: () => handler.toolInputOpen?.() === true,
    onExpire: () => cancel.abort(new Error("idle timeout")),
  });
  const budget = new AnswerBudget(bounds.contentBytes, () => idle.reset());
  const handler = args.newHandler({ emit: warningCap((e) => args.stream.onEvent?.(e)), budget });
  try {
    idle.start();
    const res = await send(args, cancel.signal);
    const short = await shortAnswer(args, res, idle);
    if (short) return short;
    const finished = await readFrames(res.body, handler, idle, bounds, cancel, () => userSignal?.aborted === true);
    if (finished || handler.completeWithoutFinal?.()) return { ok: handler.result() };
    throw new StreamFault(endedEarlyText(args.who), "stream", true);
  } catch (err) {
    return streamFailure(args, err, handler, idle, bounds);
  } finally {
    idle.stop();
    cancel.release();
  }
}

/** An attempt's own abort: the caller's signal aborts it too, until released. */
function followAbort(user: AbortSignal | undefined): { signal: AbortSignal; abort(reason: unknown): void; release(): void } {
  const ac = new AbortController();
  const onUserAbort = (): void => ac.abort(user?.reason);
  user?.addEventListener("abort", onUserAbort, { once: true });
  return {
    signal: ac.signal,
    abort: (reason) => ac.abort(reason),
    release: () => user?.removeEventListener("abort", onUserAbort),
  };
}

type Reply = Dispatcher.ResponseData;

function send(args: PostArgs, signal: AbortSignal): Promise<Reply> {
  return undici().then((request) =>
    request(args.url, {
      method: "POST",
      headers: { ...args.headers, "user-agent": userAgent() },
      body: args.body,
      signal,
      // our own idle timer covers both; undici's defaults (300 s) would only get in the way
      headersTimeout: 0,
      bodyTimeout: 0,
    }),
  );
}

/**
 * An answer that is not an event stream: an error status (a failure, or a retry), or a JSON
 * or HTML page (thrown as a fault). Such a body is short: it gets one idle period after the
 * headers, whole and at most ERROR_BODY_BYTES, so neither a dripped body nor an endless one
 * can hold the turn. Undefined: the body is a stream, to be read.
 */
async function shortAnswer(args: PostArgs, res: Reply, idle: IdleTimer): Promise<Attempt | undefined> {
  if (res.statusCode < 200 || res.statusCode >= 300) {
    idle.reset();
    const text = await readText(res.body);
    return statusFailure(args, res.statusCode, res.headers, text);
  }
  const contentType = headerValue(res.headers, "content-type") ?? "";
  if (/application\/json|text\/html/i.test(contentType)) {
    idle.reset();
    const text = await readText(res.body);
    throw new StreamFault(notAStreamText(args.who, contentType.split(";")[0] ?? "", providerMessage(text)), "stream");
  }
  return undefined;
}

/**
 * The body's frames to the handler, within the bound on the whole stream, until the
 * provider's final event; true when it came. After it, the body's end gets a short grace so
 * the socket can be reused, and a body that then breaks (or is cut at the grace) does not
 * spoil the whole answer, unless the caller cancelled.
 */
async function readFrames(
  body: Reply["body"],
  handler: FrameHandler,
  idle: IdleTimer,
  bounds: AnswerBounds,
  cancel: { abort(reason: unknown): void },
  cancelled: () => boolean,
): Promise<boolean> {
  let finished = false;
  let grace: NodeJS.Timeout | undefined;
  let wireBytes = 0;
  const progress = {
    onChunk: (n: number): void => {
      idle.bytes(n);
      wireBytes += n;
      if (wireBytes > bounds.wireBytes) {
        throw new StreamFault(wireBoundText(bounds.wireBytes), "too_large", false, "wire");
      }
    },
    onLine: (): void => idle.line(),
    maxEventChars: bounds.eventChars,
  };
  try {
    // the frames of each chunk at once: one async step per chunk, not per frame (sse.ts)
    for await (const frames of readSseBatches(body, progress)) {
      for (const frame of frames) {
        if (finished) continue; // the body's tail after the final event; only its end matters
        if (handler.onFrame(frame) === "done") {
          finished = true;
          idle.stop();
          grace = setTimeout(() => cancel.abort(new Error("end grace")), END_GRACE_MS);
        }
      }
    }
    return finished;
  } catch (err) {
    if (finished && !cancelled()) return true;
    throw err;
  } finally {
    clearTimeout(grace);
  }
}

/** Passes events on; a warning already given is dropped, and after MAX_WARNINGS one line says
 * the rest are not shown (a stream of unknown events must not become a flood of notices). */
export function warningCap(emit: (e: StreamEvent) => void): (e: StreamEvent) => void {
  const seen = new Set<string>();
  return (e) => {
    if (e.type !== "warning") return emit(e);
    if (seen.has(e.message) || seen.size > MAX_WARNINGS) return;
    seen.add(e.message);
    emit(seen.size > MAX_WARNINGS ? { type: "warning", message: "further warnings about this answer are not shown" } : e);
  };
}

/** What a thrown error means for the attempt: a failure (or a retry), in the order that
 * decides it: the caller's cancel, the idle wait, a fault of the stream, the network. */
function streamFailure(args: PostArgs, err: unknown, handler: FrameHandler, idle: IdleTimer, bounds: AnswerBounds): Attempt {
  const outputStarted = handler.outputStarted;
  const opts = { partial: handler.partial(), outputStarted };
  const fail = (f: Failure): Attempt => ({ fail: errorOf(args, f, opts) });

  if (args.stream.signal?.aborted) return fail({ type: "cancelled", outputStarted });
  const waitedMs = idle.expiredAfterMs;
  if (waitedMs !== undefined) {
    const waitingFor = handler.toolInputOpen?.() ? "tool_input" : outputStarted ? "more" : "start";
    return fail({ type: "idle", waitedMs, quiet: idle.quiet, waitingFor, outputStarted });
  }
  if (err instanceof SseEventTooLarge) err = new StreamFault(eventBoundText(bounds.eventChars), "too_large", false, "answer");
  if (err instanceof StreamFault) {
    const f: Failure = { type: "fault", text: err.message, kind: err.kind, outputStarted };
    if (err.rule) f.rule = err.rule;
    if (err.retryable && !outputStarted) return { retry: { failure: f, error: errorOf(args, f, opts) } };
    return fail(f);
  }
  const code = netCode(err);
  if (code !== undefined) {
    if (outputStarted) return fail({ type: "broke", code });
    const f: Failure = { type: "unreachable", code, url: args.url };
    if (RETRY_NET_CODES.has(code)) return { retry: { failure: f, error: errorOf(args, f, opts) } };
    return fail(f);
  }
  // not a provider failure: a bug of ours or of a caller's onEvent; let it surface as is
  throw err;
}

/** What an answer with an error status means: a failure, or a retry after the wait asked. */
function statusFailure(
  args: PostArgs,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): Attempt {
  const detail = parseErrorBody(text);
  // no trailing period: the message is embedded in our own sentences
  const said = (detail.message || `HTTP ${status}`).replace(/[.\s]+$/, "");
  const opts = { status, partial: [], outputStarted: false };

  if (status === 401 || status === 403) return { fail: errorOf(args, { type: "key_refused", status, said }, opts) };
  const overflowText = `${detail.message} ${detail.code ?? ""} ${detail.type ?? ""}`;
  if ((status === 400 || status === 413 || status === 422) && CONTEXT_OVERFLOW.some((re) => re.test(overflowText))) {
    const f: Failure = { type: "too_long", said, model: args.model };
    if (args.transport.contextWindow) f.window = args.transport.contextWindow;
    return { fail: errorOf(args, f, opts) };
  }

  const f: Failure & { type: "status" } = { type: "status", status, meaning: statusMeaning(status, detail), said };
  if (detail.type) f.errorType = detail.type;
  // a refusal keeps what the server said, so the adapter can tell a refused optional field
  // from another mistake (refusals.ts)
  const error =
    f.meaning === "rejected"
      ? new RequestRefused(scrub(failureText(f, args.who), args.secret), opts, {
          ...detail,
          message: scrub(detail.message, args.secret),
          text: scrub(text, args.secret),
        })
      : errorOf(args, f, opts);

  const should = headerValue(headers, "x-should-retry");
  const retryable = should === "true" ? true : should === "false" ? false : RETRY_STATUSES.has(status);
  if (!retryable) return { fail: error };
  const wait = retryAfterMs(headers);
  if (wait !== undefined && wait > LONGEST_HONOURED_WAIT_MS) return { fail: errorOf(args, { ...f, waitMs: wait }, opts) };
  return { retry: { failure: f, delayMs: wait, error } };
}

function statusMeaning(status: number, detail: ErrorDetail): StatusMeaning {
  if (status === 429) return "rate_limited";
  if (status === 529 || detail.type === "overloaded_error") return "overloaded";
  if (status >= 500) return "server_error";
  if (status === 408 || status === 409) return "not_taken";
  return "rejected";
}

/** The error a failure is thrown as: its sentence, with the key cut out. */
function errorOf(args: PostArgs, f: Failure, opts: ProviderError["opts"]): ProviderError {
  return new ProviderError(scrub(failureText(f, args.who), args.secret), failureKind(f), opts);
}

function cancelledError(args: PostArgs): ProviderError {
  return errorOf(args, { type: "cancelled", outputStarted: false }, { partial: [], outputStarted: false });
}

/** 0.5 s × 2^n, capped, minus up to a quarter so that many clients do not retry in step. */
function backoff(attempt: number, baseMs: number, capMs: number): number {
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

/** The key out of a message: every copy, and (through the one redactor) the pieces of it a
 * server may quote, such as a 401 that echoes the key's head and tail. */
export function scrub(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return redactorFor(() => [secret])(text.split(secret).join(REDACTED));
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
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

/** At most ERROR_BODY_BYTES of a body, decoded; the rest is not read. */
async function readText(body: AsyncIterable<Uint8Array | string>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    const room = ERROR_BODY_BYTES - bytes;
    text += decoder.decode(buf.byteLength > room ? buf.subarray(0, room) : buf, { stream: true });
    bytes += Math.min(room, buf.byteLength);
    if (bytes >= ERROR_BODY_BYTES) break; // leaving the loop destroys the body
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
