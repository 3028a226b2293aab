// The SQLite helper the message store and the capture store share: opening checks, promise
// wrappers over node-sqlite3's callbacks, SQLite failures in plain words, the schema version
// and migrations, and the one connection with its serial queue.
import { constants as C } from "node:fs";
import fs from "node:fs/promises";
import nodePath from "node:path";
import sqlite3 from "sqlite3";
import type { Database, Statement } from "sqlite3";
import { messageOf } from "../../record/errors.js";
import { LATEST_VERSION, migrations } from "./migrations.js";
import { dataDir, ensurePrivateDir, tightenMode } from "../../config/paths.js";
import { fileKind } from "../../config/files.js";

const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

export type StoreErrorKind =
  | "not-sqlite"
  | "not-albedo"
  | "not-regular"
  | "newer-schema"
  | "busy"
  | "no-session"
  /** a prompt number the session does not have */
  | "no-prompt"
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

/** The stores' timestamps: ISO 8601 in UTC, so they sort as text. */
export function nowIso(): string {
  return new Date().toISOString();
}

// ---------------------------------------------------------------------------------------
// Promise wrappers over node-sqlite3's callbacks.

interface RunInfo {
  lastID: number;
  changes: number;
}

export function openDb(file: string, mode = sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE): Promise<Database> {
  return new Promise((resolve, reject) => {
    const db: Database = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

export function closeDb(db: Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}

export function execSql(db: Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

export function allSql<T>(db: Database, sql: string, params: unknown[] = []): Promise<T[]> {
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

function prepareStatement(db: Database, sql: string): Promise<Statement> {
  return new Promise((resolve, reject) => {
    const st: Statement = db.prepare(sql, (err: Error | null) => (err ? reject(err) : resolve(st)));
  });
}

export function stmtRun(st: Statement, params: unknown[]): Promise<RunInfo> {
  return new Promise((resolve, reject) =>
    st.run(params, function (this: RunInfo, err: Error | null) {
      if (err) reject(err);
      else resolve({ lastID: this.lastID, changes: this.changes });
    }),
  );
}

// `all` steps the statement to the end, which ends its implicit read transaction; a `get`
// left mid-result would hold a WAL snapshot open until the next reset.
export function stmtAll<T>(st: Statement, params: unknown[]): Promise<T[]> {
  return new Promise((resolve, reject) =>
    st.all<T>(params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))),
  );
}

function finalize(st: Statement): Promise<void> {
  return new Promise((resolve) => st.finalize(() => resolve()));
}

export function sqliteCode(e: unknown): string | undefined {
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

export const READERS_STILL_WORK = "the reading commands (albedo-tui sessions, export, context) still work on it";

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
// Opening: check the file, read the version, then (and only then) change anything.

/**
 * Checks the path before SQLite touches it, and creates a missing database file 0600 (SQLite
 * gives its -wal and -shm files the database's mode). Refuses what cannot be a database: a
 * folder, a FIFO or device (opening a FIFO would block), a file that is not SQLite.
 */
export async function checkFile(file: string, create: boolean): Promise<void> {
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
export function tightenFiles(file: string): void {
  if (file === ":memory:") return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) tightenMode(f);
}

/** The database's schema version; 0 for a new, empty database. Writes nothing. */
export async function readVersion(db: Database, file: string): Promise<number> {
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

export function refuseNewer(file: string, version: number): void {
  if (version > LATEST_VERSION) {
    throw new StoreError(
      "newer-schema",
      `${file} was written by a newer albedo-tui (schema version ${version}; this one knows up to ` +
        `${LATEST_VERSION}); refusing to open it so nothing is downgraded`,
    );
  }
}

export async function migrate(db: Database, file: string): Promise<void> {
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

// ---------------------------------------------------------------------------------------
// The connection both stores share.

/**
 * One open database and its queue. node-sqlite3 runs a connection's statements in order, but
 * our async methods interleave at every await, so all work of both stores goes through this
 * one promise queue: a transaction never overlaps another statement of the same connection,
 * and a capture write and a message append run in the order they were asked for. Other
 * processes are kept apart by SQLite itself (WAL, BEGIN IMMEDIATE, busy timeout).
 */
export class Connection {
  private tail: Promise<unknown> = Promise.resolve();
  private closing = false;
  private readonly statements: Statement[] = [];

  constructor(
    readonly path: string,
    private readonly db: Database,
    readonly busyTimeoutMs: number,
  ) {}

  /** A statement kept for the connection's life; finalized on close. */
  async prepare(sql: string): Promise<Statement> {
    const st = await prepareStatement(this.db, sql);
    this.statements.push(st);
    return st;
  }

  /** Only inside serial or tx. */
  all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return allSql<T>(this.db, sql, params);
  }

  /** Only inside serial or tx. */
  run(sql: string, params: unknown[] = []): Promise<RunInfo> {
    return runSql(this.db, sql, params);
  }

  /** Run fn after everything queued before it; maps SQLite busy errors to a clear message. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
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
  tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.transaction("BEGIN IMMEDIATE", fn);
  }

  /** One read transaction: every statement of fn reads the same snapshot, so a read made of
   *  several statements never sees half of another process's write. A deferred BEGIN takes no
   *  lock (a read-only or immutable database reads the same way). */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.transaction("BEGIN", fn);
  }

  /** fn between `begin` and COMMIT, in the queue; ROLLBACK when it throws */
  private transaction<T>(begin: "BEGIN" | "BEGIN IMMEDIATE", fn: () => Promise<T>): Promise<T> {
    return this.serial(async () => {
      await execSql(this.db, begin);
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

  /** Waits for queued work, then closes. Later calls reject; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closing) return this.tail.then(() => undefined);
    const done = this.serial(async () => {
      await Promise.all(this.statements.splice(0).map((st) => finalize(st)));
      await closeDb(this.db);
    });
    this.closing = true;
    await done;
  }
}
