// ls: one directory's entries, folders marked with a trailing slash.
import fs from "node:fs/promises";
import { constants } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ToolDef } from "./types.js";
import { boundaryProblem, resolvePath } from "./paths.js";
import { describeFsError, fdRealPath, openedElsewhere } from "./files.js";

const MAX_LS_ENTRIES = 1000;

const input = z.object({
  path: z.string().optional().describe("Directory to list, relative to the workspace or absolute (default: the workspace)"),
});

class MovedError extends Error {}

/**
 * The entries of the folder at `real` (links resolved already), read through a descriptor
 * that is checked to be that folder, so a link swapped in after the check is not listed.
 */
async function readDirNoFollow(real: string, shown: string): Promise<import("node:fs").Dirent[]> {
  const fh = await fs.open(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const moved = await openedElsewhere(fh, real, shown);
    if (moved !== undefined) throw new MovedError(moved);
    // /proc/self/fd/N names the opened folder itself, whatever its path leads to now
    const via = (await fdRealPath(fh)) !== undefined ? `/proc/self/fd/${fh.fd}` : real;
    return await fs.readdir(via, { withFileTypes: true });
  } finally {
    await fh.close();
  }
}

export const lsTool: ToolDef<typeof input> = {
  name: "ls",
  kind: "read",
  description: "List a directory: one entry per line, sorted, folders end with /, symlinks show their target.",
  input,
  summarize: (i) => `ls ${i.path ?? "."}`,
  paths: (i) => [i.path ?? "."],
  async run(i, ctx) {
    const shown = i.path ?? ".";
    const p = await resolvePath(ctx.workspace, shown);
    const outside = await boundaryProblem(ctx, p.real, shown);
    if (outside !== undefined) return { output: outside, isError: true };
    let entries: import("node:fs").Dirent[];
    try {
      const st = await fs.stat(p.real);
      if (!st.isDirectory()) return { output: `${shown} is not a directory; use read for a file`, isError: true };
      entries = await readDirNoFollow(p.real, shown);
    } catch (e) {
      if (e instanceof MovedError) return { output: e.message, isError: true };
      return { output: describeFsError(e, shown), isError: true };
    }
    if (entries.length === 0) return { output: `${shown} is empty`, isError: false };
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const lines: string[] = [];
    for (const d of entries.slice(0, MAX_LS_ENTRIES)) {
      if (d.isSymbolicLink()) {
        const full = path.join(p.real, d.name);
        const target = await fs.readlink(full).catch(() => "?");
        const isDir = await fs.stat(full).then((s) => s.isDirectory(), () => false);
        lines.push(`${d.name}${isDir ? "/" : ""} -> ${target}`);
      } else {
        lines.push(d.isDirectory() ? `${d.name}/` : d.name);
      }
    }
    if (entries.length > MAX_LS_ENTRIES) {
      lines.push(`[${entries.length - MAX_LS_ENTRIES} more entries not shown; ${entries.length} in all; use glob to narrow]`);
    }
    return { output: lines.join("\n"), isError: false };
  },
};
