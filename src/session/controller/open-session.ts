// The session the controller has open: its row (a draft's until its first message), its
// record as read, and the promise of the whole record. On a screen a long record is read
// newest first, so the first frame does not wait for it; the rest follows at once.
import type { Session, StoredMessage } from "../../record/types.js";
import { messageOf } from "../../record/errors.js";
import { newSessionId, NO_REQUEST_YET } from "../store/store.js";
import type { InspectorView, Page } from "../../context/types.js";
import type { HistoryStore, StoredSummary } from "../store/types.js";
import type { EventHub } from "../turn/events.js";
import type { PermissionMemory } from "../../tools/run.js";
import { badLines } from "./sentences.js";

/** How many of the newest messages a screen reads before its first frame. */
const FIRST_FRAME_MESSAGES = 300;

interface SessionReading {
  store: HistoryStore;
  events: EventHub;
  workspace: string;
  /** headless mode reads the whole record at once: there is no first frame */
  headless: boolean;
  /** the whole record is in, behind the first frame */
  onWhole(): void;
}

export class OpenSession {
  current!: Session;
  /** the record as read; a turn's env holds this same array */
  messages: StoredMessage[] = [];
  /** settles when messages holds the whole record (see read) */
  wholeHistory: Promise<void> = Promise.resolve();
  /** false while the current session is a draft: it gets its row when its first message is
   * stored, so a screen opened and closed without a prompt leaves nothing behind */
  private stored = true;
  /** its /compact summaries, newest first (each covers a run of stored messages) */
  summaries: StoredSummary[] = [];
  /** the rows that could not be read, a line each */
  bad: string[] = [];
  /** its "allow for this session" answers, made with the turn's parts; undefined is a fresh,
   * empty one (they belong to the session they were given in) */
  permissions: PermissionMemory | undefined;

  constructor(private readonly r: SessionReading) {}

  /** A new session, not yet in the store: its row is written with its first message. */
  draft(): void {
    const now = new Date().toISOString();
    this.current = { id: newSessionId(), title: "", workspace: this.r.workspace, createdAt: now, updatedAt: now };
    this.stored = false;
    this.messages = [];
    this.summaries = [];
    this.bad = [];
    this.permissions = undefined;
    this.wholeHistory = Promise.resolve();
  }

  /**
   * Reads a stored session's record, and makes it current; on a screen, the newest messages
   * only (follow() reads the rest), and everything that needs the whole record (a turn,
   * /compact, /export) waits for wholeHistory. Says whether the record is only partly read.
   */
  async read(s: Session): Promise<boolean> {
    const first = this.r.headless ? undefined : FIRST_FRAME_MESSAGES;
    // read first: a session that cannot be read leaves the current one as it was (its
    // messages and permission memory must never be sent as another session's)
    const loaded = await this.r.store.loadHistory(s.id, first === undefined ? undefined : { last: first });
    const summaries = await this.r.store.loadSummaries(s.id);
    this.current = s;
    this.summaries = summaries;
    this.stored = true;
    this.messages = loaded.messages;
    const partial = first !== undefined && loaded.messages.length + loaded.bad.length >= first;
    this.bad = partial ? [] : badLines(loaded.bad);
    this.permissions = undefined;
    return partial;
  }

  /** After the first frame's reads: says which rows could not be read, and reads the rest of a
   * partial record (last, so the store's queue serves the first frame's reads before this long one). */
  follow(s: Session, partial: boolean): void {
    for (const line of this.bad) this.r.events.emit({ type: "notice", level: "warning", text: line });
    this.wholeHistory = partial ? this.readRest(s) : Promise.resolve();
    // whoever needs the whole record awaits this and sees a failure; nobody else must crash on it
    this.wholeHistory.catch(() => undefined);
  }

  /** Reads the whole record behind the first frame, in place of the newest part shown so far. */
  private async readRest(s: Session): Promise<void> {
    try {
      const full = await this.r.store.loadHistory(s.id);
      if (this.current !== s) return; // switched away meanwhile
      // in place: a turn's env holds this same array
      this.messages.splice(0, this.messages.length, ...full.messages);
      this.bad = badLines(full.bad);
      for (const line of this.bad) this.r.events.emit({ type: "notice", level: "warning", text: line });
      this.r.events.emit({ type: "session" });
      this.r.events.emit({ type: "info" });
      this.r.onWhole();
    } catch (e) {
      this.r.events.emit({ type: "notice", level: "error", text: `could not read the rest of the session: ${messageOf(e)}` });
      throw e;
    }
  }

  /** after a /compact stored one */
  async readSummaries(): Promise<void> {
    const s = this.current;
    const summaries = this.stored ? await this.r.store.loadSummaries(s.id) : [];
    if (this.current === s) this.summaries = summaries;
  }

  /** the id under which it is stored; undefined for a draft */
  storedId(): string | undefined {
    // before the first session is read (its read failed at start) there is none
    const current: Session | undefined = this.current;
    return this.stored && current ? current.id : undefined;
  }

  /** the draft's id and when it was opened; undefined once it is stored (or before any is open) */
  draftId(): { id: string; since: string } | undefined {
    const current: Session | undefined = this.current;
    return !this.stored && current ? { id: current.id, since: current.createdAt } : undefined;
  }

  /** what the context pane shows: a draft has sent nothing yet, so its view is pending by nature */
  view(): Promise<InspectorView> {
    if (!this.stored) return Promise.resolve({ state: "pending", reason: NO_REQUEST_YET, since: this.current.createdAt });
    return this.r.store.inspectorView(this.current.id);
  }

  /** a page of the stored request's capture; a draft has none */
  page(section: number, page: number): Promise<Page | undefined> {
    if (!this.stored) return Promise.resolve(undefined);
    return this.r.store.capturePage(this.current.id, section, page);
  }

  /** Before the first message of a prompt is stored: a draft gets its row under the id it was
   * shown with, its title in the same statement (no separate setTitle before the first
   * request); a stored session without a title gets this one. True when the row was written now. */
  async ensureStored(title: string): Promise<boolean> {
    let created = false;
    if (!this.stored) {
      const draft = this.current;
      const row = await this.r.store.createSession({ workspace: draft.workspace, id: draft.id, ...(title ? { title } : {}) });
      // the same object stays current (a turn and the figure hold it); only the stored facts change
      Object.assign(draft, row);
      this.stored = true;
      created = true;
    }
    if (!this.current.title && title) {
      await this.r.store.setTitle(this.current.id, title);
      this.current.title = title;
    }
    return created;
  }
}
