// The SQLite history store: the one record every surface reads, and the inspector's
// captures (docs/architecture.md, Design rules). Opening lives here; the SQL lives in the
// message store (messages.ts) and the capture store (captures.ts), which share one
// connection and its serial queue (sqlite.ts).
import fs from "node:fs/promises";
import { pathToFileURL } from "node:url";
import sqlite3 from "sqlite3";
import type { Database } from "sqlite3";
import type { AnswerUsage, Block, MessageStatus, NewMessage, Session, SessionInfo, StoredMessage } from "../../record/types.js";
import { messageOf } from "../../record/errors.js";
import type { Capture, InspectorView, Page } from "../../context/types.js";
import type { RequestPrint } from "../../context/change.js";
import type { HistoryStore, LoadedHistory, StoredCountBody, StoredSummary } from "./types.js";
import { LATEST_VERSION } from "./migrations.js";
import {
  Connection,
  READERS_STILL_WORK,
  StoreError,
  allSql,
  checkFile,
  closeDb,
  describeStoreFailure,
  execSql,
  migrate,
  openDb,
  readVersion,
  refuseNewer,
  sqliteCode,
  tightenFiles,
} from "./sqlite.js";
import { MessageStore, newSessionId } from "./messages.js";
import { CaptureStore, NO_REQUEST_YET } from "./captures.js";
import { LeaseStore, type LeaseHolder, type LeaseResult, type Opener } from "./leases.js";

export { StoreError, describeStoreFailure, NO_REQUEST_YET, newSessionId };
export type { StoreErrorKind } from "./sqlite.js";

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

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
    return await SqliteStore.over(new Connection(path, db, busyMs), mode[0]?.journal_mode ?? "unknown");
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
    return await SqliteStore.over(new Connection(path, db, busyMs), "read-only", true);
  } catch (e) {
    await closeDb(db).catch(() => undefined);
    throw await describeStoreFailure(path, e, busyMs);
  }
}

// ---------------------------------------------------------------------------------------

/** The two stores over one connection: every call of either goes through its one queue. */
export class SqliteStore implements HistoryStore {
  readonly path: string;
  readonly busyTimeoutMs: number;

  private constructor(
    private readonly conn: Connection,
    private readonly messages: MessageStore,
    private readonly captures: CaptureStore,
    private readonly leases: LeaseStore,
    /** "wal" normally; SQLite falls back (e.g. "delete") where WAL is unsupported */
    readonly journalMode: string,
    /** opened for reading only (the database cannot be written); writes fail with a "read-only" StoreError */
    readonly readOnly: boolean,
  ) {
    this.path = conn.path;
    this.busyTimeoutMs = conn.busyTimeoutMs;
  }

  /** @internal use openStore */
  static async over(conn: Connection, journalMode: string, readOnly = false): Promise<SqliteStore> {
    const messages = await MessageStore.prepare(conn);
    const captures = await CaptureStore.prepare(conn);
    return new SqliteStore(conn, messages, captures, new LeaseStore(conn), journalMode, readOnly);
  }

  createSession(opts: { workspace: string; title?: string; id?: string }): Promise<Session> {
    return this.messages.createSession(opts);
  }
  getSession(id: string): Promise<Session | undefined> {
    return this.messages.getSession(id);
  }
  sessionsByPrefix(prefix: string, limit: number): Promise<Session[]> {
    return this.messages.sessionsByPrefix(prefix, limit);
  }
  listSessions(opts?: { workspace?: string; limit?: number; includeEmpty?: boolean }): Promise<SessionInfo[]> {
    return this.messages.listSessions(opts);
  }

  deleteSession(id: string): Promise<boolean> {
    return this.messages.deleteSession(id);
  }
  latestSession(workspace: string): Promise<Session | undefined> {
    return this.messages.latestSession(workspace);
  }
  setTitle(sessionId: string, title: string): Promise<void> {
    return this.messages.setTitle(sessionId, title);
  }
  fork(sessionId: string, uptoPrompt: number): Promise<Session> {
    return this.messages.fork(sessionId, uptoPrompt);
  }
  promptCount(sessionId: string): Promise<number> {
    return this.messages.promptCount(sessionId);
  }
  appendMessage(sessionId: string, msg: NewMessage): Promise<StoredMessage> {
    return this.messages.appendMessage(sessionId, msg);
  }
  updateMessage(id: number, blocks: Block[], status: MessageStatus, usage?: AnswerUsage): Promise<void> {
    return this.messages.updateMessage(id, blocks, status, usage);
  }
  loadHistory(sessionId: string, opts?: { last?: number }): Promise<LoadedHistory> {
    return this.messages.loadHistory(sessionId, opts);
  }
  saveSummary(s: Omit<StoredSummary, "id" | "createdAt">): Promise<StoredSummary> {
    return this.messages.saveSummary(s);
  }
  loadSummaries(sessionId: string): Promise<StoredSummary[]> {
    return this.messages.loadSummaries(sessionId);
  }

  takeLease(sessionId: string, me: Opener): Promise<LeaseResult> {
    return this.leases.takeLease(sessionId, me);
  }
  holdNewSessions(me: Pick<Opener, "pid" | "host">): Promise<void> {
    // a read-only store creates no session
    return this.readOnly ? Promise.resolve() : this.leases.holdNewSessions(me);
  }
  heartbeat(sessionId: string, me: Pick<Opener, "pid" | "host">): Promise<boolean> {
    return this.leases.heartbeat(sessionId, me);
  }
  releaseLease(sessionId: string, me: Pick<Opener, "pid" | "host">): Promise<void> {
    return this.leases.releaseLease(sessionId, me);
  }
  leaseOf(sessionId: string): Promise<LeaseHolder | undefined> {
    return this.leases.leaseOf(sessionId);
  }
  openLeases(): Promise<Map<string, LeaseHolder>> {
    return this.leases.openLeases();
  }
  forkSession(sessionId: string): Promise<Session> {
    return this.messages.forkSession(sessionId);
  }
  forkedFrom(sessionId: string): Promise<string | undefined> {
    return this.leases.forkedFrom(sessionId);
  }

  saveCapture(sessionId: string, capture: Capture): Promise<void> {
    return this.captures.saveCapture(sessionId, capture);
  }
  setPending(sessionId: string, reason: string): Promise<void> {
    return this.captures.setPending(sessionId, reason);
  }
  inspectorView(sessionId: string): Promise<InspectorView> {
    return this.captures.inspectorView(sessionId);
  }
  capturePage(sessionId: string, section: number, page: number): Promise<Page | undefined> {
    return this.captures.capturePage(sessionId, section, page);
  }
  lastSectionBytes(sessionId: string): Promise<Map<string, number> | undefined> {
    return this.captures.lastSectionBytes(sessionId);
  }
  saveCountBody(sessionId: string, body: StoredCountBody): Promise<void> {
    return this.captures.saveCountBody(sessionId, body);
  }
  countBody(sessionId: string): Promise<StoredCountBody | undefined> {
    return this.captures.countBody(sessionId);
  }
  lastRequestPrint(sessionId: string): Promise<RequestPrint | undefined> {
    return this.captures.lastRequestPrint(sessionId);
  }

  /** Waits for queued work, then closes. Later calls reject; closing twice is harmless. */
  close(): Promise<void> {
    return this.conn.close();
  }
}
