// Coloured unified diffs for write/edit: from the tool's own diff when it ran live, or
// recomputed from the stored tool_use input (edit: old_string → new_string) for history.
import { createRequire } from "node:module";
import { inertExact } from "./inert.js";
import type { Line, StyleName } from "./style.js";

type Diff = typeof import("diff");
const require = createRequire(import.meta.url);
let diffLib: Diff | undefined;
// jsdiff (~1 MB, ~6 ms) is needed only to show an edit from the record; most sessions never
// do, and the screen starts without it. Its CommonJS build loads synchronously on first use.
function diff(): Diff {
  diffLib ??= require("diff") as Diff;
  return diffLib;
}

function styleFor(l: string): StyleName | undefined {
  if (l.startsWith("+++") || l.startsWith("---")) return "diffHeader";
  if (l.startsWith("@@")) return "diffHunk";
  if (l.startsWith("+")) return "diffAdd";
  if (l.startsWith("-")) return "diffDel";
  if (l.startsWith("\\")) return "dim";
  return undefined;
}

/** a unified diff (any text; made inert here, its invisible characters escaped) as coloured lines; the "Index:"/"===" preamble is dropped */
export function diffLines(diff: string): Line[] {
  const out: Line[] = [];
  // what a change writes is shown whole: an escape sequence in it is shown, not removed
  for (const raw of inertExact(diff).replace(/\n$/, "").split("\n")) {
    if (raw.startsWith("Index: ") || /^=+$/.test(raw)) continue;
    const s = styleFor(raw);
    out.push(raw ? [s ? { t: raw, s } : { t: raw }] : []);
  }
  return out;
}

/** the diff an edit made, from its input alone (for sessions loaded from the record) */
function editDiff(path: string, oldString: string, newString: string): string {
  return diff().createTwoFilesPatch(path, path, oldString, newString, undefined, undefined, { context: 3 });
}

interface EditInput {
  path: string;
  old_string: string;
  new_string: string;
}
interface WriteInput {
  path: string;
  content: string;
}

function isEdit(x: unknown): x is EditInput {
  const o = x as Record<string, unknown> | null;
  return !!o && typeof o.path === "string" && typeof o.old_string === "string" && typeof o.new_string === "string";
}
function isWrite(x: unknown): x is WriteInput {
  const o = x as Record<string, unknown> | null;
  return !!o && typeof o.path === "string" && typeof o.content === "string";
}

/**
 * The diff to show for a write/edit call when the live one is not at hand. For a stored write
 * the previous content is unknown, so the new content is shown as added lines.
 */
export function diffForInput(tool: string, input: unknown): string | undefined {
  if (tool === "edit" && isEdit(input)) return editDiff(input.path, input.old_string, input.new_string);
  if (tool === "write" && isWrite(input)) {
    const lines = input.content.replace(/\n$/, "").split("\n");
    return [`+++ ${input.path} (content written)`, `@@ ${lines.length} line${lines.length === 1 ? "" : "s"} @@`, ...lines.map((l) => `+${l}`)].join("\n");
  }
  return undefined;
}
