// read: a file's lines, numbered, streamed so a huge file costs only the lines asked for.
import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import type { ToolDef } from "./types.js";
import { boundaryProblem, resolvePath } from "./paths.js";
import { humanSize, looksBinary, MAX_TEXT_FILE, openRegular, throwIfAborted } from "./files.js";
import { formatInt } from "../record/numbers.js";

const DEFAULT_READ_LIMIT = 2000;
/** Longer lines are cut (minified bundles, data dumps): they cost context and say little. */
const MAX_LINE_CHARS = 2000;
/** Stop adding lines past this many characters; the note says where to continue. */
const READ_BUDGET_CHARS = 40_000;

const input = z.object({
  path: z.string().min(1).describe("File to read, relative to the workspace or absolute"),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("First line to show, 1-based (default 1)"),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Number of lines to show (default ${DEFAULT_READ_LIMIT})`),
});

interface Line {
  text: string;
  /** characters cut from the end of this line */
  cut: number;
}

/**
 * Splits a file into lines chunk by chunk. Each kept line is at most `maxChars` long, so
 * memory stays bounded even for a 50 MB file with no newline at all.
 */
class LineReader {
  private queue: Line[] = [];
  private at = 0;
  private cur = "";
  private curCut = 0;
  private curStarted = false;
  private eof = false;
  private readonly decoder = new StringDecoder("utf8");
  private readonly buf = Buffer.alloc(64 * 1024);
  sawCrlf = false;

  constructor(
    private readonly fh: FileHandle,
    private readonly maxChars: number,
    private readonly signal: AbortSignal,
  ) {}

  async next(): Promise<Line | null> {
    while (this.at >= this.queue.length && !this.eof) {
      this.queue = [];
      this.at = 0;
      await this.fill();
    }
    return this.queue[this.at++] ?? null;
  }

  /** How many lines are left, counting newline bytes without building strings. */
  async countRest(): Promise<number> {
    let n = this.queue.length - this.at;
    if (this.eof) return n;
    let open = this.curStarted;
    for (;;) {
      throwIfAborted(this.signal);
      const { bytesRead } = await this.fh.read(this.buf, 0, this.buf.length, null);
      if (bytesRead === 0) break;
      const chunk = this.buf.subarray(0, bytesRead);
      let newlines = 0;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
      if (newlines > 0) {
        n += newlines;
        open = chunk[chunk.length - 1] !== 10;
      } else {
        open = true;
      }
    }
    this.eof = true;
    return open ? n + 1 : n;
  }

  private async fill(): Promise<void> {
    throwIfAborted(this.signal);
    const { bytesRead } = await this.fh.read(this.buf, 0, this.buf.length, null);
    if (bytesRead === 0) {
      this.append(this.decoder.end());
      if (this.curStarted) this.endLine();
      this.eof = true;
      return;
    }
    const text = this.decoder.write(this.buf.subarray(0, bytesRead));
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      this.append(nl < 0 ? text.slice(start) : text.slice(start, nl));
      if (nl < 0) break;
      this.endLine();
      start = nl + 1;
    }
  }

  private append(seg: string): void {
    if (seg === "") return;
    this.curStarted = true;
    const room = this.maxChars - this.cur.length;
    if (room >= seg.length) this.cur += seg;
    else {
      if (room > 0) this.cur += seg.slice(0, room);
      this.curCut += seg.length - Math.max(room, 0);
    }
  }

  private endLine(): void {
    let text = this.cur;
    // CRLF files: show the text without the \r, and say so once
    if (this.curCut === 0 && text.endsWith("\r")) {
      text = text.slice(0, -1);
      this.sawCrlf = true;
    }
    this.queue.push({ text, cut: this.curCut });
    this.cur = "";
    this.curCut = 0;
    this.curStarted = false;
  }
}

export const readTool: ToolDef<typeof input> = {
  name: "read",
  kind: "read",
  description:
    `Read a text file. Lines come numbered ("  12│ text"). By default the first ${DEFAULT_READ_LIMIT} ` +
    `lines; use offset and limit for other parts. Files over ${humanSize(MAX_TEXT_FILE)} need offset/limit. ` +
    "Directories (use ls), binary files and special files are refused.",
  input,
  summarize: (i) =>
    `read ${i.path}${i.offset !== undefined || i.limit !== undefined ? ` (lines ${i.offset ?? 1}–${(i.offset ?? 1) + (i.limit ?? DEFAULT_READ_LIMIT) - 1})` : ""}`,
  paths: (i) => [i.path],
  async run(i, ctx) {
    const p = await resolvePath(ctx.workspace, i.path);
    const outside = await boundaryProblem(ctx, p.real, i.path);
    if (outside !== undefined) return { output: outside, isError: true };
    const opened = await openRegular(p.real, i.path);
    if (!opened.ok) return { output: opened.error, isError: true };
    const { fh, size } = opened;
    try {
      const ranged = i.offset !== undefined || i.limit !== undefined;
      if (size > MAX_TEXT_FILE && !ranged) {
        return {
          output:
            `${i.path} is ${humanSize(size)}, over the ${humanSize(MAX_TEXT_FILE)} limit for a whole read; ` +
            "give offset and limit to read part of it (or use grep to find the lines you need)",
          isError: true,
        };
      }
      if (await looksBinary(fh)) {
        return { output: `${i.path}: binary file, ${size} bytes; not shown`, isError: true };
      }

      const offset = i.offset ?? 1;
      const limit = i.limit ?? DEFAULT_READ_LIMIT;
      const reader = new LineReader(fh, MAX_LINE_CHARS, ctx.signal);
      let lineNo = 0;
      while (lineNo < offset - 1) {
        if ((await reader.next()) === null) break;
        lineNo++;
      }
      const shown: Line[] = [];
      let chars = 0;
      let budgetHit = false;
      while (shown.length < limit) {
        const line = await reader.next();
        if (line === null) break;
        if (shown.length > 0 && chars + line.text.length > READ_BUDGET_CHARS) {
          budgetHit = true;
          // put nothing back: the continuation offset below points at this line
          break;
        }
        shown.push(line);
        chars += line.text.length + 8;
      }
      if (shown.length === 0) {
        // size 0 is not trusted up front: /proc files report 0 and still have content
        if (lineNo === 0) return { output: `${i.path} is empty (0 bytes)`, isError: false };
        return { output: `offset ${offset} is past the end of ${i.path} (${lineNo} lines)`, isError: true };
      }

      const first = offset;
      const last = offset + shown.length - 1;
      const width = Math.max(4, String(last).length);
      const body = shown
        .map((l, k) => {
          const cut = l.cut > 0 ? `… [line cut: ${formatInt(l.cut)} more chars]` : "";
          return `${String(first + k).padStart(width)}│ ${l.text}${cut}`;
        })
        .join("\n");

      const notes: string[] = [];
      let moreFollow: boolean;
      let total: number | undefined;
      if (budgetHit) moreFollow = true;
      else if (size <= MAX_TEXT_FILE) {
        const rest = await reader.countRest();
        moreFollow = rest > 0;
        total = last + rest;
      } else {
        // a huge file is never scanned to its end just to count lines
        moreFollow = (await reader.next()) !== null;
      }
      if (budgetHit) {
        notes.push(`[stopped at line ${last} to keep this output short; continue with offset=${last + 1}]`);
      } else if (moreFollow) {
        notes.push(
          total !== undefined
            ? `[lines ${first}–${last} of ${total}; continue with offset=${last + 1}]`
            : `[lines ${first}–${last} shown; the file continues; continue with offset=${last + 1}]`,
        );
      }
      if (reader.sawCrlf) notes.push("[the file uses CRLF line endings; shown without \\r]");
      return { output: notes.length ? `${body}\n${notes.join("\n")}` : body, isError: false };
    } finally {
      await fh.close();
    }
  },
};
