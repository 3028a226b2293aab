// Reading the files the program is pointed at on start (config, keymap, images, the prompt on
// stdin). A path can name anything: /dev/zero never ends, a FIFO blocks the open until a
// writer comes, a 4 GB file fills the memory. Each file is opened without blocking, checked
// on the open handle (so what is checked is what is read), and read only up to its limit.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { messageOf } from "../record/errors.js";
import { isWithin } from "../tools/paths.js";

const { O_RDONLY, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = fs.constants;
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

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} kB`;
}

interface ReadLimits {
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
    return readOpenedSync(fd, fs.fstatSync(fd), file, lim);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * readStartFileSync for a file the workspace provides and the program reads on its own (the
 * workspace's .mcp.json): as AGENTS.md is read (controller/project-context.ts), only when
 * its real path is inside the workspace, and the file opened is the file checked (no link
 * swapped in between). Where a link leads is not named: the target may be what must not be
 * learnt. A file that is not there throws StartFileError with code ENOENT.
 */
export function readWorkspaceFileSync(workspace: string, name: string, lim: ReadLimits): Buffer {
  const file = path.join(workspace, name);
  const refuse = (why: string, code: string): never => {
    throw new StartFileError(`${lim.what} ${file} was not read: ${why}`, code);
  };
  try {
    fs.lstatSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new StartFileError(`no ${lim.what} ${file}`, "ENOENT");
    return refuse(`it could not be checked (${code ?? messageOf(e)})`, code ?? "unreadable");
  }
  let wsReal: string;
  let real: string;
  try {
    wsReal = fs.realpathSync(workspace);
    real = fs.realpathSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return refuse("it is a link to nothing", "dangling");
    if (code === "ELOOP") return refuse("it is a loop of links", "loop");
    return refuse(`it could not be resolved (${code ?? messageOf(e)})`, code ?? "unreadable");
  }
  if (!isWithin(wsReal, real)) return refuse("it leads outside the workspace", "outside");
  let fd: number;
  try {
    // NOFOLLOW: a link swapped in after the check is refused, not followed
    fd = fs.openSync(real, OPEN_FLAGS | O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return refuse("it changed into a link while being read", "changed");
    throw openError(file, e, lim.what);
  }
  try {
    const st = fs.fstatSync(fd);
    // a folder on the way swapped for a link between the check and the open
    let opened: string | undefined;
    try {
      opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      opened = undefined;
    }
    if (opened !== undefined && !isWithin(wsReal, opened)) refuse("it changed to lead outside the workspace while being read", "changed");
    if (opened === undefined) {
      let now: fs.Stats | undefined;
      try {
        now = fs.statSync(real);
      } catch {
        now = undefined;
      }
      if (!now || now.ino !== st.ino || now.dev !== st.dev) refuse("it changed while being read", "changed");
    }
    return readOpenedSync(fd, st, file, lim);
  } finally {
    fs.closeSync(fd);
  }
}

function readOpenedSync(fd: number, st: fs.Stats, file: string, lim: ReadLimits): Buffer {
  const read = new BoundedRead(file, st, lim);
  for (;;) {
    const chunk = read.chunk();
    if (!read.add(chunk, fs.readSync(fd, chunk, 0, chunk.length, null))) return read.bytes();
  }
}

/** The most one read takes: below the ~516 kB that Node's own start leaves as glibc's mmap
 * threshold, so no chunk is mapped and unmapped on its own. */
export const READ_CHUNK = 256 * 1024;

/** An opened file read to the end, but never past the limit: the file may grow while it is
 * read. Refuses what is not a regular file or is too large already by its size. */
class BoundedRead {
  private readonly chunks: Buffer[] = [];
  private got = 0;
  private readonly size: number;

  constructor(
    private readonly file: string,
    st: fs.Stats,
    private readonly lim: ReadLimits,
  ) {
    if (!st.isFile()) refuseKind(file, st, lim.what);
    if (st.size > lim.maxBytes) refuseSize(file, st.size, lim);
    this.size = st.size;
  }

  /** A buffer for the next read: what the file's size says is left and one byte more (to see
   * its end, or that it grew), never more than the limit still allows nor READ_CHUNK. A 1 MB
   * buffer for a keymap of a few hundred bytes was mapped by glibc on its own, and freeing it
   * raised glibc's trim threshold to 2 MB in every thread's arena for the process's life
   * (docs/performance.md). Past that size the file grew while it was read: READ_CHUNK at a
   * time, not a byte a read. */
  chunk(): Buffer {
    const left = this.got <= this.size ? this.size - this.got + 1 : READ_CHUNK;
    return Buffer.allocUnsafe(Math.min(READ_CHUNK, left, this.lim.maxBytes + 1 - this.got));
  }

  /** Keeps the `n` bytes a read put in `chunk`; false at the end of the file. */
  add(chunk: Buffer, n: number): boolean {
    if (n === 0) return false;
    this.got += n;
    if (this.got > this.lim.maxBytes) refuseSize(this.file, undefined, this.lim);
    this.chunks.push(chunk.subarray(0, n));
    return true;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.got);
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
    const read = new BoundedRead(file, await fh.stat(), lim);
    for (;;) {
      const chunk = read.chunk();
      if (!read.add(chunk, (await fh.read(chunk, 0, chunk.length, null)).bytesRead)) return read.bytes();
    }
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
const MAX_STDIN_PROMPT = 32 * 1024 * 1024;

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

/** a number, true, false or null at lastIndex */
const JSON_LITERAL = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null/y;

/** The first place `text` stops being JSON, and why (undefined: it is JSON). One pass with
 * an explicit stack, so a file of a million "[" cannot overflow the call stack. */
function jsonErrorAt(t: string): { at: number; why: string } | undefined {
  const n = t.length;
  const stack: ("{" | "[")[] = [];
  let i = 0;
  const skipWs = (): void => {
    while (i < n && (t[i] === " " || t[i] === "\t" || t[i] === "\n" || t[i] === "\r")) i++;
  };
  /** a string whose quote is at i; i ends after its closing quote */
  const str = (): { at: number; why: string } | undefined => {
    for (i++; i < n; i++) {
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return { at: i, why: "a control character inside a string" };
      if (c === 0x5c) {
        const e = t[i + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(t.slice(i + 2, i + 6))) i += 5;
        else if (e !== undefined) return { at: i, why: "a bad escape inside a string" };
      }
    }
    return { at: n, why: "the text ends inside a string" };
  };
  /** a property name and its colon, at i (after "{" or ",") */
  const key = (): { at: number; why: string } | undefined => {
    skipWs();
    if (t[i] !== '"') return { at: i, why: i >= n ? "the text ends where a property name should be" : "a property name in double quotes was expected" };
    const bad = str();
    if (bad) return bad;
    skipWs();
    if (t[i] !== ":") return { at: i, why: '":" was expected after a property name' };
    i++;
    return undefined;
  };
  let wantValue = true;
  for (;;) {
    skipWs();
    if (wantValue) {
      if (i >= n) return { at: n, why: "the text ends where a value should be" };
      const c = t[i];
      wantValue = false;
      if (c === "{" || c === "[") {
        stack.push(c);
        i++;
        skipWs();
        if (t[i] === (c === "{" ? "}" : "]")) {
          stack.pop();
          i++;
          continue;
        }
        if (c === "{") {
          const bad = key();
          if (bad) return bad;
        }
        wantValue = true;
        continue;
      }
      if (c === '"') {
        const bad = str();
        if (bad) return bad;
        continue;
      }
      JSON_LITERAL.lastIndex = i;
      if (JSON_LITERAL.exec(t)) {
        i = JSON_LITERAL.lastIndex;
        continue;
      }
      return { at: i, why: "a value was expected" };
    }
    const top = stack.at(-1);
    if (top === undefined) return i >= n ? undefined : { at: i, why: "more text follows the JSON value" };
    if (i >= n) return { at: n, why: `the text ends inside ${top === "{" ? "an object" : "a list"}` };
    const c = t[i];
    if (c === ",") {
      i++;
      if (top === "{") {
        const bad = key();
        if (bad) return bad;
      }
      wantValue = true;
    } else if (c === (top === "{" ? "}" : "]")) {
      stack.pop();
      i++;
    } else return { at: i, why: top === "{" ? '"," or "}" was expected' : '"," or "]" was expected' };
  }
}

/**
 * Why `text` is not JSON, as "not valid JSON: a value was expected at line 3, column 7". It
 * quotes none of the text, unlike JSON.parse's own message: a file (or what a link to
 * /proc/self/environ makes of it) may hold secrets and control characters.
 */
export function jsonSyntaxProblem(text: string): string {
  const e = jsonErrorAt(text);
  if (!e) return "not valid JSON";
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < e.at; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `not valid JSON: ${e.why} at line ${line}, column ${e.at - lineStart + 1}`;
}
