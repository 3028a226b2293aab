// Our stdio transport (src/extensions/stdio.ts) reading a real process's stdout through a
// real pipe: the messages of a stream written in random pieces are the SDK's messages for
// it; a line that is not a JSON-RPC message is an error the connection survives; a 15 MB
// message arrives whole with each byte scanned and copied a bounded number of times (work
// counted, not timed); a message over the bound is refused by name and ends the server.
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { GroupStdioTransport, MAX_MESSAGE_BYTES } from "../../src/extensions/stdio.js";
import { tempDir } from "../helpers/tmp.js";
import { waitUntil } from "../helpers/cli.js";
import { alive } from "../helpers/mcp-servers.js";
import { prng } from "../helpers/prng.js";

const T = 60_000;
const open: GroupStdioTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

// Writes the file argv[1] to stdout in the pieces argv[2] names (a JSON list of sizes), each
// write waited for and now and then a pause, so the reader gets them as separate chunks;
// then stays up reading stdin.
const WRITER = `
const fs = require("node:fs");
const data = fs.readFileSync(process.argv[1]);
const sizes = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
(async () => {
  let at = 0;
  for (const [i, n] of sizes.entries()) {
    await new Promise((r) => process.stdout.write(data.subarray(at, at + n), r));
    at += n;
    if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  process.stdin.resume();
})();
`;

interface Seen {
  messages: JSONRPCMessage[];
  errors: Error[];
  closed: boolean;
}

async function reading(stream: Buffer, sizes: number[], max?: number): Promise<{ t: GroupStdioTransport; seen: Seen }> {
  const dir = await tempDir("albedo-stdio-");
  const data = path.join(dir, "stream");
  const split = path.join(dir, "sizes.json");
  await fs.writeFile(data, stream);
  await fs.writeFile(split, JSON.stringify(sizes));
  const t = new GroupStdioTransport({ command: process.execPath, args: ["-e", WRITER, data, split], env: {}, cwd: dir }, {}, max);
  open.push(t);
  const seen: Seen = { messages: [], errors: [], closed: false };
  t.onmessage = (m) => seen.messages.push(m);
  t.onerror = (e) => seen.errors.push(e);
  t.onclose = () => (seen.closed = true);
  await t.start();
  return { t, seen };
}

function randomSizes(total: number, rand: () => number): number[] {
  const out: number[] = [];
  let left = total;
  while (left > 0) {
    const n = Math.min(left, rand() < 0.8 ? 1 + Math.floor(rand() * 40) : 1 + Math.floor(rand() * 3000));
    out.push(n);
    left -= n;
  }
  return out;
}

describe("GroupStdioTransport", () => {
  it("reads a stream written in random pieces as the SDK's read buffer reads it whole, and survives the lines that are not messages", async () => {
    const rand = prng(24);
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      const text = ["plain", "ünïcødé 🦊 日本", "x".repeat(Math.floor(rand() * 2000))][i % 3]!;
      const kind = rand();
      if (kind < 0.45) lines.push(JSON.stringify({ jsonrpc: "2.0", id: i, result: { content: [{ type: "text", text }] } }));
      else if (kind < 0.9) lines.push(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: text } }));
      else if (kind < 0.95) lines.push(`{"jsonrpc":"2.0","id":${i},"result":{"cut`);
      else lines.push(JSON.stringify({ neither: "request nor answer" }));
    }
    const stream = Buffer.from(lines.map((l, i) => l + (i % 4 === 0 ? "\r\n" : "\n")).join(""));
    const rb = new ReadBuffer({ maxBufferSize: stream.length + 1 });
    rb.append(stream);
    const expected: JSONRPCMessage[] = [];
    let expectedErrors = 0;
    for (;;) {
      try {
        const m = rb.readMessage();
        if (m === null) break;
        expected.push(m);
      } catch {
        expectedErrors++;
      }
    }
    expect(expectedErrors).toBeGreaterThan(5);
    const { seen } = await reading(stream, randomSizes(stream.length, rand));
    await waitUntil(() => seen.messages.length + seen.errors.length >= expected.length + expectedErrors, 30_000, "every line read");
    expect(seen.messages).toEqual(expected);
    expect(seen.errors).toHaveLength(expectedErrors);
    for (const e of seen.errors) expect(e.message).toMatch(/^the server wrote a line that is not a JSON-RPC message: /);
    expect(seen.closed).toBe(false);
  }, T);

  it("reads a 15 MB message whole, scanning and copying each byte a bounded number of times", async () => {
    const text = "0123456789abcdef".repeat((15 * 1024 * 1024) / 16);
    const line = JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text }] } });
    const stream = Buffer.from(`${line}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "after" } })}\n`);
    // the work of the framing, counted as it happens: bytes searched for a newline, bytes joined
    let scanned = 0;
    let joined = 0;
    const proto = Buffer.prototype as unknown as { indexOf(this: Buffer, ...args: unknown[]): number };
    const indexOf = proto.indexOf;
    const concat = Buffer.concat;
    proto.indexOf = function (this: Buffer, ...args: unknown[]): number {
      if (args[0] === 10 || args[0] === "\n") scanned += this.length - (typeof args[1] === "number" ? args[1] : 0);
      return indexOf.apply(this, args);
    };
    Buffer.concat = (list, total) => {
      const b = concat(list, total);
      joined += b.length;
      return b;
    };
    let seen: Seen;
    try {
      seen = (await reading(stream, [stream.length])).seen;
      await waitUntil(() => seen.messages.length === 2, 30_000, "the 15 MB message and the next");
    } finally {
      proto.indexOf = indexOf;
      Buffer.concat = concat;
    }
    const first = seen.messages[0] as unknown as { id: number; result: { content: { text: string }[] } };
    expect(first.id).toBe(7);
    expect(first.result.content[0]!.text).toBe(text);
    expect(seen.messages[1]).toMatchObject({ method: "notifications/message" });
    expect(seen.errors).toEqual([]);
    // each byte about once (the SDK's read buffer joins all it holds on every chunk and
    // searches it again from its start: about 230 chunks of 64 KB, gigabytes of each)
    expect(scanned).toBeLessThanOrEqual(stream.length + 64 * 1024);
    expect(joined).toBeLessThanOrEqual(stream.length);
  }, T);

  it("refuses a message over its bound by name, says so, and ends the server's process group", async () => {
    const max = 64 * 1024;
    const ok = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "before" } });
    const stream = Buffer.from(`${ok}\n${"x".repeat(max * 3)}\n${ok}\n`);
    const { t, seen } = await reading(stream, randomSizes(stream.length, prng(3)), max);
    const pid = t.pid!;
    await waitUntil(() => seen.closed, 30_000, "the transport closed");
    expect(seen.messages).toHaveLength(1);
    expect(seen.errors.map((e) => [e.name, e.message])).toEqual([["MessageTooLargeError", "it sent a message over 0.0625 MB and was disconnected"]]);
    expect(t.fault).toBe("it sent a message over 0.0625 MB and was disconnected");
    await waitUntil(() => !alive(pid), 10_000, "the server's process gone");
    expect(MAX_MESSAGE_BYTES).toBe(16 * 1024 * 1024);
  }, T);
});
