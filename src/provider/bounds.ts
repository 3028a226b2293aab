// What one answer may bring: bounds that follow the request's max output tokens, so no
// answer the model may really give is cut, while a server that never stops is.
import { formatInt } from "../record/numbers.js";

const MiB = 1024 * 1024;
/**
 * What one answer may bring (text, reasoning, tool input, signatures), per max-output token.
 * A token is about 4 bytes of English and JSON escaping of code can double that; 16 leaves
 * room for both, so no answer the model may really give is cut, while a server that never
 * stops (or sends 100 MB in one event) is stopped after a few MB.
 */
export const ANSWER_BYTES_PER_TOKEN = 16;
/** ...and never less than this, so a small max_tokens (or a server that ignores it) does not
 * cut an ordinary answer. With the catalog's models (≤ 128k output tokens) this is the bound. */
export const ANSWER_FLOOR_BYTES = 4 * MiB;
/** Bytes of event stream (framing, ids, pings, usage) per max-output token: OpenAI sends
 * about 250 bytes of envelope around a one-token chunk. Bounds a stream of empty events. */
export const WIRE_BYTES_PER_TOKEN = 512;
export const WIRE_FLOOR_BYTES = 64 * MiB;

export interface AnswerBounds {
  /** text, reasoning and tool input of one answer, in UTF-8 bytes */
  contentBytes: number;
  /** one stream event while it is gathered (the parser counts characters, each ≥ 1 byte) */
  eventChars: number;
  /** the whole event stream of one answer, in bytes */
  wireBytes: number;
}

export function answerBounds(maxOutputTokens: number): AnswerBounds {
  const tokens = Math.max(1, Math.floor(maxOutputTokens));
  const contentBytes = Math.max(ANSWER_FLOOR_BYTES, tokens * ANSWER_BYTES_PER_TOKEN);
  return {
    contentBytes,
    // one event cannot rightly bring more than the whole answer may
    eventChars: contentBytes,
    wireBytes: Math.max(WIRE_FLOOR_BYTES, tokens * WIRE_BYTES_PER_TOKEN),
  };
}

/** "4 MB", "15.3 MB" (binary megabytes, as the bounds are set); below 1 MB in bytes */
export function megabytes(bytes: number): string {
  if (bytes < MiB) return `${formatInt(bytes)} bytes`;
  const mb = bytes / MiB;
  return `${Number.isInteger(mb) ? mb : Number(mb.toFixed(1))} MB`;
}
