// The framing of an MCP server's stdout (src/extensions/line-reader.ts): random splits of
// one byte stream give the same messages, errors in the same places, as the SDK's own read
// buffer given the stream whole; and a line over the bound is refused while it arrives.
import { describe, expect, it } from "vitest";
import { ReadBuffer, deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { LineReader, LineTooLongError } from "../../src/extensions/line-reader.js";
import { prng } from "../helpers/prng.js";

type Outcome = { message: unknown } | { error: true };

/** what the SDK makes of a stream: its read buffer, given it in one piece */
function sdkReads(stream: Buffer): Outcome[] {
  const rb = new ReadBuffer({ maxBufferSize: stream.length + 1 });
  rb.append(stream);
  const out: Outcome[] = [];
  for (;;) {
    try {
      const m = rb.readMessage();
      if (m === null) break;
      out.push({ message: m });
    } catch {
      out.push({ error: true });
    }
  }
  return out;
}

/** what our reader makes of it, in the given pieces, each line parsed as the SDK does */
function ourReads(pieces: Buffer[], max = 1 << 30): Outcome[] {
  const r = new LineReader(max);
  const out: Outcome[] = [];
  for (const p of pieces) {
    r.push(p, (line) => {
      try {
        out.push({ message: deserializeMessage(line) });
      } catch {
        out.push({ error: true });
      }
    });
  }
  return out;
}

function splits(stream: Buffer, rand: () => number, most: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < stream.length) {
    // now and then an empty chunk, mostly short ones, sometimes a long one
    const n = rand() < 0.05 ? 0 : rand() < 0.9 ? 1 + Math.floor(rand() * most) : Math.floor(rand() * stream.length);
    out.push(stream.subarray(at, at + n));
    at += n;
  }
  return out;
}

function lines(rand: () => number): string[] {
  const out: string[] = [];
  const texts = ["plain", "ünïcødé ✓ 🦊 日本語", "with \\n and \\r\\n escaped", "x".repeat(300), ""];
  for (let i = 0; i < 60; i++) {
    const pick = rand();
    const text = texts[Math.floor(rand() * texts.length)]!;
    let line: string;
    if (pick < 0.3) line = JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "t", arguments: { text } } });
    else if (pick < 0.55) line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: text } });
    else if (pick < 0.8) line = JSON.stringify({ jsonrpc: "2.0", id: i, result: { content: [{ type: "text", text }] } });
    else if (pick < 0.87) line = `{"jsonrpc": "2.0", "id": ${i}, "result": {"broken`;
    else if (pick < 0.93) line = JSON.stringify({ not: "json-rpc", text });
    else if (pick < 0.96) line = "";
    else line = JSON.stringify({ jsonrpc: "2.0", id: `s${i}`, error: { code: -32601, message: text } });
    out.push(line + (rand() < 0.3 ? "\r\n" : "\n"));
  }
  return out;
}

describe("LineReader", () => {
  it("gives, for 300 random splits of a stream, exactly what the SDK's read buffer gives for it whole", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = prng(seed);
      const stream = Buffer.from(lines(rand).join(""));
      const expected = sdkReads(stream);
      expect(expected.filter((o) => "error" in o).length, `seed ${seed}`).toBeGreaterThan(0);
      expect(ourReads(splits(stream, rand, 1 + Math.floor(rand() * 200))), `seed ${seed}`).toEqual(expected);
    }
  });

  it("joins a character split between chunks, one byte at a time", () => {
    const text = "🦊 ü 日";
    const stream = Buffer.from(JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { text } }) + "\r\n");
    const pieces = [...stream].map((b) => Buffer.from([b]));
    expect(ourReads(pieces)).toEqual([{ message: { jsonrpc: "2.0", method: "notifications/x", params: { text } } }]);
  });

  it("takes many lines in one chunk, and keeps an unfinished one for the next", () => {
    const got: string[] = [];
    const r = new LineReader(1000);
    r.push(Buffer.from("a\nb\r\nc\n\nd"), (l) => got.push(l));
    expect(got).toEqual(["a", "b", "c", ""]);
    expect(r.pending()).toBe(1);
    r.push(Buffer.from("e\n"), (l) => got.push(l));
    expect(got.at(-1)).toBe("de");
    expect(r.pending()).toBe(0);
  });

  it("refuses a line over the bound as soon as it passes it, before its end arrives, and reads nothing after", () => {
    const r = new LineReader(100);
    const got: string[] = [];
    // exactly the bound is a line
    r.push(Buffer.from("y".repeat(100) + "\n"), (l) => got.push(l));
    expect(got).toEqual(["y".repeat(100)]);
    r.push(Buffer.from("x".repeat(60)), (l) => got.push(l));
    expect(r.pending()).toBe(60);
    // no newline yet: the bound is passed all the same, and nothing is held
    expect(() => r.push(Buffer.from("x".repeat(41)), (l) => got.push(l))).toThrow(LineTooLongError);
    expect(r.pending()).toBe(0);
    r.push(Buffer.from("ok\n"), (l) => got.push(l));
    expect(got).toEqual(["y".repeat(100)]);
  });

  it("refuses a line over the bound that ends in the same chunk, after giving the lines before it", () => {
    const r = new LineReader(10);
    const got: string[] = [];
    let error: unknown;
    try {
      r.push(Buffer.from("short\n" + "z".repeat(11) + "\nafter\n"), (l) => got.push(l));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LineTooLongError);
    expect((error as Error).name).toBe("LineTooLongError");
    expect(got).toEqual(["short"]);
  });
});
