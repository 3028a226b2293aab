// A walk of the workspace: every path its .gitignore files leave in (and never .git), each
// with its state and fingerprint, the content of each file copied into the blob store. A
// walk reuses an earlier walk's hashes for paths whose fingerprint (size, mtime, ctime, inode,
// mode) is unchanged, so an unchanged tree costs one lstat per path and reads nothing. Nothing
// is followed: links are recorded as links, a file is opened without following a link and
// without blocking (a FIFO swapped in is refused by fstat, never read), and only what fstat
// says is the regular file lstat saw is copied.
import fsSync, { constants, type Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { humanSize } from "../../tools/files.js";
import { isWithin } from "../../tools/paths.js";
import { messageOf } from "../../record/errors.js";
import { BlobStore, sha256, type PackWriter } from "./blobs.js";
import { IgnoreRules, MAX_IGNORE_FILE_BYTES, parseIgnoreFile } from "./ignore.js";
import type { Limits, PathState, SnapEntry } from "./state.js";

export interface Snapshot {
  /** the workspace's real path */
  root: string;
  /** when the walk began, in ms since the epoch (file times are compared with it) */
  takenAtMs: number;
  /** false when the walk stopped at maxFiles: paths past it are not known */
  complete: boolean;
  /** what the walk could not take, in sentences (names that are not UTF-8, the file limit) */
  notes: string[];
  /** by path relative to the workspace, "/" between names */
  entries: Map<string, SnapEntry>;
}

export interface WalkOptions {
  root: string;
  limits: Limits;
  blobs: BlobStore;
  /** an earlier walk whose hashes are reused for unchanged paths */
  prev?: Snapshot | undefined;
  /** real paths never walked: the state folder and the database when they are inside */
  exclude?: readonly string[];
  /** content holding a configured key is not copied (keys live in memory only) */
  holdsSecret?: ((bytes: Buffer) => boolean) | undefined;
  /** copy what is read into the blob store (a walk that only compares need not) */
  store?: boolean;
  /** Esc: the walk stops at its next slice (the command it comes before will not run) */
  signal?: AbortSignal | undefined;
}

/** A file time's slack: file systems stamp with a coarse clock, so a file changed within this
 * of a walk may change again with the same stamp; its hash is not reused (git's "racy" case). */
export const RACY_MS = 1000;

/** new contents a walk keeps as files of their own before it starts a pack */
const LOOSE_PER_WALK = 16;

export function fingerprint(st: Stats): string {
  return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}:${st.mode}:${st.birthtimeMs}`;
}

/** The fingerprint's mtime, ctime and birth time (0 where the file system keeps none). */
export function fpTimes(f: string): [number, number, number] {
  const [, m, c, , , b] = f.split(":");
  const n = (x: string | undefined): number => {
    const v = Number(x);
    return Number.isFinite(v) ? v : 0;
  };
  return [n(m), n(c), n(b)];
}

export function specialKind(st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  return "a special file";
}

/** A candidate file of the first pass: its stat, waiting for its content. */
interface FileCandidate {
  rel: string;
  abs: string;
  st: Stats;
}

/**
 * Reads a regular file that lstat saw, without following a link or blocking, up to `max`
 * bytes; undefined content with a reason when it cannot be read as that file.
 */
export async function readRegular(abs: string, st: Stats, max: number): Promise<{ bytes: Buffer; stable: boolean } | { why: string }> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { why: "it became a link while it was read" };
    if (code === "EACCES" || code === "EPERM") return { why: "it cannot be read (permission denied)" };
    return { why: `it cannot be read (${code ?? messageOf(e)})` };
  }
  try {
    const a = await fh.stat();
    if (!a.isFile() || a.ino !== st.ino || a.dev !== st.dev) return { why: "it was replaced while it was read" };
    if (a.size > max) return { why: "it grew past the cap while it was read" };
    const bytes = await fh.readFile();
    if (bytes.length > max) return { why: "it grew past the cap while it was read" };
    const b = await fh.stat();
    // changed while read: the copy is whole but its fingerprint must not vouch for it later
    const stable = b.size === a.size && b.mtimeMs === a.mtimeMs && b.ctimeMs === a.ctimeMs && bytes.length === a.size;
    return { bytes, stable };
  } finally {
    await fh.close();
  }
}

/** readRegular in synchronous calls, for a walk's slices (a sixth of the promised calls' cost
 * per file, which is most of a workspace's first walk). */
export function readRegularSync(abs: string, st: Stats, max: number): { bytes: Buffer; stable: boolean } | { why: string } {
  let fd: number;
  try {
    fd = fsSync.openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { why: "it became a link while it was read" };
    if (code === "EACCES" || code === "EPERM") return { why: "it cannot be read (permission denied)" };
    return { why: `it cannot be read (${code ?? messageOf(e)})` };
  }
  try {
    const a = fsSync.fstatSync(fd);
    if (!a.isFile() || a.ino !== st.ino || a.dev !== st.dev) return { why: "it was replaced while it was read" };
    if (a.size > max) return { why: "it grew past the cap while it was read" };
    const size = a.size;
    // one byte more than fstat says: a file that grew meanwhile is seen to
    const buf = Buffer.allocUnsafe(size + 1);
    let n = 0;
    for (;;) {
      const got = fsSync.readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
      if (n === buf.length) break;
    }
    if (n > max) return { why: "it grew past the cap while it was read" };
    const b = fsSync.fstatSync(fd);
    const stable = n === size && b.size === a.size && b.mtimeMs === a.mtimeMs && b.ctimeMs === a.ctimeMs;
    return { bytes: buf.subarray(0, n), stable };
  } catch (e) {
    return { why: `it cannot be read (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})` };
  } finally {
    fsSync.closeSync(fd);
  }
}

/** The rules a folder adds: its .gitignore, read only as a small regular file (opened without
 * following a link or blocking, so a .gitignore that is a FIFO or a link to /dev/zero is none). */
function ignoreFileRules(dirAbs: string, rel: string, file = ".gitignore"): ReturnType<typeof parseIgnoreFile> {
  const p = path.join(dirAbs, file);
  let fd: number;
  try {
    fd = fsSync.openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return [];
  }
  try {
    const st = fsSync.fstatSync(fd);
    if (!st.isFile()) return [];
    const buf = Buffer.alloc(Math.min(st.size, MAX_IGNORE_FILE_BYTES));
    const n = fsSync.readSync(fd, buf, 0, buf.length, 0);
    return parseIgnoreFile(buf.subarray(0, n).toString("utf8"), rel);
  } catch {
    return [];
  } finally {
    fsSync.closeSync(fd);
  }
}

/** The names in a folder that are not valid UTF-8, as they decode. */
function notUtf8(dir: string): Set<string> {
  const out = new Set<string>();
  try {
    for (const raw of fsSync.readdirSync(dir, { encoding: "buffer" })) {
      const name = raw.toString("utf8");
      if (!Buffer.from(name, "utf8").equals(raw)) out.add(name);
    }
  } catch {
    // gone meanwhile: the walk finds nothing there either
  }
  return out;
}

/** Where a link leads when that is outside the workspace, with the target's fingerprint. */
function outsideTarget(root: string, abs: string): SnapEntry["o"] {
  let real: string;
  try {
    real = fsSync.realpathSync(abs);
  } catch {
    return undefined; // dangling, or a loop: nothing reachable through it
  }
  if (isWithin(root, real)) return undefined;
  try {
    const st = fsSync.statSync(real);
    return st.isFile() ? { real, f: fingerprint(st) } : { real };
  } catch {
    return { real };
  }
}

/** The stat pass runs in slices this long, the event loop free between them (a screen keeps
 * drawing); synchronous calls cost a third of what promised ones do per path. */
const SLICE_MS = 8;

/**
 * Walks the workspace. Two passes: the tree's stats first (synchronous calls in short slices:
 * an unchanged tree costs one lstat per path and nothing else), then the content of the files
 * whose fingerprint is new, in path order, so which files the total cap leaves out is always
 * the same.
 */
export async function walk(opts: WalkOptions): Promise<Snapshot> {
  const { root, limits, blobs } = opts;
  if (opts.signal?.aborted) throw new Error("interrupted");
  const takenAtMs = Date.now();
  const entries = new Map<string, SnapEntry>();
  const notes: string[] = [];
  const exclude = new Set(opts.exclude ?? []);
  const files: FileCandidate[] = [];
  let count = 0;
  let complete = true;

  // folders still to read, depth first; each with the rules in force there
  const todo: Array<{ rel: string; abs: string; rules: IgnoreRules }> = [
    { rel: "", abs: root, rules: new IgnoreRules().with(ignoreFileRules(path.join(root, ".git", "info"), "", "exclude")) },
  ];
  let sliceStart = performance.now();
  while (todo.length > 0 && complete) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise<void>((r) => setImmediate(r));
      if (opts.signal?.aborted) throw new Error("interrupted");
      sliceStart = performance.now();
    }
    const dir = todo.pop()!;
    const rules = dir.rules.with(ignoreFileRules(dir.abs, dir.rel));
    let names: string[];
    try {
      names = fsSync.readdirSync(dir.abs);
    } catch (e) {
      notes.push(`the folder ${dir.rel || "."} could not be read (${(e as NodeJS.ErrnoException).code ?? messageOf(e)}); what is in it is not checkpointed`);
      continue;
    }
    const subdirs: typeof todo = [];
    // a name that is not UTF-8 decodes with U+FFFD in it, and cannot be opened by that name:
    // only then are the folder's names read again as bytes to tell
    const undecodable = names.some((n) => n.includes("\ufffd")) ? notUtf8(dir.abs) : undefined;
    for (const name of names) {
      const rel = dir.rel ? `${dir.rel}/${name}` : name;
      if (undecodable?.has(name)) {
        notes.push(`${rel} has a name that is not valid UTF-8; it is not checkpointed`);
        continue;
      }
      if (name === ".git") continue; // the user's own git state is never copied nor restored
      const abs = dir.abs === "/" ? `/${name}` : `${dir.abs}/${name}`;
      if (exclude.has(abs)) continue;
      let st: Stats;
      try {
        st = fsSync.lstatSync(abs);
      } catch {
        continue; // gone meanwhile
      }
      const isDir = st.isDirectory();
      if (rules.ignored(rel, isDir)) continue;
      if (++count > limits.maxFiles) {
        notes.push(`the workspace has more than ${limits.maxFiles.toLocaleString("en-US")} paths; the checkpoint stops there, and changes past it are not tracked`);
        complete = false;
        break;
      }
      const mode = st.mode;
      if (isDir) {
        entries.set(rel, { s: { kind: "dir", mode: mode & 0o7777 }, f: fingerprint(st) });
        subdirs.push({ rel, abs, rules });
      } else if (st.isSymbolicLink()) {
        let target: string;
        try {
          target = fsSync.readlinkSync(abs);
        } catch {
          continue;
        }
        const o = outsideTarget(root, abs);
        entries.set(rel, { s: { kind: "link", target }, f: fingerprint(st), ...(o ? { o } : {}) });
      } else if (st.isFile()) {
        files.push({ rel, abs, st });
      } else {
        entries.set(rel, { s: { kind: "uncopied", what: specialKind(st), why: "a special file is not checkpointed" }, f: fingerprint(st) });
      }
    }
    // depth first, in name order
    for (let i = subdirs.length - 1; i >= 0; i--) todo.push(subdirs[i]!);
  }

  // the second pass: content, in path order
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const prev = opts.prev;
  const reuseBefore = prev ? prev.takenAtMs - RACY_MS : 0;
  let total = 0;
  // a few new contents go to files of their own; past that, into one pack (blobs.ts)
  let loose = 0;
  let pack: PackWriter | undefined;
  sliceStart = performance.now();
  for (const c of files) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise<void>((r) => setImmediate(r));
      if (opts.signal?.aborted) throw new Error("interrupted");
      sliceStart = performance.now();
    }
    const f = fingerprint(c.st);
    const size = c.st.size;
    const mode = c.st.mode & 0o7777;
    const old = prev?.entries.get(c.rel);
    if (old && old.f === f && old.s.kind === "file") {
      // the same fingerprint: these times are the earlier walk's too
      if (c.st.mtimeMs < reuseBefore && c.st.ctimeMs < reuseBefore && total + size <= limits.maxTotalBytes) {
        total += size;
        // the earlier walk's entry itself: nothing new to keep
        entries.set(c.rel, old);
        continue;
      }
    }
    if (size > limits.maxFileBytes) {
      entries.set(c.rel, { s: { kind: "uncopied", what: `a file of ${humanSize(size)}`, why: `over the ${humanSize(limits.maxFileBytes)} per-file cap` }, f });
      continue;
    }
    if (total + size > limits.maxTotalBytes) {
      entries.set(c.rel, { s: { kind: "uncopied", what: `a file of ${humanSize(size)}`, why: `past the ${humanSize(limits.maxTotalBytes)} a checkpoint copies in all` }, f });
      continue;
    }
    total += size;
    const got = readRegularSync(c.abs, c.st, limits.maxFileBytes);
    if ("why" in got) {
      entries.set(c.rel, { s: { kind: "uncopied", what: "a file", why: got.why } });
      continue;
    }
    if (opts.holdsSecret?.(got.bytes)) {
      entries.set(c.rel, { s: { kind: "uncopied", what: "a file", why: "it holds a configured API key, which is kept in memory only" }, f });
      continue;
    }
    const hash = sha256(got.bytes);
    if (opts.store !== false) {
      if (loose < LOOSE_PER_WALK) {
        blobs.putSync(hash, got.bytes);
        loose++;
      } else {
        pack ??= blobs.pack();
        pack.add(hash, got.bytes);
      }
    }
    const s: PathState = { kind: "file", hash, size: got.bytes.length, mode };
    entries.set(c.rel, got.stable ? { s, f } : { s });
  }
  // its index written: the copies are there before the walk that names them is
  pack?.finish();
  return { root, takenAtMs, complete, notes, entries };
}

/**
 * The state of one path now, as a walk would record it (for the paths write and edit touch,
 * which may be ignored or outside a walk). Outside the workspace nothing is copied.
 */
export async function captureOne(
  root: string,
  abs: string,
  o: { limits: Limits; blobs: BlobStore; holdsSecret?: ((bytes: Buffer) => boolean) | undefined; store?: boolean },
): Promise<SnapEntry> {
  let st: Stats;
  try {
    st = await fs.lstat(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { s: { kind: "absent" } };
    return { s: { kind: "uncopied", what: "a path", why: `it cannot be read (${code ?? messageOf(e)})` } };
  }
  const f = fingerprint(st);
  if (!isWithin(root, abs)) {
    return { s: { kind: "uncopied", what: st.isFile() ? "a file" : "a path", why: "it is outside the workspace, where checkpoints do not reach" }, f };
  }
  const mode = st.mode & 0o7777;
  if (st.isDirectory()) return { s: { kind: "dir", mode }, f };
  if (st.isSymbolicLink()) {
    const target = await fs.readlink(abs).catch(() => "");
    return { s: { kind: "link", target }, f };
  }
  if (!st.isFile()) return { s: { kind: "uncopied", what: specialKind(st), why: "a special file is not checkpointed" }, f };
  const size = st.size;
  if (size > o.limits.maxFileBytes) {
    return { s: { kind: "uncopied", what: `a file of ${humanSize(size)}`, why: `over the ${humanSize(o.limits.maxFileBytes)} per-file cap` }, f };
  }
  const got = await readRegular(abs, st, o.limits.maxFileBytes);
  if ("why" in got) return { s: { kind: "uncopied", what: "a file", why: got.why } };
  if (o.holdsSecret?.(got.bytes)) return { s: { kind: "uncopied", what: "a file", why: "it holds a configured API key, which is kept in memory only" }, f };
  const hash = sha256(got.bytes);
  if (o.store !== false) await o.blobs.put(hash, got.bytes);
  const s: PathState = { kind: "file", hash, size: got.bytes.length, mode };
  return got.stable ? { s, f } : { s };
}
