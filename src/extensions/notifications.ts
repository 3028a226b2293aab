// How much a server may make us do unasked. Its notifications pass a token bucket (a burst,
// then a steady rate), and its requests (ping, each of which we answer) another: past either
// they are dropped before the protocol layer sees them, and the server is named once for each. A tools/list_changed never costs more than a flag: the refetch it
// asks for is coalesced (one in flight, at most one pending after it) and spaced (one start
// per interval), so a flood of them costs a few tool lists, and the last change is still
// fetched. Pure but for the clock and timers, which are given.

export interface Clock {
  now(): number;
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
};

/** notifications a server may send a second, after a burst of as many */
export const NOTIFICATIONS_PER_SECOND = 100;
/** the least time between the starts of two tools/list refetches */
export const REFETCH_INTERVAL_MS = 1000;

/** `burst` at once, then `perSecond` a second. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly clock: Pick<Clock, "now"> = realClock,
  ) {
    this.tokens = burst;
    this.at = clock.now();
  }

  /** takes one token: false when none is left */
  take(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * Runs `job` when asked, never two at once: a request while it runs leaves one pending run
 * after it (however many requests came), and two runs start at least `intervalMs` apart.
 * Requests before `enable()` wait for it.
 */
export class Coalescer {
  private enabled = false;
  private stopped = false;
  private running = false;
  private pending = false;
  private timer: unknown;
  private lastStart = -Infinity;
  /** runs started, for the record */
  runs = 0;

  constructor(
    private readonly job: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly clock: Clock = realClock,
  ) {}

  request(): void {
    if (this.stopped) return;
    this.pending = true;
    this.kick();
  }

  enable(): void {
    this.enabled = true;
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    this.pending = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** whether a run is going or due */
  busy(): boolean {
    return this.running || this.pending;
  }

  private kick(): void {
    if (!this.enabled || this.stopped || this.running || !this.pending || this.timer !== undefined) return;
    const wait = this.lastStart + this.intervalMs - this.clock.now();
    if (wait > 0) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.kick();
      }, wait);
      return;
    }
    this.pending = false;
    this.running = true;
    this.lastStart = this.clock.now();
    this.runs++;
    void this.job()
      .catch(() => undefined)
      .finally(() => {
        this.running = false;
        this.kick();
      });
  }
}

/** What the gate does with one message from a server. */
type Verdict = "pass" | "drop" | "tools changed";

/**
 * The gate one server's messages pass: answers go on; notifications take a token of their
 * bucket, requests of theirs (each would cost an answer written back), and one without a token
 * is dropped (the first drop of each kind names the server through `onFlood`; a request dropped
 * is one its sender waits for in vain, which only a flood meets); tools/list_changed is taken
 * out and becomes a refetch request, token or not, so that the last one of a flood is not lost.
 */
export class NotificationGate {
  private readonly notifications: TokenBucket;
  private readonly requests: TokenBucket;
  private readonly named = { notifications: false, requests: false };
  /** notifications dropped, for the record */
  dropped = 0;
  /** requests dropped, for the record */
  droppedRequests = 0;

  constructor(
    private readonly onFlood: (text: string) => void,
    private readonly perSecond = NOTIFICATIONS_PER_SECOND,
    clock: Pick<Clock, "now"> = realClock,
  ) {
    this.notifications = new TokenBucket(perSecond, perSecond, clock);
    this.requests = new TokenBucket(perSecond, perSecond, clock);
  }

  private flood(kind: "notifications" | "requests"): void {
    if (this.named[kind]) return;
    this.named[kind] = true;
    this.onFlood(`sent more than ${this.perSecond} ${kind} a second; the rest are dropped`);
  }

  /** `message` as it came: a notification has a method and no id, a request both */
  judge(message: object): Verdict {
    if (!("method" in message)) return "pass";
    if ("id" in message) {
      if (this.requests.take()) return "pass";
      this.droppedRequests++;
      this.flood("requests");
      return "drop";
    }
    const ok = this.notifications.take();
    if (!ok) {
      this.dropped++;
      this.flood("notifications");
    }
    if (message.method === "notifications/tools/list_changed") return "tools changed";
    return ok ? "pass" : "drop";
  }
}
