// Forking a session in the real SQLite store: the fork's record is the original's up to (not
// including) a prompt, copied exactly, in one transaction; the original stays whole; each
// names the other in the listing; a database of the previous schema gains the link columns.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, StoreError, type SqliteStore } from "../../src/session/store/store.js";
import { migrations } from "../../src/session/store/migrations.js";
import type { Block, StoredMessage } from "../../src/record/types.js";
import { rawAll, rawClose, rawExec, rawOpen } from "../helpers/raw-sqlite.js";
import { tempDir } from "../helpers/tmp.js";

let dir: string;
let db: string;
let store: SqliteStore;

beforeEach(async () => {
  dir = await tempDir("albedo-fork-");
  db = path.join(dir, "history.sqlite");
  store = await openStore(db);
});
afterEach(async () => {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const text = (t: string): Block[] => [{ type: "text", text: t }];

/** Three prompts; the second has a tool round between it and its answer. */
async function threePrompts(): Promise<string> {
  const s = await store.createSession({ workspace: "/w", title: "three" });
  await store.appendMessage(s.id, { role: "user", blocks: text("one"), status: "complete" });
  await store.appendMessage(s.id, { role: "assistant", blocks: text("answer one"), status: "complete", model: "m", usage: { inputTokens: 5, outputTokens: 2 } });
  await store.appendMessage(s.id, { role: "user", blocks: text("two"), status: "complete" });
  await store.appendMessage(s.id, { role: "assistant", blocks: [{ type: "tool_use", id: "t1", name: "bash", input: { command: "ls" } }], status: "complete", model: "m" });
  await store.appendMessage(s.id, { role: "user", blocks: [{ type: "tool_result", toolUseId: "t1", name: "bash", output: "a\nb", isError: false }], status: "complete" });
  await store.appendMessage(s.id, { role: "assistant", blocks: text("answer two"), status: "interrupted", model: "m" });
  await store.appendMessage(s.id, { role: "user", blocks: text("three"), status: "complete" });
  await store.saveSummary({ sessionId: s.id, fromSeq: 1, toSeq: 2, text: "summary of one", model: "m" });
  await store.saveSummary({ sessionId: s.id, fromSeq: 1, toSeq: 6, text: "summary of two", model: "m" });
  return s.id;
}

const strip = (m: StoredMessage): Omit<StoredMessage, "id" | "sessionId"> => {
  const { id: _id, sessionId: _s, ...rest } = m;
  return rest;
};

describe("fork", () => {
  it("copies the record up to a prompt, exactly; the original stays whole; both are listed with their link", async () => {
    const id = await threePrompts();
    expect(await store.promptCount(id)).toBe(3);
    const before = (await store.loadHistory(id)).messages;
    const fork = await store.fork(id, 3);
    expect(fork.forkedFrom).toEqual({ id, atPrompt: 3 });
    expect(fork.title).toBe("three");
    const copied = (await store.loadHistory(fork.id)).messages;
    // everything before prompt 3 (seq 7): blocks, status, model, usage, seq and time
    expect(copied.map(strip)).toEqual(before.slice(0, 6).map(strip));
    expect((await store.loadHistory(id)).messages).toEqual(before);
    // only the summaries that cover copied messages come along
    expect((await store.loadSummaries(fork.id)).map((s) => s.text)).toEqual(["summary of two", "summary of one"]);
    expect(await store.promptCount(fork.id)).toBe(2);
    // the inspector of the fork says where it came from until its first request
    const view = await store.inspectorView(fork.id);
    expect(view.state).toBe("pending");
    expect(view.state === "pending" && view.reason).toMatch(new RegExp(`forked from session ${id} at prompt 3`));
    const list = await store.listSessions();
    const orig = list.find((s) => s.id === id);
    const f = list.find((s) => s.id === fork.id);
    expect(orig?.forks).toEqual([{ id: fork.id, atPrompt: 3 }]);
    expect(f?.forkedFrom).toEqual({ id, atPrompt: 3 });
    expect(f?.messages).toBe(6);
  });

  it("at prompt 1 the fork is empty yet listed; one past the last prompt copies the whole record", async () => {
    const id = await threePrompts();
    const empty = await store.fork(id, 1);
    expect((await store.loadHistory(empty.id)).messages).toEqual([]);
    expect((await store.listSessions()).some((s) => s.id === empty.id)).toBe(true);
    const whole = await store.fork(id, 4);
    expect((await store.loadHistory(whole.id)).messages.length).toBe(7);
    expect((await store.listSessions()).find((s) => s.id === id)?.forks?.map((f) => f.atPrompt)).toEqual([1, 4]);
  });

  it("refuses a prompt the session does not have, and a session that does not exist", async () => {
    const id = await threePrompts();
    for (const n of [0, 5, 1.5, Number.NaN]) {
      const e = await store.fork(id, n).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(StoreError);
      expect((e as StoreError).kind).toBe("no-prompt");
    }
    expect(((await store.fork(id, 5).catch((x: unknown) => x)) as Error).message).toBe(`session ${id} has 3 prompts; a fork goes up to prompt 1 to 4 (4: the whole record)`);
    expect(((await store.fork("nope", 1).catch((x: unknown) => x)) as StoreError).kind).toBe("no-session");
    expect((await store.listSessions()).length).toBe(1);
  });

  it("is one transaction: a fork that cannot be written whole leaves nothing behind", async () => {
    const id = await store.createSession({ workspace: "/w" }).then((s) => s.id);
    const big = "x".repeat(200_000);
    for (let i = 0; i < 6; i++) await store.appendMessage(id, { role: i % 2 ? "assistant" : "user", blocks: text(`${i} ${big}`), status: "complete" });
    await store.close();
    const pages = (await fs.stat(db)).size / 4096;
    // room for a little more, not for a second copy of the record
    store = await openStore(db, { maxPageCount: Math.ceil(pages) + 40 });
    const e = await store.fork(id, 4).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).kind).toBe("full");
    expect((await store.listSessions()).map((s) => s.id)).toEqual([id]);
    expect((await store.loadHistory(id)).messages.length).toBe(6);
  });

  it("a database of the previous schema is migrated: its sessions load, with no link", async () => {
    await store.close();
    const old = path.join(dir, "old.sqlite");
    const raw = await rawOpen(old);
    // the schema before the fork's prompt (its last migration), with a fork made then (no prompt)
    const before = migrations.length - 1;
    await rawExec(raw, `CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (${before});`);
    for (const m of migrations.slice(0, before)) await rawExec(raw, m.sql);
    await rawExec(raw, "INSERT INTO sessions (id, title, workspace, created_at, updated_at) VALUES ('old1', 't', '/w', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')");
    await rawExec(raw, `INSERT INTO messages (session_id, seq, role, status, blocks_json, created_at) VALUES ('old1', 1, 'user', 'complete', '[{"type":"text","text":"hi"}]', '2026-01-01T00:00:00.000Z')`);
    await rawClose(raw);
    store = await openStore(old);
    const [s] = await store.listSessions();
    expect(s?.id).toBe("old1");
    expect(s?.forkedFrom).toBeUndefined();
    const fork = await store.fork("old1", 2);
    expect((await store.loadHistory(fork.id)).messages.map((m) => m.blocks)).toEqual([text("hi")]);
    const check = await rawOpen(old);
    expect(await rawAll(check, "SELECT version FROM schema_version")).toEqual([{ version: migrations.length }]);
    await rawClose(check);
  });
});
