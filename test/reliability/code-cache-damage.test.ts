// A damaged code cache costs a compile, never a start: the built CLI (dist/cli.js) with its
// saved V8 code damaged in each way a disk, a copy or a hand can damage it, and then sealed
// again exactly as the launcher seals it (this install's key and context), so the damage
// reaches V8 rather than being refused by the seal. Each start must still work (`--version`,
// a headless turn against the fake provider), and so must the next.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealCache, sealContext, unsealCache } from "../../src/launch/code-cache.js";
import { LAUNCH_FLAGS } from "../../src/launch/flags.js";
import { CLI, makeHome, runCli, waitUntil, type Home } from "../helpers/cli.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";

const KEY = "sk-ant-cache-damage-7731";
const BUNDLE = path.join(path.dirname(CLI), "bundle", "cli.cjs");
const VERSION = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as { version: string }).version;

let fake: FakeProvider;
let home: Home;
let cacheHome: string;
let codeDir: string;
/** the launcher's cache file, as a healthy start wrote it */
let cacheFile: string;
let good: Buffer;
let key: Buffer;
let context: string;

const cacheFiles = (): string[] => (fs.existsSync(codeDir) ? fs.readdirSync(codeDir).filter((f) => f.endsWith(".v8cache")) : []);
const args = (): string[] => ["-p", "say something", "--base-url", fake.anthropicBase, "--model", "claude-sonnet-4-5"];
const env = (): NodeJS.ProcessEnv => ({ XDG_CACHE_HOME: cacheHome });

/** a turn that streams for about 3 s; the launcher writes its cache at the exit of a start that used none */
async function slowTurn(): Promise<void> {
  fake.script({ text: "a slow answer of twelve words that keeps the process up for seconds", wordsPerEvent: 1, delayMs: 250 });
  const r = await runCli(args(), home, env());
  expect(r.code, r.stderr).toBe(0);
}

/** V8's data in the cache file under the launcher's seal, or undefined when the seal does not hold */
const unsealed = (): Buffer | undefined => unsealCache(fs.readFileSync(cacheFile), key, context);

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-cache-damage-"));
  codeDir = path.join(cacheHome, "albedo", "code");
  await slowTurn();
  await waitUntil(() => cacheFiles().length === 1, 20_000, "the launcher's cache file");
  cacheFile = path.join(codeDir, cacheFiles()[0]!);
  good = fs.readFileSync(cacheFile);
  key = fs.readFileSync(path.join(codeDir, "key"));
  // what the launcher binds into its seal: this bundle's build, its run-time flags, and
  // `node dist/cli.js`'s (empty) own flags
  const buildId = /\/\/# albedo-build ([0-9a-f]+)\n$/.exec(fs.readFileSync(BUNDLE, "utf8").slice(-100))![1]!;
  context = sealContext(buildId, LAUNCH_FLAGS, []);
  // the test seals as the launcher does: its own healthy file opens under this context
  expect(unsealed()).toBeDefined();
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(home.root, { recursive: true, force: true });
  fs.rmSync(cacheHome, { recursive: true, force: true });
});

// V8's code cache starts with a header of six 32-bit words: magic number, V8's version hash,
// the source's hash, the flags' hash, the payload's length, the payload's checksum.
const HEADER = 24;

/** each damage, applied to V8's data (the file without the launcher's seal) */
const DAMAGES: [string, (data: Buffer) => Buffer][] = [
  [
    "bytes flipped in the middle",
    (data) => {
      const bad = Buffer.from(data);
      for (let i = 0; i < 64; i++) {
        const at = (data.length >> 1) + i * 97;
        bad[at] = bad[at]! ^ 0xff;
      }
      return bad;
    },
  ],
  ["a single bit flipped near the end", (data) => {
    const bad = Buffer.from(data);
    bad[data.length - 40] = bad[data.length - 40]! ^ 0x10;
    return bad;
  }],
  ["truncated to half", (data) => Buffer.from(data.subarray(0, data.length >> 1))],
  ["truncated inside V8's header", (data) => Buffer.from(data.subarray(0, 10))],
  [
    "another Node's V8 made it (another version hash)",
    (data) => {
      const bad = Buffer.from(data);
      bad.writeUInt32LE((bad.readUInt32LE(4) ^ 0x5a5a5a5a) >>> 0, 4);
      return bad;
    },
  ],
  ["its header kept, its payload random", (data) => Buffer.concat([data.subarray(0, HEADER), crypto.randomBytes(data.length - HEADER)])],
  ["its payload all zero", (data) => Buffer.concat([data.subarray(0, HEADER), Buffer.alloc(data.length - HEADER)])],
  ["no data at all (only the seal)", () => Buffer.alloc(0)],
];

/** V8's checksum of a code cache's payload: zlib's Adler-32 started from 0 (V8's Checksum()) */
function v8Checksum(payload: Buffer): number {
  let a = 0;
  let b = 0;
  for (const byte of payload) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

describe("a damaged code cache, sealed again as the launcher seals it, costs a compile, never a start", () => {
  for (const [what, damage] of DAMAGES) {
    it(what, async () => {
      fs.writeFileSync(cacheFile, sealCache(damage(good.subarray(32)), key, context));
      for (const marked of fs.readdirSync(codeDir).filter((f) => f.endsWith(".starting"))) fs.rmSync(path.join(codeDir, marked));

      const version = await runCli(["--version"], home, env());
      expect(version.signal, version.stderr).toBeNull();
      expect(version.code, version.stderr).toBe(0);
      expect(version.stdout).toContain(VERSION);
      // a turn, and the next start's turn
      for (const answer of ["first answer here", "second answer here"]) {
        fake.script({ text: answer });
        const r = await runCli(args(), home, env());
        expect(r.signal, r.stderr).toBeNull();
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain(answer);
      }
      fs.writeFileSync(cacheFile, good);
    });
  }

  it("a zero-length file", async () => {
    fs.writeFileSync(cacheFile, Buffer.alloc(0));
    for (let i = 0; i < 2; i++) {
      const r = await runCli(["--version"], home, env());
      expect([r.code, r.signal], r.stderr).toEqual([0, null]);
    }
    fs.writeFileSync(cacheFile, good);
  });

  it("the damaged file is replaced at the exit of a start that ran its turn, and the next start takes the new code", async () => {
    const bad = Buffer.from(good);
    bad[bad.length >> 1] = bad[bad.length >> 1]! ^ 0xff;
    fs.writeFileSync(cacheFile, sealCache(bad.subarray(32), key, context));
    await slowTurn();
    await waitUntil(() => unsealed() !== undefined && !fs.readFileSync(cacheFile).equals(sealCache(bad.subarray(32), key, context)), 20_000, "a new cache");
    const replaced = fs.readFileSync(cacheFile);
    // a start that takes the saved code has nothing to write: the file stays as it is
    fake.script({ text: "one more answer", wordsPerEvent: 1, delayMs: 900 });
    const r = await runCli(args(), home, env());
    expect([r.code, r.signal], r.stderr).toEqual([0, null]);
    expect(fs.readFileSync(cacheFile).equals(replaced)).toBe(true);
    expect(fs.readdirSync(codeDir).filter((f) => f.endsWith(".starting"))).toEqual([]);
  });

  // Damage that passes both the seal and V8's checksum is made on purpose by someone holding
  // this user's key, as able to edit the bundle itself; a start that dies on it leaves its
  // mark, and every later start compiles from source until new code is written.
  it("damage forged to pass V8's own checksum kills at most one start; the next ones compile", async () => {
    const data = Buffer.from(good.subarray(32));
    expect(data.readUInt32LE(20)).toBe(v8Checksum(data.subarray(HEADER)));
    for (let i = 0; i < 64; i++) {
      const at = (data.length >> 1) + i * 97;
      data[at] = data[at]! ^ 0xff;
    }
    data.writeUInt32LE(v8Checksum(data.subarray(HEADER)), 20);
    fs.writeFileSync(cacheFile, sealCache(data, key, context));
    const first = await runCli(["--version"], home, env());
    const marks = fs.readdirSync(codeDir).filter((f) => f.endsWith(".starting"));
    // it died, and said so by its mark; or V8 ran the code it was given (harmless damage)
    if (first.code !== 0) expect(marks).toHaveLength(1);
    for (const answer of ["after the forged cache", "and again"]) {
      fake.script({ text: answer });
      const r = await runCli(args(), home, env());
      expect([r.code, r.signal], r.stderr).toEqual([0, null]);
      expect(r.stdout).toContain(answer);
    }
    fs.writeFileSync(cacheFile, good);
    for (const marked of fs.readdirSync(codeDir).filter((f) => f.endsWith(".starting"))) fs.rmSync(path.join(codeDir, marked));
  });
});
