// A session id as it arrives from outside: the command line (--resume, context, export,
// sessions rm), the controller's switch, the local API's routes. The store makes ids of hex
// digits; one passed in is checked before it is looked up, so that an empty id never reads
// as "no id given" (a new session), and a control character in it never reaches a terminal
// raw through the sentence that refuses it. A leaf module: every layer uses the one rule.

/** C0 and C1 controls, DEL, the line separators and the bidi controls that reorder a line. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One character as its \u escape. */
const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * An id in double quotes as a sentence can show it on any terminal: control characters as
 * their \u escapes (ESC is \u001b), a quote or a backslash escaped.
 */
export function quoteId(id: string): string {
  // JSON escapes the C0 controls, quotes, backslashes and lone surrogates; not the rest
  return JSON.stringify(id).replace(CONTROLS, escaped);
}

/**
 * Why `id` cannot name a session, as a sentence ("the session id is empty"), or undefined
 * when it can be looked up. Refused: empty, only whitespace, or holding a control character.
 */
export function sessionIdProblem(id: string): string | undefined {
  if (id === "") return "the session id is empty";
  if (id.trim() === "") return `the session id ${quoteId(id)} is only whitespace`;
  const control = id.match(CONTROLS);
  if (control) {
    const which = [...new Set(control)].slice(0, 3).map(escaped).join(", ");
    return `the session id ${quoteId(id)} holds ${control.length === 1 ? "a control character" : "control characters"} (${which})`;
  }
  return undefined;
}
