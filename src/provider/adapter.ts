// The adapter skeleton the three shapes fill in (Anthropic Messages, OpenAI Chat Completions,
// OpenAI Responses). An Endpoint says where requests go and with which key; a Shape says how
// a Request becomes its body, how its stream is parsed, and which of its optional fields a
// server may refuse. The skeleton encodes, posts through the transport, and answers a refusal
// of optional fields by sending the request again without them.
import { RequestRefused } from "./error-body.js";
import { clip, refusedFieldsWarning } from "./failures.js";
import { postStream, type TransportOptions } from "./http.js";
import type { Json } from "./json.js";
import type { AnswerContext, FrameHandler } from "./parser.js";
import type { RefusalMemory } from "./refusals.js";
import type { EncodedRequest, Provider, ProviderIdentity, Request, StreamOptions, StreamResult } from "./types.js";

export interface Endpoint {
  who: ProviderIdentity;
  /** the base URL, without a trailing slash */
  base: string;
  /** every request's headers, the key's among them */
  headers: Record<string, string>;
  /** the key: cut out of every message the transport builds */
  secret?: string;
  transport: TransportOptions;
}

export interface Shape<F extends string = string> {
  /** the endpoint's path after the base URL */
  path: string;
  /** the encoding sent now, and captured (Provider.encode) */
  encode(req: Request): EncodedRequest;
  /** the stream parser of one attempt; `label` names the sender in its sentences */
  parser(ctx: AnswerContext, label: string): FrameHandler;
  /** the optional fields a server may refuse; absent: every refusal stands */
  refusals?: Refusals<F>;
  /** headers this body needs beyond the endpoint's (a beta the body's features call for) */
  headers?(req: Request, enc: EncodedRequest): Record<string, string>;
}

interface Refusals<F extends string> {
  /** what the server refused so far, per model: the encodings leave it out */
  memory: RefusalMemory<F>;
  /** the optional fields a refusal names, of those the body carried */
  named(e: RequestRefused, body: Json): F[];
  /** how much of the server's words the warning quotes */
  quoteChars: number;
  /** the field the request carries instead of those dropped, when there is one */
  instead?(model: string, dropped: readonly F[], now: ReadonlySet<F>): F | undefined;
}

export function createAdapter<F extends string>(endpoint: Endpoint, shape: Shape<F>): Provider {
  const { who, headers, secret, transport } = endpoint;
  const url = `${endpoint.base}${shape.path}`;
  const post = (req: Request, enc: EncodedRequest, opts: StreamOptions): Promise<StreamResult> =>
    postStream({
      who,
      model: req.model,
      url,
      headers: shape.headers ? { ...headers, ...shape.headers(req, enc) } : headers,
      body: JSON.stringify(enc.body),
      ...(secret !== undefined ? { secret } : {}),
      transport,
      stream: opts,
      maxOutputTokens: req.maxOutputTokens,
      newHandler: (ctx) => shape.parser(ctx, who.label),
    });
  const refusals = shape.refusals;
  return {
    name: who.name,
    label: who.label,
    encode: (req: Request) => shape.encode(req),
    async stream(req: Request, opts: StreamOptions = {}): Promise<StreamResult> {
      let enc = shape.encode(req);
      if (!refusals) return post(req, enc, opts);
      // A refusal that names optional fields the request carried is answered by sending it
      // again without them: once per field (each try drops at least one more, so this ends),
      // remembered for the session, said in a warning. Anything else stands.
      const dropped = new Set<F>();
      for (;;) {
        try {
          return await post(req, enc, opts);
        } catch (e) {
          if (!(e instanceof RequestRefused) || opts.signal?.aborted) throw e;
          const fields = refusals.named(e, enc.body).filter((f) => !dropped.has(f));
          if (fields.length === 0) throw e;
          for (const f of fields) dropped.add(f);
          refusals.memory.refuse(req.model, fields);
          const instead = refusals.instead?.(req.model, fields, refusals.memory.refused(req.model));
          const message = refusedFieldsWarning({
            label: who.label,
            fields,
            status: e.status ?? 400,
            said: clip(e.detail.message, refusals.quoteChars),
            model: req.model,
            ...(instead !== undefined ? { instead } : {}),
          });
          opts.onEvent?.({ type: "warning", message });
          enc = refusals.memory.encodeAgain(req);
          // the capture is recorded again from the encoding now sent: the inspector still equals the wire
          await opts.onResend?.(enc);
        }
      }
    },
  };
}
