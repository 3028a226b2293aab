// The Responses adapter: OpenAI's endpoint and key, with the body (encode.ts), the stream
// parser (stream.ts) and the answer to a refused field (refused.ts) plugged into the transport.
import { RequestRefused } from "../error-body.js";
import { clip } from "../failures.js";
import { postStream, type TransportOptions } from "../http.js";
import type { AnswerContext } from "../parser.js";
import { isOpenAIHosted, OPENAI_DEFAULT_BASE_URL } from "../openai.js";
import type { EncodedRequest, Provider, ProviderIdentity, Request, StreamOptions, StreamResult } from "../types.js";
import { hostOf } from "../url.js";
import { refusedFields, ResponsesSession } from "./refused.js";
import { ResponsesStreamHandler } from "./stream.js";

export interface ResponsesConfig {
  baseUrl?: string;
  /** optional: a local server forced to this shape may need none */
  apiKey?: string;
  transport: TransportOptions;
  /** what the server refused so far; one per provider, so it lasts the session */
  session?: ResponsesSession;
}

export function createResponsesProvider(cfg: ResponsesConfig): Provider {
  const base = (cfg.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const url = `${base}/responses`;
  const apiKey = cfg.apiKey; // lives only in this closure
  const who: ProviderIdentity = {
    name: "openai",
    label: isOpenAIHosted(base) ? "OpenAI" : `the server at ${hostOf(base)}`,
    keyHint: "OPENAI_API_KEY",
  };
  const session = cfg.session ?? new ResponsesSession();
  const post = (req: Request, enc: EncodedRequest, opts: StreamOptions): Promise<StreamResult> => {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (apiKey) headers["authorization"] = `Bearer ${apiKey}`;
    const args = {
      who,
      model: req.model,
      url,
      headers,
      body: JSON.stringify(enc.body),
      transport: cfg.transport,
      stream: opts,
      maxOutputTokens: req.maxOutputTokens,
      newHandler: (ctx: AnswerContext) => new ResponsesStreamHandler(ctx, who.label),
    };
    return postStream(apiKey ? { ...args, secret: apiKey } : args);
  };
  return {
    name: "openai",
    encode: (req: Request) => session.encode(req),
    async stream(req: Request, opts: StreamOptions = {}): Promise<StreamResult> {
      // A refusal that names an optional field the request carried is answered by sending it
      // again without it: each try drops at least one more (so this ends), remembered for the
      // session, said in a warning. Anything else stands.
      let enc = session.encode(req);
      for (;;) {
        try {
          return await post(req, enc, opts);
        } catch (e) {
          if (!(e instanceof RequestRefused) || opts.signal?.aborted) throw e;
          const fields = refusedFields(e, enc.body);
          if (fields.length === 0) throw e;
          session.refuse(req.model, fields);
          const list = fields.map((f) => `"${f}"`).join(", ");
          opts.onEvent?.({
            type: "warning",
            message: `${who.label} refused ${list} (HTTP ${e.status ?? 400}: ${clip(e.detail.message)}); sent the request again without ${fields.length === 1 ? "it" : "them"}, and ${req.model} will not get ${fields.length === 1 ? "it" : "them"} again this session`,
          });
          enc = session.encodeAgain(req);
          // the capture is recorded again from the encoding now sent: the inspector still equals the wire
          await opts.onResend?.(enc);
        }
      }
    },
  };
}
