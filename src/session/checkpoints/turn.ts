// One turn's checkpoint. Before a file tool changes a path, the path's state is kept (its
// content copied, its mode, or that it did not exist); before the turn's first command (bash,
// an MCP tool: anything that may change any file), the workspace is walked. When the turn
// ends, a second walk compared with the first tells what the commands changed. The record is
// written before each change is made, so a turn killed half-way still leaves what a rewind
// needs (its walk stays until the turn ends, and is compared with the workspace then).
import fs from "node:fs/promises";
import path from "node:path";
import { isWithin } from "../../tools/paths.js";
import { messageOf } from "../../record/errors.js";
import type { BlobStore } from "./blobs.js";
import type { CheckpointFiles, RecordedChange, TurnRecord } from "./record.js";
import { captureOne, walk, type Snapshot } from "./snapshot.js";
import { sameState, type Limits, type PathState, type SnapEntry } from "./state.js";
import { diffWalks, unrestorableLine } from "./diff.js";

export interface CheckpointDeps {
  files: CheckpointFiles;
  blobs: BlobStore;
  limits: Limits;
  /** real paths never walked (the state folder, the database) */
  exclude: readonly string[];
  holdsSecret?: ((bytes: Buffer) => boolean) | undefined;
  /** the last walk of each workspace this process made: its hashes are the next walk's
   * without reading the file they are kept in (a run's turns follow one another) */
  lastWalks: Map<string, Snapshot>;
}

/** What a turn changed, for its notice. */
export interface TurnChanges {
  /** paths the turn changed */
  changed: number;
  /** the changes a rewind cannot restore, one sentence each */
  unrestorable: string[];
  /** what the checkpoint could not take ("the workspace has more than 100,000 paths…") */
  notes: string[];
}

interface Touch {
  before: SnapEntry;
  by: string;
  /** kept after the walk: for a walked path the walk's state is the one before the turn */
  afterWalk: boolean;
}

export class TurnCheckpoint {
  private record: TurnRecord | undefined;
  private snapshot: Snapshot | undefined;
  private readonly touched = new Map<string, Touch>();
  private readonly notes: string[] = [];
  /** the record's writes, in order (one at a time) */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: CheckpointDeps,
    readonly session: string,
    readonly prompt: number,
    /** the workspace's real path */
    readonly root: string,
  ) {}

  /** The record as written from now on; made at the first change. */
  private ensureRecord(): TurnRecord {
    this.record ??= { v: 1, session: this.session, prompt: this.prompt, workspace: this.root, startedAt: new Date().toISOString(), changes: [], notes: [] };
    return this.record;
  }

  private key(real: string): string {
    return isWithin(this.root, real) ? path.relative(this.root, real).split(path.sep).join("/") : real;
  }

  private save(): Promise<void> {
    const r = this.record;
    if (!r) return Promise.resolve();
    const snapshot = { ...r, changes: [...r.changes], notes: [...this.notes] };
    this.writing = this.writing.then(() => this.deps.files.writeRecord(snapshot));
    return this.writing;
  }

  /** The hook the tools call (ToolContext.beforeChange). A failure here is noted and never
   * stops the call: the change goes on, named as not checkpointed. */
  readonly beforeChange = async (change: { tool: string; kind: "write" | "exec"; paths: readonly string[]; signal?: AbortSignal }): Promise<void> => {
    try {
      if (change.kind === "exec") await this.beforeCommand(change.tool, change.signal);
      else for (const p of change.paths) await this.beforeWrite(p, change.tool);
    } catch (e) {
      // stopped by Esc: the call it came before does not run either, so nothing is missed
      if (change.signal?.aborted) return;
      this.notes.push(`the checkpoint before ${change.tool} failed: ${messageOf(e)}`);
      await this.save().catch(() => undefined);
    }
  };

  private async beforeWrite(real: string, tool: string): Promise<void> {
    const key = this.key(real);
    if (this.touched.has(key)) return;
    const walked = this.snapshot?.entries.get(key);
    const before = walked ?? (await captureOne(this.root, real, this.deps));
    this.touched.set(key, { before, by: tool, afterWalk: this.snapshot !== undefined });
    const r = this.ensureRecord();
    r.changes.push({ path: key, before: before.s, by: tool });
    await this.save();
  }

  private async beforeCommand(tool: string, signal?: AbortSignal): Promise<void> {
    if (this.snapshot) return;
    const prev = this.deps.lastWalks.get(this.root) ?? (await this.deps.files.readSnapshot(this.deps.files.indexFile(this.root)));
    const snap = await walk({ root: this.root, limits: this.deps.limits, blobs: this.deps.blobs, prev: prev?.root === this.root ? prev : undefined, exclude: this.deps.exclude, holdsSecret: this.deps.holdsSecret, signal });
    this.snapshot = snap;
    this.commandBy = tool;
    this.notes.push(...snap.notes);
    const file = this.deps.files.snapshotFile(this.session, this.prompt);
    await this.deps.files.writeSnapshot(file, snap);
    const r = this.ensureRecord();
    r.snapshot = path.basename(file);
    await this.save();
  }

  /** the first command's tool, named as the cause of what the walks find */
  private commandBy = "bash";

  /** After the turn: what its commands changed, the record completed (or removed when the
   * turn changed nothing). */
  async finish(): Promise<TurnChanges> {
    await this.writing.catch(() => undefined);
    const r = this.record;
    if (!r) return { changed: 0, unrestorable: [], notes: [] };
    const changes = new Map<string, RecordedChange>();
    if (this.snapshot) {
      const after = await walk({ root: this.root, limits: this.deps.limits, blobs: this.deps.blobs, prev: this.snapshot, exclude: this.deps.exclude, holdsSecret: this.deps.holdsSecret });
      this.deps.lastWalks.set(this.root, after);
      await this.deps.files.writeSnapshot(this.deps.files.indexFile(this.root), after).catch(() => undefined);
      for (const c of await diffWalks(this.snapshot, after, this.commandBy, this.deps)) changes.set(c.path, c);
    }
    for (const [key, t] of this.touched) {
      const walkedNow = changes.get(key);
      // a path the walk covers, touched after the walk: the walk says what it was before
      if (t.afterWalk && (walkedNow || this.snapshot?.entries.has(key))) {
        if (walkedNow) walkedNow.by = t.by;
        continue;
      }
      const abs = path.isAbsolute(key) ? key : path.join(this.root, key);
      const now = walkedNow?.after ? undefined : await captureOne(this.root, abs, this.deps);
      const afterState: PathState = walkedNow?.after ?? now!.s;
      if (sameState(t.before.s, afterState, t.before.f, now?.f)) {
        changes.delete(key);
        continue;
      }
      changes.set(key, { path: key, before: t.before.s, after: afterState, by: t.by });
    }
    r.changes = [...changes.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    r.finishedAt = new Date().toISOString();
    const snapshotFile = r.snapshot;
    delete r.snapshot;
    const notes = [...new Set(this.notes)];
    if (r.changes.length === 0 && notes.length === 0) {
      await fs.unlink(this.deps.files.recordFile(this.session, this.prompt)).catch(() => undefined);
    } else {
      r.notes = notes;
      await this.deps.files.writeRecord(r);
    }
    if (snapshotFile) await fs.unlink(this.deps.files.snapshotFile(this.session, this.prompt)).catch(() => undefined);
    return {
      changed: r.changes.length,
      unrestorable: r.changes.filter((c) => c.before.kind === "uncopied").map(unrestorableLine),
      notes,
    };
  }
}
