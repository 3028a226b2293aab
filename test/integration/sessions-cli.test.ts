// Sessions as people expect them: empty sessions are kept but neither listed nor continued;
// the list says at a glance what each holds; `sessions rm` deletes one session and only it.
import { describe, expect, it } from "vitest";
import sqlite3 from "sqlite3";
import { runCli } from "../helpers/cli.js";
import { fakeProviderAndHomes } from "../helpers/suite.js";
import { openStore } from "../../src/session/store/store.js";
import { relativeTime, sessionLines } from "../../src/ui/session-list.js";

const KEY = "sk-test-sessions-SECRET-8080";
const suite = fakeProviderAndHomes(KEY, { ANTHROPIC_API_KEY: KEY });
const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", suite.fake().anthropicBase];

async function withStore<T>(fn: (s: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const s = await openStore(suite.home().db);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

describe("sessions", () => {
  it("--continue passes an empty session by and continues the conversation; lists hide it without deleting it", async () => {
    suite.fake().script({ text: "First answer." });
    expect((await runCli(["-p", "start the conversation", ...anthropic()], suite.home())).code).toBe(0);
    // a screen opened and closed without typing leaves a newer, empty session
    const empty = await withStore((s) => s.createSession({ workspace: suite.home().workspace }));
    suite.fake().script({ text: "Continued." });
    const r = await runCli(["-p", "and then?", "--continue", ...anthropic()], suite.home());
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.stringify(suite.fake().requests.at(-1)!.body.messages);
    expect(body).toContain("start the conversation");
    expect(body).toContain("First answer.");
    const list = await runCli(["sessions", "--json"], suite.home());
    const ids = (JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id);
    expect(ids).toHaveLength(1);
    expect(ids).not.toContain(empty.id);
    // hidden, not deleted: it can still be resumed by id
    expect(await withStore((s) => s.getSession(empty.id))).toBeDefined();
  });

  it("the list gives title, workspace, message count, last activity in words and model; --json keeps exact fields", async () => {
    suite.fake().script({ text: "Sure." });
    expect((await runCli(["-p", "fix the invoice total", ...anthropic()], suite.home())).code).toBe(0);
    const text = await runCli(["sessions"], suite.home());
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^[0-9a-f]{12} {2}just now {2}2 msgs {2}claude-sonnet-4-5 {2}fix the invoice total {2}\S+work\n$/);
    const [s] = JSON.parse((await runCli(["sessions", "--json"], suite.home())).stdout) as Record<string, unknown>[];
    expect(Object.keys(s!).sort()).toEqual(["cost", "createdAt", "id", "messages", "model", "title", "updatedAt", "workspace"]);
    expect(s!.messages).toBe(2);
    // the session's cost is its stored usage: the fake's answer reported tokens both ways
    const cost = s!.cost as Record<string, unknown>;
    expect(Object.keys(cost).sort()).toEqual(["cacheReadTokens", "cacheWriteTokens", "dollars", "inputTokens", "label", "outputTokens", "unpriced"]);
    expect(cost.inputTokens).toBeGreaterThan(0);
    expect(cost.outputTokens).toBeGreaterThan(0);
    expect(String(s!.updatedAt)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("sessions rm deletes one session with its messages, captures and summaries, and never another", async () => {
    suite.fake().script({ text: "One." }, { text: "Two." });
    expect((await runCli(["-p", "first session", ...anthropic()], suite.home())).code).toBe(0);
    expect((await runCli(["-p", "second session", ...anthropic()], suite.home())).code).toBe(0);
    const [second, first] = JSON.parse((await runCli(["sessions", "--json"], suite.home())).stdout) as { id: string }[];
    const before = await withStore(async (s) => ({ msgs: (await s.loadHistory(second!.id)).messages.length, view: (await s.inspectorView(second!.id)).state }));
    expect(before).toEqual({ msgs: 2, view: "current" });

    // no terminal to ask on: refused, nothing deleted
    const refused = await runCli(["sessions", "rm", first!.id], suite.home());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass --yes/);
    expect(await withStore((s) => s.getSession(first!.id))).toBeDefined();

    const gone = await runCli(["sessions", "rm", first!.id, "--yes"], suite.home());
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stderr).toMatch(/Deleted session/);
    await withStore(async (s) => {
      expect(await s.getSession(first!.id)).toBeUndefined();
      expect((await s.loadHistory(first!.id)).messages).toEqual([]);
      await expect(s.inspectorView(first!.id)).rejects.toThrow(/no session/);
      expect(await s.loadSummaries(first!.id)).toEqual([]);
      // the other session is untouched
      expect((await s.loadHistory(second!.id)).messages).toHaveLength(2);
      expect((await s.inspectorView(second!.id)).state).toBe("current");
    });
    // the rows themselves, read past the store: nothing of the deleted session is left
    const rows = await new Promise<Record<string, number>>((resolve, reject) => {
      const db = new sqlite3.Database(suite.home().db, sqlite3.OPEN_READONLY, (err) => {
        if (err) return reject(err);
        db.get(
          "SELECT (SELECT COUNT(*) FROM messages WHERE session_id = ?1) AS messages, (SELECT COUNT(*) FROM captures WHERE session_id = ?1) AS captures, " +
            "(SELECT COUNT(*) FROM capture_pages WHERE session_id = ?1) AS pages, (SELECT COUNT(*) FROM summaries WHERE session_id = ?1) AS summaries, " +
            "(SELECT COUNT(*) FROM capture_pages WHERE session_id = ?2) AS otherPages",
          [first!.id, second!.id],
          (e: Error | null, row: Record<string, number>) => db.close(() => (e ? reject(e) : resolve(row))),
        );
      });
    });
    expect(rows).toEqual({ messages: 0, captures: 0, pages: 0, summaries: 0, otherPages: expect.any(Number) });
    expect(rows.otherPages).toBeGreaterThan(0);
    const unknown = await runCli(["sessions", "rm", "nosuchsession", "--yes"], suite.home());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no session with id "nosuchsession"/);
  });
});

describe("relative time", () => {
  const now = new Date("2026-11-30T12:00:00Z");
  it("says how long ago in words", () => {
    expect(relativeTime("2026-11-30T11:59:50Z", now)).toBe("just now");
    expect(relativeTime("2026-11-30T11:58:00Z", now)).toBe("2 minutes ago");
    expect(relativeTime("2026-11-30T09:00:00Z", now)).toBe("3 hours ago");
    expect(relativeTime("2026-11-29T12:00:00Z", now)).toBe("1 day ago");
    expect(relativeTime("2026-11-09T12:00:00Z", now)).toBe("3 weeks ago");
    expect(relativeTime("2025-11-30T12:00:00Z", now)).toBe("1 year ago");
  });
  it("lines align their columns and make titles safe through the given field function", () => {
    const lines = sessionLines(
      [
        { id: "aaaaaaaaaaaa", title: "t\u001b]52;c;x\u0007", workspace: "/w", createdAt: "", updatedAt: "2026-11-30T11:00:00Z", messages: 12, model: "gpt-4o" },
        { id: "bbbbbbbbbbbb", title: "", workspace: "/w", createdAt: "", updatedAt: "2026-11-30T11:59:59Z", messages: 1 },
      ],
      now,
      (s) => s.replace(/\u001b/g, "^["),
    );
    expect(lines[0]).toBe("aaaaaaaaaaaa  1 hour ago  12 msgs  gpt-4o  t^[]52;c;x\u0007  /w");
    expect(lines[1]).toBe("bbbbbbbbbbbb  just now      1 msg  -       (untitled)  /w");
  });
});

describe("a session is stored with its first message", () => {
  it("a screen opened and closed without a prompt leaves no session; the first prompt stores it under the id it was shown with", async () => {
    const { makeApp } = await import("../helpers/app.js");
    const { app, dbPath } = await makeApp(suite.fake(), { headless: false });
    const shown = app.session().id;
    expect((await app.inspectorView()).state).toBe("pending");
    await app.close();
    const count = async (): Promise<string[]> => {
      const s = await openStore(dbPath);
      try {
        return (await s.listSessions({ includeEmpty: true })).map((x) => x.id);
      } finally {
        await s.close();
      }
    };
    expect(await count()).toEqual([]);

    const again = await makeApp(suite.fake(), { headless: false, dir: dbPath.replace(/\/history\.sqlite$/, "") });
    const id = again.app.session().id;
    suite.fake().script({ text: "Stored now." });
    await again.app.submit("the first prompt");
    expect(again.app.session().id).toBe(id);
    expect((await again.app.inspectorView()).state).toBe("current");
    await again.app.close();
    expect(await count()).toEqual([id]);
    expect(shown).not.toBe(id);
  });
});
