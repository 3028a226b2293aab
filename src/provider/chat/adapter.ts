// The Chat Completions shape for the adapter skeleton: the body from encode.ts, the stream
// parsed by stream.ts, and the optional fields a server may refuse (refused.ts). openai.ts
// puts it on OpenAI's endpoint or a compatible server's.
import type { Shape } from "../adapter.js";
import { optionalFieldsOf, outputLimitField, type ChatOptionalField } from "./encode.js";
import { refusedFields, type ChatSession } from "./refused.js";
import { OpenAIStreamHandler } from "./stream.js";

/** `session`: what this server refused so far, kept for the session. */
export function chatShape(session: ChatSession): Shape<ChatOptionalField> {
  return {
    path: "/chat/completions",
    encode: (req) => session.encode(req),
    parser: (ctx, label) => new OpenAIStreamHandler(ctx, label),
    refusals: {
      memory: session,
      named: (e, body) => refusedFields(e.detail, optionalFieldsOf(body)),
      quoteChars: 200,
      instead: outputLimitInstead,
    },
  };
}

/** When an output limit field was dropped, the other one the request now carries (if any). */
function outputLimitInstead(model: string, dropped: readonly ChatOptionalField[], now: ReadonlySet<ChatOptionalField>): ChatOptionalField | undefined {
  if (!dropped.some((f) => f === "max_tokens" || f === "max_completion_tokens")) return undefined;
  const limit = outputLimitField(model, now);
  return limit && !dropped.includes(limit) ? limit : undefined;
}
