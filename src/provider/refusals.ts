// What a server refused, per model, for the provider's life (the session). Both OpenAI shapes
// (Chat Completions and Responses) keep it the same way; only their optional fields and their
// builders differ. encode() is the one the request is captured and sent with, so both leave
// out the same fields; a model's builder stays the same object while nothing new is refused,
// so the capture's encoding is the one sent (encodeOnce).
import { encodeOnce } from "./encoded.js";
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
