// The configured provider keys as a redactor: every path into the record (tool output,
// project context, prompts, answers, summaries, captures) passes text through one.
// Best effort by nature: it finds exact copies of a key, not a key split, encoded or
// partly quoted (the README says so).

/** Keys shorter than this are placeholders for local servers ("ollama", "none"): cutting
 * them out of text would only garble ordinary words. */
export const REDACT_MIN_KEY = 12;
export const REDACTED = "[redacted key]";

export type Redactor = (text: string) => string;

export const noRedaction: Redactor = (t) => t;

/** A redactor for these secrets; reads them at each call, so a /reload with new keys counts. */
export function redactorFor(secrets: () => Iterable<string | undefined>): Redactor {
  return (text) => {
    let out = text;
    for (const key of secrets()) {
      if (key && key.length >= REDACT_MIN_KEY && out.includes(key)) out = out.split(key).join(REDACTED);
    }
    return out;
  };
}
