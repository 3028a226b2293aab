// What a Chat server refused of the optional fields, per model, and how a refusal names them
// (the wordings are in ../refusals.ts).
import type { ErrorDetail, RequestRefused } from "../error-body.js";
import { clip } from "../failures.js";
import { namesRefused, RefusalMemory } from "../refusals.js";
import { buildBody, outputLimitField, type ChatOptionalField } from "./encode.js";

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

/** The warning for fields dropped after a refusal (and the output limit's other field, when one was). */
export function droppedWarning(label: string, model: string, fields: readonly ChatOptionalField[], now: ReadonlySet<ChatOptionalField>, e: RequestRefused): string {
  const list = fields.map((f) => `"${f}"`).join(", ");
  const limit = fields.some((f) => f === "max_tokens" || f === "max_completion_tokens") ? outputLimitField(model, now) : "none";
  const instead = limit && limit !== "none" && !fields.includes(limit) ? `; it gets "${limit}" instead` : "";
  return (
    `${label} refused ${list} (HTTP ${e.status ?? 400}: ${clip(e.detail.message, 200)}); ` +
    `sent the request again without ${fields.length === 1 ? "it" : "them"}${instead}, and ${model} will not get ${fields.length === 1 ? "it" : "them"} again this session`
  );
}
