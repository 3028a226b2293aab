// What a server may make us do unasked (src/extensions/notifications.ts), on a clock of the
// test's own: counts, never times.
import { describe, expect, it } from "vitest";
import { Coalescer, NotificationGate, REFETCH_INTERVAL_MS, TokenBucket, type Clock } from "../../src/extensions/notifications.js";

/** a clock that moves only when told, with its timers */
function fakeClock(): Clock & { advance(ms: number): Promise<void> } {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; f: () => void }>();
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return {
    now: () => now,
    setTimeout: (f, ms) => {
      const id = ++seq;
      timers.set(id, { at: now + ms, f });
      return id;
    },
    clearTimeout: (t) => {
      timers.delete(t as number);
    },
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].f();
        await settle();
      }
      now = end;
      await settle();
    },
  };
}

describe("TokenBucket", () => {
  it("gives a burst, then its rate, and never more than the burst after a pause", () => {
    let now = 0;
    const b = new TokenBucket(10, 5, { now: () => now });
    let got = 0;
    for (let i = 0; i < 100; i++) if (b.take()) got++;
    expect(got).toBe(10);
    now = 1000;
    got = 0;
    for (let i = 0; i < 100; i++) if (b.take()) got++;
    expect(got).toBe(5);
    now = 1_000_000;
    got = 0;
    for (let i = 0; i < 100; i++) if (b.take()) got++;
    expect(got).toBe(10);
  });
});

describe("NotificationGate", () => {
  it("lets 100,000 notifications in 6 s through as the limit allows, names the server once, and turns every list_changed into a refetch request", () => {
    let now = 0;
    const named: string[] = [];
    const gate = new NotificationGate((t) => named.push(t), 100, { now: () => now });
    const seen = { pass: 0, drop: 0, "tools changed": 0 };
    for (let i = 0; i < 100_000; i++) {
      now = (i * 6000) / 100_000;
      const method = i % 2 === 0 ? "notifications/tools/list_changed" : "notifications/message";
      seen[gate.judge({ jsonrpc: "2.0", method })]++;
    }
    // a burst of 100 and 100 a second: half of them the other kind
    expect(seen.pass).toBeLessThanOrEqual(100 + 600);
    expect(seen["tools changed"]).toBe(50_000);
    expect(seen.pass + seen.drop).toBe(50_000);
    expect(named).toEqual(["sent more than 100 notifications a second; the rest are dropped"]);
  });

  it("passes answers and requests whatever the flood of notifications", () => {
    const gate = new NotificationGate(() => undefined, 1, { now: () => 0 });
    for (let i = 0; i < 10; i++) gate.judge({ jsonrpc: "2.0", method: "notifications/message" });
    expect(gate.judge({ jsonrpc: "2.0", id: 1, result: {} })).toBe("pass");
    expect(gate.judge({ jsonrpc: "2.0", id: 2, method: "ping" })).toBe("pass");
    expect(gate.judge({ jsonrpc: "2.0", method: "notifications/message" })).toBe("drop");
  });

  it("limits a flood of the server's own requests (each costs an answer) on a bucket of their own, named once", () => {
    let now = 0;
    const named: string[] = [];
    const gate = new NotificationGate((t) => named.push(t), 100, { now: () => now });
    const seen = { pass: 0, drop: 0, "tools changed": 0 };
    for (let i = 0; i < 100_000; i++) {
      now = (i * 6000) / 100_000;
      seen[gate.judge({ jsonrpc: "2.0", id: i, method: "ping" })]++;
    }
    expect(seen.pass).toBeLessThanOrEqual(100 + 600);
    expect(seen.pass + seen.drop).toBe(100_000);
    expect(gate.droppedRequests).toBe(seen.drop);
    expect(named).toEqual(["sent more than 100 requests a second; the rest are dropped"]);
    // answers still pass, and notifications have their own tokens
    expect(gate.judge({ jsonrpc: "2.0", id: 1, result: {} })).toBe("pass");
    expect(gate.judge({ jsonrpc: "2.0", method: "notifications/message" })).toBe("pass");
  });
});

describe("Coalescer", () => {
  it("a flood of requests over 6 s: one run in flight, one pending, runs a second apart, and a run after the last request", async () => {
    const clock = fakeClock();
    let inFlight = 0;
    let most = 0;
    const starts: number[] = [];
    const c = new Coalescer(
      () => {
        inFlight++;
        most = Math.max(most, inFlight);
        starts.push(clock.now());
        // each run takes 5 ms of the fake clock
        return new Promise<void>((r) =>
          clock.setTimeout(() => {
            inFlight--;
            r();
          }, 5),
        );
      },
      REFETCH_INTERVAL_MS,
      clock,
    );
    c.enable();
    for (let ms = 0; ms < 6000; ms++) {
      for (let i = 0; i < 17; i++) c.request();
      await clock.advance(1);
    }
    const lastRequest = clock.now();
    await clock.advance(5000);
    expect(most).toBe(1);
    // a second apart at most (the SDK's debounce fetches after every pause, without bound)
    expect(starts.length).toBeLessThanOrEqual(2 + 6000 / REFETCH_INTERVAL_MS);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(REFETCH_INTERVAL_MS);
    // the last change is fetched: a run starts after the last request
    expect(starts.at(-1)!).toBeGreaterThanOrEqual(lastRequest - 1);
    expect(c.busy()).toBe(false);
  });

  it("a single request runs at once; requests before enable() wait for it; stop() ends what is pending", async () => {
    const clock = fakeClock();
    let runs = 0;
    const c = new Coalescer(async () => void runs++, REFETCH_INTERVAL_MS, clock);
    c.request();
    c.request();
    await clock.advance(10);
    expect(runs).toBe(0);
    c.enable();
    await clock.advance(0);
    expect(runs).toBe(1);
    c.request();
    await clock.advance(10);
    // spaced: the second waits for the interval
    expect(runs).toBe(1);
    c.stop();
    await clock.advance(5000);
    expect(runs).toBe(1);
  });

  it("a run that fails leaves the next one possible", async () => {
    const clock = fakeClock();
    let runs = 0;
    const c = new Coalescer(
      async () => {
        runs++;
        throw new Error("tools/list failed");
      },
      REFETCH_INTERVAL_MS,
      clock,
    );
    c.enable();
    c.request();
    await clock.advance(0);
    c.request();
    await clock.advance(REFETCH_INTERVAL_MS);
    expect(runs).toBe(2);
  });
});
