// SSE framing and the transport's small parsers (retry waits, error bodies, key scrubbing).
import { describe, expect, it } from "vitest";
import { readSse, type SseFrame } from "../../src/provider/sse.js";
import { parseErrorBody, retryAfterMs, scrub } from "../../src/provider/http.js";

async function frames(chunks: string[]): Promise<SseFrame[]> {
  async function* body() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out: SseFrame[] = [];
  for await (const f of readSse(body())) out.push(f);
  return out;
}

describe("readSse", () => {
  it("reads named events with LF and CRLF line endings", async () => {
    expect(await frames(["event: a\ndata: 1\n\n", "event: b\r\ndata: 2\r\n\r\n"])).toEqual([
      { event: "a", data: "1" },
      { event: "b", data: "2" },
    ]);
  });

  it("skips comments and joins multi-line data with newlines", async () => {
    expect(await frames([": OPENROUTER PROCESSING\n\n", "data: line one\ndata: line two\n\n"])).toEqual([
      { data: "line one\nline two" },
    ]);
  });

  it("reassembles frames and multi-byte characters split across chunks", async () => {
    const bytes = new TextEncoder().encode('data: {"t":"héllo ✓"}\n\n');
    async function* body() {
      for (let i = 0; i < bytes.length; i += 3) yield bytes.subarray(i, i + 3);
    }
    const out: SseFrame[] = [];
    for await (const f of readSse(body())) out.push(f);
    expect(out).toEqual([{ data: '{"t":"héllo ✓"}' }]);
  });

  it("completes a last frame missing only its blank line, but not one cut mid-line", async () => {
    expect(await frames(["data: [DONE]\n"])).toEqual([{ data: "[DONE]" }]);
    expect(await frames(['data: {"half":'])).toEqual([]);
  });

  it("calls onChunk for every chunk (the idle timer's heartbeat)", async () => {
    let n = 0;
    async function* body() {
      yield ": ping\n\n";
      yield ": ping\n\n";
      yield "data: x\n\n";
    }
    const out: SseFrame[] = [];
    for await (const f of readSse(body(), { onChunk: () => n++ })) out.push(f);
    expect(n).toBe(3);
    expect(out).toEqual([{ data: "x" }]);
  });
});

describe("retryAfterMs", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("prefers retry-after-ms, then retry-after in seconds or as an HTTP date", () => {
    expect(retryAfterMs({ "retry-after-ms": "250", "retry-after": "9" }, now)).toBe(250);
    expect(retryAfterMs({ "retry-after": "3" }, now)).toBe(3000);
    expect(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs({ "retry-after": "Wed, 31 Dec 2025 00:00:05 GMT" }, now)).toBe(0);
    expect(retryAfterMs({}, now)).toBeUndefined();
    expect(retryAfterMs({ "retry-after": "soon" }, now)).toBeUndefined();
  });
});

describe("parseErrorBody", () => {
  it("reads both providers' error bodies and plain-text ones", () => {
    expect(parseErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual({
      message: "Overloaded",
      type: "overloaded_error",
    });
    expect(
      parseErrorBody('{"error":{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}'),
    ).toEqual({ message: "too long", type: "invalid_request_error", code: "context_length_exceeded" });
    expect(parseErrorBody('{"error":"model not found"}')).toEqual({ message: "model not found" });
    expect(parseErrorBody("<html>Bad Gateway</html>")).toEqual({ message: "<html>Bad Gateway</html>" });
  });
});

describe("scrub", () => {
  it("removes every copy of the key", () => {
    expect(scrub("key sk-abc123 and again sk-abc123.", "sk-abc123")).toBe("key [redacted key] and again [redacted key].");
    expect(scrub("nothing here", undefined)).toBe("nothing here");
  });
});
