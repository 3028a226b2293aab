// What write and edit share: each works out a change to one file without making it (where,
// the new content, the diff a person reviews), shows that as its preview, and on run writes
// it through the held folder and reports it. Only the planning and the report differ.
import type { z } from "zod";
import type { ToolContext, ToolDef, ToolOutput, ToolPreview } from "./types.js";
import { writeFileNoFollow } from "./files.js";

/** A change worked out and not yet made. */
export interface PlannedChange {
  /** the real path checked against the workspace boundary */
  real: string;
  /** the current text; undefined when there is none to compare (no file yet, not text) */
  before: string | undefined;
  after: string;
  /** undefined when no diff could be made */
  diff: string | undefined;
}

interface ChangeToolSpec<S extends z.ZodType<{ path: string }>, P extends PlannedChange> {
  name: string;
  description: string;
  input: S;
  summarize(i: z.infer<S>): string;
  /** the change, or why the call would fail; runs for the preview and again for the run */
  plan(i: z.infer<S>, ctx: ToolContext): Promise<P | { error: string }>;
  /** the report of a change written */
  done(i: z.infer<S>, p: P): string;
}

export function changeTool<S extends z.ZodType<{ path: string }>, P extends PlannedChange>(
  spec: ChangeToolSpec<S, P>,
): ToolDef<S> {
  return {
    name: spec.name,
    kind: "write",
    description: spec.description,
    input: spec.input,
    summarize: spec.summarize,
    paths: (i) => [i.path],
    async preview(i, ctx): Promise<ToolPreview> {
      const p = await spec.plan(i, ctx);
      if ("error" in p) return { error: p.error };
      return p.diff !== undefined ? { diff: p.diff } : {};
    },
    async run(i, ctx): Promise<ToolOutput> {
      // planned again: the file may have changed while a person read the preview
      const p = await spec.plan(i, ctx);
      if ("error" in p) return { output: p.error, isError: true };
      if (p.before === p.after) return { output: `${i.path} already has this content; nothing changed`, isError: false };
      const failed = await writeFileNoFollow(p.real, p.after, i.path);
      if (failed !== undefined) return { output: failed, isError: true };
      const output = spec.done(i, p);
      return p.diff !== undefined ? { output, isError: false, diff: p.diff } : { output, isError: false };
    },
  };
}
