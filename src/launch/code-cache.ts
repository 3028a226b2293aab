// Runs the bundled CLI (one CommonJS file) through V8's code cache. Without it, most of
// start-up is V8 compiling the program's ~1.4 MB before it can draw; Node 20 has no compile
// cache of its own for it (module.enableCompileCache is Node 22), so the bin compiles the
// bundle with vm.Script and hands V8 the code it saved from an earlier run. The cache is
// written once per build, Node and flags, into the user's cache folder, at the exit of a
// process whose program said its start-up code had run (config/startup-signal.ts: the screen
// once it showed the session), so the functions a start runs are in it. Not on a timer: a
// first start quit within a moment (as an outside measurement's warm-up is) would leave
// none, and one that lives would do the work while the screen says idle.
//
// A cache is only ever an optimisation: a missing, stale, damaged or unwritable one costs a
// slower start, never a failed one.
import { isAscii } from "node:buffer";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { isPrivateDir } from "../config/paths.js";
import { onStartupCodeRan } from "../config/startup-signal.js";
import { readWhole } from "./read-whole.js";

/** what makes a saved cache belong to this program: V8 also checks its own version and flags */
interface CacheIdentity {
  /** the bundle's absolute path: two installs (a global one, a checkout) keep a cache each */
  file: string;
  /** the bundle's content hash, from the build's mark on its last line */
  buildId: string;
  /** the bundle file's size and modification time, so a bundle edited by hand is not given another's code */
  size: number;
  mtimeMs: number;
  node: string;
  arch: string;
}

const PREFIX = "cli-";
const SUFFIX = ".v8cache";

/** every cache of the bundle at this path starts with this */
export function cachePrefix(file: string): string {
  return `${PREFIX}${crypto.createHash("sha1").update(file).digest("hex").slice(0, 12)}-`;
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_");

export function cacheFileName(id: CacheIdentity): string {
  return `${cachePrefix(id.file)}${safe(id.buildId)}-${safe(id.node)}-${safe(id.arch)}-${id.size}-${Math.trunc(id.mtimeMs)}${SUFFIX}`;
}

// A saved file is a MAC of V8's data, then the data. V8 checks the cache's header (its version,
// the source's length, a hash of its flags) but, in release builds, its payload only under
// --verify-snapshot-checksum, and a damaged payload can kill the process (a fatal error, exit
// 133). So the launcher sets that flag (an Adler-32 over ~1.3 MB: compile with the cache took
// 24-33 ms either way over 12 interleaved starts on a loaded machine), and
// the MAC (HMAC-SHA256 under a random key of this install's, kept beside the caches,
// owner-only) covers the data and what it was made for: V8's version, the flags, the bundle's
// content hash. A torn, damaged or foreign file is refused here, or by V8's checksum when it
// was sealed again with the key, rather than deserialized; a start that dies on one anyway
// (damage forged to pass both) leaves a mark (see runWithCodeCache) so the next start
// compiles from source.
const MAC = 32;
const KEY_FILE = "key";
const KEY_BYTES = 32;

/** what V8 does not check for itself, bound into the seal */
export function sealContext(buildId: string, flags: readonly string[], execArgv: readonly string[] = process.execArgv): string {
  return JSON.stringify({ v8: process.versions.v8, node: process.version, arch: process.arch, execArgv, flags, buildId });
}

const macOf = (key: Buffer, context: string, data: Buffer): Buffer =>
  crypto.createHmac("sha256", key).update(context).update("\0").update(data).digest();

export function sealCache(data: Buffer, key: Buffer, context: string): Buffer {
  return Buffer.concat([macOf(key, context, data), data]);
}

/** V8's data from a saved file, or undefined when the file is not one this install wrote whole for this context */
export function unsealCache(file: Buffer, key: Buffer, context: string): Buffer | undefined {
  if (file.length <= MAC) return undefined;
  const data = file.subarray(MAC);
  return crypto.timingSafeEqual(macOf(key, context, data), file.subarray(0, MAC)) ? data : undefined;
}

/** this install's key: read, or made (a new owner-only file, never one already there) */
function cacheKey(dir: string, make: boolean): Buffer | undefined {
  const file = path.join(dir, KEY_FILE);
  const have = readOwnFile(file);
  if (have !== undefined) return have.length === KEY_BYTES ? have : undefined;
  if (!make || !trusted(dir)) return undefined;
  try {
    fs.writeFileSync(file, crypto.randomBytes(KEY_BYTES), { mode: 0o600, flag: "wx" });
  } catch {
    // another start made it first: use that one
  }
  const now = readOwnFile(file);
  return now?.length === KEY_BYTES ? now : undefined;
}

/** the mark a start that takes saved code leaves until it has run a while: found, it says the last such start died */
const markOf = (cacheFile: string): string => `${cacheFile}.starting`;

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

interface RunResult {
  /** "used": V8 took the saved code; otherwise why not */
  cache: "used" | "none" | "damaged" | "rejected" | "off" | "crashed";
  /** writes the cache now (the exit does it otherwise); true when a file was written */
  save(): boolean;
}

interface RunOptions {
  /** the bundle: a CommonJS file, its last line `//# albedo-build <id>` (scripts/bundle.mjs) */
  file: string;
  /** where caches live; undefined: no cache at all */
  cacheDir: string | undefined;
  /** the V8 flags the launcher set at run time: the seal covers them */
  flags?: readonly string[];
}

/** makes V8 write a checksum of the code it saves and check it before it deserializes any */
export const VERIFY_FLAG = "--verify-snapshot-checksum";

/** The build's mark, the bundle's last line: its content hash, written by the build. */
const BUILD_MARK = /\n\/\/# albedo-build ([0-9a-f]{16,64})\n?$/;

function buildIdOf(source: string): string | undefined {
  return BUILD_MARK.exec(source.slice(-100))?.[1];
}

/**
 * Compiles `file` (with the saved code when there is a good one), runs it as a CommonJS
 * module, and when no saved code was used, writes it at the process's exit if the program
 * said its start-up code had run (startupCodeRan). Old caches of other builds are removed
 * when a new one is written. A bundle without its build's mark is run without a cache.
 */
export function runWithCodeCache(opts: RunOptions): RunResult {
  // one open file for the text and its size and time, so they describe the same file
  const fd = fs.openSync(opts.file, "r");
  let stat: fs.Stats;
  let source: string;
  try {
    stat = fs.fstatSync(fd);
    const bytes = readWhole(fd, stat.size);
    // the build writes it in ASCII (scripts/bundle.mjs): read so, it is a one-byte string
    source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
  const buildId = buildIdOf(source);
  // the bundle keeps its entry's "#!" line, which is not JavaScript inside a function
  if (source.startsWith("#!")) source = "//" + source.slice(2);
  const dir = opts.cacheDir !== undefined && buildId !== undefined && path.isAbsolute(opts.cacheDir) ? opts.cacheDir : undefined;
  const id: CacheIdentity = { file: opts.file, buildId: buildId ?? "", size: stat.size, mtimeMs: stat.mtimeMs, node: process.version, arch: process.arch };
  const cacheFile = dir === undefined ? undefined : path.join(dir, cacheFileName(id));

  const context = sealContext(id.buildId, opts.flags ?? []);
  const mark = cacheFile === undefined ? undefined : markOf(cacheFile);

  // V8 checks the cache's header, but its payload only with this flag: without it, saved code
  // damaged and sealed again (by this user: only they hold the key) kills the start. Set
  // before the cache is read and before one is made, so each made carries its checksum.
  if (cacheFile !== undefined) v8.setFlagsFromString(VERIFY_FLAG);

  let cachedData: Buffer | undefined;
  let state: RunResult["cache"] = cacheFile === undefined ? "off" : "none";
  if (cacheFile !== undefined && mark !== undefined) {
    const raw = readOwnFile(cacheFile);
    if (raw !== undefined && exists(mark)) {
      // the last start that took this code died before it had run a while: compile, and replace it
      state = "crashed";
    } else if (raw !== undefined) {
      const key = cacheKey(dir!, false);
      cachedData = key === undefined ? undefined : unsealCache(raw, key, context);
      if (cachedData === undefined) state = "damaged";
      else {
        try {
          fs.writeFileSync(mark, String(process.pid), { mode: 0o600 });
        } catch {
          // without the mark a death here would repeat at every start: compile instead
          cachedData = undefined;
          state = "none";
        }
      }
    }
  }
  /** the start lived with the saved code: it is no danger to the next */
  const clearMark = (): void => {
    if (mark === undefined || !cachedData) return;
    try {
      fs.rmSync(mark, { force: true });
    } catch {
      // gone, or not ours to remove: the next start compiles once
    }
  };

  // The wrapper Node gives a CommonJS module, on one line so the bundle's lines keep their
  // numbers, and strict as the ES modules it was built from were (esbuild's own "use strict"
  // comes after the banner, where it is no directive).
  const wrapped = `(function (exports, require, module, __filename, __dirname) {"use strict";${source}\n})`;
  const script = new vm.Script(wrapped, {
    filename: opts.file,
    ...(cachedData ? { cachedData } : {}),
    // no importModuleDynamically: a script's import() needs --experimental-vm-modules on Node
    // 20 (or an experimental constant that prints a warning over the screen), so the build
    // turns every import() into require() (scripts/bundle.mjs)
  });
  if (cachedData) state = script.cachedDataRejected ? "rejected" : "used";

  let saved = false;
  const save = (): boolean => {
    if (saved || cacheFile === undefined || state === "used") return false;
    saved = true;
    try {
      // what this write makes stale: this install's caches for this Node (another Node's, used
      // now and then from the same checkout, stays), and leftover temporary files
      const stale = (f: string) => f.startsWith(cachePrefix(opts.file)) && (f.endsWith(".tmp") ? leftOver(path.join(dir!, f)) : f.includes(`-${safe(id.node)}-${safe(id.arch)}-`));
      fs.mkdirSync(dir!, { recursive: true, mode: 0o700 });
      const key = cacheKey(dir!, true);
      if (key === undefined) return false;
      return writeCache(cacheFile, stale, sealCache(script.createCachedData(), key, context));
    } catch {
      // a read-only or full disk: the next start compiles from source again
      return false;
    }
  };
  // a V8 fatal error fires no exit event: the mark stays only when the start died before
  // its program said its start-up code had run
  let ran = false;
  onStartupCodeRan(() => {
    ran = true;
    clearMark();
  });
  process.once("exit", () => {
    clearMark();
    if (ran) save();
  });

  const fn = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: { exports: unknown }, f: string, d: string) => void;
  const mod = { exports: {} };
  fn.call(mod.exports, mod.exports, createRequire(opts.file), mod, opts.file, path.dirname(opts.file));
  return { cache: state, save };
}

// Code from the cache runs as this user: it is read only from folders no one else can write
// to or swap (this user's, no group or other write: the code folder and the one above it,
// which alone can rename it), and only from a regular file of this user's, opened without
// following a link.

const MAX_CACHE_BYTES = 64 * 1024 * 1024;
const uid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined);

/** the folder and the one above it (which alone can rename it) are private folders of this user's */
function trusted(dir: string): boolean {
  return isPrivateDir(dir) && isPrivateDir(path.dirname(dir));
}

/** the cache file's bytes, or undefined: missing, not a regular file of ours, too large, or in a folder others can write */
function readOwnFile(file: string): Buffer | undefined {
  if (!trusted(path.dirname(file))) return undefined;
  let fd: number;
  try {
    // no link followed; a FIFO planted there must not hang the start
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    const me = uid();
    if (!st.isFile() || (me !== undefined && st.uid !== me) || st.size > MAX_CACHE_BYTES) return undefined;
    return readWhole(fd, st.size);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** a temporary file no writer has touched for a minute: left by one that died (another start may be writing its own now) */
function leftOver(file: string): boolean {
  try {
    return Date.now() - fs.lstatSync(file).mtimeMs > 60_000;
  } catch {
    return false;
  }
}

/** whole or not at all (a new file, then a rename), owner-only, and the caches it replaces removed */
function writeCache(file: string, stale: (name: string) => boolean, data: Buffer): boolean {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!trusted(dir)) return false;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    // "wx": a new file, never one (or a link) already there
    fs.writeFileSync(tmp, data, { mode: 0o600, flag: "wx" });
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  const mine = path.basename(file);
  for (const f of fs.readdirSync(dir)) {
    if (f === mine || !stale(f)) continue;
    try {
      fs.rmSync(path.join(dir, f), { force: true });
    } catch {
      // a folder by that name, or one gone meanwhile: not ours to clear
    }
  }
  return true;
}
