// The count_tokens body kept beside a capture (context/count-body.ts), with real zlib: kept as
// count_tokens takes it, a body past the bound not kept, a failing store not thrown at the
// turn, and what is read back bounded and checked (a gzip bomb, garbage, another shape).
import crypto from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { CountBodyError, keepCountBody, MAX_KEPT_BODY_BYTES, unpackCountBody } from "../../src/context/count-body.js";
import { countBody } from "../../src/provider/anthropic/count-tokens.js";
import { encodeAnthropicBody } from "../../src/provider/anthropic/encode.js";
import { ANTHROPIC_CASES } from "../helpers/wire-cases.js";

type Kept = { capturedAt: string; sources: string[]; gz: Buffer };

function memoryStore(): { kept: Kept[]; saveCountBody(id: string, b: Kept): Promise<void> } {
  const kept: Kept[] = [];
  return { kept, saveCountBody: async (_id, b) => void kept.push(b) };
}

describe("the kept count body", () => {
  it("is the count_tokens body of what was sent, with the context items' names", async () => {
    const req = ANTHROPIC_CASES["adaptive_live_round"]!;
    const body = encodeAnthropicBody(req);
    const store = memoryStore();
    await keepCountBody(store, { req, capturedAt: "2026-12-07T15:00:00.000Z", enc: { body }, sessionId: "s1" });
    expect(store.kept).toHaveLength(1);
    const k = store.kept[0]!;
    expect(k.capturedAt).toBe("2026-12-07T15:00:00.000Z");
    expect(k.sources).toEqual(req.context.map((c) => c.source));
    expect(await unpackCountBody(k.gz)).toEqual(JSON.parse(JSON.stringify(countBody(body))));
  });

  it("a blank context item has no system block, so no name", async () => {
    const base = ANTHROPIC_CASES["adaptive_live_round"]!;
    const req = { ...base, context: [{ source: "EMPTY.md", text: "  \n " }, ...base.context] };
    const store = memoryStore();
    await keepCountBody(store, { req, capturedAt: "t", enc: { body: encodeAnthropicBody(req) }, sessionId: "s1" });
    expect(store.kept[0]!.sources).toEqual(base.context.map((c) => c.source));
  });

  it("a body past the bound gzip'd (images' base64 barely shrinks) is not kept", async () => {
    const req = ANTHROPIC_CASES["history_only"]!;
    const noise = crypto.randomBytes(Math.ceil(MAX_KEPT_BODY_BYTES * 1.1)).toString("base64");
    const body = { ...encodeAnthropicBody(req), messages: [{ role: "user", content: noise }] };
    const store = memoryStore();
    await keepCountBody(store, { req, capturedAt: "t", enc: { body }, sessionId: "s1" });
    expect(store.kept.length).toBe(0);
  });

  it("a failing store is not thrown at the turn", async () => {
    const req = ANTHROPIC_CASES["history_only"]!;
    const store = { saveCountBody: () => Promise.reject(new Error("the store /x is closed")) };
    await expect(keepCountBody(store, { req, capturedAt: "t", enc: { body: encodeAnthropicBody(req) }, sessionId: "s1" })).resolves.toBeUndefined();
  });

  it("what is read back is bounded and checked: a gzip bomb, garbage, another shape", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(200_000);
    await expect(unpackCountBody(bomb)).rejects.toThrow(/cannot be unpacked \(damaged, or larger than 48 MB\)/);
    await expect(unpackCountBody(Buffer.from("not gzip at all"))).rejects.toBeInstanceOf(CountBodyError);
    await expect(unpackCountBody(zlib.gzipSync("{not json"))).rejects.toThrow(/is not JSON/);
    await expect(unpackCountBody(zlib.gzipSync('[{"model":"m","messages":[]}]'))).rejects.toThrow(/not a Messages body/);
    await expect(unpackCountBody(zlib.gzipSync('{"model":"m","messages":{}}'))).rejects.toThrow(/not a Messages body/);
  });
});
