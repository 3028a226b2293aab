// The Responses shape for the adapter skeleton: the body from encode.ts, the stream parsed by
// stream.ts, and the optional fields a server may refuse (refused.ts). openai.ts puts it on
// OpenAI's endpoint.
import type { Shape } from "../adapter.js";
import type { ResponsesOptionalField } from "./encode.js";
import { refusedFields, type ResponsesSession } from "./refused.js";
import { ResponsesStreamHandler } from "./stream.js";

/** `session`: what this server refused so far, kept for the session. */
export function responsesShape(session: ResponsesSession): Shape<ResponsesOptionalField> {
  return {
    path: "/responses",
    encode: (req) => session.encode(req),
    parser: (ctx, label) => new ResponsesStreamHandler(ctx, label),
    refusals: { memory: session, named: refusedFields, quoteChars: 120 },
  };
}
