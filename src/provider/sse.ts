// Server-sent events out of a response body, as {event, data} frames.
// eventsource-parser does the line work (CRLF/LF/CR, ":" comments, multi-line data) and holds
// a partial event until its blank line; its maxBufferSize bounds that hold, so one endless
// line or event is cut off when it passes the bound instead of being gathered whole.
import { createParser } from "eventsource-parser";

export interface SseFrame {
  /** the `event:` name, when the server sent one */
  event?: string;
  data: string;
}

interface ReadSseOptions {
  /** called for every chunk of bytes, before parsing, with its size in bytes */
  onChunk?: (bytes: number) => void;
  /** called when a chunk completes at least one line: progress, as opposed to bytes. A
   * server dripping a byte at a time sends bytes without ever finishing a line. */
  onLine?: () => void;
  /** the most characters one event (its unfinished line plus the data gathered so far) may
   * hold; more throws SseEventTooLarge */
  maxEventChars?: number;
}

/** One event (or one line) passed ReadSseOptions.maxEventChars before it was complete. */
export class SseEventTooLarge extends Error {
  constructor(readonly limitChars: number) {
    super(`a stream event passed ${limitChars} characters before it ended`);
    this.name = "SseEventTooLarge";
  }
}

/** Frame by frame (each frame one step of the async iteration). */
export async function* readSse(body: AsyncIterable<Uint8Array | string>, opts: ReadSseOptions = {}): AsyncGenerator<SseFrame> {
  for await (const batch of readSseBatches(body, opts)) yield* batch;
}

/**
 * The frames each chunk of the body completes, as one array: a provider sends one event per
 * word, and one async step per frame costs a promise and a microtask each (the stream's
 * largest overhead after parsing). Same frames, same order, same errors as readSse.
 */
export async function* readSseBatches(
  body: AsyncIterable<Uint8Array | string>,
  opts: ReadSseOptions = {},
): AsyncGenerator<SseFrame[]> {
  const ready: SseFrame[] = [];
  let tooLarge = false;
  const parser = createParser({
    onEvent: (m) => {
      const frame: SseFrame = { data: m.data };
      if (m.event !== undefined) frame.event = m.event;
      ready.push(frame);
    },
    // the parser checks after each feed, so at most one chunk more than the bound is held
    onError: (e) => {
      if (e.type === "max-buffer-size-exceeded") tooLarge = true;
    },
    ...(opts.maxEventChars !== undefined ? { maxBufferSize: opts.maxEventChars } : {}),
  });
  const decoder = new TextDecoder();
  let last = "";
  const feed = (text: string): void => {
    if (text.length === 0) return;
    parser.feed(text);
    last = text;
    if (tooLarge) throw new SseEventTooLarge(opts.maxEventChars ?? 0);
  };
  for await (const chunk of body) {
    opts.onChunk?.(typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength);
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    feed(text);
    if (opts.onLine && (text.includes("\n") || text.includes("\r"))) opts.onLine();
    if (ready.length > 0) yield ready.splice(0);
  }
  feed(decoder.decode());
  // A server may close right after the last frame's final line without the blank line that
  // dispatches it. Complete that frame, but only when its last line is whole: a frame cut
  // mid-line is a truncated stream, and must not be mistaken for a malformed event.
  if (last.endsWith("\n")) parser.feed("\n");
  else if (last.endsWith("\r")) parser.feed("\n\n");
  if (ready.length > 0) yield ready.splice(0);
}
