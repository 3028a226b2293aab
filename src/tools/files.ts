// File access shared by read, write and edit: refuse what is not a regular text file
// before touching its contents, and build the diffs a person reviews.
import fs from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { constants, type Stats } from "node:fs";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";

/** Files above this are read only by line range and never edited or diffed whole. */
export const MAX_TEXT_FILE = 10 * 1024 * 1024;
/** How much of a file's start is checked for NUL bytes to call it binary. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

export type OpenResult = { ok: true; fh: FileHandle; size: number } | { ok: false; error: string };

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
      return `${shown}: ${(e as Error).message}`;
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

/**
 * Opens a regular file for reading. stat comes first so a FIFO or device is refused
 * without being opened; the open itself is non-blocking and re-checked with fstat so a
 * file swapped for a FIFO in between still cannot hang the call.
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
  let fh: FileHandle;
  try {
    fh = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { ok: false, error: describeFsError(e, shown) };
  }
  const st2 = await fh.stat();
  const refused2 = refuseNonRegular(st2, shown);
  if (refused2) {
    await fh.close();
    return { ok: false, error: refused2 };
  }
  return { ok: true, fh, size: st2.size };
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

export type TextFile = { ok: true; text: string } | { ok: false; error: string; missing?: boolean };

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
