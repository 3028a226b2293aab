// The open session's lease (store/leases.ts): taken when a session opens, beaten while it is
// open, given back when it closes or another one opens. A session found open elsewhere is
// shown read-only here: its turns would otherwise interleave with the other process's.
import os from "node:os";
import type { HistoryStore } from "../store/types.js";
import { LEASE_STALE_MS, type OpenElsewhere, type Opener } from "../store/leases.js";
import type { EventHub } from "../turn/events.js";
import { leaseLost, readOnlyHere } from "./sentences.js";
import { removeMark, writeMark } from "../store/open-marks.js";
import type { Session } from "../../record/types.js";

/** whether a process of this host runs under `pid` (EPERM: it does, under another user) */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export const thisProcess: Opener = { pid: process.pid, host: os.hostname(), pidAlive };

export interface LeaseParts {
  store: HistoryStore;
  events: EventHub;
  /** store work nobody awaits, for close() to await */
  background<T>(work: Promise<T>): Promise<T>;
}

export class SessionLease {
  /** the session whose lease this process holds */
  private held: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** the draft this process marks as open (open-marks.ts): it has no row to hold yet */
  private marked: string | undefined;
  /** the session whose turn this process runs on detached, as marked for other processes */
  private detachedMark: string | undefined;
  /** why the open session is read-only here; undefined when it is ours to write */
  readOnly: string | undefined;

  constructor(
    private readonly r: LeaseParts,
    private readonly me: Opener = thisProcess,
  ) {}

  /** Takes `id`'s lease (giving back the one held); undefined when taken, else who holds it.
   * Found held, the session is read-only here until another one opens. */
  async take(id: string): Promise<OpenElsewhere | undefined> {
    this.unmark();
    if (this.held !== id) await this.release();
    const r = await this.r.store.takeLease(id, this.me);
    if (!r.ok) {
      this.readOnly = readOnlyHere(id, r.holder);
      return r.holder;
    }
    this.readOnly = undefined;
    this.held = id;
    this.beat(id);
    return undefined;
  }

  /** From now on, a session this process stores is held by it in the same statement (holdNewSessions). */
  holdNew(): Promise<void> {
    return this.r.store.holdNewSessions(this.me);
  }

  /** A draft just stored: its row came with its lease (holdNew), so only the heartbeat starts. */
  adopt(id: string): void {
    this.unmark();
    if (this.held === id) return;
    this.readOnly = undefined;
    this.held = id;
    this.beat(id);
  }

  /** a draft: nothing to hold until it is stored */
  none(): Promise<void> {
    this.readOnly = undefined;
    return this.release();
  }

  /** A draft just opened: marked, so that another process can tell it is open here though it
   * has no row (`albedo-tui context` says it is pending, not unknown). */
  draft(s: Session): void {
    this.unmark();
    writeMark(this.r.store.path, "draft", { id: s.id, pid: this.me.pid, host: this.me.host, since: s.createdAt, workspace: s.workspace });
    this.marked = s.id;
  }

  /** The terminal hung up and the session's turn runs on: marked, so that the session lists of
   * other processes say "running (detached)" rather than only "open elsewhere". Goes at release. */
  detached(s: Session): void {
    writeMark(this.r.store.path, "detached", { id: s.id, pid: this.me.pid, host: this.me.host, since: new Date().toISOString(), workspace: s.workspace });
    this.detachedMark = s.id;
  }

  private unmark(): void {
    if (this.marked === undefined) return;
    removeMark(this.r.store.path, "draft", this.marked);
    this.marked = undefined;
  }

  /** Gives the held lease back (on close, /new, a switch). */
  async release(): Promise<void> {
    this.unmark();
    if (this.detachedMark !== undefined) removeMark(this.r.store.path, "detached", this.detachedMark);
    this.detachedMark = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
    const id = this.held;
    this.held = undefined;
    if (id !== undefined) await this.r.store.releaseLease(id, this.me).catch(() => undefined);
  }

  /** The heartbeat tells another host's opener this process is alive; a lease found taken
   * meanwhile (this process was thought gone) leaves the session read-only here. */
  private beat(id: string): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (this.held !== id) return;
      void this.r.background(
        this.r.store.heartbeat(id, this.me).then(
          (mine) => {
            if (mine || this.held !== id) return;
            this.held = undefined;
            clearInterval(this.timer);
            this.readOnly = leaseLost(id);
            this.r.events.emit({ type: "notice", level: "warning", text: this.readOnly });
            this.r.events.emit({ type: "info" });
          },
          () => undefined, // a busy store misses one beat; the next one comes
        ),
      );
    }, LEASE_STALE_MS / 4);
    this.timer.unref();
  }
}
