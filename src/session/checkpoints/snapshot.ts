// A walk of the workspace: every path its .gitignore files leave in (and never .git), each
// with its state and fingerprint, the content of each file copied into the blob store. A
// walk reuses an earlier walk's hashes for paths whose fingerprint (size, mtime, ctime, inode,
// mode) is unchanged, so an unchanged tree costs one lstat per path and reads nothing. Nothing
// is followed: links are recorded as links, a file is opened without following a link and
// without blocking (a FIFO swapped in is refused by fstat, never read), and only what fstat
// says is the regular file lstat saw is copied.
import { constants, type BigIntStats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { humanSize } from "../../tools/files.js";
import { isWithin } from "../../tools/paths.js";
import { messageOf } from "../../record/errors.js";
import { BlobStore, sha256 } from "./blobs.js";
import { IgnoreRules, MAX_IGNORE_FILE_BYTES, parseIgnoreFile } from "./ignore.js";
import type { Limits, PathState, SnapEntry } from "./state.js";

export interface Snapshot {
  /** the workspace's real path */
  root: string;
  /** when the walk began, in ns since the epoch (file times are compared with it) */
  takenAtNs: bigint;
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
  holdsSecret?: (bytes: Buffer) => boolean;
  /** copy what is read into the blob store (a walk that only compares need not) */
  store?: boolean;
}

/** A file time's slack: file systems stamp with a coarse clock, so a file changed within this
 * of a walk may change again with the same stamp; its hash is not reused (git's "racy" case). */
export const RACY_NS = 1_000_000_000n;

/** in-flight file system calls of one walk */
const PARALLEL = 32;

function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

export function fingerprint(st: BigIntStats): string {
  return `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}:${st.mode}:${st.birthtimeNs}`;
}

/** The fingerprint's mtime, ctime and birth time (0 where the file system keeps none). */
export function fpTimes(f: string): [bigint, bigint, bigint] {
  const [, m, c, , , b] = f.split(":");
  const n = (x: string | undefined): bigint => (x !== undefined && /^[0-9]+$/.test(x) ? BigInt(x) : 0n);
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
  st: BigIntStats;
}

/**
 * Reads a regular file that lstat saw, without following a link or blocking, up to `max`
 * bytes; undefined content with a reason when it cannot be read as that file.
 */
export async function readRegular(abs: string, st: BigIntStats, max: number): Promise<{ bytes: Buffer; stable: boolean } | { why: string }> {
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
    const a = await fh.stat({ bigint: true });
    if (!a.isFile() || a.ino !== st.ino || a.dev !== st.dev) return { why: "it was replaced while it was read" };
    if (a.size > BigInt(max)) return { why: "it grew past the cap while it was read" };
    const bytes = await fh.readFile();
    if (bytes.length > max) return { why: "it grew past the cap while it was read" };
    const b = await fh.stat({ bigint: true });
    // changed while read: the copy is whole but its fingerprint must not vouch for it later
    const stable = b.size === a.size && b.mtimeNs === a.mtimeNs && b.ctimeNs === a.ctimeNs && BigInt(bytes.length) === a.size;
    return { bytes, stable };
  } finally {
    await fh.close();
  }
}

/** The rules a folder adds: its .gitignore, read only as a small regular file. */
async function ignoreFileRules(dirAbs: string, rel: string, file = ".gitignore"): Promise<ReturnType<typeof parseIgnoreFile>> {
  const p = path.join(dirAbs, file);
  let st: BigIntStats;
  try {
    st = await fs.lstat(p, { bigint: true });
  } catch {
    return [];
  }
  if (!st.isFile()) return [];
  const got = await readRegular(p, st, Number(st.size < BigInt(MAX_IGNORE_FILE_BYTES) ? st.size : BigInt(MAX_IGNORE_FILE_BYTES)) + 1).catch(() => undefined);
  if (!got || !("bytes" in got)) return [];
  return parseIgnoreFile(got.bytes.subarray(0, MAX_IGNORE_FILE_BYTES).toString("utf8"), rel);
}

/** Where a link leads when that is outside the workspace, with the target's fingerprint. */
async function outsideTarget(root: string, abs: string): Promise<SnapEntry["o"]> {
  let real: string;
  try {
    real = await fs.realpath(abs);
  } catch {
    return undefined; // dangling, or a loop: nothing reachable through it
  }
  if (isWithin(root, real)) return undefined;
  try {
    const st = await fs.stat(real, { bigint: true });
    return st.isFile() ? { real, f: fingerprint(st) } : { real };
  } catch {
    return { real };
  }
}

/**
 * Walks the workspace. Two passes: the tree's stats first (in parallel), then the content of
 * the files whose fingerprint is new, in path order, so which files the total cap leaves out
 * does not depend on the order the stats came back in.
 */
export async function walk(opts: WalkOptions): Promise<Snapshot> {
  const { root, limits, blobs } = opts;
  const takenAtNs = BigInt(Date.now()) * 1_000_000n;
  const entries = new Map<string, SnapEntry>();
  const notes: string[] = [];
  const exclude = new Set(opts.exclude ?? []);
  const run = limiter(PARALLEL);
  const files: FileCandidate[] = [];
  let count = 0;
  let complete = true;

  const rootRules = new IgnoreRules().with(await ignoreFileRules(path.join(root, ".git", "info"), "", "exclude"));

  async function walkDir(rel: string, abs: string, inherited: IgnoreRules): Promise<void> {
    const rules = inherited.with(await ignoreFileRules(abs, rel));
    let dirents: Array<import("node:fs").Dirent<Buffer>>;
    try {
      dirents = await run(() => fs.readdir(abs, { withFileTypes: true, encoding: "buffer" }));
    } catch (e) {
      notes.push(`the folder ${rel || "."} could not be read (${(e as NodeJS.ErrnoException).code ?? messageOf(e)}); what is in it is not checkpointed`);
      return;
    }
    const subdirs: Array<[string, string]> = [];
    await Promise.all(
      dirents.map((d) =>
        run(async () => {
          const raw = d.name;
          const name = raw.toString("utf8");
          const childRel = rel ? `${rel}/${name}` : name;
          if (!Buffer.from(name, "utf8").equals(raw)) {
            notes.push(`${childRel} has a name that is not valid UTF-8; it is not checkpointed`);
            return;
          }
          if (name === ".git") return; // the user's own git state is never copied nor restored
          const childAbs = path.join(abs, name);
          if (exclude.has(childAbs)) return;
          if (!complete) return;
          let st: BigIntStats;
          try {
            st = await fs.lstat(childAbs, { bigint: true });
          } catch {
            return; // gone meanwhile
          }
          const isDir = st.isDirectory();
          if (rules.ignored(childRel, isDir)) return;
          if (++count > limits.maxFiles) {
            if (complete) notes.push(`the workspace has more than ${limits.maxFiles.toLocaleString("en-US")} paths; the checkpoint stops there, and changes past it are not tracked`);
            complete = false;
            return;
          }
          const mode = Number(st.mode);
          if (isDir) {
            entries.set(childRel, { s: { kind: "dir", mode: mode & 0o7777 }, f: fingerprint(st) });
            subdirs.push([childRel, childAbs]);
          } else if (st.isSymbolicLink()) {
            let target: string;
            try {
              target = await fs.readlink(childAbs);
            } catch {
              return;
            }
            const o = await outsideTarget(root, childAbs);
            entries.set(childRel, { s: { kind: "link", target }, f: fingerprint(st), ...(o ? { o } : {}) });
          } else if (st.isFile()) {
            files.push({ rel: childRel, abs: childAbs, st });
          } else {
            entries.set(childRel, { s: { kind: "uncopied", what: specialKind(st), why: "a special file is not checkpointed" }, f: fingerprint(st) });
          }
        }),
      ),
    );
    await Promise.all(subdirs.map(([r, a]) => walkDir(r, a, rules)));
  }

  await walkDir("", root, rootRules);

  // the second pass: content, in path order
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const prev = opts.prev;
  const reuseBefore = prev ? prev.takenAtNs - RACY_NS : 0n;
  let total = 0;
  const reads: Array<Promise<void>> = [];
  for (const c of files) {
    const f = fingerprint(c.st);
    const size = Number(c.st.size);
    const mode = Number(c.st.mode) & 0o7777;
    const old = prev?.entries.get(c.rel);
    if (old && old.f === f && old.s.kind === "file") {
      const [m, ct] = fpTimes(f);
      if (m < reuseBefore && ct < reuseBefore && total + size <= limits.maxTotalBytes) {
        total += size;
        entries.set(c.rel, { s: old.s, f });
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
    reads.push(
      run(async () => {
        const got = await readRegular(c.abs, c.st, limits.maxFileBytes);
        if ("why" in got) {
          entries.set(c.rel, { s: { kind: "uncopied", what: "a file", why: got.why } });
          return;
        }
        if (opts.holdsSecret?.(got.bytes)) {
          entries.set(c.rel, { s: { kind: "uncopied", what: "a file", why: "it holds a configured API key, which is kept in memory only" }, f });
          return;
        }
        const hash = sha256(got.bytes);
        if (opts.store !== false) await blobs.put(hash, got.bytes);
        const s: PathState = { kind: "file", hash, size: got.bytes.length, mode };
        entries.set(c.rel, got.stable ? { s, f } : { s });
      }),
    );
  }
  await Promise.all(reads);
  return { root, takenAtNs, complete, notes, entries };
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
  let st: BigIntStats;
  try {
    st = await fs.lstat(abs, { bigint: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { s: { kind: "absent" } };
    return { s: { kind: "uncopied", what: "a path", why: `it cannot be read (${code ?? messageOf(e)})` } };
  }
  const f = fingerprint(st);
  if (!isWithin(root, abs)) {
    return { s: { kind: "uncopied", what: st.isFile() ? "a file" : "a path", why: "it is outside the workspace, where checkpoints do not reach" }, f };
  }
  const mode = Number(st.mode) & 0o7777;
  if (st.isDirectory()) return { s: { kind: "dir", mode }, f };
  if (st.isSymbolicLink()) {
    const target = await fs.readlink(abs).catch(() => "");
    return { s: { kind: "link", target }, f };
  }
  if (!st.isFile()) return { s: { kind: "uncopied", what: specialKind(st), why: "a special file is not checkpointed" }, f };
  const size = Number(st.size);
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
