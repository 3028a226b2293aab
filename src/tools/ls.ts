// ls: one directory's entries, folders marked with a trailing slash.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { ToolDef } from "./types.js";
import { resolvePath } from "./paths.js";
import { describeFsError } from "./files.js";

export const MAX_LS_ENTRIES = 1000;

const input = z.object({
  path: z.string().optional().describe("Directory to list, relative to the workspace or absolute (default: the workspace)"),
});

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
    let entries: import("node:fs").Dirent[];
    try {
      const st = await fs.stat(p.real);
      if (!st.isDirectory()) return { output: `${shown} is not a directory; use read for a file`, isError: true };
      entries = await fs.readdir(p.real, { withFileTypes: true });
    } catch (e) {
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
