// `albedo-tui context <id>` from another terminal, for a new session open on a screen that has
// stored nothing yet (no message, no capture): through the built CLI, the screen in a real pty,
// the model a strict fake over 127.0.0.1. The id the screen shows answers as pending with the
// reason (open there, nothing sent), never as unknown, and so does the local API of another
// process; once the first prompt is stored the stored view answers; a screen closed with
// nothing sent leaves nothing, and the id is unknown.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { startApiServer } from "../../src/context/api/server.js";
import { openStore } from "../../src/session/store/store.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-test-context-draft-5151";
let fake: FakeProvider;
let home: Home;
const running: PtySession[] = [];

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
});
beforeEach(async () => {
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  fake = await startFakeProvider({ key: KEY });
});
afterEach(async () => {
  for (const s of running.splice(0)) s.kill();
  await fake.close();
});

function tui(): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase], {
    cols: 120,
    rows: 30,
    cwd: home.workspace,
    env: { ...home.env, TERM: "xterm-256color" },
  });
  running.push(s);
  return s;
}

function get(port: number, p: string, token: string): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: p, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(body) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** the 8 characters of the session id the status line shows */
async function shownId(s: PtySession): Promise<string> {
  await s.waitFor(/session [0-9a-f]{8}\b/, 20_000);
  return /session ([0-9a-f]{8})\b/.exec(s.screenText())![1]!;
}

describe("context for a session open on a screen with nothing stored", () => {
  it("says pending, with where it is open and why, until the first prompt stores it", async () => {
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    const id = await shownId(s);

    const text = await runCli(["context", id], home);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("Context: pending");
    expect(text.stdout).toContain(`the session is open in albedo-tui (process ${s.pid}, workspace ${home.workspace}) with nothing sent yet`);
    expect(text.stdout).not.toContain("no session");

    const json = await runCli(["context", id, "--json"], home);
    expect(json.code, json.stderr).toBe(0);
    const view = JSON.parse(json.stdout) as { state: string; reason: string; since: string };
    expect(view.state).toBe("pending");
    expect(view.reason).toContain("nothing sent yet");
    expect(Number.isNaN(Date.parse(view.since))).toBe(false);

    // the local API of another process says the same
    const store = await openStore(home.db);
    const api = await startApiServer({ store, tokenFile: path.join(home.root, "api-token") });
    try {
      const token = fs.readFileSync(api.tokenFile, "utf8").trim();
      const r = await get(api.port, `/sessions/${id}/context`, token);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ state: "pending" });
      expect(String(r.json["reason"])).toContain(`process ${s.pid}`);
      expect((await get(api.port, `/sessions/${id}/context/0/0`, token)).status).toBe(409);
    } finally {
      await api.close();
      await store.close();
    }

    // a page of a view that has none is refused by name
    const page = await runCli(["context", id, "--section", "1"], home);
    expect(page.code).not.toBe(0);
    expect(page.stderr).toContain("the inspector is pending");

    // the first prompt stores the session: its own view answers from then on
    fake.script({ text: "Stored now." });
    s.send("hello");
    await s.waitFor("hello");
    s.send(KEYS.enter);
    await s.waitFor("Stored now.", 20_000);
    await s.waitFor(/ idle · /, 20_000);
    const stored = await runCli(["context", id], home);
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stdout).toContain("Context of the last request");
    expect(stored.stdout).not.toContain("nothing sent yet");
    expect(fs.readdirSync(`${home.db}-open`)).toEqual([]);

    s.send("/quit");
    await s.waitFor("/quit");
    s.send(KEYS.enter);
    expect((await s.exited()).exitCode).toBe(0);
  }, 90_000);

  it("a screen closed with nothing sent leaves nothing behind: the id names no session", async () => {
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    const id = await shownId(s);
    expect((await runCli(["context", id], home)).stdout).toContain("Context: pending");
    s.send("/quit");
    await s.waitFor("/quit");
    s.send(KEYS.enter);
    expect((await s.exited()).exitCode).toBe(0);
    const after = await runCli(["context", id], home);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain(`no session with id "${id}"`);
  }, 90_000);

  it("a screen killed with nothing sent (kill -9) is not taken for open", async () => {
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    const id = await shownId(s);
    s.kill("SIGKILL");
    await s.exited();
    const after = await runCli(["context", id], home);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain(`no session with id "${id}"`);
    // the stale mark is gone with that answer
    expect(fs.readdirSync(`${home.db}-open`)).toEqual([]);
  }, 90_000);
});
