// What a server refused, per model, for the provider's life (the session), and how servers
// word a refusal of a field. Both OpenAI shapes
// (Chat Completions and Responses) keep it the same way; only their optional fields and their
// builders differ. encode() is the one the request is captured and sent with, so both leave
// out the same fields; a model's builder stays the same object while nothing new is refused,
// so the capture's encoding is the one sent (encodeOnce).
import { encodeOnce } from "./encoded.js";
import type { ErrorDetail } from "./error-body.js";
import type { EncodedRequest, Request } from "./types.js";

type Builder = (req: Request) => EncodedRequest;

export class RefusalMemory<F extends string> {
  private readonly perModel = new Map<string, { refused: ReadonlySet<F>; build: Builder }>();

  /** `builderFor(refused)`: the adapter's builder for a body without those fields */
  constructor(private readonly builderFor: (refused: ReadonlySet<F>) => Builder) {}

  encode(req: Request): EncodedRequest {
    return encodeOnce(req, this.entry(req.model).build);
  }

  /** A new encoding after a refusal, not kept for a later use (encodeOnce keeps the first). */
  encodeAgain(req: Request): EncodedRequest {
    return this.entry(req.model).build(req);
  }

  refused(model: string): ReadonlySet<F> {
    return this.entry(model).refused;
  }

  refuse(model: string, fields: readonly F[]): void {
    const refused: ReadonlySet<F> = new Set([...this.entry(model).refused, ...fields]);
    this.perModel.set(model, { refused, build: this.builderFor(refused) });
  }

  private entry(model: string): { refused: ReadonlySet<F>; build: Builder } {
    let e = this.perModel.get(model);
    if (!e) {
      const refused: ReadonlySet<F> = new Set();
      e = { refused, build: this.builderFor(refused) };
      this.perModel.set(model, e);
    }
    return e;
  }
}

// How servers say they do not take a field (docs/providers.md, "Refused fields"), for both
// OpenAI shapes. Each pattern's groups hold the field names.
const REFUSAL_WORDS = /unknown|unrecogni[sz]ed|unsupported|not supported|not permitted|not allowed|unexpected|extra/i;
// `path`: the group is one path given as a list of its parts (pydantic's loc); otherwise a
// list of names, each of which may be a dotted path.
const NAMED_REFUSALS: { re: RegExp; path?: true }[] = [
  // OpenAI, Azure OpenAI: "Unrecognized request argument(s) supplied: prompt_cache_key, stream_options"
  { re: /unrecognized request arguments? supplied:?[ \t]*([\w \t,'"`]+)/gi },
  // OpenAI and gateways: "Unknown parameter: 'stream_options'", "Unsupported parameter:
  // 'max_tokens' is not supported…"; llama.cpp's "Unsupported param: x"; Go's "json: unknown
  // field \"x\""; serde's "unknown field `x`"
  { re: /(?:unknown|unsupported|unrecogni[sz]ed|unexpected) (?:request )?(?:parameter|param|argument|field|key|property)s?:?\s*['"`]?([\w.[\]]+)/gi },
  // Groq: "property 'reasoning_content' is unsupported"
  { re: /property ['"`]?([\w.[\]]+)['"`]? is unsupported/gi },
  // Azure AI model inference: "Extra parameters ['stream_options'] are not allowed"
  { re: /extra (?:parameters|fields|inputs) \[([^\]]*)\] (?:are|is) not (?:allowed|permitted)/gi },
  // zod (LM Studio): "Unrecognized key(s) in object: 'seed', 'stop'"
  { re: /unrecognized key\(s\) in object:?\s*([^\n]+)/gi },
  // OpenAI's message schema: "Additional properties are not allowed ('reasoning_content' was unexpected)"
  { re: /['"`]([\w]+)['"`] was unexpected/gi },
  // pydantic (vLLM, Mistral, FastAPI servers): {'type': 'extra_forbidden', 'loc': ('body', 'x'), …}
  { re: /extra_forbidden['"]?,\s*['"]loc['"]:\s*[[(]([^\])]*)[\])]/gi, path: true },
  { re: /['"]loc['"]:\s*[[(]([^\])]*)[\])],\s*['"]msg['"]:\s*['"]extra inputs are not permitted/gi, path: true },
  // pydantic's text form: "prompt_cache_key\n  Extra inputs are not permitted [type=extra_forbidden…"
  { re: /([\w.[\]]+)\s*\n\s*extra inputs are not permitted/gi },
];

/** the words of a path ("messages.3.reasoning_content", "input[2].summary"), request body's "body" left out */
function wordsOf(path: string): string[] {
  const words = path.match(/[A-Za-z_][\w-]*/g) ?? [];
  return words[0] === "body" ? words.slice(1) : words;
}

/**
 * Every path a refusal gives as not taken, each as its words from the body's top: `param`'s
 * when the error says it is unknown or unsupported (not, say, a value too large), and those
 * each wording above names. ["input", "reasoning", "encrypted_content"] is a key inside an
 * input item, not the top-level "reasoning"; ["reasoning", "summary"] is the summary alone.
 */
export function pathsRefused(detail: ErrorDetail & { text?: string }): string[][] {
  const paths: string[][] = [];
  const said = `${detail.message}\n${detail.text ?? ""}`;
  const why = `${said} ${detail.code ?? ""} ${detail.type ?? ""}`;
  if (detail.param && (REFUSAL_WORDS.test(why) || /unknown_parameter|unsupported_parameter/.test(why))) paths.push(wordsOf(detail.param));
  for (const { re, path } of NAMED_REFUSALS) {
    for (const m of said.matchAll(re)) {
      const group = m[1] ?? "";
      if (path) paths.push(wordsOf(group));
      // a list: names split by commas, spaces or quotes, each a path of its own
      else for (const item of group.split(/[\s,'"`]+/)) if (item) paths.push(wordsOf(item));
    }
  }
  return paths.filter((p) => p.length > 0);
}

/**
 * Every name in those paths, at any depth: Chat's optional fields are named so that a match
 * anywhere is theirs (`reasoning_content` lives in a message, `stream_options` at the top).
 */
export function namesRefused(detail: ErrorDetail & { text?: string }): Set<string> {
  return new Set(pathsRefused(detail).flat());
}
