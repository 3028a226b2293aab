// Where a session is open: one place at a time. Two processes appending to one session
// would interleave their turns in the record, and each one's next request would leave out
// the other's. The opener takes the session's lease in one write transaction; a lease whose
// process is gone (a kill -9 never releases it) is taken over, so nothing locks a session
// for good. The fork a second opener is offered is the message store's (messages.ts).
import type { Connection } from "./sqlite.js";
import { requireSession } from "./messages.js";
import type { LeaseHolder, OpenElsewhere, LeaseResult, Opener } from "./types.js";

export type { LeaseHolder, OpenElsewhere, LeaseResult, Opener };

/** How long a heartbeat stays good for a holder on another host (its pid cannot be checked from here). */
export const LEASE_STALE_MS = 60_000;

interface LeaseRow {
  pid: number;
  host: string;
  started_at: string;
  heartbeat_at: string;
}

/** Whether a holder is alive as seen by `me`: on this host its pid decides (a suspended process
 * is alive though it beats no more), elsewhere its heartbeat's age. */
export function holderAlive(h: LeaseHolder, me: Opener, now: number): boolean {
  if (h.host === me.host) return me.pidAlive(h.pid);
  const beat = Date.parse(h.heartbeat);
  return Number.isFinite(beat) && now - beat <= (me.staleMs ?? LEASE_STALE_MS);
}

const nowIso = (): string => new Date().toISOString();

export class LeaseStore {
  constructor(private readonly conn: Connection) {}

  /** Takes the session's lease for `me`: one BEGIN IMMEDIATE, so of two openers at once one
   * wins and the other sees it. Held by me already (the same pid on the same host) is ok. */
  takeLease(sessionId: string, me: Opener): Promise<LeaseResult> {
    return this.conn.tx(async () => {
      await requireSession(this.conn, sessionId);
      const [row] = await this.conn.all<LeaseRow>("SELECT pid, host, started_at, heartbeat_at FROM open_leases WHERE session_id = ?", [sessionId]);
      let tookOver: OpenElsewhere | undefined;
      if (row && !(row.pid === me.pid && row.host === me.host)) {
        const h: LeaseHolder = { pid: row.pid, host: row.host, since: row.started_at, heartbeat: row.heartbeat_at };
        const alive = holderAlive(h, me, Date.now());
        if (alive) return { ok: false, holder: { ...h, alive } };
        tookOver = { ...h, alive };
      }
      const now = nowIso();
      await this.conn.run(
        "INSERT INTO open_leases (session_id, pid, host, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?) " +
          "ON CONFLICT (session_id) DO UPDATE SET pid = excluded.pid, host = excluded.host, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at",
        [sessionId, me.pid, me.host, now, now],
      );
      return tookOver ? { ok: true, tookOver } : { ok: true };
    });
  }

  /**
   * Every session this connection creates from now on is held by `me` from its first
   * statement: a TEMP trigger (this connection's only) writes the lease inside the INSERT
   * of the session's row, so a new session's first prompt costs no second commit before
   * its request, and no other opener can find the new row unheld.
   */
  holdNewSessions(me: Pick<Opener, "pid" | "host">): Promise<void> {
    const host = `'${me.host.replace(/'/g, "''")}'`;
    const pid = Math.floor(me.pid);
    return this.conn.serial(async () => {
      await this.conn.run("DROP TRIGGER IF EXISTS temp.open_lease_on_new_session");
      await this.conn.run(
        "CREATE TEMP TRIGGER open_lease_on_new_session AFTER INSERT ON main.sessions BEGIN " +
          "INSERT OR REPLACE INTO main.open_leases (session_id, pid, host, started_at, heartbeat_at) " +
          `VALUES (NEW.id, ${pid}, ${host}, NEW.created_at, NEW.created_at); END`,
      );
    });
  }

  /** Refreshes my heartbeat; false when the lease is no longer mine (taken over meanwhile). */
  heartbeat(sessionId: string, me: Pick<Opener, "pid" | "host">): Promise<boolean> {
    return this.conn.serial(async () => {
      const r = await this.conn.run("UPDATE open_leases SET heartbeat_at = ? WHERE session_id = ? AND pid = ? AND host = ?", [nowIso(), sessionId, me.pid, me.host]);
      return r.changes > 0;
    });
  }

  /** Gives the lease back, if it is still mine. */
  releaseLease(sessionId: string, me: Pick<Opener, "pid" | "host">): Promise<void> {
    return this.conn.serial(async () => {
      await this.conn.run("DELETE FROM open_leases WHERE session_id = ? AND pid = ? AND host = ?", [sessionId, me.pid, me.host]);
    });
  }

  /** Who holds the session open now, if anyone. */
  leaseOf(sessionId: string): Promise<LeaseHolder | undefined> {
    return this.conn.serial(async () => {
      const [row] = await this.conn.all<LeaseRow>("SELECT pid, host, started_at, heartbeat_at FROM open_leases WHERE session_id = ?", [sessionId]);
      return row ? { pid: row.pid, host: row.host, since: row.started_at, heartbeat: row.heartbeat_at } : undefined;
    });
  }

  /** Every lease, by session id: the session lists say which sessions are open elsewhere. */
  openLeases(): Promise<Map<string, LeaseHolder>> {
    return this.conn.serial(async () => {
      const rows = await this.conn.all<LeaseRow & { session_id: string }>("SELECT session_id, pid, host, started_at, heartbeat_at FROM open_leases");
      return new Map(rows.map((r) => [r.session_id, { pid: r.pid, host: r.host, since: r.started_at, heartbeat: r.heartbeat_at }]));
    });
  }

  /** The session a fork was copied from. */
  forkedFrom(sessionId: string): Promise<string | undefined> {
    return this.conn.serial(async () => {
      const [row] = await this.conn.all<{ forked_from: string | null }>("SELECT forked_from FROM sessions WHERE id = ?", [sessionId]);
      return row?.forked_from ?? undefined;
    });
  }
}
