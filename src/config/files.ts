// Reading the files the program is pointed at on start (config, keymap, images, the prompt on
// stdin). A path can name anything: /dev/zero never ends, a FIFO blocks the open until a
// writer comes, a 4 GB file fills the memory. Each file is opened without blocking, checked
// on the open handle (so what is checked is what is read), and read only up to its limit.
import fs from "node:fs";
import fsp from "node:fs/promises";

const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = fs.constants;
/** O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer */
const OPEN_FLAGS = O_RDONLY | O_NONBLOCK | O_NOCTTY;

/** A file the program will not read; the message names the file and the reason. */
export class StartFileError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "StartFileError";
  }
}

/** "a FIFO", "a character device"…: what a path names when it is not a regular file */
export function fileKind(st: fs.Stats): string {
  if (st.isFile()) return "a regular file";
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

export function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} kB`;
}

export interface ReadLimits {
  /** what the file is, for messages: "the config file", "keymap", "image" */
  what: string;
  maxBytes: number;
  /** the whole message for a file over the limit (size: undefined when it grew while read) */
  tooLarge?: (size: number | undefined) => string;
}

function refuseKind(file: string, st: fs.Stats, what: string): never {
  throw new StartFileError(`${what} ${file} is not a regular file (${fileKind(st)}); refusing to read it`, "not-regular");
}

function refuseSize(file: string, size: number | undefined, lim: ReadLimits): never {
  // size: from stat; undefined when the file grew past the limit while it was read
  // in bytes when megabytes would round both sizes to the same figure
  const exact = size !== undefined && megabytes(size) === megabytes(lim.maxBytes);
  const fmt = (n: number): string => (exact ? `${n} bytes` : megabytes(n));
  const how = size === undefined ? "is" : `is ${fmt(size)},`;
  throw new StartFileError(lim.tooLarge?.(size) ?? `${lim.what} ${file} ${how} over the limit of ${fmt(lim.maxBytes)}`, "too-large");
}

function openError(file: string, e: unknown, what: string): StartFileError {
  const err = e as NodeJS.ErrnoException;
  const why =
    err.code === "ENOENT"
      ? "no such file"
      : err.code === "EACCES" || err.code === "EPERM"
        ? "permission denied"
        : err.code === "ENXIO"
          ? "a socket or device with nothing behind it"
          : err.code === "EISDIR"
            ? "it is a folder"
            : err.message;
  return new StartFileError(`cannot read ${what} ${file}: ${why}`, err.code);
}

/**
 * The bytes of a regular file of at most `maxBytes`; throws StartFileError naming the file
 * for a missing file, a folder, FIFO, device or socket, or a file over the limit.
 */
export function readStartFileSync(file: string, lim: ReadLimits): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (e) {
    throw openError(file, e, lim.what);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) refuseKind(file, st, lim.what);
    if (st.size > lim.maxBytes) refuseSize(file, st.size, lim);
    // to the end, but never past the limit: the file may grow while it is read
    const chunks: Buffer[] = [];
    let got = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, lim.maxBytes + 1 - got));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      got += n;
      if (got > lim.maxBytes) refuseSize(file, undefined, lim);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, got);
  } finally {
    fs.closeSync(fd);
  }
}

/** readStartFileSync without blocking the event loop (images can be megabytes). */
export async function readStartFile(file: string, lim: ReadLimits): Promise<Buffer> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(file, OPEN_FLAGS);
  } catch (e) {
    throw openError(file, e, lim.what);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) refuseKind(file, st, lim.what);
    if (st.size > lim.maxBytes) refuseSize(file, st.size, lim);
    const chunks: Buffer[] = [];
    let got = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, lim.maxBytes + 1 - got));
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      got += bytesRead;
      if (got > lim.maxBytes) refuseSize(file, undefined, lim);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, got);
  } finally {
    await fh.close();
  }
}

/**
 * Text of a config-like file: UTF-8, with a leading byte-order mark dropped (editors on
 * Windows write one, and JSON.parse refuses it). Bytes that are not UTF-8 are named.
 */
export function decodeUtf8(bytes: Buffer, label: string): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new StartFileError(`${label} is not UTF-8 text`, "not-utf8");
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The largest prompt `-p -` takes from stdin. */
export const MAX_STDIN_PROMPT = 32 * 1024 * 1024;

/**
 * The whole of stdin as the prompt (`-p -`): UTF-8, at most `max` bytes. A terminal on stdin
 * is refused rather than waited on: headless mode has no screen to say it is waiting.
 */
export async function readPromptFromStdin(
  stdin: NodeJS.ReadStream = process.stdin,
  max = MAX_STDIN_PROMPT,
): Promise<string> {
  if (stdin.isTTY) throw new StartFileError("-p - reads the prompt from stdin, but stdin is a terminal; pipe the prompt in (cat prompt.txt | albedo-tui -p -)", "tty");
  const chunks: Buffer[] = [];
  let got = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    got += b.length;
    if (got > max) {
      stdin.destroy();
      throw new StartFileError(`the prompt on stdin is over the limit of ${megabytes(max)}`, "too-large");
    }
    chunks.push(b);
  }
  return decodeUtf8(Buffer.concat(chunks, got), "the prompt on stdin");
}
