// A new session's row is one INSERT (it stands between Enter and a new session's
// first request; a transaction would take four trips through the store's queue). What the
// transaction gave must still hold: a stamp later than every stored one even within one
// millisecond, the title in the same row, and a clashing id replaced by a fresh one.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type SqliteStore } from "../../src/session/store/store.js";
import { tempDir } from "../helpers/tmp.js";

let dir = "";
let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("createSession in one statement", () => {
  it("stamps each new session later than every stored one, title and all in the row", async () => {
    dir = await tempDir("albedo-session-insert-");
    const dbPath = path.join(dir, "albedo.db");
    store = await openStore(dbPath);
    const made = [];
    // far more than fit in one millisecond
    for (let i = 0; i < 200; i++) made.push(await store.createSession({ workspace: "/w", title: `t${i}` }));
    for (let i = 1; i < made.length; i++) expect(made[i]!.createdAt > made[i - 1]!.createdAt, `${i}`).toBe(true);
    for (const s of made) {
      expect(s.updatedAt).toBe(s.createdAt);
      expect(new Date(s.createdAt).toISOString()).toBe(s.createdAt);
    }
    // what a second opening of the file reads is what createSession said
    await store.close();
    store = await openStore(dbPath);
    const listed = await store.listSessions({ includeEmpty: true });
    expect(listed.map((s) => [s.id, s.title, s.createdAt, s.updatedAt])).toEqual(
      [...made].reverse().map((s) => [s.id, s.title, s.createdAt, s.updatedAt]),
    );
  }, 120_000);

  it("a session asked for under an id already stored gets a fresh one", async () => {
    dir = await tempDir("albedo-session-insert-");
    store = await openStore(path.join(dir, "albedo.db"));
    const a = await store.createSession({ workspace: "/w", id: "aaaaaaaaaaaa", title: "first" });
    const b = await store.createSession({ workspace: "/w", id: "aaaaaaaaaaaa", title: "second" });
    expect(a.id).toBe("aaaaaaaaaaaa");
    expect(b.id).toMatch(/^[0-9a-f]{12}$/);
    expect(b.id).not.toBe(a.id);
    expect((await store.getSession(a.id))?.title).toBe("first");
    expect((await store.getSession(b.id))?.title).toBe("second");
  }, 60_000);
});
