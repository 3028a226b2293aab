// The local API under load and under attack, served by a real TUI in a pty while it streams.
// 500 concurrent GETs while a turn streams: every one answered, the stream keeps drawing.
// Then, with no turn writing, 1,000 malformed requests (bad tokens, methods, ids, encoded
// "..", a Host or Origin not the API's own, 1 MB headers, protocol garbage, half requests
// left hanging): every one answered 4xx
// or dropped by the server, the process still up, the database byte for byte the same, and
// the port bound on 127.0.0.1 only. All traffic goes to 127.0.0.1, bounded in count and time.
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, waitUntil, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { anthropicArgs, dbState, expectUnchanged, removeHomes, secretHits, sleep, writeFigures } from "./lib.js";

const KEY = "sk-ant-reliability-APIATTACK-9b71";
const CONCURRENT_GETS = 500;
const MALFORMED = 1000;
const HALF_REQUESTS = 30; // of the 1,000: sockets that never finish their request
const IN_FLIGHT = 50;

let fake: FakeProvider | undefined;
let home: Home | undefined;
let tui: PtySession | undefined;
const figures: Record<string, unknown> = {};

afterAll(async () => {
  tui?.kill();
  await fake?.close();
  const hits = home ? await secretHits([home.root], [KEY]) : [];
  figures.secretsFound = hits.length;
  await writeFigures("api-attack", figures);
  if (home) await removeHomes([home]);
  expect(hits).toEqual([]);
});

interface Reply {
  status: number;
  body: string;
}

function get(port: number, urlPath: string, token: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: urlPath, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer to GET ${urlPath}`)));
    req.on("error", reject);
    req.end();
  });
}

type Outcome = { kind: "status"; status: number } | { kind: "dropped" } | { kind: "hung" };

/**
 * Sends raw bytes (the server sees exactly what is written, no client-side tidying) and reports
 * the status line, or that the server closed the socket without one, or that nothing
 * happened before the deadline. `drip` sends the bytes one every `drip` ms.
 */
function raw(port: number, data: Buffer | string, opts: { deadlineMs?: number; drip?: number } = {}): Promise<Outcome> {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, "latin1");
  return new Promise((resolve) => {
    let got = "";
    let done = false;
    const sock = net.connect(port, "127.0.0.1");
    const finish = (o: Outcome): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearInterval(dripper);
      sock.destroy();
      resolve(o);
    };
    const deadline = setTimeout(() => finish({ kind: "hung" }), opts.deadlineMs ?? 15_000);
    let dripper: NodeJS.Timeout | undefined;
    sock.on("connect", () => {
      if (!opts.drip) {
        sock.write(bytes, () => undefined);
        return;
      }
      let i = 0;
      dripper = setInterval(() => {
        if (i < bytes.length && !sock.destroyed) sock.write(bytes.subarray(i, ++i));
      }, opts.drip);
    });
    sock.on("data", (d: Buffer) => {
      got += d.toString("latin1");
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got);
      if (m) finish({ kind: "status", status: Number(m[1]) });
    });
    // a reset while we were still writing (431 sent early, then the socket closed) is a drop
    sock.on("error", () => finish({ kind: "dropped" }));
    sock.on("close", () => finish({ kind: "dropped" }));
  });
}

/** The malformed requests, in families; each a function of the real token and session id. */
function malformed(token: string, id: string, sections: number, port: number): ((port: number) => Promise<Outcome>)[] {
  const req = (line: string, headers: string[] = [], body = ""): string => `${line}\r\n${[...headers, "Connection: close"].join("\r\n")}\r\n\r\n${body}`;
  const auth = `Authorization: Bearer ${token}`;
  // the API's own address: each family below is refused for its own fault, not for its Host
  const host = `Host: 127.0.0.1:${port}`;
  const ok = `/sessions/${id}/context`;
  const out: ((port: number) => Promise<Outcome>)[] = [];
  const send = (data: string | Buffer) => (port: number) => raw(port, data);

  // tokens: missing, wrong, near misses, wrong schemes, in the wrong place
  for (const h of [
    [],
    ["Authorization: Bearer wrong"],
    [`Authorization: Bearer ${token.slice(1)}`],
    [`Authorization: Bearer ${token}x`],
    [`Authorization: Bearer ${token.toUpperCase()}`],
    [`Authorization: Basic ${Buffer.from(`user:${token}`).toString("base64")}`],
    [`Authorization: Token ${token}`],
    [`Authorization: Bearer ${token} ${token}`],
    [`Authorization: ${token}`],
    [`Authorization: Bearer`],
    [`X-Authorization: Bearer ${token}`],
    [`Cookie: token=${token}`],
  ]) {
    for (const p of ["/health", ok, `${ok}/0/0`]) out.push(send(req(`GET ${p} HTTP/1.1`, [host, ...h])));
  }
  out.push(send(req(`GET /health?token=${token} HTTP/1.1`, [host])));
  // methods other than GET, with the right token
  for (const m of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "FOO", "get"]) {
    for (const p of ["/health", ok, `${ok}/0/0`]) {
      out.push(send(req(`${m} ${p} HTTP/1.1`, [host, auth, "Content-Length: 13"], '{"x":"write"}')));
    }
  }
  out.push(send(req("CONNECT 127.0.0.1:22 HTTP/1.1", ["Host: 127.0.0.1:22", auth])));
  // ids, sections, pages and traversal, with the right token
  const paths = [
    "/sessions/../context",
    "/sessions/%2e%2e/context",
    "/sessions/%2E%2e/context/0/0",
    "/sessions/.%2e/context",
    "/sessions/..%2f..%2fetc%2fpasswd/context",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/..%2f..%2f..%2fetc%2fpasswd",
    "/%252e%252e/%252e%252e/etc/passwd",
    "/sessions/%252e%252e/context",
    `${ok}/../../../../etc/passwd`,
    `${ok}/0/%2e%2e`,
    "/health/../sessions",
    "/..;/health",
    "/sessions/..\\..\\etc\\passwd/context",
    "/sessions/%5c..%5c/context",
    `/sessions/${id}%2fcontext`,
    `/sessions/${id}/context%2f0%2f0`,
    `/sessions/${id}%00/context`,
    `/sessions/${"a".repeat(65)}/context`,
    "/sessions/ab$cd/context",
    "/sessions/ab%20cd/context",
    "/sessions/%ff%fe/context",
    "/sessions/%/context",
    "/sessions/zzzzzzzzzzzz/context",
    "/sessions/zzzzzzzzzzzz/context/0/0",
    `${ok}/-1/0`,
    `${ok}/0/-1`,
    `${ok}/1.5/0`,
    `${ok}/1e3/0`,
    `${ok}/01/0`,
    `${ok}/0x1/0`,
    `${ok}/999999999999999999999/0`,
    `${ok}/0/99999`,
    `${ok}/${sections}/0`,
    `${ok}/0`,
    `${ok}/0/0/0`,
    `${ok}/ /0`,
    `/sessions/${id}`,
    "/sessions",
    "/sessions/",
    "/",
    "//health",
    "/health/",
    "/HEALTH",
    "/health%00",
    "/health;x",
    "http://127.0.0.1/health",
    "*",
    "/\u00e9t\u00e9",
  ];
  for (const p of paths) out.push(send(req(`GET ${p} HTTP/1.1`, [host, auth])));
  // with the right token, addressed as a rebound name would address it, or from another site
  for (const h of [
    [`Host: evil.example:${port}`],
    [`Host: localhost.evil.example:${port}`],
    ["Host: 127.0.0.1"],
    [`Host: 127.0.0.1:${port + 1}`],
    [],
    [host, `Host: evil.example:${port}`],
    [host, `Origin: http://evil.example:${port}`],
    [host, "Origin: null"],
  ]) {
    for (const p of ["/health", ok, `${ok}/0/0`]) out.push(send(req(`GET ${p} HTTP/1.1`, [...h, auth])));
  }
  // protocol garbage (no valid token, so a lenient parser still ends in 401)
  for (const g of [
    "GARBAGE\r\n\r\n",
    "\x00\x01\x02\x03\xff\xfe\r\n\r\n",
    "GET /health HTTP/9.9\r\n\r\n",
    "GET /health\r\n\r\n",
    "GET  /health  HTTP/1.1\r\n\r\n",
    "GET /health HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
    "GET /health HTTP/1.1\r\nX-Nul: a\x00b\r\n\r\n",
    "GET /health HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
    "GET /health HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
    "GET /health HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
    "GET /health HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    "GET /health HTTP/1.1\nHost: x\n\n",
    "\r\n\r\n\r\n",
    `GET /health HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n Folded: continuation\r\n\r\n`,
  ]) {
    out.push(send(g));
  }
  return out;
}

/** The heavy ones, kept few: a 1 MB header and a 1 MB URL, each with the right token. */
function huge(token: string): ((port: number) => Promise<Outcome>)[] {
  const mb = "a".repeat(1024 * 1024);
  return [
    (port) => raw(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nX-Big: ${mb}\r\n\r\n`),
    (port) => raw(port, `GET /health?${mb} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`),
    (port) => raw(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n${"X-H: v\r\n".repeat(20_000)}\r\n`),
  ];
}

/** Half requests: a request that never ends, sent at once or a byte a second. */
function halves(token: string): ((port: number) => Promise<Outcome>)[] {
  const head = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`;
  const out: ((port: number) => Promise<Outcome>)[] = [];
  for (let i = 0; i < HALF_REQUESTS; i++) {
    if (i % 3 === 0) out.push((port) => raw(port, head.slice(0, 10 + i), { deadlineMs: 25_000 }));
    else if (i % 3 === 1) out.push((port) => raw(port, head, { deadlineMs: 25_000 }));
    // a byte a second: never silent, never finished
    else out.push((port) => raw(port, head + "X-Slow: " + "s".repeat(100), { deadlineMs: 25_000, drip: 1000 }));
  }
  return out;
}

async function pool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

/** Listening sockets on a port from the kernel's own tables, as "addr:port" in hex. */
async function listeners(port: number): Promise<string[]> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const found: string[] = [];
  for (const f of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await fs.readFile(f, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      if (local && local.endsWith(`:${hexPort}`) && cols[3] === "0A") found.push(`${path.basename(f)} ${local}`);
    }
  }
  return found;
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const t = setTimeout(() => (s.destroy(), resolve(false)), 3_000);
    s.on("connect", () => (clearTimeout(t), s.destroy(), resolve(true)));
    s.on("error", () => (clearTimeout(t), resolve(false)));
  });
}

const WORDS = Array.from({ length: 600 }, (_, i) => `w${String(i).padStart(4, "0")}`).join(" ") + " STREAM-END";

function lastWord(rawOut: string): number {
  let max = -1;
  for (const m of rawOut.matchAll(/w(\d{4})/g)) max = Math.max(max, Number(m[1]));
  return max;
}

describe("the local API under load and attack", () => {
  it(
    "answers 500 concurrent GETs while a turn streams, rejects 1,000 malformed requests, changes nothing, listens on 127.0.0.1 only",
    async () => {
      fake = await startFakeProvider({ key: KEY });
      home = await makeHome({ ANTHROPIC_API_KEY: KEY });
      const h = home;
      fake.script({ text: WORDS, delayMs: 20, wordsPerEvent: 2 }, { text: "After the attack: still here." });
      tui = spawnPty(process.execPath, [CLI, "--api", ...anthropicArgs(fake)], { cols: 120, rows: 30, cwd: h.workspace, env: { ...h.env, TERM: "xterm-256color" } });
      const t = tui;
      await t.waitFor("Type a request", 20_000);
      // the screen says where the API is (a line on stderr would be covered by the screen)
      await t.waitFor(/Local API on http:\/\/127\.0\.0\.1:\d+ \(token in/, 20_000);
      const port = Number(/Local API on http:\/\/127\.0\.0\.1:(\d+)/.exec(t.screenText())![1]);
      const tokenFile = path.join(h.env.XDG_STATE_HOME as string, "albedo", `api-token-${port}`);
      expect(t.screenText()).toContain(`api-token-${port}`);
      expect((await fs.stat(tokenFile)).mode & 0o777).toBe(0o600);
      const token = (await fs.readFile(tokenFile, "utf8")).trim();
      // the session's id as /api gives it (the record lists no session before its first message)
      t.send("/api");
      await t.waitFor("› /api");
      t.send(KEYS.enter);
      await t.waitFor(/this one is [A-Za-z0-9_-]+/, 20_000);
      const id = /this one is ([A-Za-z0-9_-]+)/.exec(t.screenText())![1]!;

      // ---- a turn streams; 500 GETs at once
      t.send("stream a long answer");
      await t.waitFor("stream a long answer");
      t.send(KEYS.enter);
      await waitUntil(() => lastWord(t.rawOutput()) >= 5, 20_000, "the stream to start drawing");
      const view = await get(port, `/sessions/${id}/context`, token);
      expect(view.status).toBe(200);
      const sections = (JSON.parse(view.body) as { sections: { index: number; pages: number }[] }).sections;
      const paths: string[] = [];
      for (let i = 0; i < CONCURRENT_GETS; i++) {
        const s = sections[i % sections.length]!;
        paths.push(i % 5 === 0 ? "/health" : i % 5 === 1 ? `/sessions/${id}/context` : `/sessions/${id}/context/${s.index}/${i % s.pages}`);
      }
      const wordBefore = lastWord(t.rawOutput());
      const replies = await Promise.all(paths.map((p) => get(port, p, token).catch((e: Error) => ({ status: 0, body: e.message }))));
      const wordAfter = lastWord(t.rawOutput());
      const answered = replies.filter((r) => r.status === 200).length;
      figures.concurrentGets = CONCURRENT_GETS;
      figures.concurrentAnswered = answered;
      figures.streamWordsDuringBurst = wordAfter - wordBefore;
      expect(replies.filter((r) => r.status !== 200).slice(0, 3)).toEqual([]);
      expect(answered).toBe(CONCURRENT_GETS);
      // the pages served are the capture's real pages
      expect(replies.find((r, i) => paths[i]!.endsWith("/0/0"))?.body).toContain('"page":0');
      // the frames kept coming while the API was busy
      expect(wordAfter).toBeGreaterThan(wordBefore);
      await t.waitFor("STREAM-END", 30_000);
      await t.waitFor(/ idle /, 10_000);
      expect(fake.rejections()).toEqual([]);

      // ---- no turn writes now: the attack
      await sleep(300);
      // the app's own lease heartbeat may land during the attack (every 15 s, under load the
      // turn ends late enough for one to): the rows but the heartbeat must stay as they were
      const before = await dbState(h.db);
      const jobs = [...halves(token), ...huge(token)];
      const quick = malformed(token, id, sections.length, port);
      while (jobs.length < MALFORMED) jobs.push(quick[(jobs.length - HALF_REQUESTS) % quick.length]!);
      const outcomes = await pool(
        jobs.map((j) => () => j(port)),
        IN_FLIGHT + HALF_REQUESTS,
      );
      const tally = { rejected4xx: 0, dropped: 0, other: [] as string[] };
      outcomes.forEach((o, i) => {
        if (o.kind === "status" && o.status >= 400 && o.status < 500) tally.rejected4xx++;
        else if (o.kind === "dropped") tally.dropped++;
        else tally.other.push(`#${i}: ${o.kind === "status" ? o.status : o.kind}`);
      });
      const halfOutcomes = outcomes.slice(0, HALF_REQUESTS);
      figures.malformed = outcomes.length;
      figures.malformedRejected4xx = tally.rejected4xx;
      figures.malformedDropped = tally.dropped;
      figures.malformedOther = tally.other;
      figures.halfRequestsCutOff = halfOutcomes.filter((o) => o.kind !== "hung").length;
      expect(outcomes).toHaveLength(MALFORMED);
      expect(tally.other).toEqual([]);
      expect(tally.rejected4xx + tally.dropped).toBe(MALFORMED);
      // the half requests were cut off by the server (408 or closed), none left hanging
      expect(halfOutcomes.filter((o) => o.kind === "hung")).toEqual([]);

      // ---- still up, nothing changed
      expect(t.hasExited()).toBe(false);
      expect((await get(port, "/health", token)).status).toBe(200);
      const after = await dbState(h.db);
      figures.dbUnchanged = after.rows === before.rows && (after.beats !== before.beats || after.bytes === before.bytes);
      expectUnchanged(before, after);

      // ---- bound on 127.0.0.1 only
      const bound = await listeners(port);
      figures.listeners = bound;
      expect(bound.length).toBeGreaterThan(0);
      expect(bound.every((b) => b === `tcp 0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`)).toBe(true);
      const others = Object.values(os.networkInterfaces())
        .flat()
        .filter((a): a is os.NetworkInterfaceInfo => !!a && !a.internal && a.family === "IPv4")
        .map((a) => a.address);
      const reachable: string[] = [];
      for (const addr of [...others, "::1"]) if (await connects(addr, port)) reachable.push(addr);
      figures.nonLoopbackTried = [...others, "::1"];
      figures.loopbackOnly = reachable.length === 0 && bound.length > 0;
      expect(reachable).toEqual([]);

      // ---- and the app still works: another turn
      t.send("are you still there?");
      await t.waitFor("are you still there?");
      t.send(KEYS.enter);
      await t.waitFor("After the attack: still here.", 20_000);
      expect(fake.rejections()).toEqual([]);
      t.send(KEYS.ctrl("c"));
      await t.waitFor("again to quit");
      t.send(KEYS.ctrl("c"));
      expect((await t.exited()).exitCode).toBe(0);
      // the token dies with the server
      await expect(fs.stat(tokenFile)).rejects.toThrow();
    },
    150_000,
  );
});
