// readWhole (src/launch/read-whole.ts): the launcher's large reads at start leave glibc's
// mmap threshold where it was. Freeing one malloc'd multi-megabyte Buffer raises glibc's
// thresholds for the life of the process, and every thread's malloc arena then keeps that
// much more freed memory (docs/performance.md). Checked in processes of their own, on glibc
// only, by where glibc puts a later large block (helpers/malloc-threshold-probe.ts).
import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readWhole } from "../../src/launch/read-whole.js";

const PROBE = path.resolve(import.meta.dirname, "../helpers/malloc-threshold-probe.ts");
const glibc = process.platform === "linux" && Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-read-whole-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function probe(...args: string[]): { read: number; cache: string | null; ownMapping: boolean } {
  const out = execFileSync(process.execPath, ["--import", "tsx", "--expose-gc", "--no-concurrent-array-buffer-sweeping", PROBE, ...args], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!) as { read: number; cache: string | null; ownMapping: boolean };
}

function readWith(file: string, size: number): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    return readWhole(fd, size);
  } finally {
    fs.closeSync(fd);
  }
}

describe("readWhole", () => {
  it("reads every byte, whatever the size against WebAssembly's 64 kB pages", () => {
    for (const size of [0, 1, 65535, 65536, 65537, 3_000_001]) {
      const file = path.join(dir, `f${size}`);
      const bytes = crypto.randomBytes(size);
      fs.writeFileSync(file, bytes);
      expect(readWith(file, size).equals(bytes)).toBe(true);
    }
  });

  it("stops at the file's end when it is shorter than asked (cut while being read)", () => {
    const file = path.join(dir, "short");
    fs.writeFileSync(file, "abc");
    expect(readWith(file, 10).toString()).toBe("abc");
  });

  it.skipIf(!glibc)("leaves glibc's mmap threshold where it was, where readFileSync raises it", () => {
    const file = path.join(dir, "big");
    fs.writeFileSync(file, crypto.randomBytes(24 * 1024 * 1024));
    // the probe sees the threshold move: a freed 24 MB Buffer read by readFileSync raises it
    expect(probe("readFileSync", file)).toMatchObject({ read: 24 * 1024 * 1024, ownMapping: false });
    expect(probe("none", file)).toMatchObject({ ownMapping: true });
    expect(probe("readWhole", file)).toMatchObject({ read: 24 * 1024 * 1024, ownMapping: true });
  });

  it.skipIf(!glibc)("is how the launcher reads the bundle", () => {
    // a 24 MB bundle (ASCII, as the build writes it) with its build's mark, a cache folder and
    // no cache yet: the bundle is read whole, compiled from its text, and let go
    const bundle = path.join(dir, "prog", "bundle.cjs");
    fs.mkdirSync(path.dirname(bundle));
    fs.writeFileSync(bundle, `globalThis.__ran = 1;\n/* ${"x".repeat(24 * 1024 * 1024)} */\n//# albedo-build ${"b1".repeat(8)}\n`);
    const cacheDir = path.join(dir, "cache", "code");
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(path.dirname(cacheDir), 0o700);
    fs.chmodSync(dir, 0o700);
    expect(probe("launch", bundle, cacheDir)).toMatchObject({ cache: "none", ownMapping: true });
  });
});
