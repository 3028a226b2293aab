// What the command line prints from the record (answers, titles, exports, captured requests)
// is text from outside: a model or a tool can put a clipboard write (OSC 52), a screen clear
// or a title change into it. On a terminal it goes out inert, as on the screen; piped or
// redirected it stays exact, so a file or a program receives the record as it is.
import { sanitizeForTerminal } from "../text/sanitize.js";

interface Stream {
  isTTY?: boolean;
}

/** Text for `stream`: sanitized when it is a terminal, exact otherwise. */
export function forStream(text: string, stream: Stream): string {
  return stream.isTTY ? sanitizeForTerminal(text) : text;
}

/** One field of a one-line listing (a title, a folder): on a terminal also kept to one line. */
export function fieldForStream(text: string, stream: Stream): string {
  return stream.isTTY ? sanitizeForTerminal(text).replace(/[\n\t]+/g, " ") : text;
}

// JSON.stringify escapes C0 controls (ESC included) and lone surrogates, but writes DEL, the
// C1 controls (U+009B is a CSI to many terminals) and bidi overrides as they are.
const JSON_RAW_CONTROLS = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** JSON for `stream`: on a terminal those characters are written as \u escapes: the same JSON value, inert on screen. */
export function jsonForStream(json: string, stream: Stream): string {
  return stream.isTTY ? json.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : json;
}
