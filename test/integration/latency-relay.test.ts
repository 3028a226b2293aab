// The slow link the SSH tests and benchmark measure through (test/helpers/latency-relay.ts)
// is an instrument: it must keep every byte in order, hold each chunk its delay each way,
// carry an orderly end after the data before it, and cut both ends at once when dropped.
// Real sockets on 127.0.0.1 against an echo server.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startLatencyRelay, type LatencyRelay } from "../helpers/latency-relay.js";

const DELAY = 40;

describe("the latency relay", () => {
  const closers: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  /** an echo server (it ends its side when the client ends), and whether its sockets saw a reset */
  async function echoServer(): Promise<{ port: number; closed: Promise<boolean> }> {
    let sawClose: (hadError: boolean) => void = () => undefined;
    const closed = new Promise<boolean>((r) => (sawClose = r));
    const server = net.createServer((s) => {
      s.on("error", () => undefined);
      s.on("close", (hadError) => sawClose(hadError));
      s.pipe(s);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    return { port: (server.address() as net.AddressInfo).port, closed };
  }

  async function through(): Promise<{ relay: LatencyRelay; client: net.Socket; server: { closed: Promise<boolean> } }> {
    const server = await echoServer();
    const relay = await startLatencyRelay({ port: server.port }, DELAY);
    closers.push(() => relay.close());
    const client = net.connect({ host: "127.0.0.1", port: relay.port });
    client.on("error", () => undefined);
    closers.push(() => void client.destroy());
    await new Promise<void>((r) => client.once("connect", () => r()));
    return { relay, client, server };
  }

  it("passes every byte back in order, each chunk held its delay each way", async () => {
    const { relay, client } = await through();
    const sent: Buffer[] = [];
    let got = Buffer.alloc(0);
    client.on("data", (d: Buffer) => (got = Buffer.concat([got, d])));
    const t0 = performance.now();
    // many small writes and a large one, spread over several delays
    for (let i = 0; i < 200; i++) {
      const b = Buffer.from(`chunk-${i};`);
      sent.push(b);
      client.write(b);
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    const big = Buffer.alloc(1 << 20, 7);
    sent.push(big);
    client.write(big);
    const all = Buffer.concat(sent);
    const firstBack = new Promise<number>((r) => client.once("data", () => r(performance.now())));
    while (got.length < all.length) await new Promise((r) => setTimeout(r, 10));
    expect(got.equals(all)).toBe(true);
    // the first bytes back crossed the relay twice
    expect((await firstBack) - t0).toBeGreaterThanOrEqual(2 * DELAY);
    expect(relay.minHeldMs).toBeGreaterThanOrEqual(DELAY);
    expect(relay.bytesUp).toBe(all.length);
    expect(relay.bytesDown).toBe(all.length);
    expect(relay.connections).toBe(1);
  });

  it("an orderly end arrives after the data sent before it", async () => {
    const { client } = await through();
    let got = "";
    client.setEncoding("utf8").on("data", (d: string) => (got += d));
    const ended = new Promise<string>((r) => client.once("end", () => r(got)));
    client.end("last words before the end");
    expect(await ended).toBe("last words before the end");
  });

  it("drop() resets both ends at once, and what it held is lost", async () => {
    const { relay, client, server } = await through();
    let got = "";
    client.setEncoding("utf8").on("data", (d: string) => (got += d));
    client.write("held when the link goes");
    const clientClosed = new Promise<boolean>((r) => client.once("close", (hadError) => r(hadError)));
    relay.drop();
    // a reset, not an orderly end, on both sides
    expect(await clientClosed).toBe(true);
    await server.closed;
    expect(got).toBe("");
    // the relay listens on: a new connection goes through
    const again = net.connect({ host: "127.0.0.1", port: relay.port });
    again.on("error", () => undefined);
    closers.push(() => void again.destroy());
    let echoed = "";
    again.setEncoding("utf8").on("data", (d: string) => (echoed += d));
    again.write("again");
    while (echoed !== "again") await new Promise((r) => setTimeout(r, 10));
    expect(relay.connections).toBe(2);
  });
});
