// The request the inspector shows, held in memory (the capture stores its text, not the
// request value) with the provider that sent it, so that its exact counts can be asked for
// on demand; nothing is counted unasked.
import type { Provider, ProviderCounts, Request } from "../../provider/types.js";

export class ShownRequest {
  private last: { req: Request; provider: Provider } | undefined;

  sent(req: Request, provider: Provider): void {
    this.last = { req, provider };
  }

  /** Exact counts of the last request sent in this run; a sentence when there is none or its
   * provider has no counter. */
  async count(signal?: AbortSignal): Promise<ProviderCounts> {
    const l = this.last;
    if (!l) throw new Error("no request has been sent in this run yet: the exact count is of a request this run sent");
    if (!l.provider.countTokens) throw new Error(`${l.provider.label ?? l.provider.name} has no token counter: its counts stay the tokenizer's estimates`);
    return l.provider.countTokens(l.req, signal);
  }
}
