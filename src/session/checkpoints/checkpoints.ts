// The checkpoints of a run: where they live (a folder of the state folder, outside every
// workspace), what bounds them, and the doors the turn and a rewind use. Nothing here needs
// git or touches a repository's own state: .git is never walked, copied or restored.
import fs from "node:fs";
import { BlobStore } from "./blobs.js";
import { CheckpointFiles } from "./record.js";
import { applyRewind, itemDiff, planRewind, recoverRewind, type PlannedItem, type RewindPlan, type RewindResult, type RewindSource } from "./rewind.js";
import { DEFAULT_LIMITS, type Limits } from "./state.js";
import { TurnCheckpoint } from "./turn.js";
import type { Snapshot } from "./snapshot.js";
import { pruneCheckpoints, type PruneResult } from "./prune.js";

export interface CheckpointOptions {
  /** the checkpoints' folder (the CLI's: $XDG_STATE_HOME/albedo/checkpoints) */
  dir: string;
  limits?: Partial<Limits>;
  /** more paths never walked (the database, when it is inside a workspace) */
  exclude?: readonly string[];
  /** the run's redactor: a file whose text it would change holds a configured key, and is
   * not copied (keys live in memory only) */
  redact?: (text: string) => string;
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

export class Checkpoints {
  readonly files: CheckpointFiles;
  readonly blobs: BlobStore;
  readonly limits: Limits;
  private readonly exclude: string[];
  private readonly holdsSecret: ((bytes: Buffer) => boolean) | undefined;

  constructor(opts: CheckpointOptions) {
    fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    this.files = new CheckpointFiles(opts.dir);
    this.blobs = new BlobStore(this.files.blobDir);
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.exclude = [realOr(opts.dir), ...(opts.exclude ?? []).map(realOr)];
    const redact = opts.redact;
    // latin1 keeps every byte as one character: an ASCII key is found wherever it is
    this.holdsSecret = redact
      ? (bytes) => {
          const t = bytes.toString("latin1");
          return redact(t) !== t;
        }
      : undefined;
  }

  /** the last walk of each workspace, as a turn left it */
  private readonly lastWalks = new Map<string, Snapshot>();

  private deps() {
    return { files: this.files, blobs: this.blobs, limits: this.limits, exclude: this.exclude, holdsSecret: this.holdsSecret, lastWalks: this.lastWalks };
  }

  /** The checkpoint of one turn: prompt `prompt` of `session`, in the workspace at `root`
   * (its real path). */
  begin(session: string, prompt: number, root: string): TurnCheckpoint {
    return new TurnCheckpoint(this.deps(), session, prompt, root);
  }

  plan(root: string, sources: readonly RewindSource[]): Promise<RewindPlan> {
    return planRewind(this.deps(), root, sources);
  }

  diff(root: string, item: PlannedItem): Promise<string | undefined> {
    return itemDiff(this.deps(), root, item);
  }

  apply(plan: RewindPlan, who: { session: string; prompt: number }, onItem?: (line: string) => void): Promise<RewindResult> {
    return applyRewind(this.deps(), plan, who, onItem);
  }

  /** Old records, old walks, and the copies nothing names any more go (once a day). */
  prune(keepDays?: number): Promise<PruneResult | undefined> {
    return pruneCheckpoints(this.files, this.blobs, keepDays);
  }

  /** Cleans up after a rewind that was killed; the sentence to show, when there was one. */
  recover(root: string): Promise<string | undefined> {
    return recoverRewind(this.deps(), root);
  }
}
