// The OpenAI adapter: OpenAI's endpoint (or a compatible server's) and key, with the Chat
// Completions body, stream parser and refused fields (chat/) plugged into the transport.
import { RequestRefused } from "./error-body.js";
import { postStream, type TransportOptions } from "./http.js";
import type { AnswerContext } from "./parser.js";
import { isOpenAIHosted } from "./keys.js";
import type { EncodedRequest, Provider, ProviderIdentity, Request, StreamOptions, StreamResult } from "./types.js";
import { hostOf } from "./url.js";
import { optionalFieldsOf, type ChatOptionalField } from "./chat/encode.js";
import { ChatSession, droppedWarning, refusedFields } from "./chat/refused.js";
import { OpenAIStreamHandler } from "./chat/stream.js";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIConfig {
  baseUrl?: string;
  /** optional: local servers need none */
  apiKey?: string;
  transport: TransportOptions;
  /** what this session learnt of the server; a fresh one when absent */
  session?: ChatSession;
}

// in keys.ts, which the controller reads before the adapters load
export { isOpenAIHosted };

export function createOpenAIProvider(cfg: OpenAIConfig): Provider {
  const base = (cfg.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const url = `${base}/chat/completions`;
  const apiKey = cfg.apiKey; // lives only in this closure
  const session = cfg.session ?? new ChatSession(isOpenAIHosted(base));
  const who: ProviderIdentity = {
    name: "openai",
    label: isOpenAIHosted(base) ? "OpenAI" : `the server at ${hostOf(base)}`,
    keyHint: "OPENAI_API_KEY",
  };
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
      newHandler: (ctx: AnswerContext) => new OpenAIStreamHandler(ctx, who.label),
    };
    return postStream(apiKey ? { ...args, secret: apiKey } : args);
  };
  return {
    name: "openai",
    encode: (req: Request) => session.encode(req),
    async stream(req: Request, opts: StreamOptions = {}): Promise<StreamResult> {
      // A refusal that names optional fields the request carried is answered by sending it
      // again without them: once per field (each try drops at least one more, so this ends),
      // remembered for the session, said in a warning. Anything else stands.
      const dropped = new Set<ChatOptionalField>();
      let enc = session.encode(req);
      for (;;) {
        try {
          return await post(req, enc, opts);
        } catch (e) {
          if (!(e instanceof RequestRefused) || opts.signal?.aborted) throw e;
          const fields = refusedFields(e.detail, optionalFieldsOf(enc.body)).filter((f) => !dropped.has(f));
          if (fields.length === 0) throw e;
          for (const f of fields) dropped.add(f);
          session.refuse(req.model, fields);
          opts.onEvent?.({ type: "warning", message: droppedWarning(who.label, req.model, fields, session.refused(req.model), e) });
          enc = session.encodeAgain(req);
          // the capture is recorded again from the encoding now sent: the inspector still equals the wire
          await opts.onResend?.(enc);
        }
      }
    },
  };
}
