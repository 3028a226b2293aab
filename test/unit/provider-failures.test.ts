// Every failure the transport names, and the sentence it becomes: the one place the person's
// words about a provider failure are made (what happened, and what to do about it).
import { describe, expect, it } from "vitest";
import {
  answerBoundText,
  clip,
  endedEarlyText,
  eventBoundText,
  failureKind,
  failureText,
  gaveUpText,
  notAStreamText,
  refusedFieldsWarning,
  retryReason,
  seconds,
  wireBoundText,
  type Failure,
} from "../../src/provider/failures.js";
import type { ProviderIdentity } from "../../src/provider/types.js";

const MB = 1024 * 1024;
const anthropic: ProviderIdentity = { name: "anthropic", label: "Anthropic", keyHint: "ANTHROPIC_API_KEY" };
const local: ProviderIdentity = { name: "openai", label: "the server at 127.0.0.1:8080", keyHint: "OPENAI_API_KEY" };

describe("failureText", () => {
  const cases: [string, Failure, ProviderIdentity, string, string][] = [
    ["cancelled", { type: "cancelled", outputStarted: false }, anthropic, "aborted", "the request to Anthropic was cancelled"],
    [
      "cancelled mid-answer",
      { type: "cancelled", outputStarted: true },
      anthropic,
      "aborted",
      "the request to Anthropic was cancelled; the partial answer was kept",
    ],
    [
      "silence",
      { type: "idle", waitedMs: 90_000, quiet: { lines: 0, trickled: 0 }, waitingFor: "start", outputStarted: false },
      anthropic,
      "timeout",
      "no data from the provider for 90 s (Anthropic); gave up waiting",
    ],
    [
      "a drip",
      { type: "idle", waitedMs: 300, quiet: { lines: 0, trickled: 1 }, waitingFor: "start", outputStarted: true },
      anthropic,
      "timeout",
      "no data from the provider for 0.3 s (Anthropic); gave up waiting (only 1 byte trickled in, not one whole line), the partial answer was kept",
    ],
    [
      "pings before the answer",
      { type: "idle", waitedMs: 400, quiet: { lines: 7, trickled: 0 }, waitingFor: "start", outputStarted: false },
      anthropic,
      "timeout",
      "no content from the provider for 0.4 s (Anthropic) while waiting for the answer to start: only keep-alive pings or empty events arrived; gave up waiting (the idle timeout, idleTimeoutSeconds in the config)",
    ],
    [
      "pings inside a tool input",
      { type: "idle", waitedMs: 2000, quiet: { lines: 40, trickled: 3 }, waitingFor: "tool_input", outputStarted: true },
      anthropic,
      "timeout",
      "no content from the provider for 2 s (Anthropic) while waiting for the rest of a tool call's input: only keep-alive pings or empty events arrived; gave up waiting (the idle timeout, idleTimeoutSeconds in the config), the partial answer was kept",
    ],
    [
      "the answer's bound",
      { type: "fault", text: answerBoundText(4 * MB), kind: "too_large", rule: "answer", outputStarted: true },
      anthropic,
      "too_large",
      "the provider sent more than 4 MB in one answer; stopped reading it; what arrived up to the bound was kept (Anthropic; an answer may bring 16 bytes per max-output token, at least 4 MB)",
    ],
    [
      "the wire's bound",
      { type: "fault", text: wireBoundText(64 * MB), kind: "too_large", rule: "wire", outputStarted: false },
      anthropic,
      "too_large",
      "the provider sent more than 64 MB of event stream for one answer, most of it not content; stopped reading it (Anthropic; the event stream of one answer may take 512 bytes per max-output token, at least 64 MB)",
    ],
    [
      "a parser's fault",
      { type: "fault", text: "Anthropic started content block 0 twice", kind: "stream", outputStarted: true },
      anthropic,
      "stream",
      "Anthropic started content block 0 twice",
    ],
    [
      "no server",
      { type: "unreachable", code: "ECONNREFUSED", url: "https://api.anthropic.com/v1/messages" },
      anthropic,
      "network",
      "could not reach Anthropic (https://api.anthropic.com): connection refused (ECONNREFUSED)",
    ],
    [
      "no server, named by its host already",
      { type: "unreachable", code: "ENOTFOUND", url: "http://127.0.0.1:8080/v1/chat/completions" },
      local,
      "network",
      "could not reach the server at 127.0.0.1:8080: host not found (ENOTFOUND); check the base URL",
    ],
    [
      "a broken connection",
      { type: "broke", code: "UND_ERR_SOCKET" },
      anthropic,
      "network",
      "the connection to Anthropic broke mid-answer (the server closed the connection (UND_ERR_SOCKET)); the partial answer was kept",
    ],
    [
      "a refused key",
      { type: "key_refused", status: 401, said: "invalid x-api-key" },
      anthropic,
      "auth",
      "the key was refused by Anthropic (HTTP 401): invalid x-api-key. Check ANTHROPIC_API_KEY or the config file.",
    ],
    [
      "too long, window known",
      { type: "too_long", said: "prompt is too long", model: "claude-x", window: 200_000 },
      anthropic,
      "context_length",
      "the conversation is too long for claude-x's context window of 200,000 tokens: prompt is too long. Run /compact to shrink it, or start a new session.",
    ],
    [
      "too long, window unknown",
      { type: "too_long", said: "maximum context length", model: "qwen" },
      local,
      "context_length",
      "the conversation is too long for qwen's context window: maximum context length. Run /compact to shrink it, or start a new session.",
    ],
    [
      "rate-limited",
      { type: "status", status: 429, meaning: "rate_limited", said: "slow down" },
      anthropic,
      "rate_limit",
      "Anthropic is rate-limiting requests (HTTP 429): slow down",
    ],
    [
      "overloaded, with a wait too long",
      { type: "status", status: 529, meaning: "overloaded", said: "Overloaded", waitMs: 120_000 },
      anthropic,
      "overloaded",
      "Anthropic is overloaded (HTTP 529): Overloaded; the server asks to wait 120 s before retrying",
    ],
    [
      "a server error",
      { type: "status", status: 502, meaning: "server_error", said: "HTTP 502" },
      local,
      "server",
      "the server at 127.0.0.1:8080 had a server error (HTTP 502): HTTP 502",
    ],
    [
      "a conflict",
      { type: "status", status: 409, meaning: "not_taken", said: "busy" },
      local,
      "server",
      "the server at 127.0.0.1:8080 could not take the request (HTTP 409): busy",
    ],
    [
      "a rejected request",
      { type: "status", status: 400, meaning: "rejected", said: "Unknown parameter: 'x'" },
      local,
      "bad_request",
      "the server at 127.0.0.1:8080 rejected the request (HTTP 400): Unknown parameter: 'x'",
    ],
  ];
  it.each(cases)("%s", (_name, f, who, kind, text) => {
    expect(failureText(f, who)).toBe(text);
    expect(failureKind(f)).toBe(kind);
  });
});

describe("the other sentences", () => {
  it("retry reasons are short: the status and what the server said, or the network's code", () => {
    expect(retryReason({ type: "status", status: 529, meaning: "overloaded", said: "Overloaded", errorType: "overloaded_error" }, anthropic)).toBe(
      "HTTP 529 overloaded_error: Overloaded",
    );
    expect(retryReason({ type: "unreachable", code: "ECONNRESET", url: "https://api.anthropic.com" }, anthropic)).toBe("connection reset (ECONNRESET)");
    expect(retryReason({ type: "fault", text: endedEarlyText(anthropic), kind: "stream", outputStarted: false }, anthropic)).toBe(
      "the stream ended before the provider finished (Anthropic closed the connection mid-answer)",
    );
  });

  it("bounds, faults of the transport, giving up, and the small pieces", () => {
    expect(answerBoundText(10, 'the tool call "write" is not run')).toBe(
      'the provider sent more than 10 bytes in one answer; stopped reading it; the tool call "write" is not run',
    );
    expect(eventBoundText(4 * MB)).toBe("the provider sent more than 4 MB in one answer, in a single stream event; stopped reading it");
    expect(notAStreamText(local, "text/html", "Bad Gateway")).toBe("the server at 127.0.0.1:8080 answered with text/html instead of an event stream: Bad Gateway");
    expect(gaveUpText("Anthropic is overloaded (HTTP 529): Overloaded", 1)).toBe("Anthropic is overloaded (HTTP 529): Overloaded (gave up after 1 retry)");
    expect(gaveUpText("x", 3)).toBe("x (gave up after 3 retries)");
    expect(seconds(400)).toBe("0.4");
    expect(seconds(1250)).toBe("1.3");
    expect(clip("a".repeat(130))).toBe(`${"a".repeat(120)}…`);
    expect(clip("short", 3)).toBe("sho…");
  });

  it("a refusal answered: what was refused, what the server said, what the request gets instead", () => {
    expect(refusedFieldsWarning({ label: "the server at 127.0.0.1:1234", fields: ["prompt_cache_key"], status: 400, said: "Unrecognized key", model: "qwen" })).toBe(
      'the server at 127.0.0.1:1234 refused "prompt_cache_key" (HTTP 400: Unrecognized key); sent the request again without it, and qwen will not get it again this session',
    );
    expect(
      refusedFieldsWarning({ label: "OpenAI", fields: ["max_tokens", "stream_options"], status: 422, said: "no", model: "gpt-x", instead: "max_completion_tokens" }),
    ).toBe(
      'OpenAI refused "max_tokens", "stream_options" (HTTP 422: no); sent the request again without them; it gets "max_completion_tokens" instead, and gpt-x will not get them again this session',
    );
  });
});
