// Text made well-formed where it enters: a lone surrogate (half of a UTF-16 pair, as a buggy
// or hostile server escapes "\ud800") becomes U+FFFD. Stored, it would be sent again with
// every later request, and the providers' JSON parsers refuse it ("no low surrogate").

const hasToWellFormed = typeof (String.prototype as { toWellFormed?: unknown }).toWellFormed === "function";
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with every lone surrogate replaced by U+FFFD (the same string when there is none). */
export function wellFormed(s: string): string {
  if (hasToWellFormed) {
    const t = s as string & { isWellFormed(): boolean; toWellFormed(): string };
    return t.isWellFormed() ? s : t.toWellFormed();
  }
  return s.replace(LONE, "\uFFFD");
}

/** A JSON.parse reviver that makes every string value well-formed (keys are the caller's). */
export function wellFormedReviver(_key: string, value: unknown): unknown {
  return typeof value === "string" ? wellFormed(value) : value;
}

/** `v` with every string inside it (values and keys) made well-formed; copies only what changes. */
export function wellFormedDeep<T>(v: T): T {
  return deep(v) as T;
}

function deep(v: unknown): unknown {
  if (typeof v === "string") return wellFormed(v);
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const y = deep(x);
      if (y !== x) (out ??= v.slice())[i] = y;
    });
    return out ?? v;
  }
  if (typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
    let out: Record<string, unknown> | undefined;
    for (const [k, x] of Object.entries(v)) {
      const y = deep(x);
      const k2 = wellFormed(k);
      if (y !== x || k2 !== k) {
        out ??= { ...(v as Record<string, unknown>) };
        if (k2 !== k) delete out[k];
        // defined, not assigned: a "__proto__" key stays a key
        Object.defineProperty(out, k2, { value: y, enumerable: true, writable: true, configurable: true });
      }
    }
    return out ?? v;
  }
  return v;
}
