// glob: file names matching a pattern, without walking node_modules or .git.
import fs from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
import { z } from "zod";
import type { ToolDef } from "./types.js";
import { displayPath, resolvePath } from "./paths.js";
import { describeFsError, throwIfAborted } from "./files.js";

export const MAX_GLOB_RESULTS = 500;
/** Never worth walking: dependency trees and git internals. */
export const ALWAYS_IGNORED = ["**/node_modules/**", "**/.git/**"];

const input = z.object({
  pattern: z.string().min(1).describe('Glob pattern relative to path, e.g. "**/*.ts" or "src/**/test_*.py"'),
  path: z.string().optional().describe("Directory to search from (default: the workspace)"),
});

/** Patterns climb out of their base with ".." or an absolute start; path is the place for that. */
export function patternEscapes(pattern: string): boolean {
  return path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..");
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
    if (patternEscapes(i.pattern)) {
      return { output: `pattern must stay inside its base folder (no leading / and no ".."); give the folder as path`, isError: true };
    }
    const base = i.path ?? ".";
    const p = await resolvePath(ctx.workspace, base);
    try {
      if (!(await fs.stat(p.real)).isDirectory()) return { output: `${base} is not a directory`, isError: true };
    } catch (e) {
      return { output: describeFsError(e, base), isError: true };
    }
    const found = await glob(i.pattern, {
      cwd: p.real,
      ignore: ALWAYS_IGNORED,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      expandDirectories: false,
    });
    throwIfAborted(ctx.signal);
    if (found.length === 0) return { output: `no files match ${i.pattern} in ${base}`, isError: false };
    const wsReal = await fs.realpath(ctx.workspace);
    const names = found.map((f) => displayPath(wsReal, path.join(p.real, f))).sort();
    const lines = names.slice(0, MAX_GLOB_RESULTS);
    if (names.length > MAX_GLOB_RESULTS) {
      lines.push(`[${names.length - MAX_GLOB_RESULTS} more matches not shown; ${names.length} in all; narrow the pattern]`);
    }
    return { output: lines.join("\n"), isError: false };
  },
};
