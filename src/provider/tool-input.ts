// A tool call's input as JSON, both ways, in one place: what is sent (replayed prose, OpenAI's
// `arguments`, the inspector's byte counts, which must agree with each other) and what
// arrives (the input a provider streamed, which may be cut off or not JSON at all).
import { wellFormedReviver } from "../text/well-formed.js";

/** The JSON text of a tool input; "{}" when there is none. */
export function toolInputJson(input: unknown): string {
  if (input === undefined) return "{}";
  try {
    return JSON.stringify(input) ?? "{}";
  } catch {
    // only a value that did not come from JSON (a cycle, a bigint) gets here
    return String(input);
  }
}

/** A streamed tool input: empty is `{}`; text that is not JSON is kept whole as `_raw`. */
export function parseToolInput(json: string): { input: unknown; valid: boolean } {
  if (json.trim() === "") return { input: {}, valid: true };
  try {
    // "\ud800" escaped inside the input's own JSON: made well-formed as it is read
    return { input: JSON.parse(json, wellFormedReviver), valid: true };
  } catch {
    return { input: { _raw: json }, valid: false };
  }
}
