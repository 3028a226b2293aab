// Real HTTP against the real server over the real SQLite store. Requests go out through
// node:http with the path exactly as written, so "..", "%2e%2e" and the like reach the
// server unnormalised (fetch would resolve dot segments before sending).
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiConnectionCap, MAX_API_CONNECTIONS, startApiServer, type ApiServer } from "../../src/context/api/server.js";
import { captureRequest } from "../../src/context/capture.js";
import type { Capture } from "../../src/context/types.js";
import type { Request } from "../../src/provider/types.js";
import { openStore } from "../../src/session/store/store.js";
import type { HistoryStore } from "../../src/session/store/types.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";

const tempDir = (prefix: string): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), prefix));

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: unknown;
}

function call(
  port: number,
  rawPath: string,
  opts: { method?: string; token?: string | null; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const req = http.request(
      { host: "127.0.0.1", port, path: rawPath, method: opts.method ?? "GET", headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
      },
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

async function hashDb(file: string): Promise<string> {
  const h = createHash("sha256");
  // the WAL holds committed pages until a checkpoint, so it is part of the state too
  for (const f of [file, `${file}-wal`]) {
    try {
      h.update(await fs.readFile(f));
    } catch {
      h.update(`(no ${path.basename(f)})`);
    }
  }
  return h.digest("hex");
}

function bigRequest(): Request {
  const img = randomBytes(30_000).toString("base64");
  return {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    system: "You are albedo.",
    context: [{ source: "AGENTS.md", text: "Be careful. ✓" }],
    history: [
      { role: "user", content: [{ type: "text", text: "look 😀 ".repeat(3000) }] },
      { role: "user", content: [{ type: "image", mediaType: "image/png", data: img, bytes: 30_000, width: 64, height: 64 }] },
    ],
    // signed reasoning can only be in the live round
    live: [
      {
        role: "assistant",
        content: [{ type: "reasoning", text: "hmm", opaque: { kind: "thinking_signature", body: "SIG".repeat(300) } }],
      },
    ],
    tools: [{ name: "read", description: "Read a file", inputSchema: { type: "object", properties: {} } }],
    maxOutputTokens: 1024,
    reasoning: "low",
  };
}

describe("local API over the real store", () => {
  let dir: string;
  let dbFile: string;
  let tokenFile: string;
  let store: HistoryStore;
  let server: ApiServer;
  let token: string;
  let capture: Capture;
  let current: string;
  let pendingId: string;
  let freshId: string;
  let hashBefore: string;

  beforeAll(async () => {
    dir = await tempDir("albedo-api-");
    dbFile = path.join(dir, "history.sqlite");
    tokenFile = path.join(dir, "state", "albedo", "api-token");
    store = await openStore(dbFile);

    const a = await store.createSession({ workspace: dir, title: "with a capture" });
    const b = await store.createSession({ workspace: dir, title: "pending" });
    const c = await store.createSession({ workspace: dir, title: "never sent" });
    current = a.id;
    pendingId = b.id;
    freshId = c.id;
    capture = captureRequest(bigRequest(), { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z" });
    await store.saveCapture(a.id, capture);
    await store.saveCapture(b.id, capture);
    await store.setPending(b.id, "model switched to gpt-4o");

    server = await startApiServer({ store, tokenFile, version: "9.9.9-test" });
    token = (await fs.readFile(tokenFile, "utf8")).trim();
    hashBefore = await hashDb(dbFile);
  });

  afterAll(async () => {
    await server?.close();
    await store?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 and writes a 0600 token file in a 0700 folder", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const st = await fs.stat(tokenFile);
    expect(st.mode & 0o777).toBe(0o600);
    const dst = await fs.stat(path.dirname(tokenFile));
    expect(dst.mode & 0o777).toBe(0o700);
  });

  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
  it.skipIf(!external)("is not reachable on the machine's other addresses", async () => {
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: external!, port: server.port });
      s.once("connect", () => {
        s.destroy();
        resolve(false);
      });
      s.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
  });

  it("GET /health names the session_context and extensions capabilities", async () => {
    const r = await call(server.port, "/health", { token });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(r.json).toEqual({ status: "ok", capabilities: ["session_context", "extensions"], version: "9.9.9-test" });
  });

  it("GET /sessions/:id/context gives the metadata and ordered summaries, numbered from 0 and saying so", async () => {
    const r = await call(server.port, `/sessions/${current}/context`, { token });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ state: "current", meta: capture.meta, sections: capture.sections, numbering: "zero-based" });
    expect(capture.sections[0]).toMatchObject({ index: 0, kind: "system" });
    // summaries only: no page text, no image body
    expect(r.body.length).toBeLessThan(4000);
  });

  it("GET /sessions/:id/context/:section/:page gives every page of every section", async () => {
    for (const s of capture.sections) {
      const texts: string[] = [];
      for (let p = 0; p < s.pages; p++) {
        const r = await call(server.port, `/sessions/${current}/context/${s.index}/${p}`, { token });
        expect(r.status).toBe(200);
        expect(r.json).toEqual({ section: s.index, page: p, pages: s.pages, text: capture.pages[s.index]![p], numbering: "zero-based" });
        texts.push((r.json as { text: string }).text);
      }
      expect(texts.join("").length).toBe(s.chars);
    }
    const history = capture.sections.find((s) => s.kind === "history")!;
    expect(history.pages).toBeGreaterThan(1);
  });

  it("reports pending sessions as pending, and their pages as 409", async () => {
    const b = await call(server.port, `/sessions/${pendingId}/context`, { token });
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ state: "pending", reason: "model switched to gpt-4o" });
    const c = await call(server.port, `/sessions/${freshId}/context`, { token });
    expect(c.json).toMatchObject({ state: "pending" });
    const page = await call(server.port, `/sessions/${pendingId}/context/0/0`, { token });
    expect(page.status).toBe(409);
    expect(page.json).toMatchObject({ error: "pending", reason: "model switched to gpt-4o" });
  });

  it("404s unknown sessions, sections and pages with a JSON error", async () => {
    const cases: Array<[string, string]> = [
      ["/sessions/nosuchsession/context", "no_such_session"],
      ["/sessions/nosuchsession/context/0/0", "no_such_session"],
      [`/sessions/${current}/context/${capture.sections.length}/0`, "no_such_section"],
      [`/sessions/${current}/context/0/1`, "no_such_page"],
      [`/sessions/${current}/context/3/999999999999999`, "no_such_page"],
    ];
    for (const [p, code] of cases) {
      const r = await call(server.port, p, { token });
      expect(r.status, p).toBe(404);
      expect(r.json, p).toMatchObject({ error: code, message: expect.any(String) });
    }
    // the message names the valid range, zero-based as the route is
    const n = capture.sections.length;
    const section = await call(server.port, `/sessions/${current}/context/${n}/0`, { token });
    expect((section.json as { message: string }).message).toBe(`no section ${n}; sections are 0–${n - 1} (zero-based)`);
    const page = await call(server.port, `/sessions/${current}/context/0/1`, { token });
    expect((page.json as { message: string }).message).toBe("no page 1 in section 0; its pages are 0 (zero-based)");
  });

  it("400s section and page ids that are not plain non-negative integers", async () => {
    for (const bad of ["-1", "1.5", "abc", "1e3", "01", "+1", "%20", "0x1", "1234567890123456"]) {
      const page = await call(server.port, `/sessions/${current}/context/0/${bad}`, { token });
      expect(page.status, bad).toBe(400);
      expect(page.json, bad).toMatchObject({ error: "bad_page" });
      const section = await call(server.port, `/sessions/${current}/context/${bad}/0`, { token });
      expect(section.status, bad).toBe(400);
      expect(section.json, bad).toMatchObject({ error: "bad_section" });
    }
    for (const bad of ["x".repeat(65), "a%20b", "a.b", "%C3%A9"]) {
      const r = await call(server.port, `/sessions/${bad}/context`, { token });
      expect(r.status, bad).toBe(400);
      expect(r.json, bad).toMatchObject({ error: "bad_session_id" });
    }
  });

  it("400s an empty, blank or control-character session id with a sentence naming the problem, the characters escaped", async () => {
    const cases: Array<[string, string]> = [
      // an unset $ID in a curl line
      ["/sessions//context", "the session id is empty"],
      ["/sessions//context/0/0", "the session id is empty"],
      ["/sessions/%20%20/context", 'the session id "  " is only whitespace'],
      ["/sessions/%09/context/0/0", 'the session id "\\t" is only whitespace'],
      ["/sessions/ab%1B%5B2Jcd/context", 'the session id "ab\\u001b[2Jcd" holds a control character (\\u001b)'],
      ["/sessions/x%C2%9B6n/context", 'the session id "x\\u009b6n" holds a control character (\\u009b)'],
      ["/sessions/a%00b%7Fc/context", 'the session id "a\\u0000b\\u007fc" holds control characters (\\u0000, \\u007f)'],
    ];
    for (const [p, sentence] of cases) {
      const r = await call(server.port, p, { token });
      expect(r.status, p).toBe(400);
      expect(r.json, p).toMatchObject({ error: "bad_session_id" });
      expect((r.json as { message: string }).message, p).toBe(`${sentence}; a session id must be 1-64 of A-Z a-z 0-9 _ -`);
      // the body holds no control character, raw or as JSON would write it raw
      expect(r.body, p).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
  });

  it("404s dot segments, raw or percent-encoded, encoded slashes and unknown routes", async () => {
    const paths = [
      "/sessions/../health",
      `/sessions/${current}/context/../context`,
      `/sessions/${current}/context/0/..`,
      "/%2e%2e/health",
      "/sessions/%2E%2E/context",
      "/sessions/.%2e/context",
      `/sessions/${current}/%2e%2e/%2e%2e/health`,
      `/sessions/${current}%2Fcontext/context`,
      "/sessions/./context",
      "/",
      "/health/",
      "//health",
      "/healthz",
      "/sessions",
      `/sessions/${current}`,
      `/sessions/${current}/context/0`,
      `/sessions/${current}/context/0/0/extra`,
      `/sessions/${current}/pages/0/0`,
    ];
    for (const p of paths) {
      const r = await call(server.port, p, { token });
      expect(r.status, p).toBe(404);
      expect(r.json, p).toMatchObject({ error: "not_found" });
    }
  });

  it("401s a missing or wrong token before anything else, without echoing the token", async () => {
    const variants: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${"0".repeat(64)}` },
      { authorization: `Bearer ${token}x` },
      { authorization: `Bearer ${token.slice(0, 63)}` },
      { authorization: `Basic ${Buffer.from(`u:${token}`).toString("base64")}` },
      { authorization: token },
      { authorization: "Bearer" },
    ];
    for (const headers of variants) {
      for (const p of ["/health", `/sessions/${current}/context`, "/no/such/route", "/sessions/../health"]) {
        const r = await call(server.port, p, { headers });
        expect(r.status, `${p} ${JSON.stringify(headers)}`).toBe(401);
        expect(r.json).toMatchObject({ error: "unauthorized" });
        expect(r.body).not.toContain(token);
      }
    }
    const post = await call(server.port, "/health", { method: "POST" });
    expect(post.status).toBe(401);
  });

  it("405s other methods with Allow: GET", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]) {
      for (const p of ["/health", `/sessions/${current}/context`, `/sessions/${current}/context/0/0`]) {
        const r = await call(server.port, p, {
          method,
          token,
          headers: { "content-type": "application/json" },
          ...(method === "HEAD" || method === "OPTIONS" ? {} : { body: '{"state":"pending"}' }),
        });
        expect(r.status, `${method} ${p}`).toBe(405);
        expect(r.headers.allow).toBe("GET");
        if (method !== "HEAD") expect(r.json).toMatchObject({ error: "method_not_allowed" });
      }
    }
  });

  it("refuses oversized headers (node answers 431)", async () => {
    const r = await call(server.port, "/health", { token, headers: { "x-filler": "a".repeat(20_000) } });
    expect(r.status).toBe(431);
  });

  it("changed nothing: the database files hash the same and the view is the same", async () => {
    expect(await hashDb(dbFile)).toBe(hashBefore);
    expect(await store.inspectorView(current)).toEqual({ state: "current", meta: capture.meta, sections: capture.sections });
    expect(await store.inspectorView(pendingId)).toMatchObject({ state: "pending" });
  });
});

describe("connection cap", () => {
  it("is a quarter of the open-file limit, at most 512", async () => {
    const limits = await fs.readFile("/proc/self/limits", "utf8");
    const soft = Number(/^Max open files\s+(\d+)/m.exec(limits)![1]);
    expect(apiConnectionCap()).toBe(Math.max(8, Math.min(MAX_API_CONNECTIONS, Math.floor(soft / 4))));
  });

  it("closes connections past the cap as they arrive, keeps serving, and serves again once they go", async () => {
    const dir = await tempDir("albedo-api-");
    const store = await openStore(path.join(dir, "h.sqlite"));
    const server = await startApiServer({ store, tokenFile: path.join(dir, "tok"), maxConnections: 4 });
    const tok = (await fs.readFile(path.join(dir, "tok"), "utf8")).trim();
    const sockets: net.Socket[] = [];
    try {
      // 40 idle connections (a flood sends nothing): the server keeps 4 (until its header
      // timeout, seconds away) and closes the other 36 as they arrive
      let closed = 0;
      await Promise.all(
        Array.from(
          { length: 40 },
          () =>
            new Promise<void>((resolve) => {
              const s = net.connect(server.port, "127.0.0.1");
              sockets.push(s);
              s.on("connect", () => resolve());
              s.on("close", () => {
                closed++;
                resolve();
              });
              s.on("error", () => undefined);
            }),
        ),
      );
      await waitFor(async () => closed >= 36);
      expect(closed).toBe(36);
      expect(sockets.filter((s) => !s.destroyed && s.readyState === "open")).toHaveLength(4);
      for (const s of sockets) s.destroy();
      // once they are gone, a real request is served
      await waitFor(async () => (await call(server.port, "/health", { token: tok }).catch(() => ({ status: 0 }))).status === 200);
    } finally {
      for (const s of sockets) s.destroy();
      await server.close();
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("gave up waiting");
}

describe("token file and lifecycle", () => {
  it("rewrites an existing token file with mode 0600, and removes it on close", async () => {
    const dir = await tempDir("albedo-api-");
    const store = await openStore(path.join(dir, "h.sqlite"));
    const tokenFile = path.join(dir, "api-token");
    await fs.writeFile(tokenFile, "old-token\n", { mode: 0o644 });
    await fs.chmod(tokenFile, 0o644);
    try {
      const server = await startApiServer({ store, tokenFile });
      const tok = (await fs.readFile(tokenFile, "utf8")).trim();
      expect(tok).not.toBe("old-token");
      expect((await fs.stat(tokenFile)).mode & 0o777).toBe(0o600);
      const old = await call(server.port, "/health", { token: "old-token" });
      expect(old.status).toBe(401);
      const health = await call(server.port, "/health", { token: tok });
      expect(health.status).toBe(200);
      expect((health.json as { version: string }).version).toMatch(/^\d+\.\d+\.\d+/);
      await server.close();
      await expect(fs.stat(tokenFile)).rejects.toThrow();
      await expect(call(server.port, "/health", { token: tok })).rejects.toThrow();
      // closing twice is harmless
      await server.close();
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("two instances at once: one token file each, named by port; closing one leaves the other's", async () => {
    const dir = await tempDir("albedo-api-");
    const store = await openStore(path.join(dir, "h.sqlite"));
    const stateDir = path.join(dir, "state");
    const perPort = (port: number): string => path.join(stateDir, `api-token-${port}`);
    const a = await startApiServer({ store, tokenFile: perPort });
    const b = await startApiServer({ store, tokenFile: perPort });
    try {
      expect(a.tokenFile).toBe(perPort(a.port));
      expect(b.tokenFile).toBe(perPort(b.port));
      expect(a.tokenFile).not.toBe(b.tokenFile);
      const ta = (await fs.readFile(a.tokenFile, "utf8")).trim();
      const tb = (await fs.readFile(b.tokenFile, "utf8")).trim();
      expect(ta).not.toBe(tb);
      expect((await call(a.port, "/health", { token: ta })).status).toBe(200);
      expect((await call(b.port, "/health", { token: tb })).status).toBe(200);
      expect((await call(a.port, "/health", { token: tb })).status).toBe(401);
      await a.close();
      await expect(fs.stat(a.tokenFile)).rejects.toThrow();
      expect((await fs.readFile(b.tokenFile, "utf8")).trim()).toBe(tb);
      expect((await call(b.port, "/health", { token: tb })).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("removes its token file when the process exits without close()", async () => {
    const dir = await tempDir("albedo-api-");
    const script = path.join(dir, "exit.mts");
    await fs.writeFile(
      script,
      `const { startApiServer } = await import(process.argv[2]);
const { openStore } = await import(process.argv[3]);
const store = await openStore(process.argv[4] + "/h.sqlite");
const s = await startApiServer({ store, tokenFile: (p) => process.argv[4] + "/api-token-" + p });
process.stdout.write(s.tokenFile);
process.exit(3); // as a fatal error's handler does
`,
    );
    const tsx = path.resolve(import.meta.dirname, "../../node_modules/tsx/dist/esm/index.mjs");
    const src = (f: string): string => path.resolve(import.meta.dirname, "../../src", f);
    try {
      const r = spawnSync(process.execPath, ["--import", tsx, script, src("context/api/server.ts"), src("session/store/store.ts"), dir], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(3);
      expect(r.stdout).toMatch(/api-token-\d+$/);
      await expect(fs.stat(r.stdout)).rejects.toThrow();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("fails to start when the port is taken, and leaves no token file", async () => {
    const dir = await tempDir("albedo-api-");
    const store = await openStore(path.join(dir, "h.sqlite"));
    const first = await startApiServer({ store, tokenFile: path.join(dir, "one") });
    try {
      const second = path.join(dir, "two");
      await expect(startApiServer({ store, tokenFile: second, port: first.port })).rejects.toThrow(/EADDRINUSE/);
      await expect(fs.stat(second)).rejects.toThrow();
    } finally {
      await first.close();
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("answers 500 with a stable code, and no details, when the store fails", async () => {
    const dir = await tempDir("albedo-api-");
    const dbFile = path.join(dir, "h.sqlite");
    const store = await openStore(dbFile);
    const session = await store.createSession({ workspace: dir });
    const server = await startApiServer({ store, tokenFile: path.join(dir, "tok") });
    try {
      const tok = (await fs.readFile(path.join(dir, "tok"), "utf8")).trim();
      await store.close();
      const r = await call(server.port, `/sessions/${session.id}/context`, { token: tok });
      expect(r.status).toBe(500);
      expect(r.json).toEqual({ error: "internal", message: "the request could not be served" });
      expect(r.body).not.toContain(dbFile);
    } finally {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

// The view goes pending when what the next request holds changes, and the API says so: a
// running app (the real controller, its store) beside an API server reading the same file.
describe("pending, seen through the API of a running app", () => {
  let fake: FakeProvider;
  const dirs: string[] = [];
  beforeAll(async () => {
    fake = await startFakeProvider({ key: TEST_KEY });
  });
  afterAll(async () => {
    await fake.close();
    for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  });

  /** a home whose workspace holds AGENTS.md before the app reads it */
  async function home(agents: string): Promise<{ dir: string; agents: string }> {
    const dir = await tempDir("albedo-api-app-");
    dirs.push(dir);
    await fs.mkdir(path.join(dir, "work"), { recursive: true });
    const file = path.join(dir, "work", "AGENTS.md");
    await fs.writeFile(file, agents);
    return { dir, agents: file };
  }

  async function api(dbPath: string, dir: string): Promise<{ view(id: string): Promise<Reply>; page(id: string, s: number, p: number): Promise<Reply>; close(): Promise<void> }> {
    const reader = await openStore(dbPath);
    const srv = await startApiServer({ store: reader, tokenFile: path.join(dir, "state", "api-token") });
    const tok = (await fs.readFile(srv.tokenFile, "utf8")).trim();
    return {
      view: (id) => call(srv.port, `/sessions/${id}/context`, { token: tok }),
      page: (id, sec, p) => call(srv.port, `/sessions/${id}/context/${sec}/${p}`, { token: tok }),
      close: async () => {
        await srv.close();
        await reader.close();
      },
    };
  }

  it("AGENTS.md edited, then /reload: pending, naming the file; the next turn makes it current with the new text", async () => {
    const h = await home("Use tabs.\n");
    const { app, dbPath } = await makeApp(fake, { dir: h.dir });
    const server = await api(dbPath, h.dir);
    try {
      fake.script({ text: "first" });
      await app.submit("hello");
      const id = app.session().id;
      expect((await server.view(id)).json).toMatchObject({ state: "current" });
      // the same length, other words: only the text tells them apart
      await fs.writeFile(h.agents, "Use TABS.\n");
      // not re-read yet: the next request would be the same, so the view stays current
      expect((await server.view(id)).json).toMatchObject({ state: "current" });
      await app.reload();
      const v = await server.view(id);
      expect(v.status).toBe(200);
      expect(v.json).toMatchObject({ state: "pending", reason: "project context reloaded (/reload): AGENTS.md changed" });
      const p = await server.page(id, 0, 0);
      expect(p.status).toBe(409);
      expect(p.json).toMatchObject({ error: "pending", reason: "project context reloaded (/reload): AGENTS.md changed" });
      fake.script({ text: "second" });
      await app.submit("again");
      const after = (await server.view(id)).json as { state: string; sections: { index: number; source: string }[] };
      expect(after.state).toBe("current");
      const agents = after.sections.find((x) => x.source === "AGENTS.md")!;
      expect(((await server.page(id, agents.index, 0)).json as { text: string }).text).toContain("Use TABS.");
    } finally {
      await server.close();
      await app.close();
    }
  });

  it("a session resumed after its workspace changed is pending, naming what changed; unchanged, it stays current", async () => {
    const h = await home("Use tabs.\n");
    const first = await makeApp(fake, { dir: h.dir });
    fake.script({ text: "first" });
    await first.app.submit("hello");
    const id = first.app.session().id;
    await first.app.close();
    const server = await api(first.dbPath, h.dir);
    try {
      // nothing changed: resuming does not make the view pending
      let again = await makeApp(fake, { dir: h.dir, open: { resume: id } });
      expect((await server.view(id)).json).toMatchObject({ state: "current" });
      await again.app.close();

      // AGENTS.md edited between runs, keeping its length
      await fs.writeFile(h.agents, "Use TABS.\n");
      again = await makeApp(fake, { dir: h.dir, open: { resume: id } });
      expect((await server.view(id)).json).toMatchObject({ state: "pending", reason: "project context changed since the last request (AGENTS.md)" });
      fake.script({ text: "second" });
      await again.app.submit("again");
      expect((await server.view(id)).json).toMatchObject({ state: "current" });
      await again.app.close();

      // a file that appears is a change too
      await fs.writeFile(path.join(h.dir, "work", "CLAUDE.md"), "Be brief.\n");
      again = await makeApp(fake, { dir: h.dir, open: { resume: id } });
      expect((await server.view(id)).json).toMatchObject({ state: "pending", reason: "project context changed since the last request (CLAUDE.md)" });
      await again.app.close();
    } finally {
      await server.close();
    }
  });
});
