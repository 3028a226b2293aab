// The request the inspector shows, held in memory (the capture stores its text, not the
// request value) with the provider that sent it, so that its exact counts can be asked for:
// on demand (the pane's key), or after each request when the config's countTokens is
// "each request". The automatic counts are bounded: one in flight (a request captured
// meanwhile is counted when it ends, the ones between are skipped), and the first failure
// is said once and stops them for the run (the key still asks).
import type { Provider, ProviderCounts, Request } from "../../provider/types.js";
import { messageOf } from "../../record/errors.js";

export const COUNT_SETTINGS = ["on-demand", "each request"] as const;
export type CountSetting = (typeof COUNT_SETTINGS)[number];

/** The automatic count of the capture made at `of`: asking, its figures, why it failed, or
 * (a provider without a counter) that its figures stay the tokenizer's. */
export interface AutoCount {
  of: string;
  asking?: boolean;
  counts?: ProviderCounts;
  error?: string;
  note?: string;
}

interface ShownOptions {
  setting: () => CountSetting;
  /** the automatic count changed: the screen repaints */
  changed: () => void;
  /** said once: the automatic counts stopped, or the provider has none */
  notice: (level: "warning" | "info", text: string) => void;
  /** settles when the app closes: a count in flight is given up */
  closed?: Promise<void>;
}

export class ShownRequest {
  private last: { req: Request; provider: Provider; capturedAt: string } | undefined;
  private auto: AutoCount | undefined;
  private inFlight = false;
  /** why the automatic counts stopped, once one failed */
  private stopped: string | undefined;
  private saidNoCounter = false;
  private readonly abort = new AbortController();

  constructor(private readonly o?: ShownOptions) {
    void o?.closed?.then(() => this.abort.abort());
  }

  /** The capture of `req` is stored (it is on its way already: the count never delays it). */
  sent(req: Request, provider: Provider, capturedAt: string): void {
    this.last = { req, provider, capturedAt };
    if (this.o?.setting() === "each request") this.countNewest();
  }

  /** Exact counts of the last request sent in this run; a sentence when there is none or its
   * provider has no counter. */
  async count(signal?: AbortSignal): Promise<ProviderCounts> {
    const l = this.last;
    if (!l) throw new Error("no request has been sent in this run yet: the exact count is of a request this run sent");
    if (!l.provider.countTokens) throw new Error(`${providerLabel(l.provider)} has no token counter: its counts stay the tokenizer's estimates`);
    return l.provider.countTokens(l.req, signal);
  }

  /** The automatic count of the newest capture counted or being counted ("each request"). */
  autoCount(): AutoCount | undefined {
    return this.auto;
  }

  private countNewest(): void {
    const l = this.last;
    if (!l || this.inFlight || this.stopped !== undefined || this.abort.signal.aborted) return;
    const o = this.o!;
    if (!l.provider.countTokens) {
      const note = `${providerLabel(l.provider)} has no provider count: the figures are the tokenizer's estimates`;
      this.auto = { of: l.capturedAt, note };
      if (!this.saidNoCounter) {
        this.saidNoCounter = true;
        o.notice("info", `countTokens is "each request", but ${note}`);
      }
      o.changed();
      return;
    }
    this.inFlight = true;
    this.auto = { of: l.capturedAt, asking: true };
    o.changed();
    l.provider.countTokens(l.req, this.abort.signal).then(
      (counts) => {
        this.auto = { of: l.capturedAt, counts };
      },
      (e: unknown) => {
        if (this.abort.signal.aborted) return;
        const why = messageOf(e);
        this.auto = { of: l.capturedAt, error: why };
        this.stopped = why;
        o.notice("warning", `automatic token counts stopped for this run: ${why}. The context pane's count key still asks on demand.`);
      },
    ).finally(() => {
      this.inFlight = false;
      if (this.abort.signal.aborted) return;
      o.changed();
      // a request captured while this one was counted: count the newest now
      if (this.last !== l && o.setting() === "each request") this.countNewest();
    });
  }
}

function providerLabel(p: Provider): string {
  return p.label ?? p.name;
}
