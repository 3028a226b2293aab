// A walk of the workspace over real files: its bounds (per file, in all, in paths) name what
// they leave out, .git and the state folder are never walked, and Esc stops it before the
// command it comes before.
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../src/session/checkpoints/blobs.js";
import { walk } from "../../src/session/checkpoints/snapshot.js";
import { Checkpoints } from "../../src/session/checkpoints/checkpoints.js";
import { CheckpointFiles } from "../../src/session/checkpoints/record.js";
import { DEFAULT_LIMITS } from "../../src/session/checkpoints/state.js";
import { tempDir } from "../helpers/tmp.js";

async function tree(): Promise<{ root: string; dir: string }> {
  const dir = await tempDir("albedo-walk-");
  const root = path.join(dir, "ws");
  await fs.mkdir(path.join(root, ".git", "objects"), { recursive: true });
  await fs.writeFile(path.join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  await fs.mkdir(path.join(root, "state"));
  await fs.writeFile(path.join(root, "state", "inside-state.txt"), "no\n");
  for (const [name, size] of [["a.txt", 10], ["b.txt", 2000], ["c.txt", 3000], ["d.txt", 4000]] as const) await fs.writeFile(path.join(root, name), "x".repeat(size));
  return { root: await fs.realpath(root), dir };
}

describe("a walk of the workspace", () => {
  it("names what its caps leave out, and never walks .git or an excluded folder", async () => {
    const { root, dir } = await tree();
    const blobs = new BlobStore(path.join(dir, "blobs"));
    const s = await walk({ root, blobs, limits: { ...DEFAULT_LIMITS, maxFileBytes: 3500, maxTotalBytes: 4000 }, exclude: [path.join(root, "state")] });
    expect([...s.entries.keys()].sort()).toEqual(["a.txt", "b.txt", "c.txt", "d.txt"]);
    expect(s.entries.get("a.txt")?.s.kind).toBe("file");
    expect(s.entries.get("b.txt")?.s.kind).toBe("file");
    // in path order: c.txt would pass the 4,000 bytes in all; d.txt is over the per-file cap
    expect(s.entries.get("c.txt")?.s).toMatchObject({ kind: "uncopied", why: "past the 3.9 KB a checkpoint copies in all" });
    expect(s.entries.get("d.txt")?.s).toMatchObject({ kind: "uncopied", what: "a file of 3.9 KB", why: "over the 3.4 KB per-file cap" });
    const few = await walk({ root, blobs, limits: { ...DEFAULT_LIMITS, maxFiles: 2 }, exclude: [path.join(root, "state")] });
    expect(few.complete).toBe(false);
    expect(few.notes).toEqual(["the workspace has more than 2 paths; the checkpoint stops there, and changes past it are not tracked"]);
  });

  it("stops at Esc: the walk rejects, and the turn's checkpoint records nothing for a call that did not run", async () => {
    const { root, dir } = await tree();
    const stop = new AbortController();
    stop.abort();
    await expect(walk({ root, blobs: new BlobStore(path.join(dir, "blobs")), limits: DEFAULT_LIMITS, signal: stop.signal })).rejects.toThrow("interrupted");
    const cps = new Checkpoints({ dir: path.join(dir, "state2") });
    const turn = cps.begin("s", 1, root);
    await turn.beforeChange({ tool: "bash", kind: "exec", paths: [], signal: stop.signal });
    expect(await turn.finish()).toEqual({ changed: 0, unrestorable: [], notes: [] });
    expect((await new CheckpointFiles(path.join(dir, "state2")).records("s")).records).toEqual([]);
  });
});
