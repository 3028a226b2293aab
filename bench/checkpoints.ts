// Benchmark: the checkpoint cost of a turn on a repository of 10,000 files. What a turn pays
// before its first command runs (the walk of the workspace, and its record written) and the
// room it takes, against `git stash create` on the same tree: git's own way to keep a
// working tree's state without touching the branch, the index or the stash list (the floor).
// Both run in the same run, alternately, on a tree where 10 files changed since the last
// walk (and since the commit); the first walk of a workspace, which copies its content once
// for every later turn and session, is reported beside it.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Checkpoints } from "../src/session/checkpoints/checkpoints.js";
import { fmtBytes, fmtMs, median, now, removeDir, sleep, tempDir, type Row } from "./lib.js";

function du(dir: string): number {
  let total = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) total += fs.statSync(p).size;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return total;
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" };
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" });

export async function benchCheckpoints(quick: boolean): Promise<Row[]> {
  if (spawnSync("git", ["--version"]).status !== 0) return [{ benchmark: "checkpoints", albedo: "—", floor: "—", ratio: null, target: "—", met: null, note: "not run: no git on PATH (the floor)" }];
  const files = quick ? 1_000 : 10_000;
  const runs = quick ? 3 : 9;
  const dir = await tempDir("checkpoints");
  try {
    const ws = path.join(dir, "repo");
    const perDir = 100;
    // source-sized files: 1-3 kB of text each
    for (let d = 0; d < files / perDir; d++) {
      const sub = path.join(ws, `pkg${d}`, "src");
      await fsp.mkdir(sub, { recursive: true });
      for (let i = 0; i < perDir; i++) {
        const body = `// module ${d}/${i}\n` + `export const value${i} = ${d * perDir + i};\n`.repeat(20 + ((d * 7 + i) % 40));
        await fsp.writeFile(path.join(sub, `m${i}.ts`), body);
      }
    }
    await fsp.writeFile(path.join(ws, ".gitignore"), "node_modules/\n*.log\ndist/\n");
    git(ws, "init", "-q");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "tree");
    const root = await fsp.realpath(ws);
    const state = path.join(dir, "state");
    const cps = new Checkpoints({ dir: state });
    // file times are coarse: both git and the walk re-read what changed within a second
    await sleep(1100);

    // the first walk of the workspace: every file's content copied once
    let t = now();
    const first = cps.begin("bench", 1, root);
    await first.beforeChange({ tool: "bash", kind: "exec", paths: [] });
    const coldMs = now() - t;
    await first.finish();
    const coldBytes = du(state);
    await sleep(1100);

    // each round: ten files change, as a turn's edits would, then one turn's walk and one
    // `git stash create` on that same tree (alternating which goes first)
    const albedo: number[] = [];
    const floor: number[] = [];
    const walkBytes: number[] = [];
    /** while the turn runs: its walk's file too, removed when it ends */
    const duringBytes: number[] = [];
    const gitBytes: number[] = [];
    for (let r = 0; r < runs; r++) {
      for (let i = 0; i < 10; i++) await fsp.appendFile(path.join(ws, `pkg${(r * 10 + i) % (files / perDir)}`, "src", `m${i}.ts`), `// round ${r}\n`);
      await sleep(1100);
      const ours = async (): Promise<void> => {
        const before = du(state);
        const cp = cps.begin("bench", r + 2, root);
        const t0 = now();
        await cp.beforeChange({ tool: "bash", kind: "exec", paths: [] });
        albedo.push(now() - t0);
        duringBytes.push(du(state) - before);
        await cp.finish();
        walkBytes.push(du(state) - before);
      };
      const theirs = (): void => {
        const before = du(path.join(ws, ".git", "objects"));
        const t0 = now();
        const out = git(ws, "stash", "create");
        floor.push(now() - t0);
        if (!/^[0-9a-f]{40}\n$/.test(out)) throw new Error(`git stash create said ${JSON.stringify(out)}`);
        gitBytes.push(du(path.join(ws, ".git", "objects")) - before);
      };
      if (r % 2 === 0) {
        await ours();
        theirs();
      } else {
        theirs();
        await ours();
      }
    }
    const ratios = albedo.map((a, i) => a / floor[i]!);
    const ratio = median(ratios);
    const spaceRatio = median(walkBytes) / Math.max(1, median(gitBytes));
    const target = 2;
    return [
      {
        benchmark: `checkpoint before a turn's first command, ${files.toLocaleString("en-US")} files, 10 changed`,
        albedo: fmtMs(median(albedo)),
        floor: `${fmtMs(median(floor))} git stash create`,
        ratio,
        target: `≤ ${target}×`,
        met: ratio <= target,
        raw: { files, albedoMs: albedo, floorMs: floor, coldMs },
        note: `the walk stats every path and reads only the 10 changed files (the rest keep their hashes by size, times, inode and mode); git's stash create includes its process start. The first walk of a workspace copies its content: ${fmtMs(coldMs)} once, for every later turn and session`,
      },
      {
        benchmark: `checkpoint room per turn, ${files.toLocaleString("en-US")} files, 10 changed`,
        albedo: fmtBytes(median(walkBytes)),
        floor: `${fmtBytes(median(gitBytes))} git objects`,
        ratio: spaceRatio,
        target: "— (none set)",
        met: null,
        raw: { walkBytes, duringBytes, gitBytes, coldBytes },
        note: `what a turn leaves in the state folder (its record, the changed files' copies, the workspace's walk rewritten), against the objects git stash create writes; while the turn runs its walk's file takes ${fmtBytes(median(duringBytes))} more (the fallback if it is killed, removed when it ends); the first walk's copies of the whole tree take ${fmtBytes(coldBytes)} once, shared by every session in the workspace (git keeps its own copy in .git already)`,
      },
    ];
  } finally {
    await removeDir(dir);
  }
}
