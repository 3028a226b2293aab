// The one redactor: cuts secrets out of text, whole and in pieces. A leaf module, below every
// layer that forms text from outside (the provider adapters' error messages included), so
// that everything passes the same rule; config/secrets.ts says what is a secret.
// Best effort by nature: it finds exact copies of a secret and pieces of it cut at its start
// or its end, not a secret split, encoded or partly quoted (docs/providers.md, "Keys").

/** Secrets shorter than this are placeholders for local servers ("ollama", "none"): cutting
 * them out of text would only garble ordinary words. */
export const REDACT_MIN_KEY = 12;
export const REDACTED = "[redacted key]";

export type Redactor = (text: string) => string;

export const noRedaction: Redactor = (t) => t;

/** A piece of a key this long, at its start or its end, is cut out too: output cut to size
 * (a line cut at its width, a head kept and a tail), a checkpoint taken mid-stream, or a
 * server's error that quotes a key's head and tail can hold a key in part. Longer than the
 * public prefixes keys share ("sk-ant-api03-"), so ordinary mentions of a key's format are
 * left alone. */
export const KEY_PIECE = 16;

/** A redactor for these secrets; reads them at each call, so a /reload with new keys counts. */
export function redactorFor(secrets: () => Iterable<string | undefined>): Redactor {
  return (text) => {
    let out = text;
    for (const key of secrets()) {
      if (!key || key.length < REDACT_MIN_KEY) continue;
      if (out.includes(key)) out = out.split(key).join(REDACTED);
      if (key.length > KEY_PIECE) out = cutPieces(out, key);
    }
    return out;
  };
}

/** Cuts out what is left of a key at a cut: its first KEY_PIECE characters or more, or its last. */
function cutPieces(text: string, key: string): string {
  let out = text;
  const start = key.slice(0, KEY_PIECE);
  for (let i = out.indexOf(start); i !== -1; i = out.indexOf(start, i + REDACTED.length)) {
    let n = KEY_PIECE;
    while (n < key.length && out[i + n] === key[n]) n++;
    out = out.slice(0, i) + REDACTED + out.slice(i + n);
  }
  const end = key.slice(-KEY_PIECE);
  for (let i = out.indexOf(end); i !== -1; i = out.indexOf(end, i + 1)) {
    let from = i;
    let k = key.length - KEY_PIECE;
    while (k > 0 && from > 0 && out[from - 1] === key[k - 1]) {
      from--;
      k--;
    }
    out = out.slice(0, from) + REDACTED + out.slice(i + KEY_PIECE);
    i = from + REDACTED.length - 1;
  }
  return out;
}

/** Whether any key of a JSON value (a property's name, anywhere in a schema) holds a secret. */
export function keyHoldsSecret(value: unknown, redact: Redactor): boolean {
  if (Array.isArray(value)) return value.some((v) => keyHoldsSecret(v, redact));
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([k, v]) => redact(k) !== k || keyHoldsSecret(v, redact));
}
