// The message store: sessions, their messages and their summaries, over the shared
// connection (sqlite.ts). Appending or updating a message is one statement.
import crypto from "node:crypto";
import type { Statement } from "sqlite3";
import { z } from "zod";
import type { AnswerUsage, Block, MessageStatus, NewMessage, Session, SessionInfo, StoredMessage } from "../../record/types.js";
import { parseBlocks, roleSchema, statusSchema } from "../../record/schema.js";
import { messageOf } from "../../record/errors.js";
import type { BadMessage, HistoryStore, LoadedHistory, StoredSummary } from "./types.js";
import { type Connection, StoreError, nowIso, sqliteCode, stmtAll, stmtRun } from "./sqlite.js";

// Rows as SQLite returns them.

interface SessionRow {
  id: string;
  title: string;
  workspace: string;
  created_at: string;
  updated_at: string;
  forked_from: string | null;
  forked_at_prompt: number | null;
}

// session_id is left out: it is the id the load asked for (compared as BINARY text)
interface MessageRow {
  id: number;
  seq: number;
  role: string;
  status: string;
  model: string | null;
  blocks_json: string;
  usage_json: string | null;
  created_at: string;
}

const count = z.number().int().nonnegative();
/** The usage stored with an answer (migration 3), checked on read like the blocks are. */
export const usageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count.optional(),
  cacheWriteTokens: count.optional(),
});

/** zod's z.number().int().nonnegative() */
function isCount(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

/** The stored usage, or why it cannot be read. */
export function parseUsage(json: string): { ok: true; usage: AnswerUsage } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `usage is not JSON: ${messageOf(e)}` };
  }
  // the usual row checked by hand, each condition usageSchema's own; anything else to zod,
  // which also words the error (test/unit/blocks-fast-path.test.ts holds the two together)
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const { inputTokens: i, outputTokens: o, cacheReadTokens: cr, cacheWriteTokens: cw } = raw as Record<string, unknown>;
    if (isCount(i) && isCount(o) && (cr === undefined || isCount(cr)) && (cw === undefined || isCount(cw))) {
      const u: AnswerUsage = { inputTokens: i, outputTokens: o };
      if (cr !== undefined) u.cacheReadTokens = cr;
      if (cw !== undefined) u.cacheWriteTokens = cw;
      return { ok: true, usage: u };
    }
  }
  const r = usageSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    return { ok: false, error: `usage: ${issue?.path.join(".") || "value"}: ${issue?.message ?? "invalid"}` };
  }
  const u: AnswerUsage = { inputTokens: r.data.inputTokens, outputTokens: r.data.outputTokens };
  if (r.data.cacheReadTokens !== undefined) u.cacheReadTokens = r.data.cacheReadTokens;
  if (r.data.cacheWriteTokens !== undefined) u.cacheWriteTokens = r.data.cacheWriteTokens;
  return { ok: true, usage: u };
}

function usageJson(u: AnswerUsage | undefined): string | null {
  if (!u) return null;
  // only the known fields: what a provider sends beyond them is not the record's
  const o: AnswerUsage = { inputTokens: u.inputTokens, outputTokens: u.outputTokens };
  if (u.cacheReadTokens !== undefined) o.cacheReadTokens = u.cacheReadTokens;
  if (u.cacheWriteTokens !== undefined) o.cacheWriteTokens = u.cacheWriteTokens;
  return JSON.stringify(o);
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
  const s: Session = { id: r.id, title: r.title, workspace: r.workspace, createdAt: r.created_at, updatedAt: r.updated_at };
  if (r.forked_from !== null && typeof r.forked_at_prompt === "number") s.forkedFrom = { id: r.forked_from, atPrompt: r.forked_at_prompt };
  return s;
}

/** The forks listed with a session: SQLite's json array of [id, prompt] pairs. */
function parseForks(json: string | null): Array<{ id: string; atPrompt: number }> {
  if (json === null) return [];
  try {
    const raw = JSON.parse(json) as unknown;
    if (!Array.isArray(raw)) return [];
    return raw.flatMap((p: unknown) => (Array.isArray(p) && typeof p[0] === "string" && typeof p[1] === "number" ? [{ id: p[0], atPrompt: p[1] }] : []));
  } catch {
    return [];
  }
}

/** The seqs of a session's prompts, in order: user messages with no tool result (as
 * compaction's isPlainPrompt counts them); a row whose blocks are not JSON is no prompt. */
const PROMPT_SEQS =
  "SELECT seq FROM messages WHERE session_id = ? AND role = 'user' AND json_valid(blocks_json) " +
  "AND NOT EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(blocks_json) THEN blocks_json ELSE '[]' END) " +
  "WHERE json_type(value) = 'object' AND json_extract(value, '$.type') = 'tool_result') ORDER BY seq";

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

const SESSION_COLS = "id, title, workspace, created_at, updated_at, forked_from, forked_at_prompt";
const MESSAGE_COLS = "id, seq, role, status, model, blocks_json, usage_json, created_at";

/**
 * Rows per statement when loading a history. A load reads its rows in chunks inside one read
 * transaction and asks for the next chunk before checking the current one: SQLite steps it on
 * node-sqlite3's worker thread while this thread parses, and a chunk's raw JSON dies young
 * instead of being copied by every scavenge of the whole load (one statement measured
 * 1.6-1.9× the bare SELECT; chunks with the columns packed below ~1.0-1.3×).
 */
export const LOAD_CHUNK = 500;

// A loaded row's small columns come packed by SQLite as one JSON array text beside the blocks:
// node-sqlite3 builds a key and a value per column per row, and two columns cost less than
// eight even with a JSON.parse of the small array. Only a row whose columns have
// the types a JSON array carries exactly is packed; any other row comes as its id alone and is
// read again whole (loadOne), so it loads or fails as it always did. Ids pass as text, exact
// past 2^53 where a JS number is not, since the next chunk and loadOne find rows by them.
const PACKABLE =
  "typeof(seq) = 'integer' AND typeof(role) = 'text' AND typeof(status) = 'text' AND typeof(model) IN ('null', 'text') " +
  "AND typeof(created_at) = 'text' AND typeof(usage_json) IN ('null', 'text')";
const PACKED_COLS = `CASE WHEN ${PACKABLE} THEN json_array(id, seq, role, status, model, created_at, usage_json) ELSE CAST(id AS TEXT) END AS m, blocks_json AS b`;
/** A row of a load: `m` the packed columns (a JSON array), or the id of a row to read whole. */
interface PackedRow {
  m: string;
  b: string;
}
type Packed = [id: number, seq: number, role: string, status: string, model: string | null, createdAt: string, usage: string | null];

export function newSessionId(): string {
  return crypto.randomBytes(6).toString("hex");
}

/** The session's row, or a "no-session" StoreError. Call inside serial or tx. */
export async function requireSession(conn: Connection, sessionId: string): Promise<SessionRow> {
  const [row] = await conn.all<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`, [sessionId]);
  if (!row) throw new StoreError("no-session", `no session with id ${sessionId}`);
  return row;
}

interface Statements {
  insertSession: Statement;
  insertMessage: Statement;
  updateMessage: Statement;
  loadFirst: Statement;
  loadAfter: Statement;
  loadFrom: Statement;
  loadOne: Statement;
  tailStart: Statement;
}

type MessageMethods =
  | "createSession"
  | "getSession"
  | "sessionsByPrefix"
  | "listSessions"
  | "deleteSession"
  | "latestSession"
  | "setTitle"
  | "fork"
  | "forkSession"
  | "promptCount"
  | "appendMessage"
  | "updateMessage"
  | "loadHistory"
  | "saveSummary"
  | "loadSummaries";

const ROLES: readonly unknown[] = roleSchema.options;
const STATUSES: readonly unknown[] = statusSchema.options;

const isPacked = (r: PackedRow) => r.m.startsWith("[");
/** The row's id as SQLite wrote it: the packed array's first number, or the text itself. */
function rowKey(r: PackedRow): string {
  return isPacked(r) ? r.m.slice(1, r.m.indexOf(",")) : r.m;
}

/** One stored row into `messages`, or into `bad` with the reason it cannot be read. */
function readRow(r: MessageRow, sessionId: string, messages: StoredMessage[], bad: BadMessage[]): void {
  const fail = (error: string) => bad.push({ id: r.id, seq: r.seq, role: String(r.role), error });
  // the schemas' own lists: a zod call per column per row costs ~6 ms of a 10,000-message load
  if (!ROLES.includes(r.role)) return void fail(`unknown role ${JSON.stringify(r.role)}`);
  if (!STATUSES.includes(r.status)) return void fail(`unknown status ${JSON.stringify(r.status)}`);
  const blocks = parseBlocks(r.blocks_json);
  if (!blocks.ok) return void fail(blocks.error);
  const m: StoredMessage = {
    id: r.id,
    sessionId,
    seq: r.seq,
    role: r.role as StoredMessage["role"],
    blocks: blocks.blocks,
    status: r.status as StoredMessage["status"],
    createdAt: r.created_at,
  };
  if (r.model !== null) m.model = r.model;
  if (r.usage_json !== null) {
    // a usage that cannot be read costs only the figure, not the message
    const u = parseUsage(r.usage_json);
    if (u.ok) m.usage = u.usage;
  }
  messages.push(m);
}

export class MessageStore implements Pick<HistoryStore, MessageMethods> {
  private constructor(
    private readonly conn: Connection,
    private readonly s: Statements,
  ) {}

  static async prepare(conn: Connection): Promise<MessageStore> {
    const p = (sql: string) => conn.prepare(sql);
    return new MessageStore(conn, {
      insertSession: await p(
        "INSERT INTO sessions (id, title, workspace, created_at, updated_at) " +
          "SELECT ?1, ?2, ?3, stamp, stamp FROM (SELECT CASE WHEN ?4 > m THEN ?4 " +
          "ELSE strftime('%Y-%m-%dT%H:%M:%fZ', m, '+0.001 seconds') END AS stamp " +
          "FROM (SELECT COALESCE(MAX(updated_at), '') AS m FROM sessions)) RETURNING created_at AS stamp",
      ),
      // seq is taken inside the statement and the session is touched by a trigger, so an
      // append is one atomic statement
      insertMessage: await p(
        "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, usage_json, created_at) " +
          "VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7) " +
          "RETURNING id, seq",
      ),
      // a checkpoint passes no usage and leaves the column as it is
      updateMessage: await p("UPDATE messages SET blocks_json = ?, status = ?, usage_json = COALESCE(?, usage_json) WHERE id = ?"),
      // the chunks of a load: the next one starts after the last row of the one before (found by
      // its id, so a seq of any stored type keys it; the subquery runs once and bounds the index)
      loadFirst: await p(`SELECT ${PACKED_COLS} FROM messages WHERE session_id = ?1 ORDER BY seq LIMIT ?2`),
      loadAfter: await p(
        `SELECT ${PACKED_COLS} FROM messages WHERE session_id = ?1 AND seq > (SELECT seq FROM messages WHERE id = CAST(?2 AS INTEGER)) ORDER BY seq LIMIT ?3`,
      ),
      loadFrom: await p(
        `SELECT ${PACKED_COLS} FROM messages WHERE session_id = ?1 AND seq >= (SELECT seq FROM messages WHERE id = CAST(?2 AS INTEGER)) ORDER BY seq LIMIT ?3`,
      ),
      loadOne: await p(`SELECT ${MESSAGE_COLS} FROM messages WHERE id = CAST(? AS INTEGER)`),
      // the oldest message of a tail of n: the n-th newest
      tailStart: await p("SELECT CAST(id AS TEXT) AS id FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?"),
    });
  }

  // --- sessions --------------------------------------------------------------------------

  createSession(opts: { workspace: string; title?: string; id?: string }): Promise<Session> {
    // One statement, so one commit: the stamp, later than every stored one so "newest first"
    // is exact even within one millisecond, is taken inside the INSERT as the messages'
    // triggers take theirs. It stands
    // between Enter and the first request of a new session, where a transaction of BEGIN, a
    // read, the INSERT and COMMIT would be four trips through the store's queue.
    return this.conn.serial(async () => {
      const title = opts.title ?? "";
      // 48 random bits: a clash is practically impossible, but costs nothing to retry.
      for (let attempt = 0; ; attempt++) {
        const id = attempt === 0 && opts.id !== undefined ? opts.id : newSessionId();
        try {
          const [row] = await stmtAll<{ stamp: string }>(this.s.insertSession, [id, title, opts.workspace, nowIso()]);
          if (!row) throw new Error("the insert returned no row");
          return { id, title, workspace: opts.workspace, createdAt: row.stamp, updatedAt: row.stamp };
        } catch (e) {
          if (sqliteCode(e) !== "SQLITE_CONSTRAINT" || attempt >= 4) throw e;
        }
      }
    });
  }

  getSession(id: string): Promise<Session | undefined> {
    return this.conn.serial(async () => {
      const [row] = await this.conn.all<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`, [id]);
      return row ? toSession(row) : undefined;
    });
  }

  sessionsByPrefix(prefix: string, limit: number): Promise<Session[]> {
    return this.conn.serial(async () => {
      // substr compares exactly: no LIKE wildcard in a prefix from outside can widen it
      const rows = await this.conn.all<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE substr(id, 1, length(?)) = ? ORDER BY updated_at DESC, id LIMIT ?`, [
        prefix,
        prefix,
        Math.max(1, Math.floor(limit)),
      ]);
      return rows.map(toSession);
    });
  }

  listSessions(opts?: { workspace?: string; limit?: number; includeEmpty?: boolean }): Promise<SessionInfo[]> {
    const limit = opts?.limit !== undefined && opts.limit >= 0 ? Math.floor(opts.limit) : -1; // -1: no limit
    // A session opened and left without a message is kept (it may be resumed by id) but
    // not listed, and --continue passes it by: it holds nothing to continue.
    const where: string[] = [];
    const params: unknown[] = [];
    if (opts?.workspace !== undefined) {
      where.push("s.workspace = ?");
      params.push(opts.workspace);
    }
    // a fork is listed from the start, empty or not: it was made on purpose, and names its origin
    if (!opts?.includeEmpty) where.push("(EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id) OR s.forked_from IS NOT NULL)");
    const sql =
      `SELECT s.id, s.title, s.workspace, s.created_at, s.updated_at, s.forked_from, s.forked_at_prompt, ` +
      `(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count, ` +
      `(SELECT m.model FROM messages m WHERE m.session_id = s.id AND m.model IS NOT NULL ORDER BY m.seq DESC LIMIT 1) AS last_model, ` +
      `(SELECT json_group_array(json_array(f.id, f.forked_at_prompt)) FROM (SELECT id, forked_at_prompt FROM sessions WHERE forked_from = s.id ORDER BY created_at, rowid) f) AS forks ` +
      `FROM sessions s ${where.length ? `WHERE ${where.join(" AND ")} ` : ""}ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?`;
    return this.conn.serial(async () => {
      try {
        const rows = await this.conn.all<SessionRow & { message_count: number; last_model: string | null; forks: string | null }>(sql, [...params, limit]);
        return rows.map((r) => {
          const forks = parseForks(r.forks);
          return { ...toSession(r), messages: r.message_count, ...(r.last_model ? { model: r.last_model } : {}), ...(forks.length ? { forks } : {}) };
        });
      } catch (e) {
        if (sqliteCode(e) !== "SQLITE_CORRUPT") throw e;
        // a damaged messages table must not hide the sessions themselves: list them plainly
        // (counts unknown, empty ones included), so a person can still find and export them
        const plain = await this.conn.all<SessionRow>(
          `SELECT ${SESSION_COLS} FROM sessions s ${opts?.workspace !== undefined ? "WHERE s.workspace = ? " : ""}ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?`,
          opts?.workspace !== undefined ? [opts.workspace, limit] : [limit],
        );
        return plain.map(toSession);
      }
    });
  }

  deleteSession(id: string): Promise<boolean> {
    // messages, captures with their pages, and summaries go with it (ON DELETE CASCADE)
    return this.conn.tx(async () => (await this.conn.run("DELETE FROM sessions WHERE id = ?", [id])).changes > 0);
  }

  async latestSession(workspace: string): Promise<Session | undefined> {
    const [s] = await this.listSessions({ workspace, limit: 1 });
    return s;
  }

  setTitle(sessionId: string, title: string): Promise<void> {
    return this.conn.tx(async () => {
      const { changes } = await this.conn.run("UPDATE sessions SET title = ? WHERE id = ?", [title, sessionId]);
      if (changes === 0) throw new StoreError("no-session", `no session with id ${sessionId}`);
    });
  }

  promptCount(sessionId: string): Promise<number> {
    return this.conn.serial(async () => {
      await requireSession(this.conn, sessionId);
      return (await this.conn.all<{ seq: number }>(PROMPT_SEQS, [sessionId])).length;
    });
  }

  /** the whole record: a fork at one past the last prompt */
  forkSession(sessionId: string): Promise<Session> {
    return this.forkAt(sessionId, "end");
  }

  fork(sessionId: string, uptoPrompt: number): Promise<Session> {
    if (!Number.isSafeInteger(uptoPrompt) || uptoPrompt < 1) {
      return Promise.reject(new StoreError("no-prompt", `a fork starts at a prompt number, from 1 (got ${String(uptoPrompt)})`));
    }
    return this.forkAt(sessionId, uptoPrompt);
  }

  private forkAt(sessionId: string, upto: number | "end"): Promise<Session> {
    return this.conn.tx(async () => {
      const from = await requireSession(this.conn, sessionId);
      const prompts = await this.conn.all<{ seq: number }>(PROMPT_SEQS, [sessionId]);
      const uptoPrompt = upto === "end" ? prompts.length + 1 : upto;
      if (uptoPrompt > prompts.length + 1) {
        const n = prompts.length;
        throw new StoreError(
          "no-prompt",
          `session ${sessionId} has ${n === 0 ? "no prompt" : n === 1 ? "1 prompt" : `${n} prompts`}; a fork goes up to prompt ${n === 0 ? "1" : `1 to ${n + 1}`} (${n + 1}: the whole record)`,
        );
      }
      // the messages before that prompt: every seq below its own, or all of them
      const cut = uptoPrompt <= prompts.length ? prompts[uptoPrompt - 1]!.seq : Number.MAX_SAFE_INTEGER;
      let id = newSessionId();
      for (let attempt = 0; ; attempt++) {
        try {
          const [row] = await stmtAll<{ stamp: string }>(this.s.insertSession, [id, from.title, from.workspace, nowIso()]);
          if (!row) throw new Error("the insert returned no row");
          break;
        } catch (e) {
          if (sqliteCode(e) !== "SQLITE_CONSTRAINT" || attempt >= 4) throw e;
          id = newSessionId();
        }
      }
      await this.conn.run("UPDATE sessions SET forked_from = ?, forked_at_prompt = ? WHERE id = ?", [sessionId, uptoPrompt, id]);
      await this.conn.run(
        "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, usage_json, created_at) " +
          "SELECT ?, seq, role, status, model, blocks_json, usage_json, created_at FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq",
        [id, sessionId, cut],
      );
      await this.conn.run(
        "INSERT INTO summaries (session_id, from_seq, to_seq, text, model, created_at) " +
          "SELECT ?, from_seq, to_seq, text, model, created_at FROM summaries WHERE session_id = ? AND to_seq < ? ORDER BY id",
        [id, sessionId, cut],
      );
      // the fork has sent nothing yet: its view says where it came from until its first request
      await this.conn.run("INSERT INTO captures (session_id, pending_reason, pending_since) VALUES (?, ?, ?)", [
        id,
        `forked from session ${sessionId} at prompt ${uptoPrompt}; no request has been sent in this session yet`,
        nowIso(),
      ]);
      const [row] = await this.conn.all<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`, [id]);
      if (!row) throw new Error("the fork's row is missing after its insert");
      return toSession(row);
    });
  }

  // --- messages --------------------------------------------------------------------------

  appendMessage(sessionId: string, msg: NewMessage): Promise<StoredMessage> {
    const blocksJson = JSON.stringify(msg.blocks);
    return this.conn.serial(async () => {
      const createdAt = nowIso();
      let row: { id: number; seq: number } | undefined;
      try {
        [row] = await stmtAll<{ id: number; seq: number }>(this.s.insertMessage, [
          sessionId,
          msg.role,
          msg.status,
          msg.model ?? null,
          blocksJson,
          usageJson(msg.usage),
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
      if (msg.usage !== undefined) stored.usage = msg.usage;
      return stored;
    });
  }

  updateMessage(id: number, blocks: Block[], status: MessageStatus, usage?: AnswerUsage): Promise<void> {
    const blocksJson = JSON.stringify(blocks);
    return this.conn.serial(async () => {
      // one statement: the trigger touches the session
      const { changes } = await stmtRun(this.s.updateMessage, [blocksJson, status, usageJson(usage), id]);
      if (changes === 0) throw new Error(`no stored message with id ${id}`);
    });
  }

  loadHistory(sessionId: string, opts?: { last?: number }): Promise<LoadedHistory> {
    let last: number | undefined;
    if (opts?.last !== undefined) {
      // NaN reached SQLite as a LIMIT and failed there with "datatype mismatch"
      if (Number.isNaN(opts.last)) return Promise.reject(new RangeError("loadHistory: last must be a number of messages, not NaN"));
      // more than any session holds (Infinity included) is the whole history
      if (opts.last < Number.MAX_SAFE_INTEGER) last = Math.max(0, Math.floor(opts.last));
    }
    return this.conn.read(async () => {
      const messages: StoredMessage[] = [];
      const bad: BadMessage[] = [];
      let next: Promise<PackedRow[]> | undefined;
      if (last === undefined) {
        next = stmtAll<PackedRow>(this.s.loadFirst, [sessionId, LOAD_CHUNK]);
      } else if (last > 0) {
        // the tail is every row from its oldest on: in this snapshot, exactly `last` of them
        const [start] = await stmtAll<{ id: string }>(this.s.tailStart, [sessionId, last - 1]);
        next = start
          ? stmtAll<PackedRow>(this.s.loadFrom, [sessionId, start.id, LOAD_CHUNK])
          : stmtAll<PackedRow>(this.s.loadFirst, [sessionId, LOAD_CHUNK]);
      }
      try {
        while (next) {
          const rows = await next;
          const end = rows.length === LOAD_CHUNK ? rows[rows.length - 1] : undefined;
          // asked before this chunk is read, so the two overlap (LOAD_CHUNK)
          next = end ? stmtAll<PackedRow>(this.s.loadAfter, [sessionId, rowKey(end), LOAD_CHUNK]) : undefined;
          // it is awaited after this chunk's rows, and a row read again whole (loadOne) awaits
          // first: a failure of it meanwhile must not count as unhandled (the await below
          // still throws it)
          next?.catch(() => undefined);
          for (const r of rows) {
            if (isPacked(r)) {
              // SQLite's own json_array of columns whose types it checked: no outside shape to
              // validate here; the values are checked in readRow as an unpacked row's are
              const [id, seq, role, status, model, created_at, usage_json] = JSON.parse(r.m) as Packed;
              readRow({ id, seq, role, status, model, blocks_json: r.b, usage_json, created_at }, sessionId, messages, bad);
            } else {
              const [whole] = await stmtAll<MessageRow>(this.s.loadOne, [r.m]);
              if (whole) readRow(whole, sessionId, messages, bad);
            }
          }
        }
      } catch (e) {
        // the transaction ends only once no statement of it is still running
        await next?.catch(() => undefined);
        throw e;
      }
      return { messages, bad };
    });
  }

  // --- summaries -------------------------------------------------------------------------

  saveSummary(s: Omit<StoredSummary, "id" | "createdAt">): Promise<StoredSummary> {
    return this.conn.tx(async () => {
      await requireSession(this.conn, s.sessionId);
      const createdAt = nowIso();
      const { lastID } = await this.conn.run(
        "INSERT INTO summaries (session_id, from_seq, to_seq, text, model, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [s.sessionId, s.fromSeq, s.toSeq, s.text, s.model, createdAt],
      );
      return { id: lastID, sessionId: s.sessionId, fromSeq: s.fromSeq, toSeq: s.toSeq, text: s.text, model: s.model, createdAt };
    });
  }

  loadSummaries(sessionId: string): Promise<StoredSummary[]> {
    return this.conn.serial(async () => {
      const rows = await this.conn.all<SummaryRow>(
        "SELECT id, session_id, from_seq, to_seq, text, model, created_at FROM summaries WHERE session_id = ? ORDER BY id DESC",
        [sessionId],
      );
      return rows.map(toSummary);
    });
  }
}
