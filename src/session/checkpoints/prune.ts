// Checkpoints do not pile up: a turn's record older than the days kept goes, and so does a
// workspace's last walk not renewed in that time; then every copy that nothing left names
// (no record, no walk of a turn still running or killed, no workspace's last walk) is
// removed, and a pack when none of its copies is named. Run at most once a day, behind a
// run's start.
import fs from "node:fs/promises";
import path from "node:path";
import type { BlobStore } from "./blobs.js";
import type { CheckpointFiles } from "./record.js";

export const DEFAULT_KEEP_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneResult {
  records: number;
  walks: number;
  copies: number;
  packs: number;
}

async function olderThan(file: string, cutoff: number): Promise<boolean> {
  try {
    return (await fs.stat(file)).mtimeMs < cutoff;
  } catch {
    return false;
  }
}

async function list(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return [];
  }
}

/** The hashes a JSON file of the checkpoints names (records and walks alike hold PathStates). */
function namedHashes(text: string, into: Set<string>): void {
  for (const m of text.matchAll(/"hash":"([0-9a-f]{64})"/g)) into.add(m[1]!);
}

export async function pruneCheckpoints(files: CheckpointFiles, blobs: BlobStore, keepDays = DEFAULT_KEEP_DAYS, now = Date.now()): Promise<PruneResult | undefined> {
  const stamp = path.join(files.dir, "last-prune");
  // once a day is enough
  const last = await fs.stat(stamp).then((st) => st.mtimeMs, () => undefined);
  if (last !== undefined && last > now - DAY_MS && last <= now) return undefined;
  await fs.writeFile(stamp, new Date(now).toISOString() + "\n", { mode: 0o600 });
  await fs.utimes(stamp, now / 1000, now / 1000);
  const cutoff = now - keepDays * DAY_MS;
  const result: PruneResult = { records: 0, walks: 0, copies: 0, packs: 0 };
  const named = new Set<string>();
  const sessions = path.join(files.dir, "sessions");
  for (const s of await list(sessions)) {
    const dir = path.join(sessions, s);
    let left = 0;
    for (const f of await list(dir)) {
      const file = path.join(dir, f);
      if (!f.endsWith(".json")) continue;
      if (await olderThan(file, cutoff)) {
        await fs.unlink(file).catch(() => undefined);
        if (f.endsWith(".walk.json")) result.walks++;
        else result.records++;
        continue;
      }
      left++;
      namedHashes(await fs.readFile(file, "utf8").catch(() => ""), named);
    }
    if (left === 0) await fs.rmdir(dir).catch(() => undefined);
  }
  const workspaces = path.join(files.dir, "workspaces");
  for (const f of await list(workspaces)) {
    const file = path.join(workspaces, f);
    if (await olderThan(file, cutoff)) {
      await fs.unlink(file).catch(() => undefined);
      result.walks++;
      continue;
    }
    namedHashes(await fs.readFile(file, "utf8").catch(() => ""), named);
  }
  // loose copies
  for (const top of await list(blobs.dir)) {
    if (!/^[0-9a-f]{2}$/.test(top)) continue;
    for (const name of await list(path.join(blobs.dir, top))) {
      if (/^[0-9a-f]{64}$/.test(name) && !named.has(name)) {
        // a copy made in the last day may belong to a turn under way in another process
        const file = path.join(blobs.dir, top, name);
        if (!(await olderThan(file, now - DAY_MS))) continue;
        await fs.unlink(file).catch(() => undefined);
        result.copies++;
      }
    }
  }
  // packs: removed whole once none of their copies is named; a pack with no index (its walk
  // was killed) and a temporary file left by a kill, once they are a day old
  const packs = path.join(blobs.dir, "packs");
  const names = await list(packs);
  for (const f of names) {
    const orphan = (f.endsWith(".pack") && !names.includes(f.replace(/\.pack$/, ".idx"))) || f.endsWith(".tmp");
    if (orphan && (await olderThan(path.join(packs, f), now - DAY_MS))) await fs.unlink(path.join(packs, f)).catch(() => undefined);
  }
  for (const f of names) {
    if (!f.endsWith(".idx")) continue;
    const idx = path.join(packs, f);
    if (!(await olderThan(idx, now - DAY_MS))) continue;
    let entries: Array<[string, number, number]> = [];
    try {
      entries = (JSON.parse(await fs.readFile(idx, "utf8")) as { entries: Array<[string, number, number]> }).entries;
    } catch {
      continue;
    }
    if (entries.some(([h]) => named.has(h))) continue;
    await fs.unlink(path.join(packs, f.replace(/\.idx$/, ".pack"))).catch(() => undefined);
    await fs.unlink(idx).catch(() => undefined);
    result.packs++;
  }
  return result;
}

