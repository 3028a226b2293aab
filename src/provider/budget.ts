// What one attempt's answer may still bring: every piece of content a parser keeps passes
// through the budget, so no parser can gather more than the answer's bound.
import { answerBoundText, StreamFault } from "./failures.js";

/** what a content block or tool call costs against the bound besides its text, so a stream
 * of empty blocks cannot pile up objects either */
const BLOCK_COST_BYTES = 64;

/**
 * What one attempt's answer brought so far, against its bound. Everything an adapter keeps
 * passes through take(), so no adapter can gather more than the bound; content that arrives
 * also restarts the idle clock (pings and empty events do not).
 */
export class AnswerBudget {
  private used = 0;
  private over = false;
  constructor(
    readonly limitBytes: number,
    private readonly onContent: () => void = () => undefined,
  ) {}

  /** The part of `s` that fits: all of it, until the bound is reached; then the piece up to it. */
  take(s: string): string {
    if (s.length === 0) return s;
    if (this.over) return "";
    this.onContent();
    const n = Buffer.byteLength(s);
    if (this.used + n <= this.limitBytes) {
      this.used += n;
      return s;
    }
    this.over = true;
    const room = this.limitBytes - this.used;
    this.used = this.limitBytes;
    return cutUtf8(s, room);
  }

  /** A new block or call: a small fixed cost. */
  block(): void {
    if (this.over) return;
    if (this.used + BLOCK_COST_BYTES > this.limitBytes) this.over = true;
    this.used = Math.min(this.limitBytes, this.used + BLOCK_COST_BYTES);
  }

  get exceeded(): boolean {
    return this.over;
  }

  /** Throws once the bound is passed; `cutOff` names what was being sent when it was. */
  check(cutOff?: string): void {
    if (!this.over) return;
    throw new StreamFault(answerBoundText(this.limitBytes, cutOff), "too_large", false, "answer");
  }
}

/** The first `bytes` bytes of `s`, cut before a character that would not fit whole. */
function cutUtf8(s: string, bytes: number): string {
  if (bytes <= 0) return "";
  return new TextDecoder().decode(Buffer.from(s, "utf8").subarray(0, bytes), { stream: true });
}
