// The bounded reads of src/config/files.ts size their buffers by the file: a few hundred
// bytes of keymap never take a 1 MB buffer, and no read takes more than READ_CHUNK. A buffer
// that large is mapped by glibc on its own, and freeing it raises glibc's trim threshold in
// every thread's malloc arena for the life of the process (docs/performance.md). Counted by
// the sizes asked of Buffer.allocUnsafe, on real files.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { READ_CHUNK, readStartFile, readStartFileSync } from "../../src/config/files.js";
import { tempDir } from "../helpers/tmp.js";

let dir: string;
beforeAll(async () => {
  dir = await tempDir("albedo-start-chunks-");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const lim = { what: "keymap", maxBytes: 8 * 1024 * 1024 };

/** the sizes of the buffers asked for while `read` runs */
async function sizesAsked(read: () => Buffer | Promise<Buffer>): Promise<{ bytes: Buffer; sizes: number[] }> {
  const spy = vi.spyOn(Buffer, "allocUnsafe");
  const bytes = await read();
  const sizes = spy.mock.calls.map((c) => c[0]);
  spy.mockRestore();
  return { bytes, sizes };
}

describe("start files' reads", () => {
  it("read a small file with buffers of its size, not of the limit", async () => {
    const f = path.join(dir, "keymap.json");
    fs.writeFileSync(f, '{"submit": "enter"}'.repeat(20));
    for (const read of [() => readStartFileSync(f, lim), () => readStartFile(f, lim)]) {
      const { bytes, sizes } = await sizesAsked(read);
      expect(bytes.toString()).toBe('{"submit": "enter"}'.repeat(20));
      expect(sizes.length).toBeGreaterThan(0);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(fs.statSync(f).size + 1);
    }
  });

  it("read a large file in chunks of at most READ_CHUNK, every byte kept", async () => {
    const f = path.join(dir, "image.bin");
    const data = crypto.randomBytes(3 * READ_CHUNK + 123);
    fs.writeFileSync(f, data);
    for (const read of [() => readStartFileSync(f, lim), () => readStartFile(f, lim)]) {
      const { bytes, sizes } = await sizesAsked(read);
      expect(bytes.equals(data)).toBe(true);
      // the reads' buffers; the one the size of the whole file is the result they are joined in
      const reads = sizes.filter((n) => n !== data.length);
      expect(reads.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...reads)).toBeLessThanOrEqual(READ_CHUNK);
    }
  });

  it("read a file that grows while it is read in whole chunks, not a byte a read", async () => {
    const f = path.join(dir, "growing.md");
    const first = "x".repeat(1000);
    const more = "y".repeat(2 * READ_CHUNK + 7);
    for (const read of [() => readStartFileSync(f, lim), () => readStartFile(f, lim)]) {
      fs.writeFileSync(f, first);
      const real = Buffer.allocUnsafe.bind(Buffer);
      let grown = false;
      // the file grows after it was measured, before its first read
      const spy = vi.spyOn(Buffer, "allocUnsafe").mockImplementation((n: number) => {
        if (!grown) {
          grown = true;
          fs.appendFileSync(f, more);
        }
        return real(n);
      });
      const bytes = await read();
      const reads = spy.mock.calls.length;
      spy.mockRestore();
      expect(bytes.toString()).toBe(first + more);
      expect(reads).toBeLessThanOrEqual(10);
    }
  });

  it("still refuse a file over the limit, and read an empty one", async () => {
    const big = path.join(dir, "big.json");
    fs.writeFileSync(big, "x".repeat(5000));
    expect(() => readStartFileSync(big, { what: "keymap", maxBytes: 4096 })).toThrow(/keymap/);
    const empty = path.join(dir, "empty.json");
    fs.writeFileSync(empty, "");
    expect(readStartFileSync(empty, lim).length).toBe(0);
    expect((await readStartFile(empty, lim)).length).toBe(0);
  });
});
