// write: create or replace a whole file. The diff against the old content is what a
// person reviews in ask mode and what the screen shows afterwards.
import fs from "node:fs/promises";
import { z } from "zod";
import type { ToolContext, ToolDef } from "./types.js";
import { boundaryProblem, resolvePath } from "./paths.js";
import { countLines, describeFsError, diffStat, errnoCode, humanSize, readTextFile, refuseNonRegular, unifiedDiff } from "./files.js";
import { changeTool, type PlannedChange } from "./change.js";

const input = z.object({
  path: z.string().min(1).describe("File to write, relative to the workspace or absolute; parent folders are created"),
  content: z.string().describe("The complete new content of the file"),
});
type Input = z.infer<typeof input>;

const lineCount = (n: number) => `${n} line${n === 1 ? "" : "s"}`;

interface WritePlan extends PlannedChange {
  /** the old content exists but could not be diffed (binary, huge) */
  beforeUnreadable: boolean;
}

async function plan(i: Input, ctx: ToolContext): Promise<WritePlan | { error: string }> {
  const p = await resolvePath(ctx.workspace, i.path);
  const outside = await boundaryProblem(ctx, p.real, i.path);
  if (outside !== undefined) return { error: outside };
  let exists = true;
  try {
    const st = await fs.stat(p.real);
    const refused = refuseNonRegular(st, i.path);
    if (refused) return { error: refused };
  } catch (e) {
    if (errnoCode(e) !== "ENOENT") return { error: describeFsError(e, i.path) };
    exists = false;
  }
  let before: string | undefined;
  let beforeUnreadable = false;
  if (exists) {
    const old = await readTextFile(p.real, i.path);
    if (old.ok) before = old.text;
    else beforeUnreadable = true;
  }
  const diff = beforeUnreadable ? undefined : unifiedDiff(i.path, before ?? "", i.content);
  return { real: p.real, before, after: i.content, beforeUnreadable, diff };
}

export const writeTool: ToolDef<typeof input> = changeTool({
  name: "write",
  description:
    "Create a file or replace its whole content. Creates missing parent folders. " +
    "For a change to part of an existing file prefer edit.",
  input,
  summarize: (i) => `write ${i.path} (${lineCount(countLines(i.content))})`,
  plan,
  done(i, p) {
    const lines = lineCount(countLines(i.content));
    const size = humanSize(Buffer.byteLength(i.content, "utf8"));
    if (p.before === undefined && !p.beforeUnreadable) return `created ${i.path} (${lines}, ${size})`;
    if (p.diff === undefined) return `wrote ${i.path} (${lines}, ${size}; the old content was not text, no diff)`;
    const s = diffStat(p.diff);
    return `wrote ${i.path} (${lines}, ${size}; +${s.added} −${s.removed})`;
  },
});
