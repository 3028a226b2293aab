// The SQLite history store: the one record every surface reads, and the inspector's
// captures (docs/architecture.md, Design rules).
//
// One connection per store. node-sqlite3 runs a connection's statements in order, but our
// async methods interleave at every await, so all work goes through one promise queue:
// a transaction never overlaps another statement of the same connection. Other processes
// are kept apart by SQLite itself (WAL, BEGIN IMMEDIATE, busy timeout).
import crypto from "node:crypto";
import { constants as C } from "node:fs";
import fs from "node:fs/promises";
import nodePath from "node:path";
import { pathToFileURL } from "node:url";
import sqlite3 from "sqlite3";
import type { Database, Statement } from "sqlite3";
import { z } from "zod";
import type { Block, MessageStatus, NewMessage, Session, StoredMessage } from "../record/types.js";
import { parseBlocks, roleSchema, statusSchema } from "../record/schema.js";
import { messageOf } from "../record/errors.js";
import type { Capture, CaptureMeta, InspectorView, Page, SectionSummary } from "../inspector/types.js";
import type { BadMessage, HistoryStore, LoadedHistory, StoredSummary } from "./types.js";
import { LATEST_VERSION, migrations } from "./migrations.js";
import { dataDir, ensurePrivateDir, tightenMode } from "../config/paths.js";
import { fileKind } from "../config/files.js";

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
export const NO_REQUEST_YET = "no request has been sent in this session yet";

const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

export type StoreErrorKind =
  | "not-sqlite"
  | "not-albedo"
  | "not-regular"
  | "newer-schema"
  | "busy"
  | "no-session"
  | "closed"
  | "truncated"
  | "corrupt"
  | "read-only"
  | "full"
  | "io";

/** A failure the person can act on; `kind` lets the CLI pick a message or exit code. */
export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "StoreError";
  }
}

// ---------------------------------------------------------------------------------------
// Promise wrappers over node-sqlite3's callbacks.

interface RunInfo {
  lastID: number;
  changes: number;
}

function openDb(file: string, mode = sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE): Promise<Database> {
  return new Promise((resolve, reject) => {
    const db: Database = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

function closeDb(db: Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}

function execSql(db: Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

function allSql<T>(db: Database, sql: string, params: unknown[] = []): Promise<T[]> {
  return new Promise((resolve, reject) =>
    db.all<T>(sql, params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))),
  );
}

function runSql(db: Database, sql: string, params: unknown[] = []): Promise<RunInfo> {
  return new Promise((resolve, reject) =>
    db.run(sql, params, function (this: RunInfo, err: Error | null) {
      if (err) reject(err);
      else resolve({ lastID: this.lastID, changes: this.changes });
    }),
  );
}

function prepare(db: Database, sql: string): Promise<Statement> {
  return new Promise((resolve, reject) => {
    const st: Statement = db.prepare(sql, (err: Error | null) => (err ? reject(err) : resolve(st)));
  });
}

function stmtRun(st: Statement, params: unknown[]): Promise<RunInfo> {
  return new Promise((resolve, reject) =>
    st.run(params, function (this: RunInfo, err: Error | null) {
      if (err) reject(err);
      else resolve({ lastID: this.lastID, changes: this.changes });
    }),
  );
}

// `all` steps the statement to the end, which ends its implicit read transaction; a `get`
// left mid-result would hold a WAL snapshot open until the next reset.
function stmtAll<T>(st: Statement, params: unknown[]): Promise<T[]> {
  return new Promise((resolve, reject) =>
    st.all<T>(params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))),
  );
}

function finalize(st: Statement): Promise<void> {
  return new Promise((resolve) => st.finalize(() => resolve()));
}

function sqliteCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function isBusy(e: unknown): boolean {
  const code = sqliteCode(e);
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

function busyError(file: string, waitedMs: number): StoreError {
  return new StoreError(
    "busy",
    `the database ${file} is busy: it is locked by another process (waited ${waitedMs} ms). ` +
      `Close the other albedo-tui using it, or try again.`,
  );
}

function notSqliteError(file: string, detail?: string): StoreError {
  return new StoreError(
    "not-sqlite",
    `${file} is not an albedo-tui database (not an SQLite file)${detail ? `: ${detail}` : ""}`,
  );
}

// ---------------------------------------------------------------------------------------
// SQLite's error codes in plain words, naming the file and the cause.

const ERRNO_WORDS: Record<string, string> = { EROFS: "a read-only file system", EACCES: "permission denied", EPERM: "permission denied" };

/** Why `file` cannot be written, found by asking the system; undefined when nothing says so. */
async function readOnlyCause(file: string): Promise<string | undefined> {
  const dir = nodePath.dirname(nodePath.resolve(file));
  const mode = async (p: string): Promise<string> => {
    const st = await fs.stat(p).catch(() => undefined);
    return st ? ` (mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}${typeof process.getuid === "function" && st.uid !== process.getuid() ? `, owned by uid ${st.uid}` : ""})` : "";
  };
  const denied = async (p: string): Promise<string | undefined> => {
    try {
      await fs.access(p, C.W_OK);
      return undefined;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code;
    }
  };
  const onFile = await denied(file);
  if (onFile === "EROFS") return "it is on a read-only file system";
  if (onFile === "EACCES" || onFile === "EPERM") return `the file is read-only for this user${await mode(file)}`;
  const onDir = await denied(dir);
  if (onDir === "EROFS") return "it is on a read-only file system";
  // SQLite keeps its -wal and -shm files beside the database: the folder must be writable
  if (onDir === "EACCES" || onDir === "EPERM") return `its folder ${dir} is read-only for this user${await mode(dir)}`;
  for (const side of [`${file}-wal`, `${file}-shm`]) {
    const code = await denied(side);
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") return `${side} is read-only for this user${await mode(side)}`;
  }
  return undefined;
}

const READERS_STILL_WORK = "the reading commands (albedo-tui sessions, export, context) still work on it";

function readOnlyError(file: string, cause: string | undefined, detail?: string): StoreError {
  return new StoreError(
    "read-only",
    `cannot write to the database ${file}: ${cause ?? `SQLite says it is read-only${detail ? ` (${detail})` : ""}`}; ${READERS_STILL_WORK}`,
  );
}

/** Free bytes on the file system holding `file`, when the system says. */
async function freeBytes(file: string): Promise<number | undefined> {
  try {
    const st = await fs.statfs(nodePath.dirname(nodePath.resolve(file)));
    return st.bavail * st.bsize;
  } catch {
    return undefined;
  }
}

/** The database file is shorter than its header says, or not whole pages: its end is missing. */
async function truncation(file: string): Promise<string | undefined> {
  let fh: fs.FileHandle | undefined;
  try {
    fh = await fs.open(file, C.O_RDONLY | C.O_NONBLOCK);
    const st = await fh.stat();
    if (!st.isFile()) return undefined;
    const head = Buffer.alloc(100);
    const { bytesRead } = await fh.read(head, 0, 100, 0);
    if (bytesRead < 100) return `it ends after ${st.size} bytes, inside its 100-byte header`;
    const raw = head.readUInt16BE(16);
    const pageSize = raw === 1 ? 65536 : raw;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return undefined;
    if (st.size % pageSize !== 0) return `it is ${st.size} bytes, which is not a whole number of its ${pageSize}-byte pages`;
    const pages = head.readUInt32BE(28);
    // the header's page count is trusted only when it was written with the change counter
    const counted = head.readUInt32BE(92) === head.readUInt32BE(24);
    if (counted && pages > 0 && st.size < pages * pageSize) {
      return `it is ${st.size} bytes but its header counts ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes)`;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

const KEEP_A_COPY = "Keep a copy of it; sqlite3's .recover command can save what is still readable";

/**
 * A SQLite failure as a sentence naming the file and the cause: truncated, a corrupt page,
 * read-only, a full disk, an I/O error, busy. Anything else is returned as it was.
 */
export async function describeStoreFailure(file: string, e: unknown, busyMs: number): Promise<unknown> {
  if (e instanceof StoreError) return e;
  if (isBusy(e)) return busyError(file, busyMs);
  const code = sqliteCode(e);
  const said = messageOf(e).replace(/^SQLITE_[A-Z_]+: /, "");
  const errno = (e as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case "SQLITE_CORRUPT":
    case "SQLITE_NOTADB": {
      const cut = await truncation(file);
      if (cut) return new StoreError("truncated", `the database ${file} is truncated: ${cut}; its end is missing. ${KEEP_A_COPY}.`);
      const what = code === "SQLITE_NOTADB" ? "its header is not valid" : "a page of it is corrupt";
      return new StoreError("corrupt", `the database ${file} is damaged: ${what} (SQLite: ${said}). ${KEEP_A_COPY}.`);
    }
    case "SQLITE_FULL":
    case "SQLITE_IOERR": {
      const free = await freeBytes(file);
      // SQLite says FULL for a full disk and for a database at its page limit; the I/O
      // error of a write that found no space reads the same to a person
      const diskFull = free !== undefined && free < 1024 * 1024;
      if (code === "SQLITE_FULL" || diskFull) {
        const why = diskFull ? `the disk is full (${free} bytes free)` : `the database is full (SQLite: ${said})`;
        return new StoreError("full", `cannot write to the database ${file}: ${why}. What was stored before is kept; free some space and try again.`);
      }
      return new StoreError("io", `reading or writing the database ${file} failed: an input/output error (SQLite: ${said})`);
    }
    case "SQLITE_READONLY":
      return readOnlyError(file, await readOnlyCause(file), said);
    case "SQLITE_CANTOPEN":
    case "SQLITE_PERM":
    case "SQLITE_AUTH": {
      const cause = await readOnlyCause(file);
      if (cause) return readOnlyError(file, cause);
      return new StoreError("io", `cannot open the database ${file} (SQLite: ${said})`);
    }
    default:
      break;
  }
  if (errno === "EROFS" || errno === "EACCES" || errno === "EPERM") {
    return readOnlyError(file, (await readOnlyCause(file)) ?? ERRNO_WORDS[errno]);
  }
  if (errno === "ENOSPC") {
    return new StoreError("full", `cannot write to the database ${file}: the disk is full. What was stored before is kept; free some space and try again.`);
  }
  return e;
}

// ---------------------------------------------------------------------------------------
// zod schemas for the stored capture (stored JSON is outside input, like blocks).

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
});

const metaSchema = z.object({
  provider: z.enum(["anthropic", "openai"]),
  model: z.string(),
  capturedAt: z.string(),
  iteration: z.number().int(),
  contextWindow: z.number().optional(),
  totalBytes: z.number().int().nonnegative(),
  providerUsage: usageSchema.optional(),
  compaction: z.string().optional(),
});

const sectionSchema = z.object({
  index: z.number().int().nonnegative(),
  kind: z.enum(["system", "context", "history", "tools"]),
  source: z.string(),
  items: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  estimate: z.object({ tokens: z.number(), method: z.string() }),
  preview: z.string(),
  chars: z.number().int().nonnegative(),
  pages: z.number().int().nonnegative(),
  deltaBytes: z.number().int().nullable(),
});
const sectionsSchema = z.array(sectionSchema);

// Compile-time checks that the schemas and the context types describe the same thing.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameMeta: Same<z.infer<typeof metaSchema>, CaptureMeta> = true;
const _sameSection: Same<z.infer<typeof sectionSchema>, SectionSummary> = true;
void _sameMeta;
void _sameSection;

function parseJson<T>(schema: z.ZodType<T>, json: string): { ok: true; value: T } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `not valid JSON (${messageOf(e)})` };
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    return { ok: false, error: `fails validation at ${first?.path.join(".") || "(root)"}: ${first?.message ?? "invalid"}` };
  }
  return { ok: true, value: r.data };
}

// ---------------------------------------------------------------------------------------
// Rows as SQLite returns them.

interface SessionRow {
  id: string;
  title: string;
  workspace: string;
  created_at: string;
  updated_at: string;
}

interface MessageRow {
  id: number;
  session_id: string;
  seq: number;
  role: string;
  status: string;
  model: string | null;
  blocks_json: string;
  created_at: string;
}

interface CaptureRow {
  meta_json: string | null;
  sections_json: string | null;
  pending_reason: string | null;
  pending_since: string | null;
}

interface SummaryRow {
  id: number;
  session_id: string;
  from_seq: number;
  to_seq: number;
  text: string;
  model: string;
  created_at: string;
}

function toSession(r: SessionRow): Session {
  return { id: r.id, title: r.title, workspace: r.workspace, createdAt: r.created_at, updatedAt: r.updated_at };
}

function toSummary(r: SummaryRow): StoredSummary {
  return {
    id: r.id,
    sessionId: r.session_id,
    fromSeq: r.from_seq,
    toSeq: r.to_seq,
    text: r.text,
    model: r.model,
    createdAt: r.created_at,
  };
}

const SESSION_COLS = "id, title, workspace, created_at, updated_at";
const MESSAGE_COLS = "id, session_id, seq, role, status, model, blocks_json, created_at";

function newSessionId(): string {
  return crypto.randomBytes(6).toString("hex");
}

function nowIso(): string {
  return new Date().toISOString();
}

function isNonNegInt(n: number): boolean {
  return Number.isInteger(n) && n >= 0;
}

// ---------------------------------------------------------------------------------------
// Opening: check the file, read the version, then (and only then) change anything.

/**
 * Checks the path before SQLite touches it, and creates a missing database file 0600 (SQLite
 * gives its -wal and -shm files the database's mode). Refuses what cannot be a database: a
 * folder, a FIFO or device (opening a FIFO would block), a file that is not SQLite.
 */
async function checkFile(file: string, create: boolean): Promise<void> {
  if (file === ":memory:") return;
  const dir = nodePath.dirname(nodePath.resolve(file));
  if (create) {
    try {
      // albedo's own data folder is kept 0700; a folder a person chose for --db is only created
      ensurePrivateDir(dir, { tighten: dir === dataDir() });
    } catch (e) {
      throw await describeStoreFailure(file, e, 0);
    }
  }
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw await describeStoreFailure(file, e, 0);
    if (!create) return;
    try {
      await (await fs.open(file, "wx", 0o600)).close(); // an empty file is a new database to SQLite
    } catch (ce) {
      if ((ce as NodeJS.ErrnoException).code !== "EEXIST") throw await describeStoreFailure(file, ce, 0);
    }
    return;
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw new StoreError("not-sqlite", `${file} is a directory, not an albedo-tui database`);
    if (!st.isFile()) throw new StoreError("not-regular", `${file} is not a regular file (${fileKind(st)}); it cannot be an albedo-tui database`);
    if (st.size === 0) return; // SQLite treats an empty file as a new database
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (bytesRead < head.length || !head.equals(SQLITE_HEADER)) throw notSqliteError(file);
  } finally {
    await handle.close();
  }
}

/** The database and its -wal and -shm files readable by this user alone (see tightenMode). */
function tightenFiles(file: string): void {
  if (file === ":memory:") return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) tightenMode(f);
}

/** The database's schema version; 0 for a new, empty database. Writes nothing. */
async function readVersion(db: Database, file: string): Promise<number> {
  const tables = await allSql<{ name: string }>(
    db,
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  );
  if (tables.some((t) => t.name === "schema_version")) {
    const rows = await allSql<{ v: number | null }>(db, "SELECT MAX(version) AS v FROM schema_version");
    return rows[0]?.v ?? 0;
  }
  if (tables.length > 0) {
    throw new StoreError(
      "not-albedo",
      `${file} is an SQLite database but not an albedo-tui one (it has tables and no schema_version); ` +
        `refusing to change it`,
    );
  }
  return 0;
}

function refuseNewer(file: string, version: number): void {
  if (version > LATEST_VERSION) {
    throw new StoreError(
      "newer-schema",
      `${file} was written by a newer albedo-tui (schema version ${version}; this one knows up to ` +
        `${LATEST_VERSION}); refusing to open it so nothing is downgraded`,
    );
  }
}

async function migrate(db: Database, file: string): Promise<void> {
  await execSql(db, "BEGIN IMMEDIATE");
  try {
    // Read again under the write lock: another process may have migrated meanwhile.
    const version = await readVersion(db, file);
    refuseNewer(file, version);
    if (version === 0) await execSql(db, "CREATE TABLE schema_version (version INTEGER NOT NULL)");
    for (const m of migrations) {
      if (m.version <= version) continue;
      try {
        await execSql(db, m.sql);
      } catch (e) {
        throw new Error(`migrating ${file} to schema version ${m.version} (${m.description}) failed: ${messageOf(e)}`);
      }
    }
    if (version < LATEST_VERSION) {
      await execSql(db, "DELETE FROM schema_version");
      await runSql(db, "INSERT INTO schema_version (version) VALUES (?)", [LATEST_VERSION]);
    }
    await execSql(db, "COMMIT");
  } catch (e) {
    await execSql(db, "ROLLBACK").catch(() => undefined);
    throw e;
  }
}

export interface OpenOptions {
  busyTimeoutMs?: number;
  /** for commands that only read: a database that cannot be written is opened read-only */
  readOnlyFallback?: boolean;
  /** SQLite's max_page_count: beyond it writes fail as on a full disk (SQLITE_FULL) */
  maxPageCount?: number;
}

export async function openStore(path: string, opts?: OpenOptions): Promise<SqliteStore> {
  try {
    return await openWritable(path, opts);
  } catch (e) {
    if (opts?.readOnlyFallback && e instanceof StoreError && e.kind === "read-only") return openReadOnly(path, opts, e);
    throw e;
  }
}

async function openWritable(path: string, opts: OpenOptions | undefined): Promise<SqliteStore> {
  const busyMs = opts?.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  // Before SQLite touches the file: a non-SQLite file must stay byte-for-byte as it was, and
  // opening it would already create -wal/-shm files beside it.
  await checkFile(path, true);
  let db: Database;
  try {
    db = await openDb(path);
  } catch (e) {
    const d = await describeStoreFailure(path, e, busyMs);
    if (d instanceof StoreError) throw d;
    throw new Error(`cannot open the database ${path}: ${messageOf(e)}`);
  }
  try {
    await execSql(db, `PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyMs))}`);
    if (opts?.maxPageCount !== undefined) await execSql(db, `PRAGMA max_page_count = ${Math.max(1, Math.floor(opts.maxPageCount))}`);
    // Read-only checks first, so a database we refuse is left as it was.
    const version = await readVersion(db, path);
    refuseNewer(path, version);
    const mode = await allSql<{ journal_mode: string }>(db, "PRAGMA journal_mode = WAL");
    // synchronous stays at SQLite's default (FULL): a committed message survives power loss too.
    await execSql(db, "PRAGMA foreign_keys = ON");
    // Skipping the write transaction when current lets a reader open while another
    // process is mid-write.
    if (version < LATEST_VERSION) await migrate(db, path);
    // files an older albedo-tui left 0644 (the -wal and -shm exist once WAL is on)
    tightenFiles(path);
    const store = new SqliteStore(path, db, busyMs, mode[0]?.journal_mode ?? "unknown");
    await store.prepareStatements();
    return store;
  } catch (e) {
    await closeDb(db).catch(() => undefined);
    // a header that passed checkFile but that SQLite cannot read (NOTADB) is a damaged file
    throw await describeStoreFailure(path, e, busyMs);
  }
}

/**
 * A database that cannot be written, opened for reading only. A database in WAL mode needs its
 * -shm file, which cannot be created in a read-only folder; when there is no -wal either, the
 * main file holds everything and SQLite's immutable mode reads it without one.
 */
async function openReadOnly(path: string, opts: OpenOptions | undefined, why: StoreError): Promise<SqliteStore> {
  const busyMs = opts?.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  await checkFile(path, false);
  const attempt = async (name: string, mode: number): Promise<{ db: Database; version: number }> => {
    const db = await openDb(name, mode);
    try {
      await execSql(db, `PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyMs))}`);
      return { db, version: await readVersion(db, path) };
    } catch (e) {
      await closeDb(db).catch(() => undefined);
      throw e;
    }
  };
  let opened: { db: Database; version: number };
  try {
    opened = await attempt(path, sqlite3.OPEN_READONLY);
  } catch (e) {
    const code = sqliteCode(e);
    const wal = await fs.stat(`${path}-wal`).catch(() => undefined);
    if ((code !== "SQLITE_READONLY" && code !== "SQLITE_CANTOPEN") || (wal && wal.size > 0)) {
      const d = await describeStoreFailure(path, e, busyMs);
      throw d instanceof StoreError && d.kind === "read-only" ? why : d;
    }
    try {
      opened = await attempt(`${pathToFileURL(path).href}?immutable=1`, sqlite3.OPEN_READONLY | sqlite3.OPEN_URI);
    } catch (e2) {
      throw await describeStoreFailure(path, e2, busyMs);
    }
  }
  const { db, version } = opened;
  try {
    refuseNewer(path, version);
    if (version < LATEST_VERSION) {
      const cause = why.message.replace(/^cannot write to the database [^:]*: /, "").replace(`; ${READERS_STILL_WORK}`, "");
      throw new StoreError(
        "read-only",
        version === 0
          ? `the database ${path} holds no albedo-tui history and cannot be written: ${cause}`
          : `the database ${path} needs upgrading to schema version ${LATEST_VERSION} and cannot be written: ${cause}; open it once where it is writable`,
      );
    }
    const store = new SqliteStore(path, db, busyMs, "read-only", true);
    await store.prepareStatements();
    return store;
  } catch (e) {
    await closeDb(db).catch(() => undefined);
    throw await describeStoreFailure(path, e, busyMs);
  }
}

// ---------------------------------------------------------------------------------------

interface Prepared {
  maxUpdated: Statement;
  insertMessage: Statement;
  updateMessage: Statement;
  loadMessages: Statement;
  loadTail: Statement;
  getCapture: Statement;
  insertPage: Statement;
  getPage: Statement;
}

export class SqliteStore implements HistoryStore {
  private tail: Promise<unknown> = Promise.resolve();
  private closing = false;
  private st: Prepared | undefined;

  /** @internal use openStore */
  constructor(
    readonly path: string,
    private readonly db: Database,
    readonly busyTimeoutMs: number,
    /** "wal" normally; SQLite falls back (e.g. "delete") where WAL is unsupported */
    readonly journalMode: string,
    /** opened for reading only (the database cannot be written); writes fail with a "read-only" StoreError */
    readonly readOnly = false,
  ) {}

  /** @internal called once by openStore */
  async prepareStatements(): Promise<void> {
    const p = (sql: string) => prepare(this.db, sql);
    this.st = {
      maxUpdated: await p("SELECT MAX(updated_at) AS m FROM sessions"),
      // seq is taken inside the statement and the session is touched by a trigger, so an
      // append is one atomic statement
      insertMessage: await p(
        "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, created_at) " +
          "VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6) " +
          "RETURNING id, seq",
      ),
      updateMessage: await p("UPDATE messages SET blocks_json = ?, status = ? WHERE id = ?"),
      loadMessages: await p(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? ORDER BY seq`),
      loadTail: await p(
        `SELECT ${MESSAGE_COLS} FROM (SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
      ),
      getCapture: await p(
        "SELECT meta_json, sections_json, pending_reason, pending_since FROM captures WHERE session_id = ?",
      ),
      insertPage: await p("INSERT INTO capture_pages (session_id, section, page, text) VALUES (?, ?, ?, ?)"),
      getPage: await p("SELECT text FROM capture_pages WHERE session_id = ? AND section = ? AND page = ?"),
    };
  }

  private get s(): Prepared {
    if (!this.st) throw new Error("store statements are not prepared (use openStore)");
    return this.st;
  }

  // --- serialisation -------------------------------------------------------------------

  /** Run fn after everything queued before it; maps SQLite busy errors to a clear message. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new StoreError("closed", `the store ${this.path} is closed`));
    const run = this.tail.then(fn).catch(async (e: unknown) => {
      // busy, truncated, corrupt, read-only, full: a sentence naming the file and the cause
      throw await describeStoreFailure(this.path, e, this.busyTimeoutMs);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** One write transaction. IMMEDIATE takes the write lock up front, so a concurrent writer
   *  waits at BEGIN (under the busy timeout) instead of failing midway. */
  private tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.serial(async () => {
      await execSql(this.db, "BEGIN IMMEDIATE");
      try {
        const r = await fn();
        await execSql(this.db, "COMMIT");
        return r;
      } catch (e) {
        await execSql(this.db, "ROLLBACK").catch(() => undefined);
        throw e;
      }
    });
  }

  /** A session timestamp later than every stored one, so "newest first" is exact even for
   *  writes within one millisecond. Call inside a write transaction. */
  private async nextStamp(): Promise<string> {
    const now = nowIso();
    const [row] = await stmtAll<{ m: string | null }>(this.s.maxUpdated, []);
    const last = row?.m;
    if (!last || now > last) return now;
    return new Date(Date.parse(last) + 1).toISOString();
  }


  private async requireSession(sessionId: string): Promise<SessionRow> {
    const [row] = await allSql<SessionRow>(this.db, `SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`, [sessionId]);
    if (!row) throw new StoreError("no-session", `no session with id ${sessionId}`);
    return row;
  }

  // --- sessions --------------------------------------------------------------------------

  createSession(opts: { workspace: string; title?: string }): Promise<Session> {
    return this.tx(async () => {
      const stamp = await this.nextStamp();
      // 48 random bits: a clash is practically impossible, but costs nothing to retry.
      for (let attempt = 0; ; attempt++) {
        const id = newSessionId();
        try {
          await runSql(
            this.db,
            "INSERT INTO sessions (id, title, workspace, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            [id, opts.title ?? "", opts.workspace, stamp, stamp],
          );
          return { id, title: opts.title ?? "", workspace: opts.workspace, createdAt: stamp, updatedAt: stamp };
        } catch (e) {
          if (sqliteCode(e) !== "SQLITE_CONSTRAINT" || attempt >= 4) throw e;
        }
      }
    });
  }

  getSession(id: string): Promise<Session | undefined> {
    return this.serial(async () => {
      const [row] = await allSql<SessionRow>(this.db, `SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`, [id]);
      return row ? toSession(row) : undefined;
    });
  }

  listSessions(opts?: { workspace?: string; limit?: number }): Promise<Session[]> {
    const limit = opts?.limit !== undefined && opts.limit >= 0 ? Math.floor(opts.limit) : -1; // -1: no limit
    return this.serial(async () => {
      const rows =
        opts?.workspace !== undefined
          ? await allSql<SessionRow>(
              this.db,
              `SELECT ${SESSION_COLS} FROM sessions WHERE workspace = ? ORDER BY updated_at DESC, rowid DESC LIMIT ?`,
              [opts.workspace, limit],
            )
          : await allSql<SessionRow>(
              this.db,
              `SELECT ${SESSION_COLS} FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?`,
              [limit],
            );
      return rows.map(toSession);
    });
  }

  async latestSession(workspace: string): Promise<Session | undefined> {
    const [s] = await this.listSessions({ workspace, limit: 1 });
    return s;
  }

  setTitle(sessionId: string, title: string): Promise<void> {
    return this.tx(async () => {
      const { changes } = await runSql(this.db, "UPDATE sessions SET title = ? WHERE id = ?", [title, sessionId]);
      if (changes === 0) throw new StoreError("no-session", `no session with id ${sessionId}`);
    });
  }

  // --- messages --------------------------------------------------------------------------

  appendMessage(sessionId: string, msg: NewMessage): Promise<StoredMessage> {
    const blocksJson = JSON.stringify(msg.blocks);
    return this.serial(async () => {
      const createdAt = nowIso();
      let row: { id: number; seq: number } | undefined;
      try {
        [row] = await stmtAll<{ id: number; seq: number }>(this.s.insertMessage, [
          sessionId,
          msg.role,
          msg.status,
          msg.model ?? null,
          blocksJson,
          createdAt,
        ]);
      } catch (e) {
        // the foreign key names the problem less clearly than we can
        if (sqliteCode(e) === "SQLITE_CONSTRAINT" && /FOREIGN KEY/i.test(messageOf(e))) {
          throw new StoreError("no-session", `no session with id ${sessionId}`);
        }
        throw e;
      }
      if (!row) throw new Error("the insert returned no row");
      const seq = row.seq;
      const stored: StoredMessage = {
        id: row.id,
        sessionId,
        seq,
        role: msg.role,
        blocks: msg.blocks,
        status: msg.status,
        createdAt,
      };
      if (msg.model !== undefined) stored.model = msg.model;
      return stored;
    });
  }

  updateMessage(id: number, blocks: Block[], status: MessageStatus): Promise<void> {
    const blocksJson = JSON.stringify(blocks);
    return this.serial(async () => {
      // one statement: the trigger touches the session
      const { changes } = await stmtRun(this.s.updateMessage, [blocksJson, status, id]);
      if (changes === 0) throw new Error(`no stored message with id ${id}`);
    });
  }

  loadHistory(sessionId: string, opts?: { last?: number }): Promise<LoadedHistory> {
    return this.serial(async () => {
      const rows =
        opts?.last !== undefined
          ? await stmtAll<MessageRow>(this.s.loadTail, [sessionId, Math.max(0, Math.floor(opts.last))])
          : await stmtAll<MessageRow>(this.s.loadMessages, [sessionId]);
      const messages: StoredMessage[] = [];
      const bad: BadMessage[] = [];
      for (const r of rows) {
        const fail = (error: string) => bad.push({ id: r.id, seq: r.seq, role: String(r.role), error });
        const role = roleSchema.safeParse(r.role);
        if (!role.success) {
          fail(`unknown role ${JSON.stringify(r.role)}`);
          continue;
        }
        const status = statusSchema.safeParse(r.status);
        if (!status.success) {
          fail(`unknown status ${JSON.stringify(r.status)}`);
          continue;
        }
        const blocks = parseBlocks(r.blocks_json);
        if (!blocks.ok) {
          fail(blocks.error);
          continue;
        }
        const m: StoredMessage = {
          id: r.id,
          sessionId: r.session_id,
          seq: r.seq,
          role: role.data,
          blocks: blocks.blocks,
          status: status.data,
          createdAt: r.created_at,
        };
        if (r.model !== null) m.model = r.model;
        messages.push(m);
      }
      return { messages, bad };
    });
  }

  // --- inspector captures ----------------------------------------------------------------

  saveCapture(sessionId: string, capture: Capture): Promise<void> {
    // A capture whose page lists disagree with its sections would page wrongly forever.
    if (capture.pages.length !== capture.sections.length) {
      return Promise.reject(
        new Error(`capture has ${capture.sections.length} sections but ${capture.pages.length} page lists`),
      );
    }
    for (const [i, sec] of capture.sections.entries()) {
      const n = capture.pages[i]?.length ?? 0;
      if (sec.index !== i || sec.pages !== n) {
        return Promise.reject(
          new Error(`capture section ${i} (index ${sec.index}) declares ${sec.pages} pages but has ${n}`),
        );
      }
    }
    const meta = JSON.stringify(capture.meta);
    const sections = JSON.stringify(capture.sections);
    return this.tx(async () => {
      await this.requireSession(sessionId);
      await runSql(this.db, "DELETE FROM capture_pages WHERE session_id = ?", [sessionId]);
      await runSql(
        this.db,
        `INSERT INTO captures (session_id, meta_json, sections_json, pending_reason, pending_since, captured_at)
         VALUES (?, ?, ?, NULL, NULL, ?)
         ON CONFLICT (session_id) DO UPDATE SET meta_json = excluded.meta_json,
           sections_json = excluded.sections_json, pending_reason = NULL, pending_since = NULL,
           captured_at = excluded.captured_at`,
        [sessionId, meta, sections, capture.meta.capturedAt],
      );
      for (const [section, pages] of capture.pages.entries()) {
        for (const [page, text] of pages.entries()) {
          await stmtRun(this.s.insertPage, [sessionId, section, page, text]);
        }
      }
    });
  }

  setPending(sessionId: string, reason: string): Promise<void> {
    return this.tx(async () => {
      await this.requireSession(sessionId);
      // `since` is when the view went stale: a second change updates the reason only.
      await runSql(
        this.db,
        `INSERT INTO captures (session_id, pending_reason, pending_since) VALUES (?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET pending_reason = excluded.pending_reason,
           pending_since = COALESCE(captures.pending_since, excluded.pending_since)`,
        [sessionId, reason, nowIso()],
      );
    });
  }

  inspectorView(sessionId: string): Promise<InspectorView> {
    return this.serial(async () => {
      const session = await this.requireSession(sessionId);
      const [row] = await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]);
      if (row?.pending_reason != null) {
        return { state: "pending", reason: row.pending_reason, since: row.pending_since ?? session.created_at };
      }
      if (!row || row.meta_json === null || row.sections_json === null) {
        return { state: "pending", reason: NO_REQUEST_YET, since: session.created_at };
      }
      const meta = parseJson(metaSchema, row.meta_json);
      const sections = parseJson(sectionsSchema, row.sections_json);
      if (!meta.ok || !sections.ok) {
        // Never show a capture we cannot read as if it were current.
        const why = !meta.ok ? `meta ${meta.error}` : !sections.ok ? `sections ${sections.error}` : "";
        return {
          state: "pending",
          reason: `the stored capture could not be read (${why}); it is replaced by the next request`,
          since: session.created_at,
        };
      }
      return { state: "current", meta: meta.value, sections: sections.value };
    });
  }

  capturePage(sessionId: string, section: number, page: number): Promise<Page | undefined> {
    if (!isNonNegInt(section) || !isNonNegInt(page)) return Promise.resolve(undefined);
    return this.serial(async () => {
      const [row] = await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]);
      if (!row || row.pending_reason !== null || row.sections_json === null) return undefined;
      const sections = parseJson(sectionsSchema, row.sections_json);
      if (!sections.ok) return undefined;
      const sec = sections.value[section];
      if (!sec || page >= sec.pages) return undefined;
      const [p] = await stmtAll<{ text: string }>(this.s.getPage, [sessionId, section, page]);
      if (!p) return undefined;
      return { section, page, pages: sec.pages, text: p.text };
    });
  }

  lastSectionBytes(sessionId: string): Promise<Map<string, number> | undefined> {
    return this.serial(async () => {
      const [row] = await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]);
      if (!row || row.sections_json === null) return undefined;
      const sections = parseJson(sectionsSchema, row.sections_json);
      if (!sections.ok) return undefined;
      const out = new Map<string, number>();
      // Two sections with the same kind and source (rare) are compared as one.
      for (const s of sections.value) {
        const key = `${s.kind}:${s.source}`;
        out.set(key, (out.get(key) ?? 0) + s.bytes);
      }
      return out;
    });
  }

  // --- summaries -------------------------------------------------------------------------

  saveSummary(s: Omit<StoredSummary, "id" | "createdAt">): Promise<StoredSummary> {
    return this.tx(async () => {
      await this.requireSession(s.sessionId);
      const createdAt = nowIso();
      const { lastID } = await runSql(
        this.db,
        "INSERT INTO summaries (session_id, from_seq, to_seq, text, model, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [s.sessionId, s.fromSeq, s.toSeq, s.text, s.model, createdAt],
      );
      return { id: lastID, sessionId: s.sessionId, fromSeq: s.fromSeq, toSeq: s.toSeq, text: s.text, model: s.model, createdAt };
    });
  }

  loadSummaries(sessionId: string): Promise<StoredSummary[]> {
    return this.serial(async () => {
      const rows = await allSql<SummaryRow>(
        this.db,
        "SELECT id, session_id, from_seq, to_seq, text, model, created_at FROM summaries WHERE session_id = ? ORDER BY id DESC",
        [sessionId],
      );
      return rows.map(toSummary);
    });
  }

  // --- lifecycle -------------------------------------------------------------------------

  /** Waits for queued work, then closes. Later calls reject; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closing) return this.tail.then(() => undefined);
    const done = this.serial(async () => {
      if (this.st) await Promise.all(Object.values(this.st).map((st) => finalize(st)));
      this.st = undefined;
      await closeDb(this.db);
    });
    this.closing = true;
    await done;
  }
}
