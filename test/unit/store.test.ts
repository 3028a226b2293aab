// The store against real SQLite files in a temp folder: no mocks.
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, NO_REQUEST_YET, StoreError, type OpenOptions, type SqliteStore } from "../../src/session/store/store.js";
import { LATEST_VERSION } from "../../src/session/store/migrations.js";
import type { Block, NewMessage } from "../../src/record/types.js";
import type { Capture, SectionSummary } from "../../src/context/types.js";
import { tempDir } from "../helpers/tmp.js";
import { rawAll, rawClose, rawExec, rawOpen, rawRun } from "../helpers/raw-sqlite.js";
import { execFileSync } from "node:child_process";
import { corruptPageHolding, isRoot, readOnlyView, skipped, smallDisk, sqliteGeometry } from "../helpers/fs-faults.js";

async function sha256(file: string): Promise<string> {
  return crypto.createHash("sha256").update(await fs.readFile(file)).digest("hex");
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

// --- fixtures ----------------------------------------------------------------------------

const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const everyBlock: Block[] = [
  { type: "text", text: "héllo 🌍 with\nnewlines and `ticks`" },
  { type: "tool_use", id: "call_1", name: "read_file", input: { path: "src/a.ts", range: [1, 20], deep: { x: null } } },
  { type: "tool_result", toolUseId: "call_1", name: "read_file", output: "line 1\nline 2", isError: false },
  { type: "tool_result", toolUseId: "call_2", name: "bash", output: "exit 1", isError: true },
  { type: "reasoning", text: "thinking plainly" },
  { type: "reasoning", text: "signed thought", opaque: { kind: "anthropic.signature", body: "c2lnbmF0dXJl" } },
  { type: "image", mediaType: "image/png", data: PNG_1PX, bytes: 70, width: 1, height: 1 },
  { type: "image", mediaType: "image/jpeg", data: "/9j/4AAQ", bytes: 6 },
];

function text(t: string, role: NewMessage["role"] = "user"): NewMessage {
  return { role, blocks: [{ type: "text", text: t }], status: "complete" };
}

function section(index: number, kind: SectionSummary["kind"], source: string, bytes: number, pages: number): SectionSummary {
  return {
    index,
    kind,
    source,
    items: 1,
    bytes,
    estimate: { tokens: Math.ceil(bytes / 4), method: "chars/4" },
    preview: `${source} preview`,
    chars: bytes,
    pages,
    deltaBytes: null,
  };
}

function capture(model: string, historyPages: string[]): Capture {
  return {
    meta: {
      provider: "anthropic",
      model,
      capturedAt: new Date().toISOString(),
      iteration: 1,
      totalBytes: 100 + historyPages.join("").length,
      contextWindow: 200_000,
      providerUsage: { inputTokens: 10, outputTokens: 5 },
    },
    sections: [
      section(0, "system", "system", 100, 1),
      section(1, "history", "history", historyPages.join("").length, historyPages.length),
    ],
    pages: [["You are albedo."], historyPages],
  };
}

// --- tests -------------------------------------------------------------------------------

let dir: string;
let dbPath: string;
const open: SqliteStore[] = [];

async function openTracked(file = dbPath, opts?: OpenOptions): Promise<SqliteStore> {
  const s = await openStore(file, opts);
  open.push(s);
  return s;
}

beforeEach(async () => {
  dir = await tempDir("albedo-store-");
  dbPath = path.join(dir, "nested", "deeper", "history.sqlite");
});

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("opening", () => {
  it("creates parent folders, uses WAL, and records the schema version", async () => {
    const store = await openTracked();
    expect(store.journalMode).toBe("wal");
    await store.close();
    const db = await rawOpen(dbPath);
    const [v] = await rawAll<{ version: number }>(db, "SELECT version FROM schema_version");
    const [fk] = await rawAll<{ journal_mode: string }>(db, "PRAGMA journal_mode");
    await rawClose(db);
    expect(v?.version).toBe(LATEST_VERSION);
    expect(fk?.journal_mode).toBe("wal");
  });

  it("turns an empty file into a new database", async () => {
    await fs.mkdir(path.dirname(dbPath), { recursive: true });
    await fs.writeFile(dbPath, "");
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    expect(await store.getSession(s.id)).toEqual(s);
  });

  it("refuses a file that is not SQLite, names it, and leaves it byte-for-byte alone", async () => {
    await fs.mkdir(path.dirname(dbPath), { recursive: true });
    await fs.writeFile(dbPath, "these are my notes, not a database\n".repeat(50));
    const before = await sha256(dbPath);
    const err = await openStore(dbPath).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toBe(`${dbPath} is not an albedo-tui database (not an SQLite file)`);
    expect(await sha256(dbPath)).toBe(before);
    expect(await exists(`${dbPath}-wal`)).toBe(false);
    expect(await exists(`${dbPath}-shm`)).toBe(false);
    expect(await exists(`${dbPath}-journal`)).toBe(false);
  });

  it("refuses a database from a newer albedo-tui and changes nothing", async () => {
    const store = await openStore(dbPath);
    await store.createSession({ workspace: "/w" });
    await store.close();
    const db = await rawOpen(dbPath);
    await rawExec(db, "UPDATE schema_version SET version = 99");
    await rawClose(db);
    const before = await sha256(dbPath);

    await expect(openStore(dbPath)).rejects.toThrow(
      `${dbPath} was written by a newer albedo-tui (schema version 99; this one knows up to ${LATEST_VERSION}); ` +
        "refusing to open it so nothing is downgraded",
    );

    expect(await sha256(dbPath)).toBe(before);
    const check = await rawOpen(dbPath);
    const [v] = await rawAll<{ version: number }>(check, "SELECT version FROM schema_version");
    await rawClose(check);
    expect(v?.version).toBe(99);
  });

  it("refuses another program's SQLite database instead of adding tables to it", async () => {
    await fs.mkdir(path.dirname(dbPath), { recursive: true });
    const db = await rawOpen(dbPath);
    await rawExec(db, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');");
    await rawClose(db);
    const before = await sha256(dbPath);
    await expect(openStore(dbPath)).rejects.toThrow(/not an albedo-tui one/);
    expect(await sha256(dbPath)).toBe(before);
  });

  it("opens an existing database while another process is mid-write", async () => {
    const first = await openTracked();
    const s = await first.createSession({ workspace: "/w" });
    const other = await rawOpen(dbPath);
    await rawExec(other, "BEGIN IMMEDIATE");
    try {
      const second = await openTracked(dbPath, { busyTimeoutMs: 100 });
      expect((await second.getSession(s.id))?.id).toBe(s.id);
    } finally {
      await rawExec(other, "COMMIT");
      await rawClose(other);
    }
  });

  it("reopens after close with everything still there", async () => {
    const a = await openStore(dbPath);
    const s = await a.createSession({ workspace: "/w", title: "kept" });
    await a.appendMessage(s.id, text("one"));
    await a.close();
    await expect(a.getSession(s.id)).rejects.toThrow(/closed/);

    const b = await openTracked();
    expect((await b.getSession(s.id))?.title).toBe("kept");
    const h = await b.loadHistory(s.id);
    expect(h.messages.map((m) => m.blocks)).toEqual([[{ type: "text", text: "one" }]]);
  });
});

describe("messages", () => {
  it("round-trips every block kind exactly", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    const user = await store.appendMessage(s.id, { role: "user", blocks: everyBlock, status: "complete" });
    const asst = await store.appendMessage(s.id, {
      role: "assistant",
      blocks: everyBlock.slice(0, 2),
      status: "interrupted",
      model: "claude-x",
    });
    expect(user.seq).toBe(1);
    expect(asst.seq).toBe(2);
    expect(asst.model).toBe("claude-x");
    expect("model" in user).toBe(false);

    const h = await store.loadHistory(s.id);
    expect(h.bad).toEqual([]);
    expect(h.messages).toEqual([user, asst]);
    expect(h.messages[0]?.blocks).toEqual(everyBlock);
  });

  it("keeps seq order across many appends and bumps the session's updatedAt", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    // Appends issued without awaiting each other must still be serialised, one seq each.
    const stored = await Promise.all(
      Array.from({ length: 60 }, (_, i) => store.appendMessage(s.id, text(`m${i}`, i % 2 ? "assistant" : "user"))),
    );
    expect(stored.map((m) => m.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const h = await store.loadHistory(s.id);
    expect(h.messages.map((m) => m.seq)).toEqual(stored.map((m) => m.seq));
    expect(h.messages.map((m) => (m.blocks[0] as { text: string }).text)).toEqual(stored.map((_, i) => `m${i}`));
    const after = await store.getSession(s.id);
    expect(after!.updatedAt > s.updatedAt).toBe(true);
  });

  it("updates a message in place: interrupted checkpoint, then complete", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    await store.appendMessage(s.id, text("question"));
    const m = await store.appendMessage(s.id, {
      role: "assistant",
      blocks: [{ type: "text", text: "partial" }],
      status: "interrupted",
      model: "m1",
    });
    await store.updateMessage(m.id, [{ type: "text", text: "partial answer, longer" }], "interrupted");
    const final: Block[] = [
      { type: "reasoning", text: "r", opaque: { kind: "sig", body: "xyz" } },
      { type: "text", text: "full answer" },
    ];
    await store.updateMessage(m.id, final, "complete");

    const h = await store.loadHistory(s.id);
    expect(h.messages).toHaveLength(2);
    expect(h.messages[1]).toMatchObject({ id: m.id, seq: 2, status: "complete", blocks: final, model: "m1" });
    await expect(store.updateMessage(999_999, final, "complete")).rejects.toThrow(/no stored message with id 999999/);
  });

  it("refuses to append to a session that does not exist", async () => {
    const store = await openTracked();
    await expect(store.appendMessage("nope", text("x"))).rejects.toThrow(/no session with id nope/);
  });

  it("loads the rest of a session when one row's blocks fail validation", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    await store.appendMessage(s.id, text("good 1"));
    await store.appendMessage(s.id, text("good 2", "assistant"));

    const raw = await rawOpen(dbPath);
    await rawRun(
      raw,
      "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [s.id, 3, "user", "complete", null, JSON.stringify([{ type: "text", txt: "typo" }]), new Date().toISOString()],
    );
    await rawRun(
      raw,
      "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [s.id, 4, "assistant", "complete", null, "{not json", new Date().toISOString()],
    );
    await rawClose(raw);
    await store.appendMessage(s.id, text("good 5"));

    const h = await store.loadHistory(s.id);
    expect(h.messages.map((m) => m.seq)).toEqual([1, 2, 5]);
    expect(h.bad).toHaveLength(2);
    expect(h.bad[0]).toMatchObject({ seq: 3, role: "user" });
    expect(h.bad[0]?.error).toMatch(/fail validation at 0\.text/);
    expect(h.bad[1]).toMatchObject({ seq: 4, role: "assistant" });
    expect(h.bad[1]?.error).toMatch(/not valid JSON/);
    expect(typeof h.bad[0]?.id).toBe("number");
  });

  it("a row with an unknown role or status is reported, not loaded, and the rest still loads", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    await store.appendMessage(s.id, text("good 1"));
    const raw = await rawOpen(dbPath);
    const blocks = JSON.stringify([{ type: "text", text: "x" }]);
    const sql = "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)";
    await rawRun(raw, sql, [s.id, 2, "system", "complete", null, blocks, new Date().toISOString()]);
    await rawRun(raw, sql, [s.id, 3, "assistant", "done", null, blocks, new Date().toISOString()]);
    await rawRun(raw, sql, [s.id, 4, "toString", "complete", null, blocks, new Date().toISOString()]);
    await rawClose(raw);
    await store.appendMessage(s.id, text("good 5", "assistant"));

    const h = await store.loadHistory(s.id);
    expect(h.messages.map((m) => [m.seq, m.role, m.status])).toEqual([
      [1, "user", "complete"],
      [5, "assistant", "complete"],
    ]);
    expect(h.bad.map((b) => [b.seq, b.error])).toEqual([
      [2, 'unknown role "system"'],
      [3, 'unknown status "done"'],
      [4, 'unknown role "toString"'],
    ]);
  });

  it("lets a second connection read what the first one wrote (WAL)", async () => {
    const a = await openTracked();
    const b = await openTracked();
    const s = await a.createSession({ workspace: "/w" });
    await a.appendMessage(s.id, text("from a"));
    expect((await b.loadHistory(s.id)).messages).toHaveLength(1);

    // b writes too; the seq is computed under the write lock, so neither clobbers the other.
    await b.appendMessage(s.id, text("from b"));
    await a.appendMessage(s.id, text("from a again"));
    const h = await b.loadHistory(s.id);
    expect(h.messages.map((m) => [m.seq, (m.blocks[0] as { text: string }).text])).toEqual([
      [1, "from a"],
      [2, "from b"],
      [3, "from a again"],
    ]);
  });

  it("fails with a clear busy message while another process holds the lock, then works", async () => {
    const store = await openTracked(dbPath, { busyTimeoutMs: 150 });
    const s = await store.createSession({ workspace: "/w" });
    const other = await rawOpen(dbPath);
    await rawExec(other, "BEGIN EXCLUSIVE");
    try {
      const err = await store.appendMessage(s.id, text("blocked")).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).kind).toBe("busy");
      expect((err as Error).message).toContain(dbPath);
      expect((err as Error).message).toMatch(/busy: it is locked by another process/);
    } finally {
      await rawExec(other, "COMMIT");
      await rawClose(other);
    }
    const m = await store.appendMessage(s.id, text("after release"));
    expect(m.seq).toBe(1);
    expect((await store.loadHistory(s.id)).messages.map((x) => x.seq)).toEqual([1]);
  });
});

describe("sessions", () => {
  it("lists newest first, by workspace, with a limit", async () => {
    const store = await openTracked();
    const a = await store.createSession({ workspace: "/one" });
    const b = await store.createSession({ workspace: "/two" });
    const c = await store.createSession({ workspace: "/one", title: "third" });
    expect(a.id).toMatch(/^[0-9a-f]{12}$/);
    expect(a.title).toBe("");
    expect(c.title).toBe("third");

    // sessions with no message yet are kept but not listed (nor continued)
    expect(await store.listSessions()).toEqual([]);
    expect((await store.listSessions({ includeEmpty: true })).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(await store.latestSession("/one")).toBeUndefined();
    // an append makes a session the newest, even within the same millisecond
    await store.appendMessage(a.id, text("bump"));
    await store.appendMessage(b.id, text("bump"));
    await store.appendMessage(c.id, text("bump"));
    await store.appendMessage(a.id, text("bump again"));
    expect((await store.listSessions()).map((s) => s.id)).toEqual([a.id, c.id, b.id]);
    expect((await store.listSessions()).map((s) => s.messages)).toEqual([2, 1, 1]);
    expect((await store.listSessions({ workspace: "/one" })).map((s) => s.id)).toEqual([a.id, c.id]);
    expect((await store.listSessions({ limit: 2 })).map((s) => s.id)).toEqual([a.id, c.id]);

    expect((await store.latestSession("/one"))?.id).toBe(a.id);
    expect((await store.latestSession("/two"))?.id).toBe(b.id);
    expect(await store.latestSession("/none")).toBeUndefined();

    await store.setTitle(b.id, "renamed");
    expect((await store.getSession(b.id))?.title).toBe("renamed");
    expect(await store.getSession("missing")).toBeUndefined();
    await expect(store.setTitle("missing", "x")).rejects.toThrow(/no session/);
  });
});

describe("inspector captures", () => {
  it("is pending before the first request", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    expect(await store.inspectorView(s.id)).toEqual({ state: "pending", reason: NO_REQUEST_YET, since: s.createdAt });
    expect(await store.capturePage(s.id, 0, 0)).toBeUndefined();
    expect(await store.lastSectionBytes(s.id)).toBeUndefined();
  });

  it("saves, views, pages, goes pending, and is replaced by the next capture", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    const first = capture("m1", ["page zero", "page one", "page two"]);
    await store.saveCapture(s.id, first);

    const view = await store.inspectorView(s.id);
    expect(view).toEqual({ state: "current", meta: first.meta, sections: first.sections });
    expect(await store.capturePage(s.id, 1, 2)).toEqual({ section: 1, page: 2, pages: 3, text: "page two" });
    expect(await store.capturePage(s.id, 0, 0)).toEqual({ section: 0, page: 0, pages: 1, text: "You are albedo." });
    // unknown section or page, or nonsense numbers
    expect(await store.capturePage(s.id, 2, 0)).toBeUndefined();
    expect(await store.capturePage(s.id, 1, 3)).toBeUndefined();
    expect(await store.capturePage(s.id, -1, 0)).toBeUndefined();
    expect(await store.capturePage(s.id, 0.5, 0)).toBeUndefined();
    expect(await store.capturePage("no-such-session", 0, 0)).toBeUndefined();
    expect(await store.lastSectionBytes(s.id)).toEqual(
      new Map([
        ["system:system", 100],
        ["history:history", "page zeropage onepage two".length],
      ]),
    );

    await store.setPending(s.id, "model switched to m2");
    const pending = await store.inspectorView(s.id);
    expect(pending).toMatchObject({ state: "pending", reason: "model switched to m2" });
    const since = (pending as { since: string }).since;
    expect(Number.isNaN(Date.parse(since))).toBe(false);
    expect(await store.capturePage(s.id, 1, 0)).toBeUndefined();
    // the old numbers stay available for "change since last"
    expect((await store.lastSectionBytes(s.id))?.get("system:system")).toBe(100);
    // a second change updates the reason; since stays when the view first went stale
    await store.setPending(s.id, "workspace changed");
    expect(await store.inspectorView(s.id)).toEqual({ state: "pending", reason: "workspace changed", since });

    const second = capture("m2", ["only page"]);
    await store.saveCapture(s.id, second);
    expect(await store.inspectorView(s.id)).toEqual({ state: "current", meta: second.meta, sections: second.sections });
    expect(await store.capturePage(s.id, 1, 0)).toEqual({ section: 1, page: 0, pages: 1, text: "only page" });
    expect(await store.capturePage(s.id, 1, 1)).toBeUndefined(); // the old capture's pages are gone
  });

  it("reads back what it wrote as another connection reads it, and still checks a row changed since", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    const c = capture("m1", ["page zero", "page one"]); // no print
    await store.saveCapture(s.id, c);
    // the writer answers from what it wrote; a second connection parses and checks the row
    const other = await openTracked();
    for (const get of [(x: SqliteStore) => x.inspectorView(s.id), (x: SqliteStore) => x.lastSectionBytes(s.id), (x: SqliteStore) => x.lastRequestPrint(s.id), (x: SqliteStore) => x.capturePage(s.id, 1, 1)]) {
      expect(await get(store)).toEqual(await get(other));
    }
    // what it hands out is a copy: changing it changes no later read
    const v = await store.inspectorView(s.id);
    if (v.state === "current") v.sections[0]!.bytes = -1;
    expect(await store.inspectorView(s.id)).toEqual({ state: "current", meta: c.meta, sections: c.sections });
    // another writer changes the row under it: the writer reads and checks the row, not its memory
    const raw = await rawOpen(dbPath);
    await rawRun(raw, "UPDATE captures SET sections_json = ? WHERE session_id = ?", ['[{"index":"zero"}]', s.id]);
    await rawClose(raw);
    expect(await store.inspectorView(s.id)).toMatchObject({ state: "pending", reason: expect.stringMatching(/could not be read/) });
    expect(await store.lastSectionBytes(s.id)).toBeUndefined();
  });

  it("goes pending before any capture with the given reason", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    await store.setPending(s.id, "extension context reloaded");
    expect(await store.inspectorView(s.id)).toMatchObject({ state: "pending", reason: "extension context reloaded" });
    expect(await store.lastSectionBytes(s.id)).toBeUndefined();
  });

  it("stores a large capture as pages and serves any one of them", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    const pages = Array.from({ length: 300 }, (_, i) => `${i}:`.padEnd(8000, "x"));
    await store.saveCapture(s.id, capture("big", pages));
    expect(await store.capturePage(s.id, 1, 299)).toMatchObject({ page: 299, pages: 300, text: pages[299] });
    expect((await store.capturePage(s.id, 1, 150))?.text.startsWith("150:")).toBe(true);
  });

  it("rejects a capture whose pages disagree with its sections, keeping the old one", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    const good = capture("m1", ["a"]);
    await store.saveCapture(s.id, good);
    const broken = capture("m2", ["a", "b"]);
    broken.sections[1]!.pages = 5;
    await expect(store.saveCapture(s.id, broken)).rejects.toThrow(/declares 5 pages but has 2/);
    expect(await store.inspectorView(s.id)).toMatchObject({ state: "current", meta: { model: "m1" } });
  });
});

describe("summaries", () => {
  it("round-trips, newest first, per session", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    const other = await store.createSession({ workspace: "/w" });
    const one = await store.saveSummary({ sessionId: s.id, fromSeq: 1, toSeq: 10, text: "first", model: "m" });
    const two = await store.saveSummary({ sessionId: s.id, fromSeq: 1, toSeq: 20, text: "second", model: "m" });
    await store.saveSummary({ sessionId: other.id, fromSeq: 1, toSeq: 2, text: "elsewhere", model: "m" });
    expect(one).toMatchObject({ sessionId: s.id, fromSeq: 1, toSeq: 10, text: "first", model: "m" });
    expect(await store.loadSummaries(s.id)).toEqual([two, one]);
    expect(await store.loadSummaries("none")).toEqual([]);
  });
});

// --- files and failures: real files, real faults -------------------------------------------

async function refusal(p: Promise<unknown>): Promise<StoreError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(StoreError);
  return e as StoreError;
}

/** A closed database holding one session of `n` user messages, each with a unique marker. */
async function seeded(file: string, n = 60): Promise<{ sessionId: string; markers: string[] }> {
  const store = await openStore(file);
  const s = await store.createSession({ workspace: "/w", title: "seeded" });
  const markers: string[] = [];
  for (let i = 0; i < n; i++) {
    const m = `MARKER-${i}-${crypto.randomBytes(4).toString("hex")}`;
    markers.push(m);
    await store.appendMessage(s.id, text(`${m} ${"words ".repeat(120)}`));
  }
  await store.close(); // the last close checkpoints the WAL into the main file
  return { sessionId: s.id, markers };
}

const mode = async (p: string): Promise<number> => (await fs.stat(p)).mode & 0o777;

describe("files and their modes", () => {
  it("creates the database 0600 (and its -wal and -shm with it), its new folders 0700", async () => {
    const old = process.umask(0o022);
    try {
      const store = await openTracked();
      await store.createSession({ workspace: "/w" });
      expect(await mode(dbPath)).toBe(0o600);
      expect(await mode(`${dbPath}-wal`)).toBe(0o600);
      expect(await mode(`${dbPath}-shm`)).toBe(0o600);
      expect(await mode(path.dirname(dbPath))).toBe(0o700);
      expect(await mode(path.dirname(path.dirname(dbPath)))).toBe(0o700);
    } finally {
      process.umask(old);
    }
  });

  it("tightens a looser database and albedo's own data folder, never a folder chosen for --db", async () => {
    const saved = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = path.join(dir, "xdg-data");
    try {
      const own = path.join(dir, "xdg-data", "albedo");
      const chosen = path.join(dir, "project");
      for (const folder of [own, chosen]) {
        const file = path.join(folder, "history.sqlite");
        await seeded(file, 1);
        // as an older albedo-tui left them: 0755 and 0644, with -wal and -shm beside
        await fs.chmod(folder, 0o755);
        await fs.chmod(file, 0o644);
        for (const side of [`${file}-wal`, `${file}-shm`]) {
          await fs.writeFile(side, "");
          await fs.chmod(side, 0o644);
        }
        await openTracked(file);
        expect(await mode(file)).toBe(0o600);
        expect(await mode(`${file}-wal`)).toBe(0o600);
        expect(await mode(`${file}-shm`)).toBe(0o600);
      }
      expect(await mode(own)).toBe(0o700);
      expect(await mode(chosen)).toBe(0o755);
    } finally {
      if (saved === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = saved;
    }
  });

  it.runIf(process.getuid?.() === 0)("leaves a database that another user owns as it is, and still opens it", async () => {
    await seeded(dbPath, 1);
    await fs.chmod(dbPath, 0o644);
    await fs.chown(dbPath, 65534, 65534);
    const store = await openTracked();
    expect((await store.listSessions()).length).toBe(1);
    expect(await mode(dbPath)).toBe(0o644);
  });

  it("refuses a FIFO or a device as the database by name, without blocking on it", async () => {
    await fs.mkdir(dir, { recursive: true });
    const fifo = path.join(dir, "db.fifo");
    execFileSync("mkfifo", [fifo]);
    const e = await refusal(openStore(fifo));
    expect(e.kind).toBe("not-regular");
    expect(e.message).toBe(`${fifo} is not a regular file (a FIFO); it cannot be an albedo-tui database`);
    const dev = await refusal(openStore("/dev/zero"));
    expect(dev.message).toBe("/dev/zero is not a regular file (a character device); it cannot be an albedo-tui database");
    // and the reading path refuses it the same way
    expect((await refusal(openStore(fifo, { readOnlyFallback: true }))).kind).toBe("not-regular");
  }, 20_000);
});

describe("failures in plain words, naming the file", () => {
  it("a truncated database: 'truncated', with what the file holds and what its header says", async () => {
    await seeded(dbPath);
    const { pageSize, pages } = sqliteGeometry(dbPath);
    const cases: [string, number, RegExp][] = [
      ["cut at a page boundary", Math.floor(pages / 2) * pageSize, new RegExp(`is truncated: it is ${Math.floor(pages / 2) * pageSize} bytes but its header counts ${pages} pages of ${pageSize} bytes`)],
      ["cut inside a page", Math.floor(pages / 2) * pageSize + 1000, /is truncated: it is \d+ bytes, which is not a whole number of its \d+-byte pages/],
      ["cut inside the header", 60, /is truncated: it ends after 60 bytes, inside its 100-byte header/],
    ];
    for (const [what, size, message] of cases) {
      const copy = path.join(dir, `truncated-${size}.sqlite`);
      await fs.copyFile(dbPath, copy);
      await fs.truncate(copy, size);
      const before = await sha256(copy);
      for (const opts of [{}, { readOnlyFallback: true }]) {
        const e = await refusal(openStore(copy, opts));
        expect(e.kind, what).toBe("truncated");
        expect(e.message, what).toContain(`the database ${copy} is truncated`);
        expect(e.message, what).toMatch(message);
        expect(e.message).toMatch(/its end is missing\. Keep a copy of it; sqlite3's \.recover command can save what is still readable\./);
      }
      expect(await sha256(copy), what).toBe(before);
    }
  });

  it("a corrupt page: sessions still list; loading the messages names the damage instead of SQLITE_CORRUPT", async () => {
    const { sessionId, markers } = await seeded(dbPath);
    corruptPageHolding(dbPath, markers[30]!);
    const store = await openTracked();
    const list = await store.listSessions();
    expect(list.map((s) => s.id)).toEqual([sessionId]);
    const e = await refusal(store.loadHistory(sessionId));
    expect(e.kind).toBe("corrupt");
    expect(e.message).toBe(
      `the database ${dbPath} is damaged: a page of it is corrupt (SQLite: database disk image is malformed). ` +
        "Keep a copy of it; sqlite3's .recover command can save what is still readable.",
    );
    // the store goes on answering after the failure
    expect((await store.getSession(sessionId))?.title).toBe("seeded");
  });

  it("a read-only database: reads work, the first write names the file and why", async () => {
    const src = path.join(dir, "ro-src");
    const file = path.join(src, "history.sqlite");
    const { sessionId } = await seeded(file, 3);
    const view = await readOnlyView(src);
    if (skipped(view)) return void console.warn(`skipped: ${view.skip}`);
    try {
      const viewed = path.join(view.path, "history.sqlite");
      const cause = isRoot ? "it is on a read-only file system" : /the file is read-only for this user \(mode 0444\)|its folder .* is read-only/;
      // a writing open fails at once or at the first write, with the same sentence
      const w = await openStore(viewed).then(
        async (s) => {
          open.push(s);
          return refusal(s.createSession({ workspace: "/w" }));
        },
        (e: unknown) => e as StoreError,
      );
      expect(w).toBeInstanceOf(StoreError);
      expect(w.kind).toBe("read-only");
      expect(w.message).toContain(`cannot write to the database ${viewed}: `);
      expect(w.message).toMatch(cause);
      expect(w.message).toContain("the reading commands (albedo-tui sessions, export, context) still work on it");
      // the reading commands' open: everything reads
      const r = await openTracked(viewed, { readOnlyFallback: true });
      expect((await r.listSessions()).map((s) => s.id)).toEqual([sessionId]);
      expect((await r.loadHistory(sessionId)).messages).toHaveLength(3);
      expect((await r.inspectorView(sessionId)).state).toBe("pending");
      const again = await refusal(r.appendMessage(sessionId, text("no")));
      expect(again.kind).toBe("read-only");
      await r.close();
    } finally {
      await view.release();
    }
  });

  it("a full database (max_page_count, SQLITE_FULL): 'full', named; the messages stored before are kept", async () => {
    const store = await openStore(dbPath, { maxPageCount: 40 });
    open.push(store);
    const s = await store.createSession({ workspace: "/w" });
    let stored = 0;
    let e: unknown;
    for (let i = 0; i < 1000 && e === undefined; i++) {
      await store.appendMessage(s.id, text(`message ${i} ${"x".repeat(3000)}`)).then(
        () => stored++,
        (err: unknown) => (e = err),
      );
    }
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).kind).toBe("full");
    expect((e as StoreError).message).toMatch(
      new RegExp(`^cannot write to the database ${dbPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the database is full \\(SQLite: database or disk is full\\)\\. What was stored before is kept; free some space and try again\\.$`),
    );
    expect(stored).toBeGreaterThan(0);
    await store.close();
    const again = await openTracked();
    const h = await again.loadHistory(s.id);
    expect(h.messages).toHaveLength(stored);
    expect(h.bad).toEqual([]);
  });

  it("a full disk (a real tmpfs, ENOSPC): 'the disk is full', named; the messages stored before are kept", async () => {
    const disk = await smallDisk(1024 * 1024);
    if (skipped(disk)) return void console.warn(`skipped: ${disk.skip}`);
    try {
      const file = path.join(disk.path, "history.sqlite");
      const store = await openStore(file);
      const s = await store.createSession({ workspace: "/w" });
      let stored = 0;
      let e: unknown;
      for (let i = 0; i < 2000 && e === undefined; i++) {
        await store.appendMessage(s.id, text(`message ${i} ${crypto.randomBytes(3000).toString("base64")}`)).then(
          () => stored++,
          (err: unknown) => (e = err),
        );
      }
      expect(e).toBeInstanceOf(StoreError);
      expect((e as StoreError).kind).toBe("full");
      expect((e as StoreError).message).toMatch(new RegExp(`^cannot write to the database ${file}: the disk is full \\(\\d+ bytes free\\)\\. What was stored before is kept`));
      const h = await store.loadHistory(s.id);
      expect(h.messages).toHaveLength(stored);
      await store.close();
    } finally {
      await disk.release();
    }
  });
});
