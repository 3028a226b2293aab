// The one door to a request's encoding, whichever provider it is for: the body the adapter
// sends and the wire items the inspector reads, from one pass (./encoded.ts).
import { assertNever } from "../record/types.js";
import { encodeAnthropic } from "./anthropic/encode.js";
import { encodeOpenAI } from "./chat/encode.js";
import { encodeResponses } from "./responses/encode.js";
import type { EncodedRequest, Request } from "./types.js";

/** The request as its provider's adapter encodes it; capturing a request and then sending it
 * encodes it once (encodeOnce in ./encoded.ts). */
export function encodeRequest(req: Request): EncodedRequest {
  switch (req.provider) {
    case "anthropic":
      return encodeAnthropic(req);
    case "openai": {
      // the API the request names; absent is Chat Completions (compatible servers)
      const api = req.api ?? "chat";
      switch (api) {
        case "chat":
          return encodeOpenAI(req);
        case "responses":
          return encodeResponses(req);
        default:
          return assertNever(api, "OpenAI API");
      }
    }
    default:
      return assertNever(req.provider, "provider");
  }
}
