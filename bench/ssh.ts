// The 20,000-word stream over SSH with 50 ms added each way, against the same stream in a
// local pty, interleaved in one run. A pty runs `ssh -tt` to a private sshd on 127.0.0.1
// (test/helpers/sshd.ts), which runs the built CLI against the fake provider; the screen is
// read at the client's end of that pty, as the person at the far end of the link sees it.
//
// The 50 ms: netem on the loopback interface of a private network namespace when the kernel
// has it (the whole row then runs again inside `unshare -n`, the delay filtered to sshd's port
// so the provider's loopback stays fast), otherwise a relay in user space that holds every
// chunk 50 ms each way in order (test/helpers/latency-relay.ts). The row says which.
//
// What it compares: bytes per frame and frames per second while the answer streams (a frame
// is one of blessed's draws, counted by its ESC 7), total bytes, and Enter → last word.
//
//   BENCH_SSH_SHAPES=benchmark,numbered  only these shapes at 20,000 words (default: benchmark,
//                                        paragraph, numbered); a paced 3,000-word stream runs too
//   BENCH_SSH_RUNS=3                     pairs per case
//   BENCH_SSH_LINK=relay                 skip the netem attempt
//   BENCH_SSH_NETNS_LEAF=pfifo           the namespace path with this qdisc for netem's (no delay):
//                                        checks that path on a kernel without netem
//   node --import tsx bench/ssh.ts [--quick]   the row alone, as JSON
import { spawn, spawnSync } from "node:child_process";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startLatencyRelay, type LatencyRelay } from "../test/helpers/latency-relay.js";
import { remoteCommand, sshArgs, startSshd, stopSshd, type Sshd } from "../test/helpers/sshd.js";
import { PtyRun, ROOT, benchHome, fmtBytes, fmtMs, median, removeDir, skipped, type BenchHome, type Row } from "./lib.js";
import { STREAM_SHAPES, shapedAnswer, type StreamShape } from "./stream-shapes.js";
import { FakeServer, READY, STREAM_KEY, albedoArgs, streamAlbedo, streamAnswer, timeStream, type StreamRun } from "./tui.js";

const DELAY_MS = 50;
/** "within the local run's figures": the SSH run's bytes per frame and frames per second at most this times the local run's */
const WITHIN = 1.2;
const DEFAULT_SHAPES: readonly StreamShape[] = ["benchmark", "paragraph", "numbered"];
const PACED = "paced (1 word/ms)";
const PACED_WORDS = 3000;
const NETNS_FLAG = "--inside-netns";

// -------------------------------------------------------------------------------- the link

interface Link {
  /** netem, the relay, or the namespace path checked without netem */
  kind: "netem" | "relay" | "no delay: netns check";
  /** where ssh connects */
  port: number;
  describe(): string;
  close(): Promise<void>;
}

/**
 * The leaf qdisc for sshd's traffic inside the namespace: netem's delay, or (to check the
 * namespace path on a kernel without netem) what BENCH_SSH_NETNS_LEAF names, e.g. pfifo: no
 * delay then, and the row says so.
 */
const NETNS_LEAF = process.env["BENCH_SSH_NETNS_LEAF"];

/** tc's arguments: the leaf on every packet to or from `port`, nothing on the rest of lo.
 *  htb, not prio: some kernels leave prio out; two unlimited classes, the port in the second. */
function tcCommands(port: number, leaf: string): string[] {
  return [
    "qdisc add dev lo root handle 1: htb default 1",
    "class add dev lo parent 1: classid 1:1 htb rate 10gbit",
    "class add dev lo parent 1: classid 1:2 htb rate 10gbit",
    `qdisc add dev lo parent 1:2 handle 20: ${leaf}`,
    ...["dport", "sport"].map((dir) => `filter add dev lo protocol ip parent 1: prio 1 u32 match ip ${dir} ${port} 0xffff flowid 1:2`),
  ];
}

/** can this process set up the link below in a private namespace? (root, and the kernel's
 *  htb, u32 and netem: the same commands, tried in a throw-away namespace) */
function netemUsable(): { ok: boolean; why: string } {
  if (NETNS_LEAF !== undefined) return { ok: true, why: "" };
  if (process.env["BENCH_SSH_LINK"] === "relay") return { ok: false, why: "BENCH_SSH_LINK=relay" };
  if (process.getuid?.() !== 0) return { ok: false, why: "not root (netem needs a network namespace of its own)" };
  const script = ["ip link set lo up", ...tcCommands(22, `netem delay ${DELAY_MS}ms`).map((c) => `tc ${c}`)].join(" && ");
  const r = spawnSync("unshare", ["-n", "sh", "-c", script], { encoding: "utf8", timeout: 10_000 });
  if (r.status === 0) return { ok: true, why: "" };
  // the last line: htb may warn first about its quantum
  return { ok: false, why: (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n").at(-1)! };
}

/** inside the namespace: netem's delay (or the checked leaf) on sshd's port, both ways */
function netemLink(sshd: Sshd): Link {
  for (const args of tcCommands(sshd.port, NETNS_LEAF ?? `netem delay ${DELAY_MS}ms`)) {
    const r = spawnSync("tc", args.split(" "), { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`tc ${args}: ${r.stderr.trim()}`);
  }
  return {
    kind: NETNS_LEAF === undefined ? "netem" : "no delay: netns check",
    port: sshd.port,
    describe: () =>
      NETNS_LEAF === undefined
        ? `netem delay ${DELAY_MS} ms on lo in a private network namespace, both directions of sshd's port`
        : `NO DELAY: ${NETNS_LEAF} in place of netem (BENCH_SSH_NETNS_LEAF, a check of the namespace path)`,
    close: async () => void spawnSync("tc", ["qdisc", "del", "dev", "lo", "root"]),
  };
}

async function relayLink(sshd: Sshd, why: string): Promise<Link & { relay: LatencyRelay }> {
  const relay = await startLatencyRelay({ port: sshd.port }, DELAY_MS);
  return {
    kind: "relay",
    relay,
    port: relay.port,
    describe: () =>
      `a user-space relay holding each chunk ${DELAY_MS} ms each way (no netem: ${why}); shortest hold measured ${relay.minHeldMs.toFixed(1)} ms, ${fmtBytes(relay.bytesDown)} down`,
    close: () => relay.close(),
  };
}

// ------------------------------------------------------------------------------- the runs

/** the same CLI, same home and arguments, on the far side of ssh through the link */
async function streamOverSsh(fake: FakeServer, sshd: Sshd, link: Link): Promise<StreamRun> {
  const home: BenchHome = await benchHome({ ANTHROPIC_API_KEY: STREAM_KEY });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(home.env)) if (v !== undefined) env[k] = v;
  const remote = remoteCommand(home.workspace, env, [process.execPath, ...albedoArgs(home, ["--base-url", fake.base])]);
  const a = new PtyRun({
    file: "ssh",
    args: sshArgs(sshd, remote, link.port),
    cwd: home.root,
    env: { PATH: process.env["PATH"], HOME: home.root, TERM: "xterm-256color", LANG: "C.UTF-8" },
  });
  try {
    await a.waitFor(READY, 40_000, "albedo-tui's first frame over ssh");
    a.write("say it");
    await a.waitFor("say it", 10_000, "the typed prompt over ssh");
    await a.quiet(300);
    return await timeStream(a, fake, 300);
  } finally {
    await a.stop();
    await removeDir(home.root);
  }
}

interface Pair {
  local: StreamRun;
  ssh: StreamRun;
}

const perFrame = (x: StreamRun): number => x.streamBytes / Math.max(1, x.frames);
const fps = (x: StreamRun): number => x.frames / Math.max(0.001, (x.lastVisibleMs - x.firstVisibleMs) / 1000);

/** one answer streamed both ways: a shape at full speed, or the paced stream (one word a millisecond) */
interface Case {
  name: string;
  answer: string;
  delayMs: number;
}

function chosenCases(quick: boolean): Case[] {
  const words = quick ? 2000 : 20_000;
  const env = process.env["BENCH_SSH_SHAPES"];
  const names = env ? env.split(",").map((s) => s.trim()).filter(Boolean) : quick ? ["benchmark"] : [...DEFAULT_SHAPES];
  const unknown = names.filter((n) => !(STREAM_SHAPES as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`BENCH_SSH_SHAPES: unknown shape ${unknown.join(", ")}; known: ${STREAM_SHAPES.join(", ")}`);
  const cases = (names as StreamShape[]).map((shape) => ({ name: `${shape}, ${words.toLocaleString("en-US")} words`, answer: shapedAnswer(shape, words), delayMs: 0 }));
  // A fast stream is laid out in a few frames; the frame rate shows only when words arrive
  // slower than frames are drawn, so a paced stream (as in bench/stream-shapes.ts) runs too.
  const paced = quick ? 300 : PACED_WORDS;
  cases.push({ name: `${PACED}, ${paced.toLocaleString("en-US")} words`, answer: streamAnswer(paced), delayMs: 1 });
  return cases;
}

async function measure(quick: boolean, linkFor: (sshd: Sshd) => Promise<Link>): Promise<Row[]> {
  const sshd = await startSshd();
  if (!sshd.ok) return [skipped("ssh", sshd.reason)];
  const runs = Number(process.env["BENCH_SSH_RUNS"] ?? (quick ? 1 : 3));
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "albedo-bench-ssh-"));
  let link: Link | undefined;
  const results: { name: string; pairs: Pair[] }[] = [];
  try {
    link = await linkFor(sshd);
    let warm = false;
    for (const c of chosenCases(quick)) {
      process.stderr.write(`  ssh ${c.name} × ${runs} (${link.kind})\n`);
      const fake = await FakeServer.start(c.answer, dir, c.delayMs);
      try {
        if (!warm) {
          await streamOverSsh(fake, sshd, link);
          await streamAlbedo(fake);
          warm = true;
        }
        const pairs: Pair[] = [];
        // interleaved, the order swapped each round, so a slow patch of the machine hits both
        for (let i = 0; i < runs; i++) {
          if (i % 2 === 0) {
            const local = await streamAlbedo(fake);
            pairs.push({ local, ssh: await streamOverSsh(fake, sshd, link) });
          } else {
            const ssh = await streamOverSsh(fake, sshd, link);
            pairs.push({ ssh, local: await streamAlbedo(fake) });
          }
        }
        results.push({ name: c.name, pairs });
      } finally {
        await fake.close();
      }
    }
    return rowsOf(results, link);
  } finally {
    await link?.close();
    stopSshd(sshd);
    await removeDir(dir);
  }
}

function rowsOf(results: { name: string; pairs: Pair[] }[], link: Link): Row[] {
  const ratio = (ps: Pair[], f: (x: StreamRun) => number): number => median(ps.map((p) => f(p.ssh) / f(p.local)));
  const med = (ps: Pair[], side: keyof Pair, f: (x: StreamRun) => number): number => median(ps.map((p) => f(p[side])));
  const size = `stream over SSH, ${DELAY_MS} ms each way (${link.kind})`;
  const worstOf = (f: (x: StreamRun) => number) => results.reduce((a, b) => (ratio(b.pairs, f) > ratio(a.pairs, f) ? b : a));
  const wBpf = worstOf(perFrame);
  // frames/s of a fast stream is a handful of frames over a fraction of a second: the paced one says it
  const wFps = results.find((r) => r.name.startsWith(PACED)) ?? worstOf(fps);
  const raw = Object.fromEntries(
    results.map((r) => [
      r.name,
      Object.fromEntries(
        (["local", "ssh"] as const).map((side) => [
          side,
          {
            frames: r.pairs.map((p) => p[side].frames),
            streamBytes: r.pairs.map((p) => p[side].streamBytes),
            bytes: r.pairs.map((p) => p[side].bytes),
            firstVisibleMs: r.pairs.map((p) => p[side].firstVisibleMs),
            lastVisibleMs: r.pairs.map((p) => p[side].lastVisibleMs),
            clears: r.pairs.map((p) => p[side].clears),
          },
        ]),
      ),
    ]),
  );
  const bpfR = ratio(wBpf.pairs, perFrame);
  const fpsR = ratio(wFps.pairs, fps);
  const rows: Row[] = [
    {
      benchmark: `${size}, worst case (${wBpf.name}): bytes per frame while streaming`,
      albedo: `${med(wBpf.pairs, "ssh", perFrame).toFixed(0)} B/frame`,
      floor: `${med(wBpf.pairs, "local", perFrame).toFixed(0)} B/frame local pty`,
      ratio: bpfR,
      target: `≤ ${WITHIN}× the local run's`,
      met: bpfR <= WITHIN,
      raw: { delayMs: DELAY_MS, link: link.kind, within: WITHIN, cases: raw },
      note: `link: ${link.describe()}; first visible words to the last word, at the client's end of the pty; medians of per-pair ratios, pairs interleaved`,
    },
    {
      benchmark: `${size}, ${wFps.name}: frames per second while streaming`,
      albedo: `${med(wFps.pairs, "ssh", fps).toFixed(0)} frames/s (${med(wFps.pairs, "ssh", (x) => x.frames)} frames)`,
      floor: `${med(wFps.pairs, "local", fps).toFixed(0)} frames/s (${med(wFps.pairs, "local", (x) => x.frames)} frames) local pty`,
      ratio: fpsR,
      target: `≤ ${WITHIN}× the local run's`,
      met: fpsR <= WITHIN,
    },
  ];
  for (const r of results) {
    const fig = (side: keyof Pair) =>
      `${fmtMs(med(r.pairs, side, (x) => x.lastVisibleMs))} · ${fmtBytes(med(r.pairs, side, (x) => x.bytes))} · ${med(r.pairs, side, perFrame).toFixed(0)} B/frame · ${med(r.pairs, side, fps).toFixed(0)} frames/s`;
    const b = ratio(r.pairs, perFrame);
    const f = ratio(r.pairs, fps);
    // a fast stream's few frames come as the layout's turns fall, which the machine's load moves:
    // its frame rate is a figure, the paced stream's a target
    const paced = r.name.startsWith(PACED);
    rows.push({
      benchmark: `  ssh ${r.name}: last word · total bytes · B/frame · frames/s`,
      albedo: fig("ssh"),
      floor: `${fig("local")} local`,
      ratio: paced ? Math.max(b, f) : b,
      target: paced ? `B/frame, frames/s ≤ ${WITHIN}×` : `B/frame ≤ ${WITHIN}×`,
      met: b <= WITHIN && (!paced || f <= WITHIN),
      note: `B/frame ${b.toFixed(2)}×, frames/s ${f.toFixed(2)}×, total bytes ${ratio(r.pairs, (x) => x.bytes).toFixed(2)}×, Enter → last word ${signed(median(r.pairs.map((p) => p.ssh.lastVisibleMs - p.local.lastVisibleMs)))}, first word ${signed(median(r.pairs.map((p) => p.ssh.firstVisibleMs - p.local.firstVisibleMs)))}, clears ${med(r.pairs, "ssh", (x) => x.clears)} (local ${med(r.pairs, "local", (x) => x.clears)})`,
    });
  }
  return rows;
}

function signed(ms: number): string {
  return `${ms >= 0 ? "+" : "-"}${fmtMs(Math.abs(ms))}`;
}

// ------------------------------------------------------------------------------ the entry

/** the row: in a private network namespace with netem when the kernel has it, else over the relay */
export async function benchSsh(quick: boolean): Promise<Row[]> {
  const netem = netemUsable();
  if (!netem.ok) return measure(quick, (s) => relayLink(s, netem.why));
  // everything (the fake, sshd, ssh, both CLIs) runs again inside the namespace: its loopback is not this one
  const child = spawn("unshare", ["-n", process.execPath, "--import", "tsx", fileURLToPath(import.meta.url), NETNS_FLAG, ...(quick ? ["--quick"] : [])], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const line = out.trim().split("\n").at(-1) ?? "";
  if (code !== 0 || !line.startsWith("[")) return [skipped("ssh", `the run inside the network namespace failed (exit ${code}): ${line.slice(0, 200)}`)];
  return JSON.parse(line) as Row[];
}

async function insideNetns(quick: boolean): Promise<void> {
  const up = spawnSync("ip", ["link", "set", "lo", "up"], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`ip link set lo up: ${up.stderr.trim()}`);
  const rows = await measure(quick, async (s) => netemLink(s));
  process.stdout.write(`${JSON.stringify(rows)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick");
  const main = process.argv.includes(NETNS_FLAG) ? insideNetns(quick) : benchSsh(quick).then((rows) => void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`));
  main.then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
