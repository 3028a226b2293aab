// The local API answers only requests addressed to it by its own name: a web page whose
// host name an attacker rebinds to 127.0.0.1 (DNS rebinding) reaches the port, but its
// requests carry the attacker's name in Host (and its own Origin), and are refused before
// the token could count, a second wall behind it. The built CLI (headless, --api) as a real
// process, real HTTP and raw sockets on loopback, with the real token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, startCli, waitUntil, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";
import { anthropicArgs, removeHomes, secretHits, writeFigures } from "./lib.js";

const KEY = "sk-ant-reliability-APIHOST-5e02";
let fake: FakeProvider;
let home: Home;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
});
afterAll(async () => {
  await fake.close();
  const hits = await secretHits([home.root], [KEY]);
  figures.secretsFound = hits.length;
  await writeFigures("api-host", figures);
  await removeHomes([home]);
  expect(hits).toEqual([]);
});

interface Reply {
  status: number;
  body: string;
  json: { error?: string; message?: string } | undefined;
}

/** A GET with exactly these headers; `host: null` sends no Host header at all. */
function get(port: number, urlPath: string, headers: { host?: string | null; origin?: string; token?: string }): Promise<Reply> {
  const h: Record<string, string> = {};
  if (typeof headers.host === "string") h.host = headers.host;
  if (headers.origin !== undefined) h.origin = headers.origin;
  if (headers.token !== undefined) h.authorization = `Bearer ${headers.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: urlPath, headers: h, setHost: headers.host !== null, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => {
        let json: Reply["json"];
        try {
          json = JSON.parse(body) as Reply["json"];
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body, json });
      });
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer to GET ${urlPath}`)));
    req.on("error", reject);
    req.end();
  });
}

/** Raw bytes on a socket (no client tidying): the status line and the body. */
function raw(port: number, request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let got = "";
    const sock = net.connect(port, "127.0.0.1", () => sock.write(request));
    sock.setTimeout(15_000, () => sock.destroy(new Error("no answer")));
    sock.on("data", (d: Buffer) => (got += d.toString("utf8")));
    sock.on("error", reject);
    sock.on("close", () => {
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got);
      resolve({ status: m ? Number(m[1]) : 0, body: got.slice(got.indexOf("\r\n\r\n") + 4) });
    });
  });
}

describe("the local API and the Host it is addressed by", () => {
  it("answers its own address (127.0.0.1:PORT, localhost:PORT) and refuses any other Host, a missing one, and another site's Origin", async () => {
    // the turn waits on the fake's slow answer: the API is up meanwhile
    fake.script({ text: "held open while the API is probed", delayMs: 120_000 });
    const run = startCli(["--api", "-p", "hold on", ...anthropicArgs(fake)], home);
    const said = /local API on http:\/\/127\.0\.0\.1:(\d+) \(token in (.+)\)\n/;
    await waitUntil(() => said.test(run.stderr()) || run.child.exitCode !== null, 30_000, "the API's address on stderr");
    const [, portText, tokenFile] = said.exec(run.stderr()) ?? [];
    expect(portText, run.stderr()).toBeDefined();
    const port = Number(portText);
    const token = (await fs.readFile(tokenFile!, "utf8")).trim();
    await waitUntil(() => fake.requests.length > 0, 30_000, "the turn's request");
    const store = await openStore(home.db, { readOnlyFallback: true });
    const [session] = await store.listSessions();
    await store.close();
    const ctx = `/sessions/${session!.id}/context`;

    // ---- its own address, by either name (names in any case), with the token
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const r = await get(port, "/health", { host, token });
      expect(r.status, host).toBe(200);
    }
    const own = await get(port, ctx, { host: `127.0.0.1:${port}`, token });
    expect(own.status).toBe(200);
    expect(own.body).toContain('"sections"');

    // ---- another name, also with the right port; a wrong port; no port; addresses it does not listen on
    const foreign = [
      `evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `attacker.localhost:${port}`,
      `127.0.0.2:${port}`,
      `127.1:${port}`,
      `2130706433:${port}`,
      `0.0.0.0:${port}`,
      `[::1]:${port}`,
      `127.0.0.1:${port + 1}`,
      "127.0.0.1",
      "localhost",
      "evil.example",
    ];
    let hostsRefused = 0;
    for (const host of foreign) {
      for (const p of ["/health", ctx]) {
        const r = await get(port, p, { host, token });
        expect(r.status, `${host} ${p}`).toBe(421);
        expect(r.json, host).toMatchObject({ error: "misdirected_request" });
        expect(r.json?.message, host).toMatch(new RegExp(`answers only to Host 127\\.0\\.0\\.1:${port} or localhost:${port}`));
        // nothing of the session leaves
        expect(r.body, host).not.toContain('"sections"');
        expect(r.body).not.toContain(token);
        hostsRefused++;
      }
    }
    // without the token too: the Host is refused first, and nothing is ever served
    expect((await get(port, "/health", { host: `evil.example:${port}` })).status).toBe(421);
    expect((await get(port, "/health", { host: `127.0.0.1:${port}` })).status).toBe(401);

    // ---- no Host header at all: node's client without it, and HTTP/1.0 and /1.1 on a raw socket
    const none = await get(port, "/health", { host: null, token });
    expect(none.status).toBe(421);
    expect(none.json).toMatchObject({ error: "misdirected_request" });
    expect(none.json?.message).toContain("no Host header");
    for (const version of ["1.0", "1.1"]) {
      const r = await raw(port, `GET /health HTTP/${version}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
      expect(r.status, version).toBe(421);
      expect(r.body, version).toContain("no Host header");
    }
    const empty = await raw(port, `GET /health HTTP/1.1\r\nHost: \r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(empty.status).toBe(421);
    // two Host headers, the first one right: refused, not read as the first alone
    const twice = await raw(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example:${port}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(twice.status).toBe(421);
    expect(twice.body).toContain("2 Host headers");

    // ---- Origin: absent or its own is served; any other is refused
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      expect((await get(port, ctx, { host: `127.0.0.1:${port}`, origin, token })).status, origin).toBe(200);
    }
    const otherOrigins = [`http://evil.example:${port}`, "null", `https://127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`, `http://127.0.0.1:${port}.evil.example`, "http://127.0.0.1"];
    let originsRefused = 0;
    for (const origin of otherOrigins) {
      const r = await get(port, ctx, { host: `127.0.0.1:${port}`, origin, token });
      expect(r.status, origin).toBe(403);
      expect(r.json, origin).toMatchObject({ error: "forbidden_origin" });
      expect(r.body, origin).not.toContain('"sections"');
      originsRefused++;
    }

    figures.hostsTried = foreign.length * 2;
    figures.hostsRefused = hostsRefused;
    figures.originsTried = otherOrigins.length;
    figures.originsRefused = originsRefused;

    // the run itself is unharmed, and ends on the signal as a headless run does
    expect(run.child.exitCode).toBeNull();
    run.child.kill("SIGTERM");
    const end = await run.done;
    expect(end.code).toBe(143);
    expect(end.stderr).not.toContain("could not be worked out");
    await expect(fs.stat(tokenFile!)).rejects.toThrow(/ENOENT/);
  }, 90_000);
});
