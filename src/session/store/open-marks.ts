// What the database does not say about where sessions are open, for other processes to see: a
// new session on a screen has no row until its first message (open-session.ts), and a lease
// (leases.ts) says a session is held, not that its turn runs on after the terminal hung up.
// Each process marks these with a small file in a folder beside the history database (as
// SQLite keeps its -wal beside it): `<id>.draft.json` for the new session it has open,
// `<id>.detached.json` while a turn runs detached. The id, the process and since when: so
// `albedo-tui context <id>` from another terminal says pending, not unknown, and the session
// lists say "running (detached)". A mark goes when its state ends or the process closes; a
// mark whose process is gone (a kill -9) is ignored and removed by the next reader.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findSession, MIN_ID_PREFIX } from "./find-session.js";
import { NO_REQUEST_YET } from "./captures.js";
import { holderAlive, type Opener } from "./leases.js";
import type { InspectorView } from "../../context/types.js";
import type { OpenPlace, SessionInfo } from "../../record/types.js";
import type { HistoryStore } from "./types.js";

/** the store's ids: hex digits (messages.ts's newSessionId); a file named otherwise is not a mark */
const ID = /^[0-9a-f]{1,64}$/;
const MAX_MARK_BYTES = 4096;

/** a new session with no row yet; a turn running on after its terminal hung up */
export type MarkKind = "draft" | "detached";

export interface OpenMark {
  id: string;
  pid: number;
  host: string;
  /** when the draft was opened, or the turn detached (ISO) */
  since: string;
  workspace: string;
}
/** the mark of a draft */
export type DraftMark = OpenMark;

/** the folder of marks for the database at `dbPath`; undefined for a database with no file */
export function marksDir(dbPath: string | undefined): string | undefined {
  if (typeof dbPath !== "string" || dbPath === "" || dbPath === ":memory:" || !path.isAbsolute(dbPath)) return undefined;
  return `${dbPath}-open`;
}

/** Writes the mark; a failure (a read-only folder) only means other processes cannot see it. */
export function writeMark(dbPath: string, kind: MarkKind, mark: OpenMark): void {
  const dir = marksDir(dbPath);
  if (!dir || !ID.test(mark.id)) return;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${mark.id}.${kind}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(mark), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // best effort
  }
}

export function removeMark(dbPath: string, kind: MarkKind, id: string): void {
  const dir = marksDir(dbPath);
  if (!dir || !ID.test(id)) return;
  try {
    fs.unlinkSync(path.join(dir, `${id}.${kind}.json`));
  } catch {
    // gone already
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readMark(file: string, id: string): DraftMark | undefined {
  let text: string;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      if (!fs.fstatSync(fd).isFile()) return undefined;
      const b = Buffer.alloc(MAX_MARK_BYTES);
      text = b.subarray(0, fs.readSync(fd, b, 0, b.length, 0)).toString("utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof o !== "object" || o === null) return undefined;
  const m = o as Record<string, unknown>;
  if (m["id"] !== id || !Number.isSafeInteger(m["pid"]) || typeof m["host"] !== "string" || typeof m["since"] !== "string" || typeof m["workspace"] !== "string") return undefined;
  return { id, pid: m["pid"] as number, host: m["host"], since: m["since"], workspace: m["workspace"] };
}

/** The live marks of one kind, by session id; `want` picks which ids are read. Marks of
 * processes gone from this host are removed; one from another host is believed (its pid cannot
 * be checked from here). */
function liveMarks(dbPath: string | undefined, kind: MarkKind, want: (id: string) => boolean): OpenMark[] {
  const dir = marksDir(dbPath);
  if (!dir) return [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const suffix = `.${kind}.json`;
  const found: OpenMark[] = [];
  for (const name of names) {
    if (!name.endsWith(suffix)) continue;
    const id = name.slice(0, -suffix.length);
    if (!ID.test(id) || !want(id)) continue;
    const mark = readMark(path.join(dir, name), id);
    if (!mark) continue;
    if (mark.host === os.hostname() && !pidAlive(mark.pid)) {
      removeMark(dbPath!, kind, id);
      continue;
    }
    found.push(mark);
  }
  return found;
}

/** The draft open in a live process that `given` names: its id, or a start of it of at least
 * MIN_ID_PREFIX characters that matches one draft only. */
export function findOpenDraft(dbPath: string | undefined, given: string): DraftMark | undefined {
  if (!ID.test(given)) return undefined;
  const found = liveMarks(dbPath, "draft", (id) => id === given || (given.length >= MIN_ID_PREFIX && id.startsWith(given)));
  return found.find((m) => m.id === given) ?? (found.length === 1 ? found[0] : undefined);
}

/**
 * Where the stored sessions are open, as seen by `me`: each lease held by a live process other
 * than me, and whether that process runs the session's turn detached (its mark, from the same
 * process). The sessions `me` holds are left out: they are open here.
 */
export async function sessionPlaces(store: Pick<HistoryStore, "openLeases" | "path">, me: Opener): Promise<Map<string, OpenPlace>> {
  const out = new Map<string, OpenPlace>();
  const leases = await store.openLeases();
  if (leases.size === 0) return out;
  const detached = new Map(liveMarks(store.path, "detached", (id) => leases.has(id)).map((m) => [m.id, m]));
  const now = Date.now();
  for (const [id, h] of leases) {
    if (h.pid === me.pid && h.host === me.host) continue;
    if (!holderAlive(h, me, now)) continue;
    const d = detached.get(id);
    const detachedThere = d !== undefined && d.pid === h.pid && d.host === h.host;
    out.set(id, { pid: h.pid, ...(h.host === me.host ? {} : { host: h.host }), detached: detachedThere });
  }
  return out;
}

/** why a draft open elsewhere is pending, as `context` and the local API say it */
export function draftReason(mark: DraftMark): string {
  const where = mark.host === os.hostname() ? `process ${mark.pid}` : `process ${mark.pid} on ${mark.host}`;
  return `${NO_REQUEST_YET}: the session is open in albedo-tui (${where}, workspace ${mark.workspace}) with nothing sent yet; it is stored with its first message`;
}

/** The pending view of the draft `given` names, when no stored session answers to it; undefined
 * when a stored one does (or several), or no open draft has that id. */
export async function draftView(store: Pick<HistoryStore, "getSession" | "sessionsByPrefix" | "path">, given: string): Promise<InspectorView | undefined> {
  const f = await findSession(store, given);
  if (f.ok || f.kind === "ambiguous" || f.kind === "bad") return undefined;
  const mark = findOpenDraft(store.path, given);
  return mark ? { state: "pending", reason: draftReason(mark), since: mark.since } : undefined;
}

/** the sessions, each open elsewhere with its place (sessionPlaces); a failure to read the
 * leases lists them unmarked rather than not at all */
export async function withPlaces<T extends SessionInfo>(store: Pick<HistoryStore, "openLeases" | "path">, list: T[], me: Opener): Promise<T[]> {
  const places = await sessionPlaces(store, me).catch(() => new Map<string, OpenPlace>());
  return places.size === 0 ? list : list.map((s) => (places.has(s.id) ? { ...s, open: places.get(s.id)! } : s));
}
