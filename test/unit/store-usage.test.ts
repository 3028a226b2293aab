// The provider's usage stored with each answer (migration 3), against real
// SQLite files: written with the message in one statement, kept by checkpoints that pass none,
// read back through its schema, and a version-2 database migrated with its messages intact.
import fs from "node:fs/promises";
import path from "node:path";
import sqlite3 from "sqlite3";
import type { Database } from "sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type SqliteStore } from "../../src/session/store/store.js";
import { migrations } from "../../src/session/store/migrations.js";
import { parseUsage } from "../../src/session/store/messages.js";
import { tempDir } from "../helpers/tmp.js";

const raw = {
  open: (file: string): Promise<Database> =>
    new Promise((resolve, reject) => {
      const db: Database = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
    }),
  exec: (db: Database, sql: string): Promise<void> => new Promise((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve()))),
  run: (db: Database, sql: string, params: unknown[]): Promise<void> =>
    new Promise((resolve, reject) => db.run(sql, params, (e: Error | null) => (e ? reject(e) : resolve()))),
  close: (db: Database): Promise<void> => new Promise((resolve, reject) => db.close((e) => (e ? reject(e) : resolve()))),
};

let dir: string;
let dbPath: string;
const open: SqliteStore[] = [];
beforeEach(async () => {
  dir = await tempDir("albedo-usage-");
  dbPath = path.join(dir, "albedo.db");
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await fs.rm(dir, { recursive: true, force: true });
});
async function store(): Promise<SqliteStore> {
  const s = await openStore(dbPath);
  open.push(s);
  return s;
}

const usage = { inputTokens: 12, outputTokens: 340, cacheReadTokens: 9000, cacheWriteTokens: 800 };

describe("usage stored with the answer", () => {
  it("is written with an appended answer and with a completed checkpoint, and a checkpoint without usage keeps it", async () => {
    const s = await store();
    const session = await s.createSession({ workspace: "/w" });
    await s.appendMessage(session.id, { role: "user", blocks: [{ type: "text", text: "hi" }], status: "complete" });
    const whole = await s.appendMessage(session.id, { role: "assistant", blocks: [{ type: "text", text: "a" }], status: "complete", usage });
    expect(whole.usage).toEqual(usage);
    // the streamed way: a checkpoint row, completed in place with the usage
    const cp = await s.appendMessage(session.id, { role: "assistant", blocks: [{ type: "text", text: "par" }], status: "interrupted" });
    await s.updateMessage(cp.id, [{ type: "text", text: "partial" }], "interrupted");
    await s.updateMessage(cp.id, [{ type: "text", text: "partial, done" }], "complete", { inputTokens: 5, outputTokens: 6 });
    // a later write without usage (none does this today, but the column must not be lost)
    await s.updateMessage(cp.id, [{ type: "text", text: "partial, done" }], "complete");
    const { messages } = await s.loadHistory(session.id);
    expect(messages.map((m) => m.usage)).toEqual([undefined, usage, { inputTokens: 5, outputTokens: 6 }]);
  });

  it("migrates a version-2 database: its messages load without usage, new answers get it", async () => {
    const db = await raw.open(dbPath);
    await raw.exec(db, "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (2);");
    for (const m of migrations.slice(0, 2)) await raw.exec(db, m.sql);
    await raw.run(db, "INSERT INTO sessions VALUES ('old', '', '/w', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')", []);
    await raw.run(db, "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, created_at) VALUES ('old', 1, 'assistant', 'complete', 'm', ?, '2026-01-01T00:00:00.000Z')", [
      JSON.stringify([{ type: "text", text: "from before" }]),
    ]);
    await raw.close(db);
    const s = await store();
    const before = await s.loadHistory("old");
    expect(before.bad).toEqual([]);
    expect(before.messages[0]!.usage).toBeUndefined();
    expect(before.messages[0]!.blocks).toEqual([{ type: "text", text: "from before" }]);
    await s.appendMessage("old", { role: "assistant", blocks: [{ type: "text", text: "new" }], status: "complete", usage });
    expect((await s.loadHistory("old")).messages[1]!.usage).toEqual(usage);
  });

  it("reads usage through its schema: a damaged value costs the figure, never the message", async () => {
    const s = await store();
    const session = await s.createSession({ workspace: "/w" });
    const m = await s.appendMessage(session.id, { role: "assistant", blocks: [{ type: "text", text: "a" }], status: "complete", usage });
    await s.close();
    open.length = 0;
    const db = await raw.open(dbPath);
    await raw.run(db, "UPDATE messages SET usage_json = ? WHERE id = ?", ['{"inputTokens":"many"}', m.id]);
    await raw.close(db);
    const again = await store();
    const { messages, bad } = await again.loadHistory(session.id);
    expect(bad).toEqual([]);
    expect(messages[0]!.blocks).toEqual([{ type: "text", text: "a" }]);
    expect(messages[0]!.usage).toBeUndefined();
    expect(parseUsage('{"inputTokens":"many"}')).toEqual({ ok: false, error: expect.stringContaining("usage: inputTokens:") });
    expect(parseUsage("{")).toEqual({ ok: false, error: expect.stringContaining("usage is not JSON") });
    expect(parseUsage('{"inputTokens":1,"outputTokens":2,"extra":3}')).toEqual({ ok: true, usage: { inputTokens: 1, outputTokens: 2 } });
  });
});
