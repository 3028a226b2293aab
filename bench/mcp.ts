// The MCP figure: start-up to the first usable frame with two MCP servers configured
// (server-everything over stdio, twice) against the same start-up with none, in alternating
// rounds of fresh homes, through the real program in a pseudo-terminal. The servers start
// after that frame, so the target is within 5%. Also: when both servers' tools are listed by
// the transcript (how long after the frame they are ready), for the record.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { ServerSpec } from "../src/extensions/config.js";
import { CLI, PtyRun, ROOT, benchHome, cpuMs, fmtMs, gc, median, removeDir, sleep, type BenchHome, type Row, type ScreenTest } from "./lib.js";
import { MODEL } from "./tui.js";

const NODE = process.execPath;
const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
// the same first-usable-frame test as the start-up benchmark (bench/tui.ts)
const USABLE: ScreenTest = (s) => /^›/m.test(s) && (/^\s*starting…/m.test(s) || /^\s*idle · .*claude-sonnet-4-5/m.test(s));
const READY: ScreenTest = (s) => /^›/m.test(s) && /^\s*idle · .*claude-sonnet-4-5/m.test(s);

async function withServers(home: BenchHome): Promise<void> {
  const dir = path.join(home.root, "config", "albedo");
  await fs.mkdir(dir, { recursive: true });
  const entry = { command: NODE, args: [EVERYTHING, "stdio"] };
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ mcpServers: { one: entry, two: entry } }));
}

function start(home: BenchHome): PtyRun {
  return new PtyRun({
    file: NODE,
    args: [CLI, "--db", home.db, "--workspace", home.workspace, "--provider", "anthropic", "--model", MODEL],
    cwd: home.workspace,
    env: home.env,
  });
}

export async function benchMcp(quick: boolean): Promise<Row[]> {
  const runs = quick ? 2 : 9;
  const none: number[] = [];
  const two: number[] = [];
  const toolsReady: number[] = [];
  // round 0 warms the file cache (and the SDK's modules) and is not counted
  for (let i = 0; i < runs + 1; i++) {
    for (const servers of i % 2 === 0 ? [false, true] : [true, false]) {
      const home = await benchHome();
      if (servers) await withServers(home);
      const a = start(home);
      try {
        const t = await a.waitFor(USABLE, 20_000, "the first usable frame");
        if (servers) {
          await a.waitFor(READY, 20_000, "the session");
          // each server says so in the transcript when its tools are there
          const r = await a.waitFor((s) => /MCP server one ready: \d+ tools/.test(s) && /MCP server two ready: \d+ tools/.test(s), 30_000, "both servers ready");
          if (i > 0) toolsReady.push(r - a.spawnedAt);
        }
        if (i > 0) (servers ? two : none).push(t - a.spawnedAt);
      } finally {
        await a.stop();
        await removeDir(home.root);
      }
    }
  }
  const ratio = median(two.map((x, i) => x / none[i]!));
  return [
    {
      benchmark: "first usable frame, 2 MCP servers vs none",
      albedo: `${fmtMs(median(two))} with 2 servers`,
      floor: `${fmtMs(median(none))} with none`,
      ratio,
      target: "≤ 1.05×",
      met: ratio <= 1.05,
      raw: { runs, twoServersMs: two, noServersMs: none },
      note: "servers start after the first frame; the SDK is imported only then",
    },
    {
      benchmark: "2 MCP servers ready (from spawn)",
      albedo: fmtMs(median(toolsReady)),
      floor: "—",
      ratio: null,
      target: "— (no target)",
      met: null,
      raw: { runs, readyMs: toolsReady },
    },
  ];
}

// ------------------------------------------------------------------- MCP wire (stdio)
//
// What reading a server's output costs the main thread, against a bare server
// (bench/mcp-server.cjs) on a real pipe.
// - A 15 MB result: our transport (src/extensions/stdio.ts) from the request sent to the
//   message delivered, against the floor of reading the same pipe into a list of chunks and
//   one JSON.parse; the SDK's read buffer (what the transport used) for the record. The
//   longest stall is the longest gap between turns of the event loop while it comes in.
// - The same result's chunks as the pipe gave them, framed again in this process one chunk
//   at a time: the longest time one chunk holds the thread before the last one (the last
//   one holds the parse, which every reader pays).
// - A flood of 100,000 notifications at once: this process's CPU through our client
//   (client.ts: the gate and the coalesced refetch) against the floor of JSON.parse of each
//   line; the SDK's client as client.ts configured it (its stdio transport, listChanged
//   with its debounce) for the record.

const MCP_SERVER = path.join(ROOT, "bench/mcp-server.cjs");
const BIG = 15 * 1024 * 1024;
const FLOOD = 100_000;

/** the longest gap between turns of the event loop, from now until stop() */
function stallWatch(): { stop(): { longestMs: number; over10ms: number } } {
  let last = performance.now();
  let longest = 0;
  let over = 0;
  let on = true;
  const gapEnds = (): void => {
    const t = performance.now();
    const gap = t - last;
    if (gap > longest) longest = gap;
    if (gap > 10) over++;
    last = t;
  };
  const tick = (): void => {
    gapEnds();
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      // the turn that delivered the message ends here
      gapEnds();
      on = false;
      return { longestMs: longest, over10ms: over };
    },
  };
}

interface ReadRun {
  ms: number;
  cpuMs: number;
  longestMs: number;
  over10ms: number;
}

const BIG_CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "big", arguments: {} } }) + "\n";

/** a bare server started and ready to answer (its 15 MB answer serialized) */
async function bareServer(): Promise<ChildProcess> {
  const child = spawn(NODE, [MCP_SERVER, "--big", String(BIG)], { stdio: ["pipe", "pipe", "inherit"] });
  // a ping answered: the answer is ready
  await new Promise<void>((resolve) => {
    child.stdout!.once("data", () => resolve());
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }) + "\n");
  });
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((r) => {
    child.once("exit", () => r());
    child.kill("SIGKILL");
  });
}

/** times from now until `done` settles: wall, this process's CPU, the longest stall */
async function measured(send: () => unknown, done: Promise<void>): Promise<ReadRun> {
  const watch = stallWatch();
  const c0 = cpuMs();
  const t0 = performance.now();
  await send();
  await done;
  const ms = performance.now() - t0;
  const cpu = cpuMs() - c0;
  return { ms, cpuMs: cpu, ...watch.stop() };
}

/** the floor: chunks in a list, one join, one JSON.parse */
async function readFloor(): Promise<ReadRun> {
  const child = await bareServer();
  try {
    const chunks: Buffer[] = [];
    const done = new Promise<void>((resolve) => {
      child.stdout!.on("data", (c: Buffer) => {
        chunks.push(c);
        if (c.indexOf(10) === -1) return;
        const msg = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number };
        if (msg.id === 1) resolve();
      });
    });
    return await measured(() => child.stdin!.write(BIG_CALL), done);
  } finally {
    await stopChild(child);
  }
}

/** the SDK's read buffer, fed each chunk as the transport fed it (bounded at 16 MB) */
async function readSdkBuffer(): Promise<ReadRun> {
  const { ReadBuffer } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
  const child = await bareServer();
  try {
    const rb = new ReadBuffer({ maxBufferSize: 16 * 1024 * 1024 });
    const done = new Promise<void>((resolve) => {
      child.stdout!.on("data", (c: Buffer) => {
        rb.append(c);
        for (let m = rb.readMessage(); m !== null; m = rb.readMessage()) if ("id" in m && m.id === 1) resolve();
      });
    });
    return await measured(() => child.stdin!.write(BIG_CALL), done);
  } finally {
    await stopChild(child);
  }
}

/** our transport, from the request sent to the message delivered */
async function readOurs(): Promise<ReadRun> {
  const { GroupStdioTransport } = await import("../src/extensions/stdio.js");
  const t = new GroupStdioTransport({ command: NODE, args: [MCP_SERVER, "--big", String(BIG)], env: {}, cwd: ROOT }, {});
  try {
    let got: (id: unknown) => void = () => undefined;
    t.onmessage = (m) => got("id" in m ? m.id : undefined);
    await t.start();
    await new Promise<void>((resolve) => {
      got = () => resolve();
      void t.send({ jsonrpc: "2.0", id: 0, method: "ping" });
    });
    const done = new Promise<void>((resolve) => {
      got = (id) => {
        if (id === 1) resolve();
      };
    });
    return await measured(() => t.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "big", arguments: {} } }), done);
  } finally {
    await t.close();
  }
}

/** the 15 MB answer's chunks, as the pipe gave them */
async function bigChunks(): Promise<Buffer[]> {
  const child = await bareServer();
  try {
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) => {
      child.stdout!.on("data", (c: Buffer) => {
        chunks.push(c);
        if (c.indexOf(10) !== -1) resolve();
      });
      child.stdin!.write(BIG_CALL);
    });
    return chunks;
  } finally {
    await stopChild(child);
  }
}

interface ChunkRun {
  /** the longest a chunk before the last took */
  longestBeforeLastMs: number;
  /** the last chunk: the join and the parse */
  lastMs: number;
}

/** each chunk handed to `handle` in turn, timed */
function perChunk(chunks: readonly Buffer[], handle: (c: Buffer) => void): ChunkRun {
  let longest = 0;
  let last = 0;
  for (const [i, c] of chunks.entries()) {
    const t0 = performance.now();
    handle(c);
    const ms = performance.now() - t0;
    if (i === chunks.length - 1) last = ms;
    else longest = Math.max(longest, ms);
  }
  return { longestBeforeLastMs: longest, lastMs: last };
}

async function framers(): Promise<Record<"ours" | "floor" | "sdk", (chunks: readonly Buffer[]) => ChunkRun>> {
  const { ReadBuffer } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
  const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const { LineReader } = await import("../src/extensions/line-reader.js");
  return {
    // what the transport does with a chunk (stdio.ts: push, then each line parsed and validated)
    ours: (chunks) => {
      const r = new LineReader(16 * 1024 * 1024);
      return perChunk(chunks, (c) => r.push(c, (line) => void JSONRPCMessageSchema.parse(JSON.parse(line))));
    },
    floor: (chunks) => {
      const held: Buffer[] = [];
      return perChunk(chunks, (c) => {
        held.push(c);
        if (c.indexOf(10) !== -1) JSON.parse(Buffer.concat(held).toString("utf8"));
      });
    },
    sdk: (chunks) => {
      const rb = new ReadBuffer({ maxBufferSize: 16 * 1024 * 1024 });
      return perChunk(chunks, (c) => {
        rb.append(c);
        while (rb.readMessage() !== null);
      });
    },
  };
}

interface FloodRun {
  cpuMs: number;
  refetches: number;
}

const SETTLE_MS = 1500;

function floodSpec(): ServerSpec {
  return {
    name: "bench",
    origin: "config",
    file: "bench",
    disabled: false,
    transport: { kind: "stdio", command: NODE, args: [MCP_SERVER], env: {}, cwd: ROOT },
    startupTimeoutMs: 30_000,
    toolTimeoutMs: 120_000,
    envNames: [],
    headerNames: [],
    launch: { command: NODE, args: [MCP_SERVER], env: [], headers: [] },
    secrets: [],
    fingerprint: "bench",
  };
}

function textOf(r: unknown): string {
  return ((r as { content: { text: string }[] }).content[0]?.text ?? "").toString();
}

/** our client: CPU from the call to its answer and the refetches after it */
async function floodOurs(): Promise<FloodRun> {
  const { connect } = await import("../src/extensions/client.js");
  let warned = 0;
  const conn = await connect(floodSpec(), {}, { onTools: () => undefined, onLost: () => undefined, onWarning: () => void warned++ });
  try {
    const signal = new AbortController().signal;
    const before = JSON.parse(textOf(await conn.call("stats", {}, signal))) as { listed: number };
    const c0 = cpuMs();
    const r = await conn.call("flood", { count: FLOOD }, signal);
    if (textOf(r) !== `flooded ${FLOOD}`) throw new Error(`unexpected answer ${textOf(r)}`);
    await sleep(SETTLE_MS);
    const cpu = cpuMs() - c0;
    const after = JSON.parse(textOf(await conn.call("stats", {}, signal))) as { listed: number };
    if (warned !== 1) throw new Error(`the server was named ${warned} times`);
    return { cpuMs: cpu, refetches: after.listed - before.listed };
  } finally {
    await conn.close();
  }
}

/** the SDK's client with its stdio transport and its list_changed refetch */
async function floodSdk(): Promise<FloodRun> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const client = new Client({ name: "bench", version: "1" }, { capabilities: {}, listChanged: { tools: { onChanged: () => undefined } } });
  await client.connect(new StdioClientTransport({ command: NODE, args: [MCP_SERVER], stderr: "inherit" }));
  try {
    const stats = async (): Promise<number> => (JSON.parse(textOf(await client.callTool({ name: "stats", arguments: {} }))) as { listed: number }).listed;
    const before = await stats();
    const c0 = cpuMs();
    await client.callTool({ name: "flood", arguments: { count: FLOOD } }, undefined, { timeout: 120_000 });
    await sleep(SETTLE_MS);
    const cpu = cpuMs() - c0;
    return { cpuMs: cpu, refetches: (await stats()) - before };
  } finally {
    await client.close();
  }
}

/** the floor: each line parsed, nothing done with it */
async function floodFloor(): Promise<FloodRun> {
  const child = spawn(NODE, [MCP_SERVER], { stdio: ["pipe", "pipe", "inherit"] });
  try {
    const pieces: Buffer[] = [];
    let c0 = 0;
    const done = new Promise<void>((resolve) => {
      child.stdout!.on("data", (chunk: Buffer) => {
        let from = 0;
        for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
          pieces.push(chunk.subarray(from, nl));
          const msg = JSON.parse(Buffer.concat(pieces).toString("utf8")) as { id?: number };
          pieces.length = 0;
          from = nl + 1;
          if (msg.id === 2) resolve();
        }
        if (from < chunk.length) pieces.push(chunk.subarray(from));
      });
    });
    c0 = cpuMs();
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "flood", arguments: { count: FLOOD } } }) + "\n");
    await done;
    await sleep(SETTLE_MS);
    return { cpuMs: cpuMs() - c0, refetches: 0 };
  } finally {
    await stopChild(child);
  }
}

export async function benchMcpWire(quick: boolean): Promise<Row[]> {
  const runs = quick ? 1 : 7;
  const ours: ReadRun[] = [];
  const floor: ReadRun[] = [];
  const sdk: ReadRun[] = [];
  // round 0 warms up (modules, the JIT) and is not counted
  for (let i = 0; i < runs + 1; i++) {
    const order = i % 2 === 0 ? [readOurs, readFloor, readSdkBuffer] : [readSdkBuffer, readFloor, readOurs];
    for (const f of order) {
      gc();
      const r = await f();
      if (i > 0) (f === readOurs ? ours : f === readFloor ? floor : sdk).push(r);
    }
  }
  const chunks = await bigChunks();
  const frame = await framers();
  const cOurs: ChunkRun[] = [];
  const cFloor: ChunkRun[] = [];
  const cSdk: ChunkRun[] = [];
  for (let i = 0; i < runs + 1; i++) {
    for (const [k, list] of [["ours", cOurs], ["floor", cFloor], ["sdk", cSdk]] as const) {
      gc();
      const r = frame[k](chunks);
      if (i > 0) list.push(r);
    }
  }
  const fOurs: FloodRun[] = [];
  const fFloor: FloodRun[] = [];
  const fSdk: FloodRun[] = [];
  const floodRuns = quick ? 1 : 3;
  for (let i = 0; i < floodRuns + 1; i++) {
    const order = i % 2 === 0 ? [floodOurs, floodFloor, floodSdk] : [floodSdk, floodFloor, floodOurs];
    for (const f of order) {
      gc();
      const r = await f();
      if (i > 0) (f === floodOurs ? fOurs : f === floodFloor ? fFloor : fSdk).push(r);
    }
  }
  const med = <T>(xs: T[], f: (x: T) => number): number => median(xs.map(f));
  const ratio = <T>(a: T[], b: T[], f: (x: T) => number): number => median(a.map((x, i) => f(x) / f(b[i]!)));
  const readRatio = ratio(ours, floor, (x) => x.cpuMs);
  const stallRatio = ratio(ours, floor, (x) => x.longestMs);
  const chunkMs = med(cOurs, (x) => x.longestBeforeLastMs);
  const floodRatio = ratio(fOurs, fFloor, (x) => x.cpuMs);
  const read = (xs: ReadRun[]): string => `${fmtMs(med(xs, (x) => x.ms))} (${fmtMs(med(xs, (x) => x.cpuMs))} CPU)`;
  return [
    {
      benchmark: "MCP stdio: a 15 MB result, request to message",
      albedo: read(ours),
      floor: `${read(floor)} pipe + one JSON.parse`,
      ratio: readRatio,
      target: "≤ 1.5× (CPU)",
      met: readRatio <= 1.5,
      raw: { runs, ours, floor, sdkReadBuffer: sdk },
      note: `the SDK's read buffer: ${read(sdk)}, ${(med(sdk, (x) => x.cpuMs) / med(floor, (x) => x.cpuMs)).toFixed(1)}× the floor's CPU`,
    },
    {
      benchmark: "MCP stdio: a 15 MB result, longest main-thread stall",
      albedo: `${fmtMs(med(ours, (x) => x.longestMs))}, ${med(ours, (x) => x.over10ms)} over 10 ms`,
      floor: `${fmtMs(med(floor, (x) => x.longestMs))}, ${med(floor, (x) => x.over10ms)} over 10 ms`,
      ratio: stallRatio,
      target: "≤ 1.5×",
      met: stallRatio <= 1.5,
      raw: { runs },
      note: `the SDK's read buffer: ${fmtMs(med(sdk, (x) => x.longestMs))} longest, ${med(sdk, (x) => x.over10ms)} stalls over 10 ms`,
    },
    {
      benchmark: `MCP stdio: a 15 MB result, longest chunk before the last (${chunks.length} chunks)`,
      albedo: `${fmtMs(chunkMs)}; the last ${fmtMs(med(cOurs, (x) => x.lastMs))}`,
      floor: `${fmtMs(med(cFloor, (x) => x.longestBeforeLastMs))}; the last ${fmtMs(med(cFloor, (x) => x.lastMs))}`,
      ratio: chunkMs / 1,
      target: "≤ 1 ms",
      met: chunkMs <= 1,
      raw: { runs, chunks: chunks.length, ours: cOurs, floor: cFloor, sdk: cSdk },
      note: `the SDK's read buffer: ${fmtMs(med(cSdk, (x) => x.longestBeforeLastMs))} on one chunk before the last; the last ${fmtMs(med(cSdk, (x) => x.lastMs))}`,
    },
    {
      benchmark: `MCP: ${FLOOD.toLocaleString("en")} notifications at once, client CPU`,
      albedo: `${fmtMs(med(fOurs, (x) => x.cpuMs))}, ${med(fOurs, (x) => x.refetches)} tools/list`,
      floor: `${fmtMs(med(fFloor, (x) => x.cpuMs))} JSON.parse of each line`,
      ratio: floodRatio,
      target: "≤ 2×",
      met: floodRatio <= 2,
      raw: { runs: floodRuns, ours: fOurs, floor: fFloor, sdk: fSdk },
      note: `the SDK's client (its transport and list_changed refetch): ${fmtMs(med(fSdk, (x) => x.cpuMs))} CPU, ${med(fSdk, (x) => x.refetches)} tools/list`,
    },
  ];
}
