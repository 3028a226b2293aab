// grep: a JavaScript regex over the workspace's text files, with no external binary. The
// listing and the regex run in a worker (search-worker.ts) so a runaway pattern can be stopped.
import fs from "node:fs/promises";
import { z } from "zod";
import { messageOf } from "../record/errors.js";
import type { ToolDef, ToolOutput } from "./types.js";
import { boundaryProblem, displayPath, resolvePath, workspaceReal } from "./paths.js";
import { describeFsError, InterruptedError, looksBinaryBuffer, openRegular, throwIfAborted } from "./files.js";
import { listInside, listTimeoutMessage, outsideNote, patternProblem, type FoundFile } from "./glob.js";
import { REGEX_TIME_LIMIT_MS, SearchWorker } from "./search-worker.js";

const MAX_GREP_MATCHES = 200;
/** Bigger files are skipped: generated bundles and data, rarely what is being looked for. */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const MAX_SHOWN_LINE = 300;

const input = z.object({
  pattern: z.string().min(1).describe("JavaScript regular expression to search for, e.g. \"function\\\\s+main\""),
  path: z.string().optional().describe("File or directory to search (default: the workspace)"),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" (any depth) or "src/**/*.py"'),
  ignore_case: z.boolean().optional().describe("Case-insensitive match (default false)"),
});

export const grepTool: ToolDef<typeof input> = {
  name: "grep",
  kind: "read",
  description:
    "Search file contents with a JavaScript regex. Results are \"path:line: text\". Skips binary files, " +
    `files over ${MAX_GREP_FILE_BYTES / 1024 / 1024} MB, node_modules and .git; at most ${MAX_GREP_MATCHES} matches.`,
  input,
  summarize: (i) => `grep /${i.pattern}/${i.ignore_case ? "i" : ""}${i.path ? ` in ${i.path}` : ""}${i.glob ? ` (${i.glob})` : ""}`,
  paths: (i) => [i.path ?? "."],
  async run(i, ctx) {
    // compiled here for its syntax error; matching (which can backtrack without end) runs
    // in the worker
    const flags = i.ignore_case ? "i" : "";
    try {
      new RegExp(i.pattern, flags);
    } catch (e) {
      return { output: `invalid regular expression: ${messageOf(e)}`, isError: true };
    }
    if (i.glob !== undefined) {
      const bad = patternProblem(i.glob, "glob");
      if (bad !== undefined) return { output: bad, isError: true };
    }
    const base = i.path ?? ".";
    const p = await resolvePath(ctx.workspace, base);
    const moved = await boundaryProblem(ctx, p.real, base);
    if (moved !== undefined) return { output: moved, isError: true };
    const wsReal = await workspaceReal(ctx.workspace);

    let files: FoundFile[];
    let outside = 0;
    const worker = new SearchWorker({ source: i.pattern, flags });
    try {
      try {
        const st = await fs.stat(p.real);
        if (st.isDirectory()) {
          // a bare "*.ts" means any depth, as grep --include and rg -g do
          const g = i.glob === undefined ? "**/*" : i.glob.includes("/") ? i.glob : `**/${i.glob}`;
          const listed = await listInside(worker, p.real, g, { workspaceReal: wsReal, expandDirectories: true, signal: ctx.signal });
          if (listed.timedOut) return { output: listTimeoutMessage(g, base), isError: true };
          files = listed.files.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
          outside = listed.outside;
        } else {
          files = [{ shown: displayPath(wsReal, p.real), real: p.real }];
        }
      } catch (e) {
        if (e instanceof InterruptedError) throw e;
        return { output: describeFsError(e, base), isError: true };
      }
      return await searchFiles(worker, files, outside, i.pattern, base, ctx.signal);
    } finally {
      await worker.close();
    }
  },
};

/** Matches the pattern in each file, in order, and words the result. */
async function searchFiles(
  worker: SearchWorker,
  files: FoundFile[],
  outside: number,
  pattern: string,
  base: string,
  signal: AbortSignal,
): Promise<ToolOutput> {
  if (files.length === 0 && outside > 0) return { output: outsideNote(outside, base), isError: true };
  const hits: string[] = [];
  let searched = 0;
  let skippedLarge = 0;
  let more = false;
  let runaway: string | undefined;
  for (const file of files) {
    throwIfAborted(signal);
    // opened with no link followed and checked to be the file that was resolved, so a
    // link swapped in after the listing cannot lead the read outside
    const opened = await openRegular(file.real, file.shown);
    if (!opened.ok) continue; // FIFOs, devices, files gone or moved meanwhile
    let buf: Buffer;
    try {
      if (opened.size > MAX_GREP_FILE_BYTES) {
        skippedLarge++;
        continue;
      }
      buf = await opened.fh.readFile();
    } finally {
      await opened.fh.close();
    }
    if (looksBinaryBuffer(buf)) continue;
    searched++;
    const r = await worker.match(
      buf,
      { maxHits: MAX_GREP_MATCHES - hits.length + 1, maxShown: MAX_SHOWN_LINE },
      { timeLimitMs: REGEX_TIME_LIMIT_MS, signal },
    );
    for (const h of r.value) {
      if (hits.length >= MAX_GREP_MATCHES) {
        more = true;
        break;
      }
      hits.push(`${file.shown}:${h.line}: ${h.text}${h.cut ? "…" : ""}`);
    }
    if (r.kind === "timeout") {
      runaway = file.shown;
      break;
    }
    if (more) break;
  }
  const notes: string[] = [];
  if (more) notes.push(`[stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or glob]`);
  if (skippedLarge > 0) notes.push(`[${skippedLarge} file(s) over ${MAX_GREP_FILE_BYTES / 1024 / 1024} MB not searched]`);
  if (outside > 0) notes.push(`[${outsideNote(outside, base)}]`);
  if (runaway !== undefined) {
    const stop =
      `grep stopped: the regular expression ran for over ${REGEX_TIME_LIMIT_MS / 1000} s on ${runaway} without finishing. ` +
      "Nested repetition such as (a+)+ or (a|a)* can take exponential time; simplify the pattern.";
    const found = hits.length > 0 ? [`Matches found before it stopped (${searched - 1} file(s) searched in full):`, ...hits] : [];
    return { output: [stop, ...found, ...notes].join("\n"), isError: true };
  }
  if (hits.length === 0) return { output: [`no matches for /${pattern}/ in ${searched} file(s)`, ...notes].join("\n"), isError: false };
  return { output: [...hits, ...notes].join("\n"), isError: false };
}
