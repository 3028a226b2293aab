// SSE framing and the transport's small parsers (retry waits, error bodies, key scrubbing),
// and the bounds on what one answer may bring.
import { describe, expect, it } from "vitest";
import { readSse, readSseBatches, SseEventTooLarge, type SseFrame } from "../../src/provider/sse.js";
import { prng } from "../helpers/prng.js";
import { ANSWER_BYTES_PER_TOKEN, ANSWER_FLOOR_BYTES, answerBounds, megabytes } from "../../src/provider/bounds.js";
import { AnswerBudget } from "../../src/provider/budget.js";
import { parseErrorBody } from "../../src/provider/error-body.js";
import {
  retryAfterMs,
  scrub,
  warningCap,
} from "../../src/provider/http.js";
import { StreamFault } from "../../src/provider/failures.js";
import type { StreamEvent } from "../../src/provider/types.js";

const MB = 1024 * 1024;

async function frames(chunks: string[]): Promise<SseFrame[]> {
  async function* body() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out: SseFrame[] = [];
  for await (const f of readSse(body())) out.push(f);
  return out;
}

describe("readSseBatches", () => {
  it("gives the frames each chunk completes as one array: the same frames as readSse, however the bytes are cut", async () => {
    const events = Array.from({ length: 300 }, (_, i) =>
      i % 7 === 0 ? `: ping\r\n\r\n` : `event: content_block_delta\ndata: {"i":${i},"text":"wörd ${i} "}\n${i % 5 === 0 ? "data: second line\n" : ""}\n`,
    ).join("");
    const bytes = new TextEncoder().encode(events);
    for (let seed = 1; seed <= 20; seed++) {
      const r = prng(seed);
      const chunks: Uint8Array[] = [];
      // cuts anywhere, inside a UTF-8 character or a CRLF included
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + Math.floor(r() * 200);
        chunks.push(bytes.subarray(at, at + n));
        at += n;
      }
      const body = async function* () {
        yield* chunks;
      };
      const one: SseFrame[] = [];
      for await (const f of readSse(body())) one.push(f);
      const batched: SseFrame[] = [];
      let steps = 0;
      for await (const b of readSseBatches(body())) {
        steps++;
        expect(b.length).toBeGreaterThan(0);
        batched.push(...b);
      }
      expect(batched).toEqual(one);
      expect(one.filter((f) => f.event === "content_block_delta")).toHaveLength(300 - Math.ceil(300 / 7));
      // one step per chunk that completes a frame, never one per frame
      expect(steps).toBeLessThanOrEqual(chunks.length + 1);
    }
  });
});

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

  it("calls onChunk for every chunk (the bytes behind the stream bound and the trickle report)", async () => {
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
    ).toEqual({ message: "too long", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" });
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

describe("readSse: one event is bounded while it is gathered", () => {
  /** "data: " and then `bytes` more of one line, made as it is read; counts what was pulled */
  function endlessLine(bytes: number, pulled: { n: number }) {
    const piece = "x".repeat(64 * 1024);
    return (async function* () {
      yield 'data: {"t":"';
      for (let left = bytes; left > 0; left -= piece.length) {
        pulled.n += piece.length;
        yield piece;
      }
      yield '"}\n\n';
    })();
  }

  it("throws SseEventTooLarge once an unfinished event passes maxEventChars, without reading the rest", async () => {
    const pulled = { n: 0 };
    const frames: SseFrame[] = [];
    const err = await (async () => {
      try {
        for await (const f of readSse(endlessLine(64 * 1024 * 1024, pulled), { maxEventChars: 1024 * 1024 })) frames.push(f);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(SseEventTooLarge);
    expect(frames).toEqual([]);
    // stopped within one chunk of the bound, not at the end of the 64 MB line
    expect(pulled.n).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024);
  });

  it("lets many small events through whose sum is far above the bound", async () => {
    const chunks = Array.from({ length: 2000 }, (_, i) => `data: {"n":${i},"pad":"${"y".repeat(1000)}"}\n\n`);
    async function* body() {
      for (const c of chunks) yield c;
    }
    let n = 0;
    for await (const _ of readSse(body(), { maxEventChars: 64 * 1024 })) n++;
    expect(n).toBe(2000);
  });

  it("counts the data lines of one event together", async () => {
    async function* body() {
      for (let i = 0; i < 100; i++) yield `data: ${"z".repeat(1000)}\n`;
      yield "\n";
    }
    await expect(async () => {
      for await (const _ of readSse(body(), { maxEventChars: 50_000 })) void _;
    }).rejects.toBeInstanceOf(SseEventTooLarge);
  });
});

describe("answer bounds", () => {
  it("are 16 bytes per max-output token, at least 4 MB; the whole stream 512 per token, at least 64 MB", () => {
    expect(answerBounds(8192)).toEqual({ contentBytes: 4 * MB, eventChars: 4 * MB, wireBytes: 64 * MB });
    expect(answerBounds(1_000_000)).toEqual({ contentBytes: 16_000_000, eventChars: 16_000_000, wireBytes: 512_000_000 });
    expect(answerBounds(0).contentBytes).toBe(4 * MB);
    expect(ANSWER_BYTES_PER_TOKEN).toBe(16);
    expect(ANSWER_FLOOR_BYTES).toBe(4 * MB);
    expect(megabytes(4 * MB)).toBe("4 MB");
    expect(megabytes(16_000_000)).toBe("15.3 MB");
    expect(megabytes(1000)).toBe("1,000 bytes");
  });

  it("take() keeps what fits, cuts the piece that crosses at a whole character, and check() then throws", () => {
    let contents = 0;
    const b = new AnswerBudget(10, () => contents++);
    expect(b.take("abcd")).toBe("abcd");
    expect(b.take("")).toBe("");
    b.check();
    // "é" is 2 bytes, "✓" 3: 4 + 2 + 2 = 8 fits, the ✓ would make 11
    expect(b.take("éé✓x")).toBe("éé");
    expect(b.exceeded).toBe(true);
    expect(b.take("more")).toBe("");
    expect(contents).toBe(2); // empty pieces are not content
    expect(() => b.check('the tool call "write" is not run')).toThrow(
      expect.objectContaining({ kind: "too_large", message: 'the provider sent more than 10 bytes in one answer; stopped reading it; the tool call "write" is not run' }),
    );
    const err = (() => {
      try {
        b.check();
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(StreamFault);
  });

  it("block() charges a small cost, so a stream of empty blocks reaches the bound too", () => {
    const b = new AnswerBudget(1000);
    let blocks = 0;
    while (!b.exceeded) {
      b.block();
      blocks++;
    }
    expect(blocks).toBeLessThan(20);
  });
});

describe("warningCap", () => {
  it("drops a warning already given and stops after 20 with one line saying so; other events pass", () => {
    const out: StreamEvent[] = [];
    const emit = warningCap((e) => out.push(e));
    for (let i = 0; i < 1000; i++) {
      emit({ type: "warning", message: `ignored an unknown event "e${i % 50}"` });
      emit({ type: "warning", message: "the same one" });
      emit({ type: "text_delta", text: "x" });
    }
    const warnings = out.filter((e) => e.type === "warning").map((e) => (e.type === "warning" ? e.message : ""));
    expect(warnings).toHaveLength(21);
    expect(new Set(warnings).size).toBe(21);
    expect(warnings[20]).toBe("further warnings about this answer are not shown");
    expect(out.filter((e) => e.type === "text_delta")).toHaveLength(1000);
  });
});
