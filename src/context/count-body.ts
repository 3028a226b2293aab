// The count_tokens body of an Anthropic request, kept beside its capture so that
// `context ID --count-tokens` can have exactly what was sent counted later. The capture
// alone cannot give it back: its pages hold the history as a rendering (headers, labels,
// blocks one per line), images and signatures as markers, so no body rebuilt from them is
// the body that was sent. The body holds no key (that rides in a header); its content passed
// the redactor before it was sent. Kept gzip'd, one per session, over the previous one.
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { Json } from "../provider/json.js";
import { isObj } from "../provider/json.js";
import { countBody, contextSourcesSent } from "../provider/anthropic/count-tokens.js";
import type { Request } from "../provider/types.js";

/** a body larger than this, gzip'd, is not kept (its count is then said to be unavailable) */
export const MAX_KEPT_BODY_BYTES = 8 * 1024 * 1024;
/** the most a kept body may unpack to: the API takes requests of at most 32 MB */
const MAX_UNPACKED_BYTES = 48 * 1024 * 1024;

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

interface BodyStore {
  saveCountBody(sessionId: string, body: { capturedAt: string; sources: string[]; gz: Buffer }): Promise<void>;
}

/** Keeps the body of the capture made at `c.capturedAt`; a body too large or a failed write
 * leaves none (the count is then said to be unavailable, never made of something else).
 * gzip runs off the main thread at its fastest level: images' base64 barely shrinks, and a
 * turn's answer streams meanwhile. */
export async function keepCountBody(store: BodyStore, c: { req: Request; capturedAt: string; enc: { body: Json }; sessionId: string }): Promise<void> {
  try {
    const gz = await gzip(Buffer.from(JSON.stringify(countBody(c.enc.body)), "utf8"), { level: 1 });
    if (gz.length > MAX_KEPT_BODY_BYTES) return;
    await store.saveCountBody(c.sessionId, { capturedAt: c.capturedAt, sources: contextSourcesSent(c.req), gz });
  } catch {
    // the store failed: the request is uncounted later, and says so
  }
}

export class CountBodyError extends Error {}

/** The kept body, unpacked and checked: a damaged row is a sentence, never a count. */
export async function unpackCountBody(gz: Buffer): Promise<Json> {
  let text: string;
  try {
    text = (await gunzip(gz, { maxOutputLength: MAX_UNPACKED_BYTES })).toString("utf8");
  } catch {
    throw new CountBodyError("the request body kept for counting cannot be unpacked (damaged, or larger than 48 MB)");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CountBodyError("the request body kept for counting is not JSON");
  }
  if (!isObj(body) || typeof body["model"] !== "string" || !Array.isArray(body["messages"])) {
    throw new CountBodyError("the request body kept for counting is not a Messages body (no model or messages)");
  }
  return body;
}
