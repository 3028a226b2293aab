// The config's countTokens "each request": the real app against the strict fake, which counts
// by a rule of its own (fakeCountTokens). After each request is sent its exact counts are
// asked in the background, labelled, of the capture the inspector shows; one count in flight;
// a failure is said once and not retried; "on-demand" (the default) counts nothing unasked;
// OpenAI's figures stay the tokenizer's, and that is said.
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { fakeCountTokens, startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import fs from "node:fs/promises";
import path from "node:path";
import { makeHome, runCli, waitUntil } from "../helpers/cli.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { COUNT_METHOD, countBody } from "../../src/provider/anthropic/count-tokens.js";
import type { App } from "../../src/session/controller/controller.js";
import type { SessionEvent } from "../../src/session/turn/events.js";
import { parseConfig } from "../../src/config/config.js";
import { resolveSettings } from "../../src/config/resolve.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function fake(onRequest?: (req: http.IncomingMessage) => void): Promise<FakeProvider> {
  const f = await startFakeProvider({ key: TEST_KEY, ...(onRequest ? { onRequest } : {}) });
  open.push(f);
  return f;
}

function notices(app: App): string[] {
  const out: string[] = [];
  app.subscribe((e: SessionEvent) => {
    if (e.type === "notice") out.push(e.text);
  });
  return out;
}

async function capturedAt(app: App): Promise<string> {
  const v = await app.inspectorView();
  if (v.state !== "current") throw new Error(`the inspector shows no request: ${v.reason}`);
  return v.meta.capturedAt;
}

/** A server in front of the fake: Messages pass through; count_tokens goes to `count`, which
 * may answer itself or `pass` it on. */
async function proxy(
  f: FakeProvider,
  count: (req: http.IncomingMessage, res: http.ServerResponse, pass: () => void) => void,
): Promise<string> {
  const server = http.createServer((req, res) => {
    const pass = (): void => {
      const up = http.request(`${f.anthropicBase}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    };
    if (req.url === "/v1/messages/count_tokens") count(req, res, pass);
    else pass();
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  open.push({ close: () => new Promise<void>((ok) => (server.closeAllConnections(), server.close(() => ok()))) });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('countTokens "each request"', () => {
  it("counts each request after it is sent, with the fake's own figures, labelled, of the capture shown", async () => {
    const order: string[] = [];
    const f = await fake((req) => order.push(req.url ?? ""));
    const { app } = await makeApp(f, { model: "claude-sonnet-4-6", countTokens: "each request", headless: false });
    open.push(app);
    const said = notices(app);
    f.script({ text: "one", usage: { input: 10, output: 2 } }, { text: "two words here", usage: { input: 10, output: 2 } });
    await app.submit("first prompt");
    await app.submit("second prompt, longer than the first");
    const at = await capturedAt(app);
    await waitUntil(() => app.autoCount()?.of === at && app.autoCount()?.counts !== undefined, 30_000, "the last request's count");
    const c = app.autoCount()!.counts!;
    const sent = f.requests.at(-1)!.body as never;
    expect(c.method).toBe(COUNT_METHOD);
    expect(c.method).toBe("count_tokens (anthropic)");
    expect(Date.parse(c.askedAt)).toBeGreaterThanOrEqual(Date.parse(at));
    expect(c.total).toBe(fakeCountTokens(countBody(sent)));
    // the sections as the inspector names them, each the fake's count less its count without it
    const view = await app.inspectorView();
    if (view.state !== "current") throw new Error("no capture");
    expect(c.sections.map((s) => s.source)).toEqual(view.sections.map((s) => s.source));
    // never mixed with the estimates: the view's estimates are the capture's own, named by their method
    expect(view.sections.every((s) => s.estimate.method !== COUNT_METHOD)).toBe(true);
    // after the request, never before it: each Messages request reached the fake before any count of it
    const posts = order.filter((u) => u.startsWith("/v1/messages"));
    expect(posts.indexOf("/v1/messages")).toBe(0);
    expect(posts.indexOf("/v1/messages/count_tokens")).toBeGreaterThan(0);
    expect(f.counts.every((r) => r.rejected === undefined)).toBe(true);
    // bounded: at most one whole count (1 + one per section) per request sent
    expect(f.counts.length).toBeLessThanOrEqual(f.requests.length * (1 + c.sections.length));
    expect(f.counts.length % (1 + c.sections.length)).toBe(0);
    expect(said).toEqual([]);
  });

  it("one count in flight: requests sent while a count runs are skipped up to the newest", async () => {
    const f = await fake();
    // a held counter: no count is answered until the six turns are done; the proxy notes how many run at once
    let running = 0;
    let most = 0;
    let release!: () => void;
    const released = new Promise<void>((ok) => (release = ok));
    const base = await proxy(f, (req, res, pass) => {
      running++;
      most = Math.max(most, running);
      res.on("close", () => running--);
      void released.then(pass);
    });
    const { app } = await makeApp(f, { model: "claude-sonnet-4-6", baseUrl: base, countTokens: "each request", headless: false });
    open.push(app);
    f.script(...Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i}`, usage: { input: 10, output: 2 } })));
    for (let i = 0; i < 6; i++) await app.submit(`prompt ${i}`);
    // the first request's count is waiting; the five sent since wait for none
    expect(running).toBe(1);
    release();
    const at = await capturedAt(app);
    await waitUntil(() => app.autoCount()?.of === at && app.autoCount()?.counts !== undefined, 60_000, "the newest request's count");
    const c = app.autoCount()!.counts!;
    const per = 1 + c.sections.length;
    expect(most).toBe(1);
    // two whole counts: the first request's, then the newest; the four between were skipped
    expect(f.counts).toHaveLength(2 * per);
    expect(c.total).toBe(fakeCountTokens(countBody(f.requests.at(-1)!.body as never)));
  });

  it('"on-demand" (the default) counts nothing unasked', async () => {
    const f = await fake();
    for (const setting of [undefined, "on-demand"] as const) {
      const { app } = await makeApp(f, { model: "claude-sonnet-4-6", ...(setting ? { countTokens: setting } : {}) });
      open.push(app);
      f.script({ text: "one", usage: { input: 10, output: 2 } }, { text: "two", usage: { input: 10, output: 2 } });
      await app.submit("first");
      await app.submit("second");
      expect(app.autoCount()).toBeUndefined();
    }
    expect(f.requests).toHaveLength(4);
    expect(f.counts).toEqual([]);
  });

  it("a failing counter is named once and not retried; the turns go on", async () => {
    const f = await fake();
    // every count refused
    const refused: string[] = [];
    const base = await proxy(f, (req, res) => {
      refused.push(req.url ?? "");
      req.resume();
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: "counter down" } }));
    });
    const { app } = await makeApp(f, { model: "claude-sonnet-4-6", baseUrl: base, countTokens: "each request", headless: false });
    open.push(app);
    const said = notices(app);
    f.script({ text: "one", usage: { input: 10, output: 2 } }, { text: "two", usage: { input: 10, output: 2 } }, { text: "three", usage: { input: 10, output: 2 } });
    await app.submit("first");
    await waitUntil(() => app.autoCount()?.error !== undefined, 30_000, "the count's failure");
    await app.submit("second");
    await app.submit("third");
    expect(f.requests).toHaveLength(3);
    expect(refused).toHaveLength(1);
    const stopped = said.filter((t) => t.includes("automatic token counts stopped"));
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatch(/status 500/);
    // the failure belongs to the first capture; the newer ones show no figure at all
    expect(app.autoCount()!.of).not.toBe(await capturedAt(app));
  });

  it("an OpenAI provider has no provider count: said once, its figures the tokenizer's, nothing asked", async () => {
    const f = await fake();
    const { app } = await makeApp(f, { provider: "openai", model: "gpt-5.2", countTokens: "each request", headless: false });
    open.push(app);
    const said = notices(app);
    f.script({ text: "one", usage: { input: 10, output: 2 } }, { text: "two", usage: { input: 10, output: 2 } });
    await app.submit("first");
    await app.submit("second");
    const a = app.autoCount();
    expect(a?.of).toBe(await capturedAt(app));
    expect(a?.note).toMatch(/has no provider count: the figures are the tokenizer's estimates/);
    expect(said.filter((t) => t.includes("no provider count"))).toHaveLength(1);
    expect(f.counts).toEqual([]);
  });

  it("the config field: two values, the default on-demand, anything else named", () => {
    expect(resolveSettings({}, parseConfig('{"countTokens": "each request"}', "c.json"), {}).countTokens).toBe("each request");
    expect(resolveSettings({}, parseConfig("{}", "c.json"), {}).countTokens).toBeUndefined();
    expect(() => parseConfig('{"countTokens": "always"}', "c.json")).toThrow(/c\.json: field "countTokens": Invalid option: expected one of "on-demand"\|"each request"/);
  });

  it("headless (-p): nothing would show the counts, so none are asked, whatever the config says", async () => {
    const f = await fake();
    const home = await makeHome({ ANTHROPIC_API_KEY: TEST_KEY });
    const dir = path.join(home.env.XDG_CONFIG_HOME!, "albedo");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ countTokens: "each request" }));
    f.script({ text: "hello" });
    const r = await runCli(["-p", "say hello", "--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", f.anthropicBase], home);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(f.requests).toHaveLength(1);
    expect(f.counts).toEqual([]);
  });
});
