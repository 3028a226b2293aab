// A code rewind: put back every path the turns from prompt N on changed, as it was before the
// first of them changed it. Planned first (what will change, shown before anything is done),
// then applied. Applying is crash-safe: a journal naming every path is written before the
// first change and removed after the last; each file is written to a temporary name beside it
// and renamed over it, so a kill leaves each path as it was or as restored, never half
// written; the next start removes what a killed rewind left behind, and running the rewind
// again finishes it (a restored path is skipped as unchanged). Paths are reached inside held
// folders without following links (tools/files.ts), so a link swapped into the workspace
// cannot carry a restore outside it.
import { assertNever } from "../../record/types.js";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { holdFolder, looksBinaryBuffer, MAX_TEXT_FILE, unifiedDiff, writeFileNoFollow } from "../../tools/files.js";
import { messageOf } from "../../record/errors.js";
import type { BlobStore } from "./blobs.js";
import { journalSchema, writeAtomic, type CheckpointFiles, type Journal, type TurnRecord } from "./record.js";
import { captureOne, walk } from "./snapshot.js";
import { sameState, type Limits, type PathState } from "./state.js";
import { diffWalks, shownPath, unrestorableLine } from "./diff.js";

export type PlannedAction = "restore" | "recreate" | "delete" | "mkdir" | "rmdir" | "relink";

export interface PlannedItem {
  /** relative to the workspace, "/" between names */
  path: string;
  action: PlannedAction;
  /** what the path is put back to */
  target: PathState;
  current: PathState;
  /** the prompt whose checkpoint holds the target */
  prompt: number;
  /** the path changed after the last turn that touched it (by a person, another program):
   * the rewind replaces that change too */
  editedSince: boolean;
}

export interface RewindPlan {
  root: string;
  /** the paths that will change, in the order they are applied */
  items: PlannedItem[];
  /** changes a rewind cannot put back, one sentence each */
  unrestorable: string[];
  /** recorded paths already as they were */
  unchanged: number;
  /** prompts whose records could not be read, records of another workspace */
  notes: string[];
}

export interface RewindResult {
  /** one line per path changed: "restored src/a.ts" */
  done: string[];
  /** one line per path that could not be put back, with why */
  failed: string[];
  unrestorable: string[];
}

export interface RewindDeps {
  files: CheckpointFiles;
  blobs: BlobStore;
  limits: Limits;
  exclude: readonly string[];
}

/** The records to rewind: of which session, from which prompt, up to (not including) which. */
export interface RewindSource {
  session: string;
  from: number;
  to?: number;
}

const VERB: Record<PlannedAction, string> = {
  restore: "restore",
  recreate: "recreate",
  delete: "delete",
  mkdir: "recreate the folder",
  rmdir: "remove the folder",
  relink: "restore the link",
};

const DONE: Record<PlannedAction, string> = {
  restore: "restored",
  recreate: "recreated",
  delete: "deleted",
  mkdir: "recreated the folder",
  rmdir: "removed the folder",
  relink: "restored the link",
};

/** "restore src/a.ts (changed since prompt 3's turn: that change is replaced too)" */
export function itemLine(i: PlannedItem): string {
  const why = i.action === "delete" || i.action === "rmdir" ? ` (made from prompt ${i.prompt} on)` : "";
  const since = i.editedSince ? " — changed since albedo's last turn touched it: that change is replaced too" : "";
  return `${VERB[i.action]} ${shownPath(i.path)}${why}${since}`;
}

function actionFor(target: PathState, current: PathState): PlannedAction | undefined {
  switch (target.kind) {
    case "absent":
      return current.kind === "absent" ? undefined : current.kind === "dir" ? "rmdir" : "delete";
    case "file":
      return current.kind === "absent" ? "recreate" : "restore";
    case "dir":
      return "mkdir";
    case "link":
      return current.kind === "absent" ? "recreate" : "relink";
    case "uncopied":
      return undefined;
    default:
      return assertNever(target, "path state");
  }
}

const depth = (p: string): number => p.split("/").length;

/** files restored at once: each waits for its flush, and the waits overlap */
const RESTORE_PARALLEL = 8;

/** Records of the sources, in prompt order. */
async function gather(deps: RewindDeps, sources: readonly RewindSource[], notes: string[]): Promise<TurnRecord[]> {
  const out: TurnRecord[] = [];
  for (const src of sources) {
    const { records, bad } = await deps.files.records(src.session);
    for (const b of bad) notes.push(`a checkpoint record could not be read: ${b}`);
    for (const r of records) if (r.prompt >= src.from && (src.to === undefined || r.prompt < src.to)) out.push(r);
  }
  return out.sort((a, b) => a.prompt - b.prompt);
}

export async function planRewind(deps: RewindDeps, root: string, sources: readonly RewindSource[]): Promise<RewindPlan> {
  const notes: string[] = [];
  const records = await gather(deps, sources, notes);
  const targets = new Map<string, { target: PathState; prompt: number; lastAfter?: PathState | undefined }>();
  const unrestorable: string[] = [];
  for (const r of records) {
    if (r.workspace !== root) {
      notes.push(`prompt ${r.prompt} changed files in ${shownPath(r.workspace)}, not in this workspace; they are not restored here`);
      continue;
    }
    let changes = r.changes;
    // a turn that did not end (killed): what its commands changed is what its walk and the
    // workspace differ in now
    if (r.finishedAt === undefined && r.snapshot !== undefined) {
      const snap = await deps.files.readSnapshot(path.join(path.dirname(deps.files.recordFile(r.session, r.prompt)), r.snapshot));
      if (snap) {
        const now = await walk({ root, limits: deps.limits, blobs: deps.blobs, prev: snap, exclude: deps.exclude, store: false });
        const touched = new Set(changes.map((c) => c.path));
        changes = [...changes, ...(await diffWalks(snap, now, "a command", { limits: deps.limits, blobs: deps.blobs, store: false })).filter((c) => !touched.has(c.path))];
        notes.push(`prompt ${r.prompt}'s turn did not end (the program was stopped); what its commands changed is worked out from its checkpoint and the workspace now`);
      } else {
        notes.push(`prompt ${r.prompt}'s turn did not end and its checkpoint of the workspace is missing; only its file tools' changes are known`);
      }
    }
    for (const c of changes) {
      const t = targets.get(c.path);
      if (!t) {
        targets.set(c.path, { target: c.before, prompt: r.prompt, lastAfter: c.after });
        if (c.before.kind === "uncopied") unrestorable.push(unrestorableLine(c));
      } else {
        t.lastAfter = c.after;
      }
    }
  }
  const items: PlannedItem[] = [];
  let unchanged = 0;
  for (const [p, t] of targets) {
    if (t.target.kind === "uncopied") continue;
    const abs = path.join(root, p);
    const current = (await captureOne(root, abs, { limits: deps.limits, blobs: deps.blobs, store: false })).s;
    if (sameState(t.target, current)) {
      unchanged++;
      continue;
    }
    const action = actionFor(t.target, current);
    if (!action) continue;
    const editedSince = t.lastAfter !== undefined && t.lastAfter.kind !== "uncopied" && !sameState(t.lastAfter, current);
    items.push({ path: p, action, target: t.target, current, prompt: t.prompt, editedSince });
  }
  // removals deepest first, then folders shallowest first, then files and links
  const rank = (i: PlannedItem): number => (i.target.kind === "absent" ? 0 : i.target.kind === "dir" ? 1 : 2);
  items.sort((a, b) => {
    const r = rank(a) - rank(b);
    if (r !== 0) return r;
    if (rank(a) === 0) return depth(b.path) - depth(a.path) || (a.path < b.path ? -1 : 1);
    return depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1);
  });
  return { root, items, unrestorable, unchanged, notes };
}

/** The change an item makes as a unified diff (what is there now → what comes back), when
 * both sides are text; undefined otherwise. */
export async function itemDiff(deps: Pick<RewindDeps, "blobs">, root: string, item: PlannedItem): Promise<string | undefined> {
  if (item.target.kind === "dir" || item.current.kind === "dir") return undefined;
  const text = async (s: PathState, abs: string | undefined): Promise<string | undefined> => {
    if (s.kind === "absent") return "";
    if (s.kind !== "file" || s.size > MAX_TEXT_FILE) return undefined;
    let bytes: Buffer;
    if (abs !== undefined) {
      try {
        bytes = await fs.readFile(abs);
      } catch {
        return undefined;
      }
    } else {
      const got = await deps.blobs.get(s.hash);
      if (!got.ok) return undefined;
      bytes = got.bytes;
    }
    return looksBinaryBuffer(bytes) ? undefined : bytes.toString("utf8");
  };
  const now = await text(item.current, path.join(root, item.path));
  const then = await text(item.target, undefined);
  if (now === undefined || then === undefined) return undefined;
  return unifiedDiff(item.path, now, then);
}

/** Whether a process is there (a rewind of that pid may still run). */
function alive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A journal older than this is a dead rewind's, whatever holds its pid now. */
const JOURNAL_STALE_MS = 60 * 60 * 1000;

async function readJournal(file: string): Promise<Journal | undefined | "unreadable"> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const r = journalSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : "unreadable";
  } catch {
    return "unreadable";
  }
}

/** The temporary names a write beside `name` uses (tools/files.ts, writeFileNoFollow). */
function isTempOf(entry: string, name: string): boolean {
  const prefix = `.${name}.albedo-`;
  return entry.startsWith(prefix) && /^[0-9a-f]{12}\.tmp$/.test(entry.slice(prefix.length));
}

/**
 * What a rewind that was killed left: its temporary files are removed and its journal; the
 * sentence says which rewind it was and how to finish it. Undefined when there was none (or
 * it still runs in another process).
 */
export async function recoverRewind(deps: Pick<RewindDeps, "files">, root: string): Promise<string | undefined> {
  const file = deps.files.journalFile(root);
  const j = await readJournal(file);
  if (j === undefined) return undefined;
  if (j === "unreadable") {
    await fs.unlink(file).catch(() => undefined);
    return "a rewind of this workspace was interrupted and its journal could not be read; check the files it was restoring";
  }
  if (alive(j.pid) && Date.now() - Date.parse(j.startedAt) < JOURNAL_STALE_MS) return undefined;
  let removed = 0;
  for (const p of j.paths) {
    const abs = path.join(root, p);
    const dir = path.dirname(abs);
    const name = path.basename(abs);
    const held = await holdFolder(dir, p, false);
    if (!held.ok) continue;
    try {
      for (const e of await fs.readdir(held.via).catch(() => [] as string[])) {
        if (!isTempOf(e, name)) continue;
        const st = await fs.lstat(path.join(held.via, e)).catch(() => undefined);
        if (st && (st.isFile() || st.isSymbolicLink())) {
          await fs.unlink(path.join(held.via, e)).catch(() => undefined);
          removed++;
        }
      }
    } finally {
      await held.close();
    }
  }
  await fs.unlink(file).catch(() => undefined);
  const left = removed > 0 ? ` (${removed} unfinished temporary file${removed === 1 ? "" : "s"} removed)` : "";
  return `a rewind of session ${j.session} to prompt ${j.prompt} was interrupted${left}; each file is either as it was or restored: run it again to finish (albedo-tui rewind ${j.session} --to ${j.prompt} --code)`;
}

/** A rewind of this workspace running in another process, in a sentence, or undefined. */
export async function rewindRunning(deps: Pick<RewindDeps, "files">, root: string): Promise<string | undefined> {
  const j = await readJournal(deps.files.journalFile(root));
  if (j === undefined || j === "unreadable") return undefined;
  if (alive(j.pid) && Date.now() - Date.parse(j.startedAt) < JOURNAL_STALE_MS) {
    return `a rewind of this workspace (session ${j.session}, to prompt ${j.prompt}) is running in process ${j.pid}; wait for it to end`;
  }
  return undefined;
}

async function removePath(root: string, rel: string, dir: boolean): Promise<void> {
  const abs = path.join(root, rel);
  const held = await holdFolder(path.dirname(abs), rel, false);
  if (!held.ok) throw new Error(held.error);
  try {
    const at = path.join(held.via, path.basename(abs));
    if (dir) await fs.rmdir(at);
    else await fs.unlink(at);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "ENOTEMPTY" || code === "EEXIST") throw new Error("it is a folder that holds files no checkpoint knows of; it is left as it is");
    throw e;
  } finally {
    await held.close();
  }
}

async function makeLink(root: string, rel: string, target: string): Promise<void> {
  const abs = path.join(root, rel);
  const held = await holdFolder(path.dirname(abs), rel, true);
  if (!held.ok) throw new Error(held.error);
  const name = path.basename(abs);
  const tmp = path.join(held.via, `.${name}.albedo-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await fs.symlink(target, tmp);
    try {
      await fs.rename(tmp, path.join(held.via, name));
    } catch (e) {
      await fs.unlink(tmp).catch(() => undefined);
      throw e;
    }
  } finally {
    await held.close();
  }
}

async function makeDir(root: string, rel: string, mode: number): Promise<void> {
  const abs = path.join(root, rel);
  const held = await holdFolder(abs, rel, true);
  if (!held.ok) throw new Error(held.error);
  try {
    await fs.chmod(held.via, mode & 0o7777);
  } finally {
    await held.close();
  }
}

/** Carries the plan out; what cannot be done is named in `failed`, the rest goes on. */
export async function applyRewind(
  deps: RewindDeps,
  plan: RewindPlan,
  who: { session: string; prompt: number },
  onItem?: (line: string) => void,
): Promise<RewindResult> {
  const root = plan.root;
  const running = await rewindRunning(deps, root);
  if (running) throw new Error(running);
  await recoverRewind(deps, root);
  const done: string[] = [];
  const failed: string[] = [];
  if (plan.items.length === 0) return { done, failed, unrestorable: plan.unrestorable };
  const journal: Journal = { v: 1, workspace: root, session: who.session, prompt: who.prompt, pid: process.pid, startedAt: new Date().toISOString(), paths: plan.items.map((i) => i.path) };
  const jfile = deps.files.journalFile(root);
  await writeAtomic(jfile, JSON.stringify(journal));
  try {
    const results: Array<{ line: string; ok: boolean } | undefined> = new Array<{ line: string; ok: boolean } | undefined>(plan.items.length);
    const one = async (item: PlannedItem, i: number): Promise<void> => {
      try {
        const t = item.target;
        const cur = item.current.kind;
        // the copy first: a missing one must not cost what is there now
        const bytes = t.kind === "file" ? await deps.blobs.get(t.hash) : undefined;
        if (bytes && !bytes.ok) throw new Error(bytes.error);
        // what is there is cleared first unless the rename replaces it (a file or link over
        // anything but a folder) or it is the folder wanted; a folder only when empty
        if (cur !== "absent" && !((t.kind === "file" || t.kind === "link") && cur !== "dir") && !(t.kind === "dir" && cur === "dir")) {
          await removePath(root, item.path, cur === "dir");
        }
        switch (t.kind) {
          case "absent":
          case "uncopied":
            break;
          case "dir":
            await makeDir(root, item.path, t.mode);
            break;
          case "file": {
            if (!bytes?.ok) throw new Error("internal: no copy read for a file");
            const failure = await writeFileNoFollow(path.join(root, item.path), bytes.bytes, item.path, { mode: t.mode & 0o7777, sync: true });
            if (failure !== undefined) throw new Error(failure);
            break;
          }
          case "link":
            await makeLink(root, item.path, t.target);
            break;
          default:
            return assertNever(t, "path state");
        }
        const line = `${DONE[item.action]} ${shownPath(item.path)}`;
        results[i] = { line, ok: true };
        onItem?.(line);
      } catch (e) {
        results[i] = { line: `${shownPath(item.path)}: ${messageOf(e)}`, ok: false };
      }
    };
    // removals and folders in order (deepest removals first, then folders from the top);
    // then the files and links, whose folders are there by now, several at a time: each
    // waits for its flush to the disk, and the waits overlap
    const items = plan.items;
    let next = 0;
    for (; next < items.length && items[next]!.target.kind !== "file" && items[next]!.target.kind !== "link"; next++) await one(items[next]!, next);
    const workers = Array.from({ length: Math.min(RESTORE_PARALLEL, items.length - next) }, async () => {
      for (let i = next++; i < items.length; i = next++) await one(items[i]!, i);
    });
    await Promise.all(workers);
    for (const r of results) {
      if (!r) continue;
      if (r.ok) done.push(r.line);
      else failed.push(r.line);
    }
  } finally {
    await fs.unlink(jfile).catch(() => undefined);
  }
  return { done, failed, unrestorable: plan.unrestorable };
}
