// What a server may refuse of a Responses body and the request still stand without, how a
// refusal names it, and the memory of what one server refused this session.
import { assertNever } from "../../record/types.js";
import type { RequestRefused } from "../error-body.js";
import type { Json } from "../json.js";
import { pathsRefused, RefusalMemory } from "../refusals.js";
import { buildBody, buildWhole, type ResponsesOptionalField } from "./encode.js";

const OPTIONAL_FIELDS: readonly ResponsesOptionalField[] = ["reasoning.summary", "reasoning", "include", "prompt_cache_key"];

/** What one provider's server refused, per model, for the provider's life (the session): the
 * capture (Provider.encode) and the sending use the same encoding. */
export class ResponsesSession extends RefusalMemory<ResponsesOptionalField> {
  constructor() {
    // nothing refused: the builder encodeResponses uses, so encodeOnce's copy is shared
    super((refused) => (refused.size === 0 ? buildWhole : (req) => buildBody(req, refused)));
  }
}

/** The optional fields of `body` that a refusal names: by `error.param`, by any of the
 * wordings servers use (refusals.ts, as for Chat), by the field named in quotes beside a word
 * of refusal, or (summaries) by OpenAI's verification sentence. */
export function refusedFields(e: RequestRefused, body: Json): ResponsesOptionalField[] {
  const d = e.detail;
  const present = OPTIONAL_FIELDS.filter((f) => (f === "reasoning.summary" ? (body["reasoning"] as Json | undefined)?.["summary"] !== undefined : body[f] !== undefined));
  const refusal = /unknown|unrecogni[sz]ed|unsupported|not supported|not permitted|not allowed|unexpected|extra|must be verified/i.test(d.message);
  // paths from the body's top: a key of an input item (input.3.reasoning.encrypted_content,
  // where replayed reasoning lives) is not the top-level field of the same name
  const top = pathsRefused(d);
  const named = (first: string, second?: string) => top.some((p) => p[0] === first && (second === undefined ? p.length === 1 : p[1] === second));
  // a name in quotes beside a word of refusal, for wordings no pattern knows; not when a
  // pattern found where the refusal points (a quoted 'reasoning' may be a key in an input item)
  const quoted = (re: RegExp) => top.length === 0 && refusal && re.test(d.message);
  return present.filter((f) => {
    if (d.param === f) return true;
    switch (f) {
      case "reasoning.summary":
        return /reasoning summar/i.test(d.message) || named("reasoning", "summary") || quoted(/['"`]reasoning\.summary['"`]/);
      case "reasoning":
        // the effort is the setting itself: a model that refuses it takes no reasoning object
        return d.param === "reasoning.effort" || named("reasoning") || named("reasoning", "effort") || quoted(/['"`]reasoning(\.effort)?['"`]/);
      case "include":
      case "prompt_cache_key":
        return named(f) || quoted(new RegExp(`['"\`]${f}['"\`]`));
      default:
        return assertNever(f, "refused field");
    }
  });
}
