// Old checkpoints go: records and walks past the days kept, then every copy (loose or packed)
// nothing left names; what a kept record names stays, and so does anything a day old or less
// (a turn may be under way in another process). At most once a day.
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Checkpoints } from "../../src/session/checkpoints/checkpoints.js";
import { pruneCheckpoints } from "../../src/session/checkpoints/prune.js";
import { tempDir } from "../helpers/tmp.js";
import { allFiles } from "../helpers/cli.js";

const DAY = 24 * 60 * 60 * 1000;

async function age(files: string[], ms: number): Promise<void> {
  const t = (Date.now() - ms) / 1000;
  for (const f of files) await fs.utimes(f, t, t);
}

describe("pruning checkpoints", () => {
  it("removes what is past the days kept and every copy nothing names, keeps the rest", async () => {
    const dir = await tempDir("albedo-prune-");
    const ws = path.join(dir, "ws");
    await fs.mkdir(ws);
    const root = await fs.realpath(ws);
    // many files: the first walk packs most of their copies
    for (let i = 0; i < 40; i++) await fs.writeFile(path.join(ws, `f${i}.txt`), `old ${i}\n`);
    const state = path.join(dir, "state");
    const cps = new Checkpoints({ dir: state });
    const old = cps.begin("old", 1, root);
    await old.beforeChange({ tool: "bash", kind: "exec", paths: [] });
    for (let i = 0; i < 40; i++) await fs.writeFile(path.join(ws, `f${i}.txt`), `new ${i}\n`);
    await old.finish();
    const kept = cps.begin("kept", 1, root);
    await kept.beforeChange({ tool: "write", kind: "write", paths: [path.join(root, "f0.txt")] });
    await fs.writeFile(path.join(ws, "f0.txt"), "newer\n");
    await kept.finish();
    const everything = await allFiles(state);
    expect(everything.some((f) => f.endsWith(".pack"))).toBe(true);
    // the old session's record and the workspace's walk are 40 days old; every copy 2 days
    await age(everything, 2 * DAY);
    await age([path.join(state, "sessions", "old", "1.json"), ...everything.filter((f) => f.includes(`${path.sep}workspaces${path.sep}`))], 40 * DAY);

    const r = await pruneCheckpoints(cps.files, cps.blobs, 30);
    // both walks packed most of their copies (before and after the commands), none named now
    expect(r).toMatchObject({ records: 1, walks: 1, packs: 2 });
    expect(r!.copies).toBeGreaterThan(0);
    const left = await allFiles(state);
    expect(left.some((f) => f.includes(`${path.sep}old${path.sep}`))).toBe(false);
    expect(left.some((f) => f.endsWith(".pack"))).toBe(false);
    // the kept record's copy of f0.txt ("new 0") is still there and restores
    const plan = await cps.plan(root, [{ session: "kept", from: 1 }]);
    const done = await cps.apply(plan, { session: "kept", prompt: 1 });
    expect(done.failed).toEqual([]);
    expect(await fs.readFile(path.join(ws, "f0.txt"), "utf8")).toBe("new 0\n");
    // once a day
    expect(await pruneCheckpoints(cps.files, cps.blobs, 30)).toBeUndefined();
  });
});
