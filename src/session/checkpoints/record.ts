// The files a checkpoint keeps in the state folder, besides the blob store: one record per
// turn that changed something (by session and prompt number), the walk the turn began its
// commands from (until the turn ends), the last walk of each workspace (whose hashes the next
// one reuses), and the journal of a rewind in progress. Each is written to a temporary name,
// flushed and renamed, so a kill at any moment leaves the old file or the new one; each is
// checked with zod when read back.
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { messageOf } from "../../record/errors.js";
import { pathStateSchema, snapEntrySchema, type PathState, type SnapEntry } from "./state.js";
import type { Snapshot } from "./snapshot.js";

/** One path a turn changed: what was there before its first change (what a rewind restores),
 * and after the turn (to tell whether someone changed it since). */
export interface RecordedChange {
  /** relative to the workspace ("/" between names), or absolute when outside it */
  path: string;
  before: PathState;
  /** absent until the turn has ended */
  after?: PathState | undefined;
  /** the tool whose call came first: write, edit, bash, an MCP tool */
  by: string;
}

export interface TurnRecord {
  v: 1;
  session: string;
  /** the prompt's number in its session, from 1 */
  prompt: number;
  /** the workspace's real path */
  workspace: string;
  startedAt: string;
  /** absent while the turn runs (or when it was killed): then `snapshot` still tells what
   * its commands changed, by comparing it with the workspace */
  finishedAt?: string | undefined;
  /** the file of the walk taken before the turn's first command, until the turn ends */
  snapshot?: string | undefined;
  changes: RecordedChange[];
  /** what the checkpoint could not take, in sentences */
  notes: string[];
}

const changeSchema = z.object({ path: z.string(), before: pathStateSchema, after: pathStateSchema.optional(), by: z.string() });
const turnRecordSchema: z.ZodType<TurnRecord> = z.object({
  v: z.literal(1),
  session: z.string(),
  prompt: z.number().int().positive(),
  workspace: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  snapshot: z.string().optional(),
  changes: z.array(changeSchema),
  notes: z.array(z.string()),
});

const snapshotFileSchema = z.object({
  v: z.literal(1),
  root: z.string(),
  takenAtMs: z.number().nonnegative(),
  complete: z.boolean(),
  notes: z.array(z.string()),
  entries: z.array(z.tuple([z.string(), snapEntrySchema])),
});

/** Writes `text` so that a reader sees the old file or the new one, never a part; `sync`
 * flushes it first, so a power loss keeps one of the two as well. */
export async function writeAtomic(file: string, text: string, sync = true): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  const fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await fh.writeFile(text);
    if (sync) await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** A session id as a folder name: itself when it is plain, else its digest. */
function sessionFolder(id: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : `h-${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;
}

/** A workspace as a file name. */
export function workspaceKey(root: string): string {
  return createHash("sha256").update(root).digest("hex").slice(0, 24);
}

/** Where everything lives, under one folder of the state folder. */
export class CheckpointFiles {
  constructor(readonly dir: string) {}

  get blobDir(): string {
    return path.join(this.dir, "blobs");
  }
  sessionDir(session: string): string {
    return path.join(this.dir, "sessions", sessionFolder(session));
  }
  recordFile(session: string, prompt: number): string {
    return path.join(this.sessionDir(session), `${prompt}.json`);
  }
  snapshotFile(session: string, prompt: number): string {
    return path.join(this.sessionDir(session), `${prompt}.walk.json`);
  }
  indexFile(root: string): string {
    return path.join(this.dir, "workspaces", `${workspaceKey(root)}.json`);
  }
  journalFile(root: string): string {
    return path.join(this.dir, "rewinds", `${workspaceKey(root)}.json`);
  }

  async writeRecord(r: TurnRecord): Promise<void> {
    await writeAtomic(this.recordFile(r.session, r.prompt), JSON.stringify(r));
  }

  /** The session's records, by prompt; one that cannot be read is named in `bad`. */
  async records(session: string): Promise<{ records: TurnRecord[]; bad: string[] }> {
    const dir = this.sessionDir(session);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return { records: [], bad: [] };
    }
    const records: TurnRecord[] = [];
    const bad: string[] = [];
    for (const n of names) {
      if (!/^[0-9]+\.json$/.test(n)) continue;
      const file = path.join(dir, n);
      try {
        const r = turnRecordSchema.safeParse(JSON.parse(await fs.readFile(file, "utf8")));
        if (r.success && r.data.session === session) records.push(r.data);
        else bad.push(`${file}: ${r.success ? "it belongs to another session" : (r.error.issues[0]?.message ?? "invalid")}`);
      } catch (e) {
        bad.push(`${file}: ${messageOf(e)}`);
      }
    }
    records.sort((a, b) => a.prompt - b.prompt);
    return { records, bad };
  }

  async writeSnapshot(file: string, s: Snapshot): Promise<void> {
    const body = { v: 1, root: s.root, takenAtMs: s.takenAtMs, complete: s.complete, notes: s.notes, entries: [...s.entries] };
    // not flushed: a walk is a cache of hashes, or a killed turn's fallback; one lost to a
    // power cut costs a re-read, or is named as missing
    await writeAtomic(file, JSON.stringify(body), false);
  }

  /** A walk read back; undefined when there is none or it cannot be read (it is only a cache
   * of hashes, or the fallback of a turn that was killed). */
  async readSnapshot(file: string): Promise<Snapshot | undefined> {
    let raw: unknown;
    try {
      raw = JSON.parse(await fs.readFile(file, "utf8"));
    } catch {
      return undefined;
    }
    const r = snapshotFileSchema.safeParse(raw);
    if (!r.success) return undefined;
    const d = r.data;
    return { root: d.root, takenAtMs: d.takenAtMs, complete: d.complete, notes: d.notes, entries: new Map<string, SnapEntry>(d.entries) };
  }
}

/** A rewind in progress, written before its first change and removed after its last. */
export interface Journal {
  v: 1;
  workspace: string;
  session: string;
  prompt: number;
  pid: number;
  startedAt: string;
  /** every path it may write (a temporary file beside each may be left by a kill) */
  paths: string[];
}

export const journalSchema: z.ZodType<Journal> = z.object({
  v: z.literal(1),
  workspace: z.string(),
  session: z.string(),
  prompt: z.number().int().positive(),
  pid: z.number().int(),
  startedAt: z.string(),
  paths: z.array(z.string()),
});
