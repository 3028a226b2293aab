// Forward-only schema migrations. The database records the version it was last migrated
// to in `schema_version`; migrations[i] takes it from version i to version i + 1.
// Never edit a migration that has shipped: add a new one at the end.

interface Migration {
  /** the version the database has after this migration */
  version: number;
  /** what it does, for error messages */
  description: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: "sessions, messages, inspector captures and pages, summaries",
    sql: `
      CREATE TABLE sessions (
        id         TEXT PRIMARY KEY,
        title      TEXT NOT NULL DEFAULT '',
        workspace  TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX sessions_by_workspace ON sessions (workspace, updated_at);
      -- listSessions without a workspace, and the monotonic updated_at, read the newest row
      CREATE INDEX sessions_by_updated ON sessions (updated_at);

      CREATE TABLE messages (
        id          INTEGER PRIMARY KEY,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        role        TEXT NOT NULL,
        status      TEXT NOT NULL,
        model       TEXT,
        blocks_json TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        UNIQUE (session_id, seq)
      );

      -- the last request the inspector captured, one per session; meta/sections are NULL
      -- when the session was marked pending before any request was sent
      CREATE TABLE captures (
        session_id     TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        meta_json      TEXT,
        sections_json  TEXT,
        pending_reason TEXT,
        pending_since  TEXT,
        captured_at    TEXT
      );

      -- one row per 8,000-character page, so fetching a page never reads the whole capture
      CREATE TABLE capture_pages (
        session_id TEXT NOT NULL REFERENCES captures (session_id) ON DELETE CASCADE,
        section    INTEGER NOT NULL,
        page       INTEGER NOT NULL,
        text       TEXT NOT NULL,
        PRIMARY KEY (session_id, section, page)
      ) WITHOUT ROWID;

      CREATE TABLE summaries (
        id         INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        from_seq   INTEGER NOT NULL,
        to_seq     INTEGER NOT NULL,
        text       TEXT NOT NULL,
        model      TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX summaries_by_session ON summaries (session_id, id);
    `,
  },
  {
    version: 2,
    description: "message writes bump their session's updated_at inside the same statement",
    // A trigger makes appending a message one statement (one round trip to SQLite's thread,
    // atomic on its own) instead of a transaction of five. The stamp stays strictly later
    // than every stored one, so "newest first" is exact even within one millisecond.
    sql: `
      CREATE TRIGGER messages_touch_on_insert AFTER INSERT ON messages BEGIN
        UPDATE sessions SET updated_at = (
          SELECT CASE WHEN now > m THEN now ELSE strftime('%Y-%m-%dT%H:%M:%fZ', m, '+0.001 seconds') END
          FROM (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now, COALESCE(MAX(updated_at), '') AS m FROM sessions)
        ) WHERE id = NEW.session_id;
      END;
      CREATE TRIGGER messages_touch_on_update AFTER UPDATE OF blocks_json, status ON messages BEGIN
        UPDATE sessions SET updated_at = (
          SELECT CASE WHEN now > m THEN now ELSE strftime('%Y-%m-%dT%H:%M:%fZ', m, '+0.001 seconds') END
          FROM (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now, COALESCE(MAX(updated_at), '') AS m FROM sessions)
        ) WHERE id = NEW.session_id;
      END;
    `,
  },
  {
    version: 3,
    description: "the provider's usage (cache reads and writes included) stored with each answer",
    // NULL for user messages, answers from before this version, and providers that report none;
    // JSON so a field the providers add later needs no migration (read through a zod schema)
    sql: `ALTER TABLE messages ADD COLUMN usage_json TEXT;`,
  },
  {
    version: 4,
    description: "where each session is open (one place at a time), and the session a fork was copied from",
    // one row per open session: the process holding it, refreshed by its heartbeat; a row
    // whose process is gone is taken over by the next opener (leases.ts)
    sql: `
      CREATE TABLE open_leases (
        session_id   TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        pid          INTEGER NOT NULL,
        host         TEXT NOT NULL,
        started_at   TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL
      );
      ALTER TABLE sessions ADD COLUMN forked_from TEXT;
    `,
  },
  {
    version: 5,
    description: "the prompt a fork was made at, and an index to list a session's forks",
    // a fork is the record up to (not including) that prompt, counted from 1 as the screen
    // counts prompts; NULL for forks made before this version (they copied the whole record).
    // forked_from has no foreign key: a fork outlives its origin and still says where it came from
    sql: `
      ALTER TABLE sessions ADD COLUMN forked_at_prompt INTEGER;
      CREATE INDEX sessions_by_fork ON sessions (forked_from);
    `,
  },
  {
    version: 6,
    description: "the body of a session's last Anthropic request, kept to count its tokens exactly later",
    // the count_tokens body (no key: that rides in a header), gzip'd, one per session; a row
    // whose captured_at is not the capture's is an older request's and is never counted
    sql: `
      CREATE TABLE capture_bodies (
        session_id   TEXT PRIMARY KEY REFERENCES captures (session_id) ON DELETE CASCADE,
        captured_at  TEXT NOT NULL,
        sources_json TEXT NOT NULL,
        body_gz      BLOB NOT NULL
      );
    `,
  },
];

export const LATEST_VERSION: number = migrations.length;

// A wrong order or gap here would skip or repeat a migration on users' databases.
migrations.forEach((m, i) => {
  if (m.version !== i + 1) throw new Error(`migration ${i} declares version ${m.version}, expected ${i + 1}`);
});
