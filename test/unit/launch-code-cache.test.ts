// runWithCodeCache (src/launch/code-cache.ts) on real files: a small CommonJS program run
// through V8's code cache, as the bin runs the bundle. Each start either uses saved code or
// compiles from source; it never fails for a cache's sake.
import crypto from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cacheFileName, cachePrefix, sealCache, sealContext, unsealCache } from "../../src/launch/code-cache.js";

let dir: string;
let cacheDir: string;
let program: string;
const RESULT = "__albedoCodeCacheTest";

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-codecache-"));
  cacheDir = path.join(dir, "cache", "code");
  program = path.join(dir, "prog", "main.cjs");
  fs.mkdirSync(path.dirname(program));
  fs.writeFileSync(path.join(path.dirname(program), "helper.cjs"), "module.exports = (n) => n * 2;\n");
  writeProgram(1);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const B1 = "b1".repeat(8);
const B2 = "b2".repeat(8);

/**
 * a program with a "#!" line that uses require, __filename and __dirname, and reports what it
 * saw, ending with its build's mark as the bundle does (`mark: null`: none)
 */
function writeProgram(version: number, mark: string | null = B1, extra = ""): void {
  fs.writeFileSync(
    program,
    [
      "#!/usr/bin/env node",
      `const double = require("./helper.cjs");`,
      `const path = require("node:path");`,
      `function work(n) { let s = 0; for (let i = 0; i < n; i++) s += double(i); return s; }`,
      `globalThis.${RESULT} = { version: ${version}, sum: work(10), file: path.basename(__filename), dir: path.basename(__dirname), exportsIsThis: this === module.exports, strict: (function () { return this === undefined; })() };`,
      `if (process.env.ALBEDO_TEST_THROW) { throw new Error("line six"); }`,
      extra,
      ...(mark === null ? [] : [`//# albedo-build ${mark}`]),
      "",
    ].join("\n"),
  );
}

interface Start {
  cache?: string;
  saved?: boolean | null;
  savedAgain?: boolean | null;
  threw?: string;
  result: Record<string, unknown> | null;
}

const RUNNER = path.resolve(import.meta.dirname, "../helpers/code-cache-runner.ts");

/** one start in a fresh process (V8 answers a second compile in the same process from memory) */
function start(o: { file?: string; cacheDir?: string | null; save?: boolean; env?: NodeJS.ProcessEnv } = {}): Start {
  const opts = { file: o.file ?? program, cacheDir: o.cacheDir === undefined ? cacheDir : o.cacheDir, save: o.save ?? false };
  const r = spawnSync(process.execPath, ["--import", "tsx", RUNNER, JSON.stringify(opts)], { encoding: "utf8", env: { ...process.env, ...o.env } });
  if (r.status !== 0) throw new Error(`runner failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as Start;
}
/** the folder's files but the install's key */
const files = (): string[] => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((f) => f !== "key").sort() : []);

describe("running a program through V8's code cache", () => {
  it("runs it as a CommonJS module, its #! line and line numbers kept", () => {
    const r = start();
    expect(r.cache).toBe("none");
    // strict, as the ES modules the bundle is built from (a frozen object's write throws)
    expect(r.result).toEqual({ version: 1, sum: 90, file: "main.cjs", dir: "prog", exportsIsThis: true, strict: true });
    const t = start({ env: { ALBEDO_TEST_THROW: "1" } });
    // the error names the program's own file and line: the wrapper adds no line
    expect(t.threw).toContain("line six");
    expect(t.threw).toContain(`${program}:6:`);
  });

  it("saves the code once, private, and the next start uses it", () => {
    const first = start({ save: true });
    expect(first).toMatchObject({ cache: "none", saved: true, savedAgain: false });
    const [name] = files();
    expect(files()).toHaveLength(1);
    expect(name).toMatch(new RegExp(`^cli-[0-9a-f]{12}-${B1}-v\\d+`));
    expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(cacheDir, name!)).mode & 0o777).toBe(0o600);

    const second = start({ save: true });
    // used, and so nothing to write
    expect(second).toMatchObject({ cache: "used", saved: false, result: { version: 1, sum: 90 } });
    expect(files()).toEqual([name]);
  });

  it("writes the cache by itself at the exit of a program that said its start-up code ran, and only then", () => {
    // a program that never says so (a run that printed its help): nothing written, however long it lives
    writeProgram(1, B1, "setTimeout(() => {}, 300);");
    expect(start().cache).toBe("none");
    expect(files()).toEqual([]);
    // one that says so, and exits at once after (a first start quit at once): written at its exit
    writeProgram(1, B1, `globalThis[Symbol.for("albedo-tui.startupCodeRan")]?.();`);
    expect(start().cache).toBe("none");
    expect(files()).toHaveLength(1);
    expect(start().cache).toBe("used");
  });

  it("writes nothing while the program runs after saying so: the work is at its exit", () => {
    const probe = path.join(dir, "seen.json");
    // the program says its start-up code ran, then looks at the cache folder 300 ms later, still running
    writeProgram(1, B1, `globalThis[Symbol.for("albedo-tui.startupCodeRan")]?.(); setTimeout(() => require("node:fs").writeFileSync(${JSON.stringify(probe)}, JSON.stringify(require("node:fs").existsSync(${JSON.stringify(cacheDir)}) ? require("node:fs").readdirSync(${JSON.stringify(cacheDir)}) : [])), 300);`);
    expect(start().cache).toBe("none");
    expect(JSON.parse(fs.readFileSync(probe, "utf8"))).toEqual([]);
    expect(files()).toHaveLength(1);
  });

  it("never uses the code of another build, and removes the older builds' caches of this install and Node only", () => {
    start({ save: true });
    const first = files()[0]!;
    // another install of the program elsewhere keeps its own cache
    const other = path.join(cacheDir, `${cachePrefix("/elsewhere/cli.cjs")}b9-v20.0.0-x64-1-1.v8cache`);
    fs.writeFileSync(other, "x");
    // and this install's cache for another Node, used now and then from the same checkout
    const otherNode = path.join(cacheDir, `${cachePrefix(program)}${B1}-v99.0.0-${process.arch}-1-1.v8cache`);
    fs.writeFileSync(otherNode, "x");
    // a writer's leftover temporary file goes, one being written now stays
    const leftover = path.join(cacheDir, `${first}.12345.tmp`);
    fs.writeFileSync(leftover, "x");
    fs.utimesSync(leftover, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    const writing = path.join(cacheDir, `${first}.12346.tmp`);
    fs.writeFileSync(writing, "x");
    writeProgram(1, B2);
    const rebuilt = start({ save: true });
    expect(rebuilt.cache).toBe("none");
    expect(files().filter((f) => f.endsWith(".v8cache"))).toHaveLength(3);
    expect(fs.existsSync(writing)).toBe(true);
    expect(files().filter((f) => f.endsWith(".v8cache") && f.includes(`-${B1}-${process.version}-`))).toEqual([]);
    expect(files().some((f) => f.includes(`-${B2}-`))).toBe(true);
    expect(fs.existsSync(other)).toBe(true);
    expect(fs.existsSync(otherNode)).toBe(true);
    expect(fs.existsSync(leftover)).toBe(false);
  });

  it("a program edited in place (same build id) is compiled from its new source, never given the old code", () => {
    start({ save: true });
    // same length, different text: V8's own check (the source's length) would take the old code
    const before = fs.readFileSync(program, "utf8");
    writeProgram(2);
    expect(fs.readFileSync(program, "utf8").length).toBe(before.length);
    fs.utimesSync(program, new Date(), new Date(Date.now() + 5000));
    const r = start();
    expect(r.cache).toBe("none");
    expect(r.result).toMatchObject({ version: 2, sum: 90 });
  });

  it("a damaged or torn cache file is refused before V8 reads it, the program runs, and it is replaced", () => {
    start({ save: true });
    const file = path.join(cacheDir, files()[0]!);
    const good = fs.readFileSync(file);
    const flipped = Buffer.from(good);
    flipped[good.length >> 1] = flipped[good.length >> 1]! ^ 0xff;
    for (const bad of [flipped, good.subarray(0, good.length >> 1), good.subarray(0, 7), Buffer.alloc(0)]) {
      fs.writeFileSync(file, bad);
      const r = start({ save: true });
      expect(r).toMatchObject({ cache: "damaged", saved: true, result: { version: 1, sum: 90 } });
      expect(start().cache).toBe("used");
    }
  });

  it("a cache damaged and sealed again without this install's key is refused; the key is private", () => {
    start({ save: true });
    const file = path.join(cacheDir, files()[0]!);
    const keyFile = path.join(cacheDir, "key");
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(keyFile).size).toBe(32);
    const data = Buffer.from(fs.readFileSync(file).subarray(32));
    data[data.length >> 1] = data[data.length >> 1]! ^ 0xff;
    for (const seal of [crypto.createHash("sha256").update(data).digest(), crypto.createHmac("sha256", crypto.randomBytes(32)).update(data).digest()]) {
      fs.writeFileSync(file, Buffer.concat([seal, data]));
      expect(start({ save: true })).toMatchObject({ cache: "damaged", saved: true, result: { version: 1, sum: 90 } });
      expect(start().cache).toBe("used");
    }
  });

  it("a cache damaged and sealed again WITH this install's key is refused by V8's checksum: a compile, and replaced", () => {
    start({ save: true });
    const file = path.join(cacheDir, files()[0]!);
    const key = fs.readFileSync(path.join(cacheDir, "key"));
    const data = Buffer.from(fs.readFileSync(file).subarray(32));
    for (let i = 24; i < data.length; i += 61) data[i] = data[i]! ^ 0xa5;
    fs.writeFileSync(file, sealCache(data, key, sealContext(B1, [], ["--import", "tsx"])));
    expect(start({ save: true })).toMatchObject({ cache: "rejected", saved: true, result: { version: 1, sum: 90 } });
    expect(start().cache).toBe("used");
  });

  it("a start that died on the saved code leaves a mark: the next compiles from source and replaces it", () => {
    start({ save: true });
    const [name] = files();
    const mark = path.join(cacheDir, `${name}.starting`);
    // a start that lived leaves none
    expect(start().cache).toBe("used");
    expect(fs.existsSync(mark)).toBe(false);
    // one that died with the code in use (a V8 fatal error runs no exit handler), as left behind
    fs.writeFileSync(mark, "12345", { mode: 0o600 });
    expect(start()).toMatchObject({ cache: "crashed", result: { version: 1, sum: 90 } });
    // until a start has written new code, none takes the old
    expect(start({ save: true })).toMatchObject({ cache: "crashed", saved: true, result: { version: 1, sum: 90 } });
    expect(fs.existsSync(mark)).toBe(false);
    expect(start().cache).toBe("used");
    expect(files()).toEqual([name]);
  });

  it("code V8 refuses (another program's, sealed whole) costs a compile, and is replaced", () => {
    start({ save: true });
    const file = path.join(cacheDir, files()[0]!);
    // V8's data for a different source, under this program's name
    const foreign = path.join(dir, "other.cjs");
    fs.writeFileSync(foreign, `globalThis.__x = [1, 2, 3].map((n) => n + 1);\n//# albedo-build ${"f".repeat(16)}\n`);
    start({ file: foreign, cacheDir: path.join(dir, "c2"), save: true });
    // sealed as this install would have sealed it: only V8 can tell it is not this program's
    const c2 = path.join(dir, "c2");
    const foreignData = fs.readFileSync(path.join(c2, fs.readdirSync(c2).find((f) => f.endsWith(".v8cache"))!)).subarray(32);
    fs.writeFileSync(file, sealCache(foreignData, fs.readFileSync(path.join(cacheDir, "key")), sealContext(B1, [], ["--import", "tsx"])));
    const r = start({ save: true });
    expect(r).toMatchObject({ cache: "rejected", saved: true, result: { version: 1, sum: 90 } });
    expect(start().cache).toBe("used");
  });

  it("a cache folder that cannot be written costs only the cache", () => {
    fs.mkdirSync(path.dirname(cacheDir), { recursive: true });
    fs.writeFileSync(cacheDir, "a file where the folder should be");
    expect(start({ save: true })).toMatchObject({ cache: "none", saved: false, result: { sum: 90 } });
    expect(start().cache).toBe("none");
  });

  it("a bundle without its build's mark, or a cache folder given as a relative path, runs without a cache", () => {
    writeProgram(1, null);
    expect(start({ save: true })).toMatchObject({ cache: "off", saved: false, result: { sum: 90 } });
    writeProgram(1);
    expect(start({ cacheDir: "relative/cache", save: true })).toMatchObject({ cache: "off", saved: false, result: { sum: 90 } });
    expect(fs.existsSync(path.join(path.dirname(program), "relative"))).toBe(false);
  });

  it("never takes code from a folder others can write to or swap, a link, or a file that is not a plain one of ours", () => {
    expect(start({ save: true })).toMatchObject({ cache: "none", saved: true });
    const name = files()[0]!;
    // a folder of ours left loose is made private again, and its cache still used
    fs.chmodSync(cacheDir, 0o777);
    expect(start().cache).toBe("used");
    expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o700);
    // the code folder a link to another folder: not read, not written
    const elsewhere = path.join(dir, "elsewhere");
    fs.renameSync(cacheDir, elsewhere);
    fs.symlinkSync(elsewhere, cacheDir);
    expect(start({ save: true })).toMatchObject({ cache: "none", saved: false, result: { sum: 90 } });
    fs.rmSync(cacheDir);
    fs.renameSync(elsewhere, cacheDir);
    // the cache file a link to a good cache: not followed
    const real = path.join(dir, "real.v8cache");
    fs.renameSync(path.join(cacheDir, name), real);
    fs.symlinkSync(real, path.join(cacheDir, name));
    expect(start().cache).toBe("none");
    fs.rmSync(path.join(cacheDir, name));
    // a FIFO where the cache should be: the start neither hangs nor fails
    execFileSync("mkfifo", [path.join(cacheDir, name)]);
    expect(start()).toMatchObject({ cache: "none", result: { sum: 90 } });
  });

  it("with no cache folder, it only runs the program", () => {
    expect(start({ cacheDir: null, save: true })).toMatchObject({ cache: "off", saved: false, result: { sum: 90 } });
  });
});

describe("the cache file's seal and name", () => {
  it("unseals what it sealed under the same key and context, and nothing else", () => {
    const data = Buffer.from("some bytes of V8's code");
    const key = crypto.randomBytes(32);
    const ctx = sealContext(B1, ["--liftoff-only"]);
    expect(unsealCache(sealCache(data, key, ctx), key, ctx)?.equals(data)).toBe(true);
    const sealed = sealCache(data, key, ctx);
    sealed[sealed.length - 1] = sealed[sealed.length - 1]! ^ 1;
    expect(unsealCache(sealed, key, ctx)).toBeUndefined();
    expect(unsealCache(Buffer.alloc(32), key, ctx)).toBeUndefined();
    // another install's key, another build, other flags: refused
    expect(unsealCache(sealCache(data, crypto.randomBytes(32), ctx), key, ctx)).toBeUndefined();
    expect(unsealCache(sealCache(data, key, sealContext(B2, ["--liftoff-only"])), key, ctx)).toBeUndefined();
    expect(unsealCache(sealCache(data, key, sealContext(B1, [])), key, ctx)).toBeUndefined();
    // the old seal (a plain digest first) is no seal
    const digest = Buffer.concat([crypto.createHash("sha256").update(data).digest(), data]);
    expect(unsealCache(digest, key, ctx)).toBeUndefined();
  });

  it("names a cache by install, build, Node, architecture, size and time, in file-name-safe characters", () => {
    const name = cacheFileName({ file: "/a/b/cli.cjs", buildId: "ab/cd", size: 10, mtimeMs: 1234.9, node: "v20.1.0", arch: "x64" });
    expect(name).toBe(`${cachePrefix("/a/b/cli.cjs")}ab_cd-v20.1.0-x64-10-1234.v8cache`);
    expect(cachePrefix("/a/b/cli.cjs")).not.toBe(cachePrefix("/a/c/cli.cjs"));
  });
});
