// glob: file names matching a pattern, without walking node_modules or .git.
import fs from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import type { ToolDef } from "./types.js";
import { boundaryProblem, displayPath, isWithin, resolvePath, workspaceReal } from "./paths.js";
import { describeFsError, throwIfAborted } from "./files.js";
import { LIST_TIME_LIMIT_MS, SearchWorker } from "./search-worker.js";

const MAX_GLOB_RESULTS = 500;
/** Never worth walking: dependency trees and git internals. */
const ALWAYS_IGNORED = ["**/node_modules/**", "**/.git/**"];

const input = z.object({
  pattern: z.string().min(1).describe('Glob pattern relative to path, e.g. "**/*.ts" or "src/**/test_*.py"'),
  path: z.string().optional().describe("Directory to search from (default: the workspace)"),
});

/** Names a folder listing can hold: a segment that matches ".." and none of these can
 * only mean the parent folder. (".*" also matches ".." but is the usual way to ask for dotfiles.) */
const ORDINARY_NAMES = ["a", "x", ".a", "a.b", "..a", "a..", "...", "_"];

/**
 * Why a pattern can only reach outside its base folder, or undefined. The glob engine
 * reads escapes (".\\."), so segments are compared with backslashes removed; a segment
 * that is a pattern is asked whether it matches ".." and nothing else ("@(..)", "[.][.]").
 * This is only for a clear early error: listInside checks every path found, whatever the
 * pattern, so a spelling missed here still lists nothing outside.
 */
export function patternProblem(pattern: string, what: "pattern" | "glob"): string | undefined {
  const advice = `${what}s are relative to the searched folder; give another folder as path`;
  const plain = pattern.replace(/\\/g, "");
  if (path.isAbsolute(plain)) return `${what} ${pattern} is an absolute path; ${advice}`;
  if (plain === "~" || plain.startsWith("~/")) return `${what} ${pattern} starts with ~ (the home folder); ${advice}`;
  // the engine's own segments first, so the message names the spelling that was used
  const segments = [...(picomatch.scan(pattern, { parts: true }).parts ?? []), ...plain.split("/"), ...pattern.split(/[\\/]/)];
  for (const seg of segments) {
    if (seg === "") continue;
    const m = picomatch(seg, { dot: true, posix: true });
    if (seg.replace(/\\/g, "") === ".." || (m("..") && !ORDINARY_NAMES.some((n) => m(n)))) {
      const spelled = seg === ".." ? "" : ` ("${seg}" is read as "..")`;
      return `${what} ${pattern} climbs out of the searched folder with ".."${spelled}; ${advice}`;
    }
  }
  return undefined;
}

export interface FoundFile {
  /** for output: relative to the workspace when inside it */
  shown: string;
  /** every link resolved; at or below the base folder */
  real: string;
}

/**
 * Files under `baseReal` matching `pattern`, each resolved and kept only when its real
 * path is at or below `baseReal`. The glob engine has ways out of its cwd (escaped dots,
 * a folder link named in the pattern); whatever it yields, nothing outside the base is
 * returned, only counted. The base itself went through the permission check.
 */
export async function listInside(
  worker: SearchWorker,
  baseReal: string,
  pattern: string,
  opts: { workspaceReal: string; expandDirectories: boolean; signal: AbortSignal; timeLimitMs?: number },
): Promise<{ files: FoundFile[]; outside: number; timedOut: boolean }> {
  // the walk runs in the worker: matching names against an extglob can take exponential time
  const listed = await worker.list(
    pattern,
    { cwd: baseReal, ignore: ALWAYS_IGNORED, expandDirectories: opts.expandDirectories },
    { timeLimitMs: opts.timeLimitMs ?? LIST_TIME_LIMIT_MS, signal: opts.signal },
  );
  const found = listed.value;
  const files: FoundFile[] = [];
  let outside = 0;
  // in slices, so a huge tree does not queue 100,000 realpath calls at once
  for (let k = 0; k < found.length; k += 256) {
    throwIfAborted(opts.signal);
    const slice = found.slice(k, k + 256);
    const reals = await Promise.all(slice.map((f) => fs.realpath(path.resolve(baseReal, f)).catch(() => undefined)));
    slice.forEach((f, j) => {
      const real = reals[j];
      if (real === undefined) return; // gone meanwhile
      if (!isWithin(baseReal, real)) {
        outside++;
        return;
      }
      files.push({ shown: displayPath(opts.workspaceReal, path.resolve(baseReal, f)), real });
    });
  }
  return { files, outside, timedOut: listed.kind === "timeout" };
}

/** The error for a listing stopped at its time limit. */
export function listTimeoutMessage(pattern: string, base: string): string {
  return (
    `listing files for ${pattern} in ${base} took over ${LIST_TIME_LIMIT_MS / 1000} s and was stopped. ` +
    "Nested extglobs such as *(a)*(a)b can take exponential time; simplify the pattern or search a smaller folder."
  );
}

/** The line that says outside matches were dropped, or the error when nothing else was found. */
export function outsideNote(outside: number, base: string): string {
  return `${outside} path(s) the pattern reached outside ${base === "." ? "the workspace" : base} not used: a search stays inside its folder`;
}

export const globTool: ToolDef<typeof input> = {
  name: "glob",
  kind: "read",
  description:
    `Find files (not folders) by glob pattern (** for any depth). node_modules and .git are skipped; at most ${MAX_GLOB_RESULTS} results, sorted by path.`,
  input,
  summarize: (i) => `glob ${i.pattern}${i.path ? ` in ${i.path}` : ""}`,
  paths: (i) => [i.path ?? "."],
  async run(i, ctx) {
    const bad = patternProblem(i.pattern, "pattern");
    if (bad !== undefined) return { output: bad, isError: true };
    const base = i.path ?? ".";
    const p = await resolvePath(ctx.workspace, base);
    const moved = await boundaryProblem(ctx, p.real, base);
    if (moved !== undefined) return { output: moved, isError: true };
    try {
      if (!(await fs.stat(p.real)).isDirectory()) return { output: `${base} is not a directory`, isError: true };
    } catch (e) {
      return { output: describeFsError(e, base), isError: true };
    }
    const wsReal = await workspaceReal(ctx.workspace);
    const worker = new SearchWorker();
    let listed: Awaited<ReturnType<typeof listInside>>;
    try {
      listed = await listInside(worker, p.real, i.pattern, { workspaceReal: wsReal, expandDirectories: false, signal: ctx.signal });
    } finally {
      await worker.close();
    }
    // a walk cut short lists an arbitrary part of the tree: say so instead of showing it
    if (listed.timedOut) return { output: listTimeoutMessage(i.pattern, base), isError: true };
    const { files, outside } = listed;
    if (files.length === 0 && outside > 0) return { output: outsideNote(outside, base), isError: true };
    if (files.length === 0) return { output: `no files match ${i.pattern} in ${base}`, isError: false };
    const names = files.map((f) => f.shown).sort();
    const lines = names.slice(0, MAX_GLOB_RESULTS);
    if (names.length > MAX_GLOB_RESULTS) {
      lines.push(`[${names.length - MAX_GLOB_RESULTS} more matches not shown; ${names.length} in all; narrow the pattern]`);
    }
    if (outside > 0) lines.push(`[${outsideNote(outside, base)}]`);
    return { output: lines.join("\n"), isError: false };
  },
};
