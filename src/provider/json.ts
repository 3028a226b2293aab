// JSON as the adapters build and read it.

/** A JSON object: a body, an item, an event. */
export type Json = Record<string, unknown>;

/** What z.object() takes: an object that is not an array (nor null). */
export function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
