// edit: exact string replacement. Exact on purpose: a fuzzy match that picks the wrong
// spot silently is worse than a clear failure the model can fix with more context.
import { z } from "zod";
import type { ToolContext, ToolDef } from "./types.js";
import { boundaryProblem, resolvePath } from "./paths.js";
import { diffStat, readTextFile, unifiedDiff } from "./files.js";
import { changeTool, type PlannedChange } from "./change.js";

const input = z.object({
  path: z.string().min(1).describe("File to edit, relative to the workspace or absolute"),
  old_string: z
    .string()
    .describe("Exact text to replace, including whitespace and indentation; must appear exactly once unless replace_all is set"),
  new_string: z.string().describe("Text to put in its place"),
  replace_all: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one (default false)"),
});
type Input = z.infer<typeof input>;

interface EditPlan extends PlannedChange {
  count: number;
}

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

async function plan(i: Input, ctx: ToolContext): Promise<EditPlan | { error: string }> {
  if (i.old_string === "") return { error: "old_string is empty; to create or replace a whole file use write" };
  if (i.old_string === i.new_string) return { error: "old_string and new_string are the same; nothing would change" };
  const p = await resolvePath(ctx.workspace, i.path);
  const outside = await boundaryProblem(ctx, p.real, i.path);
  if (outside !== undefined) return { error: outside };
  const file = await readTextFile(p.real, i.path);
  if (!file.ok) return { error: file.error };
  const before = file.text;

  let oldS = i.old_string;
  let newS = i.new_string;
  let count = occurrences(before, oldS);
  // Read shows CRLF files without \r, so a multi-line old_string copied from it has bare
  // \n; match it against the file's own line endings instead of failing.
  if (count === 0 && before.includes("\r\n") && oldS.includes("\n") && !oldS.includes("\r\n")) {
    const crlf = (s: string) => s.replace(/\r?\n/g, "\r\n");
    const n = occurrences(before, crlf(oldS));
    if (n > 0) {
      oldS = crlf(oldS);
      newS = crlf(newS);
      count = n;
    }
  }
  if (count === 0) return { error: `old_string not found in ${i.path}` };
  if (count > 1 && !i.replace_all) {
    return { error: `old_string appears ${count} times in ${i.path}; give more context or set replace_all` };
  }
  // split/join, not String.replace: "$&" and friends in new_string must stay literal
  const after = before.split(oldS).join(newS);
  return { real: p.real, before, after, count, diff: unifiedDiff(i.path, before, after) };
}

export const editTool: ToolDef<typeof input> = changeTool({
  name: "edit",
  description:
    "Replace an exact string in a file. old_string must match the file exactly (whitespace included) " +
    "and be unique unless replace_all is true. Read the file first to copy the text; line numbers " +
    "from read are not part of the file.",
  input,
  summarize: (i) => `edit ${i.path}${i.replace_all ? " (all occurrences)" : ""}`,
  plan,
  done(i, p) {
    const what = p.count === 1 ? "1 occurrence" : `${p.count} occurrences`;
    const stat = p.diff !== undefined ? diffStat(p.diff) : undefined;
    return `edited ${i.path}: replaced ${what}${stat ? ` (+${stat.added} −${stat.removed} lines)` : ""}`;
  },
});
