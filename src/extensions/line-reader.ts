// Newline-delimited framing of a byte stream (an MCP server's stdout) in linear time: each
// chunk is scanned once, only its own bytes, for "\n"; the pieces of a line wait in a list
// and are joined once, when the line ends. A line may arrive in many chunks, many lines in
// one chunk, and a "\r\n" ending counts as "\n". A line longer than the bound is refused as
// soon as it passes the bound, never held whole.

/** A line passed the bound: the stream cannot be framed any further. */
export class LineTooLongError extends Error {
  override readonly name = "LineTooLongError";
  constructor(readonly max: number) {
    super(`a line longer than ${max} bytes`);
  }
}

export class LineReader {
  private pieces: Buffer[] = [];
  /** bytes held in `pieces`: the line so far */
  private held = 0;
  private failed = false;

  constructor(private readonly maxLineBytes: number) {}

  /**
   * Feeds one chunk; each line it completes goes to `line` (decoded as UTF-8, without its
   * ending), in order. Throws LineTooLongError once a line passes the bound; after that the
   * reader takes nothing more.
   */
  push(chunk: Buffer, line: (text: string) => void): void {
    if (this.failed) return;
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      if (nl === -1) break;
      const size = this.held + (nl - from);
      if (size > this.maxLineBytes) this.fail();
      let bytes: Buffer;
      if (this.pieces.length === 0) bytes = chunk.subarray(from, nl);
      else {
        this.pieces.push(chunk.subarray(from, nl));
        bytes = Buffer.concat(this.pieces, size);
        this.pieces = [];
        this.held = 0;
      }
      from = nl + 1;
      const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
      line(bytes.toString("utf8", 0, end));
    }
    const rest = chunk.length - from;
    if (rest === 0) return;
    if (this.held + rest > this.maxLineBytes) this.fail();
    this.pieces.push(from === 0 ? chunk : chunk.subarray(from));
    this.held += rest;
  }

  /** the bytes of the unfinished line */
  pending(): number {
    return this.held;
  }

  clear(): void {
    this.pieces = [];
    this.held = 0;
  }

  private fail(): never {
    this.failed = true;
    this.clear();
    throw new LineTooLongError(this.maxLineBytes);
  }
}
