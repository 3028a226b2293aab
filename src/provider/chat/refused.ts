// What a Chat server refused of the optional fields, per model, and how a refusal names them
// (the wordings are in ../refusals.ts).
import type { ErrorDetail } from "../error-body.js";
import { namesRefused, RefusalMemory } from "../refusals.js";
import { buildBody, type ChatOptionalField } from "./encode.js";

/**
 * What one provider instance (a session's) learnt of its server: the optional fields it
 * refused, per model (a server may take reasoning_effort for one model and refuse it for
 * another). Its encode() is the one the request is captured and sent with, so both leave out
 * the same fields; the builder stays the same object while nothing new is refused, so the
 * capture's encoding is the one sent (encodeOnce).
 */
export class ChatSession extends RefusalMemory<ChatOptionalField> {
  constructor(readonly hosted: boolean) {
    super((refused) => (req) => buildBody(req, { hosted, refused }));
  }
}

/**
 * The optional fields a refused request names as not taken, of those it carried (the
 * wordings are in refusals.ts). Empty: the refusal is about something else, and stands.
 */
export function refusedFields(detail: ErrorDetail & { text?: string }, sent: readonly ChatOptionalField[]): ChatOptionalField[] {
  const named = namesRefused(detail);
  return sent.filter((f) => named.has(f));
}
