// grep: a JavaScript regex over the workspace's text files, with no external binary.
import fs from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
import { z } from "zod";
import type { ToolDef } from "./types.js";
import { displayPath, resolvePath } from "./paths.js";
import { describeFsError, looksBinaryBuffer, throwIfAborted } from "./files.js";
import { ALWAYS_IGNORED, patternEscapes } from "./glob.js";

export const MAX_GREP_MATCHES = 200;
/** Bigger files are skipped: generated bundles and data, rarely what is being looked for. */
export const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
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
    let re: RegExp;
    try {
      re = new RegExp(i.pattern, i.ignore_case ? "i" : "");
    } catch (e) {
      return { output: `invalid regular expression: ${(e as Error).message}`, isError: true };
    }
    if (i.glob !== undefined && patternEscapes(i.glob)) {
      return { output: `glob must stay inside the searched folder (no leading / and no ".."); give the folder as path`, isError: true };
    }
    const base = i.path ?? ".";
    const p = await resolvePath(ctx.workspace, base);
    const wsReal = await fs.realpath(ctx.workspace);

    let files: string[];
    try {
      const st = await fs.stat(p.real);
      if (st.isDirectory()) {
        // a bare "*.ts" means any depth, as grep --include and rg -g do
        const g = i.glob === undefined ? "**/*" : i.glob.includes("/") ? i.glob : `**/${i.glob}`;
        const found = await glob(g, { cwd: p.real, ignore: ALWAYS_IGNORED, dot: true, onlyFiles: true, followSymbolicLinks: false });
        files = found.sort().map((f) => path.join(p.real, f));
      } else {
        files = [p.real];
      }
    } catch (e) {
      return { output: describeFsError(e, base), isError: true };
    }

    const hits: string[] = [];
    let searched = 0;
    let skippedLarge = 0;
    let more = false;
    outer: for (const file of files) {
      throwIfAborted(ctx.signal);
      // lstat: symlinks are skipped (they may lead outside), FIFOs would block a read
      const st = await fs.lstat(file).catch(() => null);
      if (!st?.isFile()) continue;
      if (st.size > MAX_GREP_FILE_BYTES) {
        skippedLarge++;
        continue;
      }
      const buf = await fs.readFile(file).catch(() => null);
      if (buf === null || looksBinaryBuffer(buf)) continue;
      searched++;
      const lines = buf.toString("utf8").split("\n");
      const shown = displayPath(wsReal, file);
      for (let n = 0; n < lines.length; n++) {
        const line = lines[n]!;
        if (!re.test(line)) continue;
        if (hits.length >= MAX_GREP_MATCHES) {
          more = true;
          break outer;
        }
        const text = line.endsWith("\r") ? line.slice(0, -1) : line;
        hits.push(`${shown}:${n + 1}: ${text.length > MAX_SHOWN_LINE ? `${text.slice(0, MAX_SHOWN_LINE)}…` : text}`);
      }
    }
    const notes: string[] = [];
    if (more) notes.push(`[stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or glob]`);
    if (skippedLarge > 0) notes.push(`[${skippedLarge} file(s) over ${MAX_GREP_FILE_BYTES / 1024 / 1024} MB not searched]`);
    if (hits.length === 0) {
      return { output: [`no matches for /${i.pattern}/ in ${searched} file(s)`, ...notes].join("\n"), isError: false };
    }
    return { output: [...hits, ...notes].join("\n"), isError: false };
  },
};
