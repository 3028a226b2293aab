// A slow link on 127.0.0.1: a TCP relay that holds every chunk `delayMs` in each direction
// before passing it on, in order, as netem's delay would on a real interface. It stands in
// for `tc qdisc … netem delay` where the kernel has no netem (many CI kernels), between an
// SSH client and sshd (test/e2e/ssh-latency.test.ts, bench/ssh.ts).
//
// The hold is measured, not assumed: every chunk's time in the relay is recorded, so a caller
// can show the link really was slow. drop() cuts every connection at once, both ends, the way
// a network that goes away does (no orderly goodbye from either side).
import net from "node:net";
import { performance } from "node:perf_hooks";

export interface LatencyRelay {
  /** where to connect instead of the target */
  port: number;
  delayMs: number;
  /** connections accepted so far */
  connections: number;
  /** bytes passed on: client → target and target → client */
  bytesUp: number;
  bytesDown: number;
  /** the shortest time a chunk spent in the relay (Infinity before any) */
  minHeldMs: number;
  /** cuts every open connection, both ends; the relay keeps listening */
  drop(): void;
  close(): Promise<void>;
}

interface Held {
  due: number;
  arrived: number;
  data: Buffer;
}

/** one direction of one connection: chunks leave `delayMs` after they came, in order */
function pipeDelayed(from: net.Socket, to: net.Socket, delayMs: number, passed: (bytes: number, heldMs: number) => void): void {
  const queue: Held[] = [];
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const flush = (): void => {
    timer = undefined;
    const t = performance.now();
    while (queue.length && queue[0]!.due <= t) {
      const h = queue.shift()!;
      if (to.destroyed) return;
      to.write(h.data);
      passed(h.data.length, performance.now() - h.arrived);
    }
    if (queue.length) timer = setTimeout(flush, Math.max(0, queue[0]!.due - performance.now()));
    else if (ended && !to.destroyed) to.end();
  };
  from.on("data", (data: Buffer) => {
    const t = performance.now();
    queue.push({ due: t + delayMs, arrived: t, data });
    timer ??= setTimeout(flush, delayMs);
  });
  // an orderly end travels with the same delay, after the data before it
  from.on("end", () => {
    ended = true;
    if (!queue.length && !timer) timer = setTimeout(flush, delayMs);
  });
  from.on("close", () => {
    if (!ended) {
      // an abrupt close: what the peer had not yet received is lost, as on a cut link
      queue.length = 0;
      if (timer) clearTimeout(timer);
      to.destroy();
    }
  });
}

export async function startLatencyRelay(target: { host?: string; port: number }, delayMs: number): Promise<LatencyRelay> {
  const open = new Set<net.Socket>();
  const relay: LatencyRelay = {
    port: 0,
    delayMs,
    connections: 0,
    bytesUp: 0,
    bytesDown: 0,
    minHeldMs: Infinity,
    drop: () => {
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        relay.drop();
        server.close(() => resolve());
      }),
  };
  const held = (dir: "bytesUp" | "bytesDown") => (bytes: number, ms: number) => {
    relay[dir] += bytes;
    relay.minHeldMs = Math.min(relay.minHeldMs, ms);
  };
  // half-open: each direction ends on its own, after the data still held for it
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    relay.connections++;
    // Nagle would add its own waits on top of the one the relay is asked for
    client.setNoDelay(true);
    const upstream = net.connect({ host: target.host ?? "127.0.0.1", port: target.port, allowHalfOpen: true });
    upstream.setNoDelay(true);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on("error", () => undefined); // a reset is how a drop or a dead peer shows; close() follows
      s.on("close", () => open.delete(s));
    }
    pipeDelayed(client, upstream, delayMs, held("bytesUp"));
    pipeDelayed(upstream, client, delayMs, held("bytesDown"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  relay.port = (server.address() as net.AddressInfo).port;
  return relay;
}
