// The store's contract. The SQLite implementation is in store.ts; everything above the
// store codes against this interface.
import type { AnswerUsage, Block, MessageStatus, NewMessage, Session, SessionInfo, StoredMessage } from "../../record/types.js";
import type { Capture, InspectorView, Page } from "../../context/types.js";
import type { RequestPrint } from "../../context/change.js";
import type { StoredSummary } from "../../compaction/types.js";

// the stored summary is compaction's notion; the store only keeps it
export type { StoredSummary };

/** A stored message whose blocks failed validation on read: the rest of the session loads. */
export interface BadMessage {
  id: number;
  seq: number;
  role: string;
  error: string;
}

export interface LoadedHistory {
  messages: StoredMessage[];
  bad: BadMessage[];
}

/** Who holds a session open. */
export interface LeaseHolder {
  pid: number;
  host: string;
  /** when it opened the session (ISO) */
  since: string;
  /** its last heartbeat (ISO) */
  heartbeat: string;
}

/** A holder as the opener sees it: whether its process still runs (or, on another host, still beats). */
export interface OpenElsewhere extends LeaseHolder {
  alive: boolean;
}

export type LeaseResult =
  /** `tookOver`: the holder found dead, whose lease this opener took */
  | { ok: true; tookOver?: OpenElsewhere }
  | { ok: false; holder: OpenElsewhere };

export interface Opener {
  pid: number;
  host: string;
  /** whether a process of this host runs under this pid (process.kill(pid, 0)) */
  pidAlive(pid: number): boolean;
  /** the heartbeat age past which a holder on another host counts as gone */
  staleMs?: number;
}

export interface HistoryStore {
  readonly path: string;
  /** `id`: the id a session not yet stored was already shown under (a clash takes a new one) */
  createSession(opts: { workspace: string; title?: string; id?: string }): Promise<Session>;
  getSession(id: string): Promise<Session | undefined>;
  /** the sessions whose id starts with `prefix` (compared exactly), newest first, at most `limit` */
  sessionsByPrefix(prefix: string, limit: number): Promise<Session[]>;
  /** newest (by updatedAt) first */
  /** newest first; sessions with no message yet are left out unless includeEmpty */
  listSessions(opts?: { workspace?: string; limit?: number; includeEmpty?: boolean }): Promise<SessionInfo[]>;
  /** removes the session with its messages, captures and summaries; false when there is none */
  deleteSession(id: string): Promise<boolean>;
  latestSession(workspace: string): Promise<Session | undefined>;
  setTitle(sessionId: string, title: string): Promise<void>;
  /**
   * A new session whose record is this one's up to (not including) prompt `uptoPrompt`,
   * counted from 1 as the screen counts prompts (a user message with no tool results);
   * `uptoPrompt` one past the last prompt copies the whole record. One transaction: the
   * messages, the summaries of what is copied, and the link back. The original stays whole.
   */
  fork(sessionId: string, uptoPrompt: number): Promise<Session>;
  /** how many prompts the session holds, counted as fork counts them */
  promptCount(sessionId: string): Promise<number>;

  /** one transaction; returns the stored message with its id and seq (seq starts at 1 in
   *  each session and grows by one per message) */
  appendMessage(sessionId: string, msg: NewMessage): Promise<StoredMessage>;
  /** replace blocks/status of a stored message in place (streaming checkpoints, completion);
   *  `usage`, when given, is stored with it (the provider's report for a complete answer) */
  updateMessage(id: number, blocks: Block[], status: MessageStatus, usage?: AnswerUsage): Promise<void>;
  /** the whole history in order; with `last`, only its newest `last` messages (still in order) */
  loadHistory(sessionId: string, opts?: { last?: number }): Promise<LoadedHistory>;

  /** replaces the session's previous capture (and clears pending) */
  saveCapture(sessionId: string, capture: Capture): Promise<void>;
  /** marks the inspector pending with a reason until the next capture */
  setPending(sessionId: string, reason: string): Promise<void>;
  /** pending (with reason) when there is no capture or it was marked pending */
  inspectorView(sessionId: string): Promise<InspectorView>;
  /** one page; undefined when section or page does not exist or the view is pending */
  capturePage(sessionId: string, section: number, page: number): Promise<Page | undefined>;
  /** the sections' bytes of the current capture, for "change since last" */
  lastSectionBytes(sessionId: string): Promise<Map<string, number> | undefined>;
  /** the current capture's request print, for the next capture's change line */
  lastRequestPrint(sessionId: string): Promise<RequestPrint | undefined>;
  /** keeps the count_tokens body of the capture made at body.capturedAt (if it is still the session's) */
  saveCountBody(sessionId: string, body: StoredCountBody): Promise<void>;
  /** the count_tokens body kept for the session, of whichever capture it was made */
  countBody(sessionId: string): Promise<StoredCountBody | undefined>;

  /** the session is open in one place at a time: taken in one write transaction, taken over
   *  from a holder that is gone (leases.ts) */
  takeLease(sessionId: string, me: Opener): Promise<LeaseResult>;
  /** the sessions this connection creates are held by `me` from their first statement */
  holdNewSessions(me: Pick<Opener, "pid" | "host">): Promise<void>;
  /** false when the lease is no longer mine */
  heartbeat(sessionId: string, me: Pick<Opener, "pid" | "host">): Promise<boolean>;
  releaseLease(sessionId: string, me: Pick<Opener, "pid" | "host">): Promise<void>;
  leaseOf(sessionId: string): Promise<LeaseHolder | undefined>;
  /** every lease, by session id (the session lists' "open elsewhere") */
  openLeases(): Promise<Map<string, LeaseHolder>>;
  /** fork() at one past the last prompt: the whole record copied (--fork-session, /fork) */
  forkSession(sessionId: string): Promise<Session>;
  /** the session a fork was copied from */
  forkedFrom(sessionId: string): Promise<string | undefined>;

  saveSummary(s: Omit<StoredSummary, "id" | "createdAt">): Promise<StoredSummary>;
  /** newest first */
  loadSummaries(sessionId: string): Promise<StoredSummary[]>;

  close(): Promise<void>;
}

/** A request's count_tokens body, kept to count it exactly later (`context --count-tokens`):
 * gzip'd JSON, the capture it belongs to, and the context items' names in its system blocks. */
export interface StoredCountBody {
  capturedAt: string;
  sources: string[];
  gz: Buffer;
}
