// How long an answer may go without content. The clock runs from the request to the first
// content, then between pieces of content: only content restarts it. Keep-alive pings,
// comments and empty deltas keep a connection open but are not progress, and neither is a
// byte dripped without a line, so a server that sends only those runs out the wait instead of
// holding the turn forever. The one exception is bounded: inside an open tool input, pings
// that keep coming stretch the wait to TOOL_INPUT_IDLE_PERIODS idle periods (Anthropic sends a
// tool's input one whole key at a time and pings while it writes a long value).

/** How many idle periods pings may stretch the wait to while a tool call's input is open:
 * minutes at ordinary speeds, but not forever. */
export const TOOL_INPUT_IDLE_PERIODS = 10;

interface IdleTimerOptions {
  /** the longest wait for content */
  idleMs: number;
  /** true while a tool call's input is open (asked when the wait runs out) */
  toolInputOpen: () => boolean;
  /** the wait ran out: called once */
  onExpire: () => void;
}

/** What came since the last content. */
export interface Quiet {
  /** whole lines: pings, comments, empty events */
  lines: number;
  /** bytes since the last whole line */
  trickled: number;
}

export class IdleTimer {
  private timer: NodeJS.Timeout | undefined;
  private armed = false;
  private stopped = false;
  private lastContentAt = 0;
  private lastLineAt = 0;
  private readonly since: Quiet = { lines: 0, trickled: 0 };
  private waited: number | undefined;

  constructor(private readonly o: IdleTimerOptions) {}

  /** The request is sent: the wait for the first content begins. */
  start(): void {
    this.reset();
  }

  /** Content arrived (or a short body begins): the wait begins again from now. */
  reset(): void {
    if (this.stopped) return;
    this.since.lines = 0;
    this.since.trickled = 0;
    this.lastContentAt = Date.now();
    // Only the time is noted: content comes once per delta (20,000 in a long answer), and a
    // clearTimeout + setTimeout for each is a measurable part of the stream's CPU. The one
    // pending timer looks at lastContentAt when it fires.
    if (!this.armed) {
      this.armed = true;
      this.timer = setTimeout(this.expire, this.o.idleMs);
    }
  }

  /** A whole line that is not content arrived (a ping, a comment, an empty event). */
  line(): void {
    this.since.lines++;
    this.since.trickled = 0;
    this.lastLineAt = Date.now();
  }

  /** Bytes arrived, whole lines or not. */
  bytes(n: number): void {
    this.since.trickled += n;
  }

  /** The answer is whole, or the attempt is over: the wait ends and does not begin again. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The wait that ran out, once it has: the idle period, or the stretched one inside a tool input. */
  get expiredAfterMs(): number | undefined {
    return this.waited;
  }

  /** What came since the last content, for the sentence that names the wait. */
  get quiet(): Readonly<Quiet> {
    return this.since;
  }

  private readonly expire = (): void => {
    const { idleMs } = this.o;
    const stretched = idleMs * TOOL_INPUT_IDLE_PERIODS;
    const now = Date.now();
    // content came since the timer was set: wait out the rest of the idle period from it
    const quiet = now - this.lastContentAt;
    if (quiet < idleMs) {
      this.timer = setTimeout(this.expire, idleMs - quiet);
      return;
    }
    if (this.o.toolInputOpen() && now - this.lastLineAt < idleMs && quiet < stretched) {
      this.timer = setTimeout(this.expire, Math.min(idleMs, this.lastContentAt + stretched - now));
      return;
    }
    this.waited = quiet >= stretched ? stretched : idleMs;
    this.o.onExpire();
  };
}
