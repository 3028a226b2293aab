// One cap for everything a tool returns: output enters the record (and every later
// request) only after this, so one runaway command cannot fill the context window.
import { formatInt } from "../record/numbers.js";

/** The most any tool result may hold, in characters. */
export const MAX_TOOL_OUTPUT = 50_000;

/** The note put where output was removed; one wording everywhere so it is recognisable. */
export function cutNote(bytes: number): string {
  return `[… ${formatInt(bytes)} bytes cut …]`;
}

/**
 * Keeps the head and the tail of `text` (the start says what ran, the end says how it
 * ended) and replaces the middle with a note of how many bytes went. Cuts snap to a
 * nearby line break when there is one, and never split a surrogate pair.
 */
export function capText(text: string, max = MAX_TOOL_OUTPUT): string {
  if (text.length <= max) return text;
  const budget = Math.max(0, max - 40); // room for the note itself
  let headEnd = Math.ceil(budget / 2);
  let tailStart = text.length - Math.floor(budget / 2);

  // prefer whole lines when a break is close (within 10% of the half)
  const slack = Math.floor(budget / 20);
  const nl = text.lastIndexOf("\n", headEnd);
  if (nl >= 0 && headEnd - nl <= slack) headEnd = nl + 1;
  const nl2 = text.indexOf("\n", tailStart);
  if (nl2 >= 0 && nl2 - tailStart <= slack) tailStart = nl2 + 1;

  if (isLowSurrogateAt(text, headEnd)) headEnd--;
  if (isLowSurrogateAt(text, tailStart)) tailStart++;

  const cut = Buffer.byteLength(text.slice(headEnd, tailStart), "utf8");
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  return `${head}${head.endsWith("\n") ? "" : "\n"}${cutNote(cut)}\n${tail}`;
}

function isLowSurrogateAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * Collects a byte stream of unknown length in bounded memory: the first `headMax` bytes
 * and the last `tailMax` bytes, counting what falls between. `yes | head -c 1G` must not
 * cost a gigabyte.
 */
export class HeadTailBuffer {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  private dropped = 0;

  /** `margin` more bytes are kept on each side of the cut, so that text(redact) can see a
   * key whole where it straddles the cut, redact it, and only then cut to size */
  constructor(
    private readonly headMax: number,
    private readonly tailMax: number,
    private readonly margin = 0,
  ) {}

  push(chunk: Buffer): void {
    if (this.headLen < this.headMax + this.margin) {
      const take = Math.min(chunk.length, this.headMax + this.margin - this.headLen);
      this.head.push(chunk.subarray(0, take));
      this.headLen += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tailLen > this.tailMax + this.margin) {
      const first = this.tail[0]!;
      const excess = this.tailLen - this.tailMax - this.margin;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailLen -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailLen -= excess;
        this.dropped += excess;
      }
    }
  }

  /** Decoded text, with the cut note in the middle when anything was dropped. `redact` runs
   * over the kept text (with its margins) before it is cut to size, so a key that straddles
   * the cut lies whole in a margin and is cut out, never kept in part. */
  text(redact: (s: string) => string = (s) => s): string {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (this.dropped === 0) {
      const whole = redact(decode(Buffer.concat([head, tail])));
      // over the size only by the margins: cut as if they had been dropped
      return head.length + tail.length <= this.headMax + this.tailMax ? whole : capText(whole, this.headMax + this.tailMax);
    }
    // Start the tail on a character boundary so it does not open with U+FFFD.
    let skip = 0;
    while (skip < tail.length && skip < 4 && (tail[skip]! & 0xc0) === 0x80) skip++;
    tail = tail.subarray(skip);
    // The head may end mid-character; hand those bytes to the cut count.
    let keep = head.length;
    let back = 0;
    while (back < 4 && keep - back - 1 >= 0 && (head[keep - back - 1]! & 0xc0) === 0x80) back++;
    if (keep - back - 1 >= 0 && back > 0) {
      const lead = head[keep - back - 1]!;
      const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (need > back + 1) keep = keep - back - 1;
    } else if (keep > 0 && head[keep - 1]! >= 0xc0) {
      keep -= 1;
    }
    const hWide = redact(decode(head.subarray(0, keep)));
    const tWide = redact(decode(tail));
    const h = prefixWithin(hWide, this.headMax);
    const t = suffixWithin(tWide, this.tailMax);
    const dropped =
      this.dropped + skip + (head.length - keep) + (Buffer.byteLength(hWide) - Buffer.byteLength(h)) + (Buffer.byteLength(tWide) - Buffer.byteLength(t));
    return `${h}${h.endsWith("\n") || h === "" ? "" : "\n"}${cutNote(dropped)}\n${t}`;
  }


  get totalBytes(): number {
    return this.headLen + this.dropped + this.tailLen;
  }
}

/** The longest start of `s` within `max` UTF-8 bytes, never splitting a character. */
function prefixWithin(s: string, max: number): string {
  const b = Buffer.from(s, "utf8");
  if (b.length <= max) return s;
  let end = max;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end).toString("utf8");
}

/** The longest end of `s` within `max` UTF-8 bytes, never splitting a character. */
function suffixWithin(s: string, max: number): string {
  const b = Buffer.from(s, "utf8");
  if (b.length <= max) return s;
  let start = b.length - max;
  while (start < b.length && (b[start]! & 0xc0) === 0x80) start++;
  return b.subarray(start).toString("utf8");
}

function decode(b: Buffer): string {
  // invalid UTF-8 becomes U+FFFD rather than failing
  return new TextDecoder("utf-8", { fatal: false }).decode(b);
}
