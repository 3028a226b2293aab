// What went wrong with a request to a provider, as values, and the one sentence each becomes
// for the person. The transport (http.ts) decides what happened and names it with a Failure;
// how it is said, and what the person can do about it (a key to set, /compact, the idle
// timeout's setting), is written here and nowhere else.
import { formatInt } from "../record/numbers.js";
import { assertNever } from "../record/types.js";
import { ANSWER_BYTES_PER_TOKEN, ANSWER_FLOOR_BYTES, megabytes, WIRE_BYTES_PER_TOKEN, WIRE_FLOOR_BYTES } from "./bounds.js";
import type { Quiet } from "./idle-timer.js";
import type { ProviderErrorKind, ProviderIdentity } from "./types.js";
import { hostOf, origin } from "./url.js";

/** Which bound an answer passed: what it may bring, or the event stream around it. */
type BoundRule = "answer" | "wire";

const RULES: Record<BoundRule, string> = {
  answer: `an answer may bring ${ANSWER_BYTES_PER_TOKEN} bytes per max-output token, at least ${megabytes(ANSWER_FLOOR_BYTES)}`,
  wire: `the event stream of one answer may take ${WIRE_BYTES_PER_TOKEN} bytes per max-output token, at least ${megabytes(WIRE_FLOOR_BYTES)}`,
};

/** A failure found while reading the stream, in the words of who found it: a shape's parser
 * (what the server sent wrong), or a bound. The transport adds the partial output. */
export class StreamFault extends Error {
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    /** worth another attempt if nothing has streamed yet (overload, cut connection) */
    readonly retryable = false,
    /** the bound that was passed, said at the end after who passed it */
    readonly rule?: BoundRule,
  ) {
    super(message);
    this.name = "StreamFault";
  }
}

/** What the stream was waiting for when the idle wait ran out. */
type Waiting = "start" | "more" | "tool_input";

/** How a provider answered a request it did not stream, by its status. */
export type StatusMeaning = "rate_limited" | "overloaded" | "server_error" | "not_taken" | "rejected";

export type Failure =
  /** the caller cancelled */
  | { type: "cancelled"; outputStarted: boolean }
  /** nothing, or nothing but pings, for the idle wait */
  | { type: "idle"; waitedMs: number; quiet: Quiet; waitingFor: Waiting; outputStarted: boolean }
  /** the stream broke a rule, in its finder's words (a StreamFault) */
  | { type: "fault"; text: string; kind: ProviderErrorKind; rule?: BoundRule; outputStarted: boolean }
  /** no connection: DNS, refused, reset before any answer */
  | { type: "unreachable"; code: string; url: string }
  /** the connection broke while the answer streamed */
  | { type: "broke"; code: string }
  /** HTTP 401 or 403 */
  | { type: "key_refused"; status: number; said: string }
  /** the request is over the model's window */
  | { type: "too_long"; said: string; model: string; window?: number }
  /** any other status; `waitMs`: the server asks to wait longer than is honoured */
  | { type: "status"; status: number; meaning: StatusMeaning; said: string; errorType?: string; waitMs?: number };

export function failureKind(f: Failure): ProviderErrorKind {
  switch (f.type) {
    case "cancelled":
      return "aborted";
    case "idle":
      return "timeout";
    case "fault":
      return f.kind;
    case "unreachable":
    case "broke":
      return "network";
    case "key_refused":
      return "auth";
    case "too_long":
      return "context_length";
    case "status":
      return statusKind(f.meaning);
    default:
      return assertNever(f, "failure");
  }
}

function statusKind(m: StatusMeaning): ProviderErrorKind {
  switch (m) {
    case "rate_limited":
      return "rate_limit";
    case "overloaded":
      return "overloaded";
    case "server_error":
    case "not_taken":
      return "server";
    case "rejected":
      return "bad_request";
    default:
      return assertNever(m, "status meaning");
  }
}

/** The sentence a failure becomes, naming who failed. */
export function failureText(f: Failure, who: ProviderIdentity): string {
  switch (f.type) {
    case "cancelled":
      return `the request to ${who.label} was cancelled` + (f.outputStarted ? "; the partial answer was kept" : "");
    case "idle":
      return idleText(f, who);
    case "fault": {
      const kept = f.kind === "too_large" && f.outputStarted ? "; what arrived up to the bound was kept" : "";
      const rule = f.rule ? ` (${who.label}; ${RULES[f.rule]})` : "";
      return f.text + kept + rule;
    }
    case "unreachable": {
      // a label that already names the host needs no origin after it
      const where = who.label.includes(hostOf(f.url)) ? who.label : `${who.label} (${origin(f.url)})`;
      return `could not reach ${where}: ${netCodeText(f.code)}`;
    }
    case "broke":
      return `the connection to ${who.label} broke mid-answer (${netCodeText(f.code)}); the partial answer was kept`;
    case "key_refused":
      return `the key was refused by ${who.label} (HTTP ${f.status}): ${f.said}. Check ${who.keyHint} or the config file.`;
    case "too_long": {
      const window = f.window ? `${f.model}'s context window of ${formatInt(f.window)} tokens` : `${f.model}'s context window`;
      return `the conversation is too long for ${window}: ${f.said}. Run /compact to shrink it, or start a new session.`;
    }
    case "status": {
      const text = statusText(f, who);
      return f.waitMs === undefined ? text : `${text}; the server asks to wait ${seconds(f.waitMs)} s before retrying`;
    }
    default:
      return assertNever(f, "failure");
  }
}

function idleText(f: Extract<Failure, { type: "idle" }>, who: ProviderIdentity): string {
  const kept = f.outputStarted ? ", the partial answer was kept" : "";
  const { lines, trickled } = f.quiet;
  if (lines === 0) {
    return (
      `no data from the provider for ${seconds(f.waitedMs)} s (${who.label}); gave up waiting` +
      (trickled > 0 ? ` (only ${trickled} ${trickled === 1 ? "byte" : "bytes"} trickled in, not one whole line)` : "") +
      kept
    );
  }
  const wait = WAITING[f.waitingFor];
  return (
    `no content from the provider for ${seconds(f.waitedMs)} s (${who.label}) while waiting ${wait}: ` +
    `only keep-alive pings or empty events arrived; gave up waiting (the idle timeout, idleTimeoutSeconds in the config)` +
    kept
  );
}

const WAITING: Record<Waiting, string> = {
  tool_input: "for the rest of a tool call's input",
  more: "after the last content",
  start: "for the answer to start",
};

function statusText(f: Extract<Failure, { type: "status" }>, who: ProviderIdentity): string {
  switch (f.meaning) {
    case "rate_limited":
      return `${who.label} is rate-limiting requests (HTTP ${f.status}): ${f.said}`;
    case "overloaded":
      return `${who.label} is overloaded (HTTP ${f.status}): ${f.said}`;
    case "server_error":
      return `${who.label} had a server error (HTTP ${f.status}): ${f.said}`;
    case "not_taken":
      return `${who.label} could not take the request (HTTP ${f.status}): ${f.said}`;
    case "rejected":
      return `${who.label} rejected the request (HTTP ${f.status}): ${f.said}`;
    default:
      return assertNever(f.meaning, "status meaning");
  }
}

/** What a retry notice says it is retrying after: shorter than the failure's sentence. */
export function retryReason(f: Failure, who: ProviderIdentity): string {
  switch (f.type) {
    case "fault":
      return f.text;
    case "unreachable":
    case "broke":
      return netCodeText(f.code);
    case "status":
      return `HTTP ${f.status}${f.errorType ? ` ${f.errorType}` : ""}: ${f.said}`;
    case "cancelled":
    case "idle":
    case "key_refused":
    case "too_long":
      return failureText(f, who);
    default:
      return assertNever(f, "failure");
  }
}

/** A retryable failure's sentence once the retries are spent. */
export function gaveUpText(message: string, retries: number): string {
  return `${message} (gave up after ${retries} ${retries === 1 ? "retry" : "retries"})`;
}

function netCodeText(code: string): string {
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

// ---------------------------------------------------------------- faults found while reading

/** The answer passed its bound; `cutOff` names what was being sent when it did. */
export function answerBoundText(limitBytes: number, cutOff?: string): string {
  return `the provider sent more than ${megabytes(limitBytes)} in one answer; stopped reading it` + (cutOff ? `; ${cutOff}` : "");
}

export function eventBoundText(limitChars: number): string {
  return `the provider sent more than ${megabytes(limitChars)} in one answer, in a single stream event; stopped reading it`;
}

export function wireBoundText(limitBytes: number): string {
  return `the provider sent more than ${megabytes(limitBytes)} of event stream for one answer, most of it not content; stopped reading it`;
}

export function notAStreamText(who: ProviderIdentity, contentType: string, said: string): string {
  return `${who.label} answered with ${contentType} instead of an event stream: ${said}`;
}

export function endedEarlyText(who: ProviderIdentity): string {
  return `the stream ended before the provider finished (${who.label} closed the connection mid-answer)`;
}

// ---------------------------------------------------------------- small pieces of wording

/** "0.4", "2", "90": seconds as the sentences say them. */
export function seconds(ms: number): string {
  const s = ms / 1000;
  return String(Number(s.toFixed(s < 1 ? 2 : 1)));
}

/** At most `n` characters of what a server sent, for quoting it in a sentence. */
export function clip(s: string, n = 120): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

// ---------------------------------------------------------------- a refusal answered

/** The warning when a request goes again without the optional fields a server refused. */
export function refusedFieldsWarning(a: {
  label: string;
  fields: readonly string[];
  status: number;
  /** what the server said, as quoted */
  said: string;
  model: string;
  /** the field the request carries instead, when there is one */
  instead?: string;
}): string {
  const list = a.fields.map((f) => `"${f}"`).join(", ");
  const them = a.fields.length === 1 ? "it" : "them";
  const instead = a.instead ? `; it gets "${a.instead}" instead` : "";
  return (
    `${a.label} refused ${list} (HTTP ${a.status}: ${a.said}); ` +
    `sent the request again without ${them}${instead}, and ${a.model} will not get ${them} again this session`
  );
}
