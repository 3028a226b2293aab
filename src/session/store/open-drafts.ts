// New sessions open on a screen, seen from another process. A new session has no row until
// its first message (open-session.ts), so `albedo-tui context <id>` in another terminal could
// not tell the id the screen shows from an id that names nothing. Each process marks the
// draft it has open with a small file in a folder beside the history database (as SQLite keeps
// its -wal beside it): the id, the process and when it opened. The mark goes when the draft is
// stored (its row and lease say the rest), left or closed; a mark whose process is gone (a
// kill -9) is ignored and removed by the next reader.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findSession, MIN_ID_PREFIX } from "./find-session.js";
import { NO_REQUEST_YET } from "./captures.js";
import type { InspectorView } from "../../context/types.js";
import type { HistoryStore } from "./types.js";

/** the store's ids: hex digits (messages.ts's newSessionId); a file named otherwise is not a mark */
const ID = /^[0-9a-f]{1,64}$/;
const MAX_MARK_BYTES = 4096;

export interface DraftMark {
  id: string;
  pid: number;
  host: string;
  /** when the draft was opened (ISO) */
  since: string;
  workspace: string;
}

/** the folder of marks for the database at `dbPath`; undefined for a database with no file */
export function draftsDir(dbPath: string | undefined): string | undefined {
  if (typeof dbPath !== "string" || dbPath === "" || dbPath === ":memory:" || !path.isAbsolute(dbPath)) return undefined;
  return `${dbPath}-drafts`;
}

/** Writes the mark; a failure (a read-only folder) only means other processes cannot see it. */
export function markDraft(dbPath: string, mark: DraftMark): void {
  const dir = draftsDir(dbPath);
  if (!dir || !ID.test(mark.id)) return;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${mark.id}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(mark), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // best effort
  }
}

export function unmarkDraft(dbPath: string, id: string): void {
  const dir = draftsDir(dbPath);
  if (!dir || !ID.test(id)) return;
  try {
    fs.unlinkSync(path.join(dir, `${id}.json`));
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

/**
 * The draft open in a live process that `given` names (its id, or a start of it of at least
 * MIN_ID_PREFIX characters, matching one mark only). Marks of processes gone from this host
 * are removed; one from another host is believed (its pid cannot be checked from here).
 */
export function findOpenDraft(dbPath: string, given: string): DraftMark | undefined {
  const dir = draftsDir(dbPath);
  if (!dir) return undefined;
  const want = given.toLowerCase();
  if (want !== given || !ID.test(given)) return undefined;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const found: DraftMark[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const id = name.slice(0, -".json".length);
    if (!ID.test(id) || !(id === given || (given.length >= MIN_ID_PREFIX && id.startsWith(given)))) continue;
    const mark = readMark(path.join(dir, name), id);
    if (!mark) continue;
    if (mark.host === os.hostname() && !pidAlive(mark.pid)) {
      unmarkDraft(dbPath, id);
      continue;
    }
    if (id === given) return mark;
    found.push(mark);
  }
  return found.length === 1 ? found[0] : undefined;
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
