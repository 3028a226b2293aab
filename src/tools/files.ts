// File access shared by read, write and edit: refuse what is not a regular text file
// before touching its contents, and build the diffs a person reviews.
import fs from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { constants, type Stats } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { messageOf } from "../record/errors.js";

/** Files above this are read only by line range and never edited or diffed whole. */
export const MAX_TEXT_FILE = 10 * 1024 * 1024;
/** How much of a file's start is checked for NUL bytes to call it binary. */
const BINARY_SNIFF_BYTES = 8 * 1024;

type OpenResult = { ok: true; fh: FileHandle; size: number } | { ok: false; error: string };

/** Thrown by tools that notice ctx.signal; runTool reports it as "interrupted". */
export class InterruptedError extends Error {
  constructor() {
    super("interrupted");
    this.name = "InterruptedError";
  }
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new InterruptedError();
}

export function errnoCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** A short reason for a filesystem error, in terms the model can act on. */
export function describeFsError(e: unknown, shown: string): string {
  switch (errnoCode(e)) {
    case "ENOENT":
      return `no such file or directory: ${shown}`;
    case "EACCES":
    case "EPERM":
      return `permission denied: ${shown}`;
    case "ENOTDIR":
      return `a parent of ${shown} is not a directory`;
    case "EISDIR":
      return `${shown} is a directory; use ls`;
    case "ELOOP":
      return `too many symbolic links in ${shown}`;
    default:
      return `${shown}: ${messageOf(e)}`;
  }
}

function nonRegularKind(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  return "not a file";
}

/** Why `st` cannot be read as a file, or undefined when it can. */
export function refuseNonRegular(st: Stats, shown: string): string | undefined {
  if (st.isDirectory()) return `${shown} is a directory; use ls`;
  if (!st.isFile()) return `${shown} is not a regular file (${nonRegularKind(st)})`;
  return undefined;
}

/** The real path of an open descriptor, where the system can tell (Linux: /proc). */
export async function fdRealPath(fh: FileHandle): Promise<string | undefined> {
  try {
    return await fs.readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Whether the open descriptor is the file at `real` (a path with every link already
 * resolved), or why not. Without /proc, the file now at `real` must at least be the one
 * opened.
 */
export async function openedElsewhere(fh: FileHandle, real: string, shown: string): Promise<string | undefined> {
  const opened = await fdRealPath(fh);
  if (opened !== undefined) {
    return opened === real ? undefined : `${shown} changed while being opened (it now leads to ${opened}); not used`;
  }
  const [now, st] = await Promise.all([fs.stat(real).catch(() => undefined), fh.stat()]);
  return now && now.ino === st.ino && now.dev === st.dev ? undefined : `${shown} changed while being opened; not used`;
}

/** A folder held open, and a path that names that very folder from now on. */
interface PinnedFolder {
  /** "/proc/self/fd/N" on Linux: the kernel resolves it to the opened folder, whatever its
   * old path leads to by then (what openat would give, which Node lacks); elsewhere the
   * folder's path, checked once */
  via: string;
  close(): Promise<void>;
}

/**
 * Holds the folder at `real` (links resolved already) so names inside it are opened in that
 * folder and no other: a folder on the way swapped for a link after the check cannot send
 * an open, a create or a rename somewhere else. `openAt` is how to reach it (its path, or a
 * name inside a folder held already). A folder that cannot be opened for reading
 * (execute-only) falls back to its path, and the caller checks what it opened.
 */
async function pinFolder(real: string, shown: string, openAt = real): Promise<{ ok: true; pin: PinnedFolder } | { ok: false; error: string }> {
  const byPath: PinnedFolder = { via: real, close: async () => undefined };
  let fh: FileHandle;
  try {
    fh = await fs.open(openAt, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (e) {
    const code = errnoCode(e);
    if (code === "EACCES" || code === "EPERM") return { ok: true, pin: byPath };
    if (code === "ELOOP" || code === "ENOTDIR") return { ok: false, error: `the folder of ${shown} was replaced by a symbolic link; not followed` };
    return { ok: false, error: describeFsError(e, path.dirname(shown)) };
  }
  const moved = await openedElsewhere(fh, real, `the folder of ${shown}`);
  if (moved !== undefined) {
    await fh.close();
    return { ok: false, error: moved };
  }
  const at = await fdRealPath(fh);
  if (at === undefined) {
    await fh.close();
    return { ok: true, pin: byPath };
  }
  return { ok: true, pin: { via: `/proc/self/fd/${fh.fd}`, close: () => fh.close() } };
}

/**
 * pinFolder for a folder that may not exist yet: its missing parts are made one at a time,
 * each inside the folder held before it, so a link swapped in on the way cannot get a
 * folder made outside (mkdir -p would follow it).
 */
async function pinFolderCreating(real: string, shown: string): Promise<{ ok: true; pin: PinnedFolder } | { ok: false; error: string }> {
  const missing: string[] = [];
  let existing = real;
  for (;;) {
    try {
      await fs.lstat(existing);
      break;
    } catch (e) {
      if (errnoCode(e) !== "ENOENT") return { ok: false, error: describeFsError(e, path.dirname(shown)) };
    }
    const up = path.dirname(existing);
    if (up === existing) break;
    missing.unshift(path.basename(existing));
    existing = up;
  }
  let pinned = await pinFolder(existing, shown);
  for (const name of missing) {
    if (!pinned.ok) return pinned;
    const at = path.join(pinned.pin.via, name);
    try {
      await fs.mkdir(at);
    } catch (e) {
      if (errnoCode(e) !== "EEXIST") {
        await pinned.pin.close();
        return { ok: false, error: describeFsError(e, path.dirname(shown)) };
      }
    }
    existing = path.join(existing, name);
    const next = await pinFolder(existing, shown, at);
    await pinned.pin.close();
    pinned = next;
  }
  return pinned;
}

/**
 * Opens a regular file for reading. stat comes first so a FIFO or device is refused
 * without being opened; the open itself is non-blocking and re-checked with fstat so a
 * file swapped for a FIFO in between still cannot hang the call. `real` has its links
 * resolved already, so the open follows none: it happens inside the held folder (see
 * pinFolder) with O_NOFOLLOW, so neither a folder nor the file swapped for a link after
 * the check is followed; what was opened is checked to be `real` as well.
 */
export async function openRegular(real: string, shown: string): Promise<OpenResult> {
  let st: Stats;
  try {
    st = await fs.stat(real);
  } catch (e) {
    return { ok: false, error: describeFsError(e, shown) };
  }
  const refused = refuseNonRegular(st, shown);
  if (refused) return { ok: false, error: refused };
  const pinned = await pinFolder(path.dirname(real), shown);
  if (!pinned.ok) return pinned;
  let fh: FileHandle;
  try {
    fh = await fs.open(path.join(pinned.pin.via, path.basename(real)), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW | constants.O_NOCTTY);
  } catch (e) {
    if (errnoCode(e) === "ELOOP") return { ok: false, error: `${shown} was replaced by a symbolic link while being opened; not followed` };
    return { ok: false, error: describeFsError(e, shown) };
  } finally {
    await pinned.pin.close();
  }
  const st2 = await fh.stat();
  const why = (await openedElsewhere(fh, real, shown)) ?? refuseNonRegular(st2, shown);
  if (why !== undefined) {
    await fh.close();
    return { ok: false, error: why };
  }
  return { ok: true, fh, size: st2.size };
}

export interface WriteOptions {
  /** the new file's permission bits; without it the old file's are kept. A restore gives the
   * bits it recorded, so it replaces a file it may not write as well */
  mode?: number;
  /** flushed to the disk before the rename, so a power loss leaves the old file or the new */
  sync?: boolean;
}

/**
 * The folder at `real` (links resolved already) held so that names inside it are reached in
 * that folder and no other (see pinFolder); with `create`, its missing parts are made one at a
 * time inside held ones. `via` names it from then on; close() lets it go.
 */
export async function holdFolder(
  real: string,
  shown: string,
  create: boolean,
): Promise<{ ok: true; via: string; close(): Promise<void> } | { ok: false; error: string }> {
  const pinned = create ? await pinFolderCreating(real, shown) : await pinFolder(real, shown);
  if (!pinned.ok) return pinned;
  return { ok: true, via: pinned.pin.via, close: () => pinned.pin.close() };
}

/**
 * Replaces (or creates) the file at `real` with `content`, never through a link swapped in
 * after the check. Missing folders are made inside held ones (pinFolderCreating); inside
 * the held folder the text goes to a new temporary file
 * (O_EXCL and O_NOFOLLOW: nothing already there is opened), which is then renamed over the
 * name; rename replaces a link at that name rather than writing through it. A person
 * reading meanwhile never sees half a file. The old file's permission bits are kept (its
 * hard links and owner are not: it is a new file). Returns an error message, or undefined.
 */
export async function writeFileNoFollow(
  real: string,
  content: string | Uint8Array,
  shown: string,
  opts: WriteOptions = {},
): Promise<string | undefined> {
  const dir = path.dirname(real);
  const name = path.basename(real);
  const pinned = await pinFolderCreating(dir, shown);
  if (!pinned.ok) return pinned.error;
  const { via } = pinned.pin;
  const tmp = path.join(via, `.${name}.albedo-${randomBytes(6).toString("hex")}.tmp`);
  let created = false;
  let renamed = false;
  try {
    let mode: number | undefined = opts.mode;
    try {
      const st = await fs.lstat(path.join(via, name));
      if (st.isFile() && opts.mode === undefined) {
        mode = st.mode & 0o7777;
        // a rename would replace a file we may not write; refuse as writing in place would
        await fs.access(path.join(via, name), constants.W_OK);
      }
    } catch (e) {
      if (errnoCode(e) !== "ENOENT") return describeFsError(e, shown);
    }
    const fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode ?? 0o666);
    created = true;
    try {
      // held by path only (no /proc, or an execute-only folder): check where it landed
      const moved = via === dir ? await openedElsewhere(fh, path.join(dir, path.basename(tmp)), `the folder of ${shown}`) : undefined;
      if (moved !== undefined) {
        const at = await fdRealPath(fh);
        if (at !== undefined) await fs.unlink(at).catch(() => undefined);
        created = false;
        return moved;
      }
      await fh.writeFile(content);
      if (mode !== undefined) await fh.chmod(mode);
      if (opts.sync) await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, path.join(via, name));
    renamed = true;
    return undefined;
  } catch (e) {
    return describeFsError(e, shown);
  } finally {
    if (created && !renamed) await fs.unlink(tmp).catch(() => undefined);
    await pinned.pin.close();
  }
}

/** NUL bytes in the first 8 KB: the usual test (git and grep use the same idea). */
export async function looksBinary(fh: FileHandle): Promise<boolean> {
  const buf = Buffer.alloc(BINARY_SNIFF_BYTES);
  const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
  return buf.subarray(0, bytesRead).includes(0);
}

export function looksBinaryBuffer(buf: Buffer): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

type TextFile = { ok: true; text: string } | { ok: false; error: string; missing?: boolean };

/** The whole text of a file that edit or write may change; refuses binary and huge files. */
export async function readTextFile(real: string, shown: string): Promise<TextFile> {
  const opened = await openRegular(real, shown);
  if (!opened.ok) {
    let missing = false;
    try {
      await fs.lstat(real);
    } catch (e) {
      missing = errnoCode(e) === "ENOENT";
    }
    return { ok: false, error: opened.error, missing };
  }
  const { fh, size } = opened;
  try {
    if (size > MAX_TEXT_FILE) {
      return { ok: false, error: `${shown} is ${humanSize(size)}, over the ${humanSize(MAX_TEXT_FILE)} limit for editing` };
    }
    const buf = await fh.readFile();
    if (looksBinaryBuffer(buf)) return { ok: false, error: `${shown}: binary file, ${buf.length} bytes; not shown` };
    return { ok: true, text: buf.toString("utf8") };
  } finally {
    await fh.close();
  }
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/**
 * A unified diff for the screen and the permission prompt. Very different large texts can
 * make Myers' algorithm slow, so it gives up after a moment and the caller says so.
 */
export function unifiedDiff(shown: string, before: string, after: string): string | undefined {
  return createTwoFilesPatch(shown, shown, before, after, undefined, undefined, {
    context: 3,
    timeout: 2_000,
    headerOptions: FILE_HEADERS_ONLY,
  });
}

/** Lines added and removed, counted from a unified diff. */
export function diffStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { added, removed };
}

export function countLines(text: string): number {
  if (text === "") return 0;
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n : n + 1;
}
