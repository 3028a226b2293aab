// A session named by the start of its id, as the screen shows ids (8 of 12 characters): every
// entry takes it (--resume, context, export, sessions rm, rewind, the controller's switch,
// the local API); a start shared by several sessions names them; one under 4 characters is
// refused with a sentence. The built CLI as a real process over a real SQLite file, the
// strict fake provider over loopback, real HTTP to the API.
import { describe, expect, it } from "vitest";
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";
import { runCli } from "../helpers/cli.js";
import { makeApp } from "../helpers/app.js";
import { tempDir } from "../helpers/tmp.js";
import { fakeProviderAndHomes } from "../helpers/suite.js";
import { UnknownSessionError } from "../../src/session/controller/controller.js";
import { openStore } from "../../src/session/store/store.js";
import { findSession, MIN_ID_PREFIX } from "../../src/session/store/find-session.js";
import { startApiServer } from "../../src/context/api/server.js";
import type { HistoryStore } from "../../src/session/store/types.js";

const KEY = "sk-test-albedo-PREFIX-4141";
const suite = fakeProviderAndHomes(KEY, { ANTHROPIC_API_KEY: KEY });
const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", suite.fake().anthropicBase];

/** three stored sessions: two share the start "abcd", one stands alone under "ef01" */
async function seed(db: string, workspace: string): Promise<void> {
  await fs.mkdir(path.dirname(db), { recursive: true });
  const store = await openStore(db);
  try {
    for (const [id, title] of [
      ["abcd11112222", "first of two"],
      ["abcd33334444", "second of two \u001b[31mred"],
      ["ef0123456789", "alone"],
    ] as const) {
      await store.createSession({ workspace, id, title });
      await store.appendMessage(id, { role: "user", blocks: [{ type: "text", text: `hello from ${id}` }], status: "complete" });
      await store.appendMessage(id, { role: "assistant", blocks: [{ type: "text", text: `answer in ${id}` }], status: "complete", model: "claude-sonnet-4-5" });
    }
  } finally {
    await store.close();
  }
}

describe("findSession (the one resolver)", () => {
  it("takes an exact id, a unique start, names an ambiguous start, refuses a short one, and no wildcard widens it", async () => {
    const home = suite.home();
    await seed(home.db, home.workspace);
    const store = await openStore(home.db);
    try {
      expect(await findSession(store, "ef0123456789")).toMatchObject({ ok: true, session: { id: "ef0123456789" } });
      expect(await findSession(store, "ef01")).toMatchObject({ ok: true, session: { id: "ef0123456789" } });
      const amb = await findSession(store, "abcd");
      expect(amb).toMatchObject({ ok: false, kind: "ambiguous" });
      if (amb.ok) throw new Error("unreachable");
      expect(amb.problem).toContain("abcd11112222");
      expect(amb.problem).toContain("abcd33334444");
      // the title's ESC is shown escaped
      expect(amb.problem).not.toContain("\u001b");
      expect(amb.problem).toContain("\\u001b");
      expect(MIN_ID_PREFIX).toBe(4);
      const short = await findSession(store, "ef0");
      expect(short).toMatchObject({ ok: false, kind: "short" });
      expect(short.ok ? "" : short.problem).toContain("from 4 characters on");
      for (const wild of ["%%%%", "____", "ab%d", "abc_"]) expect(await findSession(store, wild), wild).toMatchObject({ ok: false, kind: "none" });
      expect(await findSession(store, "")).toMatchObject({ ok: false, kind: "bad" });
    } finally {
      await store.close();
    }
  });
});

describe("every entry takes the start of an id", () => {
  it("context, export, rewind --dry-run and sessions rm take a unique start; an ambiguous one names the matches, exit 1", async () => {
    const home = suite.home();
    await seed(home.db, home.workspace);
    const ctx = await runCli(["context", "ef01", "--json"], home);
    expect(ctx.code, ctx.stderr).toBe(0);
    expect(JSON.parse(ctx.stdout)).toMatchObject({ state: "pending" });
    const exp = await runCli(["export", "ef012345", "--format", "json"], home);
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stdout).toContain("answer in ef0123456789");
    const rw = await runCli(["rewind", "ef01", "--to", "1", "--conversation", "--dry-run"], home);
    expect(rw.code, rw.stderr).toBe(0);
    for (const args of [["context", "abcd"], ["export", "abcd"], ["sessions", "rm", "abcd", "--yes"], ["rewind", "abcd", "--to", "1", "--dry-run"]]) {
      const r = await runCli(args, home);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr, args.join(" ")).toMatch(/"abcd" is the start of the ids of 2 sessions \(abcd\d+ .*; abcd\d+ .*\); give more of the id/);
    }
    for (const args of [["context", "ef0"], ["export", "ab"]]) {
      const r = await runCli(args, home);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(/no session with id "(ef0|ab)" \(the start of an id names a session from 4 characters on\)/);
    }
    const rm = await runCli(["sessions", "rm", "abcd3333", "--yes"], home);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stderr).toContain("Deleted session abcd33334444");
    // now "abcd" is unique
    const after = await runCli(["export", "abcd", "--format", "json"], home);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain("answer in abcd11112222");
  });

  it("--resume with -p continues the session a start names", async () => {
    const home = suite.home();
    await seed(home.db, home.workspace);
    suite.fake().script({ text: "resumed answer" });
    const r = await runCli(["-p", "again", "--resume", "ef01", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("resumed answer\n");
    const sent = JSON.stringify(suite.fake().requests.at(-1)?.body);
    expect(sent).toContain("hello from ef0123456789");
    const amb = await runCli(["-p", "again", "--resume", "abcd", ...anthropic()], home);
    expect(amb.code).toBe(1);
    expect(amb.stderr).toContain('"abcd" is the start of the ids of 2 sessions');
  });

  it("the controller's switch takes a start, and refuses an ambiguous one by naming the matches", async () => {
    const fake = suite.fake();
    const dir = await tempDir("albedo-prefix-");
    await seed(path.join(dir, "history.sqlite"), path.join(dir, "work"));
    const again = await makeApp(fake, { dir });
    try {
      await again.app.switchSession("ef01");
      expect(again.app.session().id).toBe("ef0123456789");
      const e = await again.app.switchSession("abcd").then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(UnknownSessionError);
      expect((e as Error).message).toContain("abcd11112222");
      expect(again.app.session().id).toBe("ef0123456789");
    } finally {
      await again.app.close();
    }
  });
});

function get(port: number, p: string, token: string): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: p, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the local API", () => {
  it("answers for a start of an id, names the matches of an ambiguous one, and says pending for the open session not stored yet", async () => {
    const fake = suite.fake();
    const dir = await tempDir("albedo-prefix-");
    const dbPath = path.join(dir, "history.sqlite");
    await seed(dbPath, path.join(dir, "work"));
    const { app } = await makeApp(fake, { dir });
    const store: HistoryStore = await openStore(dbPath);
    const server = await startApiServer({ store, tokenFile: path.join(dir, "token"), unstored: () => app.unstoredSession() });
    try {
      const token = (await fs.readFile(server.tokenFile, "utf8")).trim();
      expect((await get(server.port, "/sessions/ef01/context", token)).json).toMatchObject({ state: "pending" });
      const amb = await get(server.port, "/sessions/abcd/context", token);
      expect(amb.status).toBe(404);
      expect(amb.json).toMatchObject({ error: "ambiguous_session_id", matches: expect.arrayContaining(["abcd11112222", "abcd33334444"]) as unknown });
      const short = await get(server.port, "/sessions/abc/context", token);
      expect(short.status).toBe(404);
      expect(String(short.json["message"])).toContain("4 characters");
      // the session the screen shows before its first request: no row yet, pending with the reason
      const draft = app.session().id;
      expect(await store.getSession(draft)).toBeUndefined();
      for (const id of [draft, draft.slice(0, 8)]) {
        const r = await get(server.port, `/sessions/${id}/context`, token);
        expect(r.status, id).toBe(200);
        expect(r.json, id).toMatchObject({ state: "pending" });
        expect(String(r.json["reason"])).toContain("is stored with its first message");
        const page = await get(server.port, `/sessions/${id}/context/0/0`, token);
        expect(page.status).toBe(409);
        expect(page.json).toMatchObject({ error: "pending" });
      }
      // once stored, it is the store's
      fake.script({ text: "hi" });
      await app.submit("hello");
      expect(app.unstoredSession()).toBeUndefined();
      const stored = await get(server.port, `/sessions/${draft.slice(0, 8)}/context`, token);
      expect(stored.json).toMatchObject({ state: "current" });
    } finally {
      await server.close();
      await store.close();
      await app.close();
    }
  });
});

describe("sessions lists the model a session uses now", () => {
  it("after a resume under another model, the listing names the newer one", async () => {
    const home = suite.home();
    suite.fake().script({ text: "first" }, { text: "second" });
    const base = ["--provider", "anthropic", "--base-url", suite.fake().anthropicBase];
    expect((await runCli(["-p", "one", "--model", "claude-sonnet-4-5", ...base], home)).code).toBe(0);
    const id = (JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string }[])[0]!.id;
    const again = await runCli(["-p", "two", "--resume", id.slice(0, 8), "--model", "claude-haiku-4-5", ...base], home);
    expect(again.code, again.stderr).toBe(0);
    const list = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string; model?: string }[];
    expect(list.find((s) => s.id === id)?.model).toBe("claude-haiku-4-5");
    expect((await runCli(["sessions"], home)).stdout).toMatch(new RegExp(`${id}.*claude-haiku-4-5`));
  });
});
