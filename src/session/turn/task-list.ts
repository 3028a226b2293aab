// The task list after a summary: the todo calls a summary stands in for are gone from the
// request, so the list as it stood at the summary's cut is sent whole as its own context
// item ("task list" in the inspector). It changes only when a new summary is made, so the
// request's cached prefix holds between summaries; the todo calls after the cut cross in
// the history as any call does. Pure.
import type { ContextItem } from "../../provider/types.js";
import type { StoredMessage } from "../../record/types.js";
import { SUMMARY_NOTE_PREFIX } from "../../compaction/summary.js";
import { latestTodoList, TASK_LIST_SOURCE, taskListText } from "../../tools/todo-list.js";

type Prior = ReadonlyArray<{ role: string; blocks: ReadonlyArray<{ type: string; text?: string }> }>;

/** How many of the record's first messages the request's summary note stands in for (0: none). */
export function summarisedCount(prior: Prior): number {
  const first = prior[0];
  if (!first || first.role !== "user") return 0;
  const b = first.blocks[0];
  if (b?.type !== "text" || !b.text?.startsWith(SUMMARY_NOTE_PREFIX)) return 0;
  // summaryText: "(message 1)" or "(messages 1–1,234)"
  const m = /^\(messages? 1(?:–([0-9,]+))?\)/.exec(b.text.slice(SUMMARY_NOTE_PREFIX.length - 1));
  if (!m) return 0;
  return m[1] === undefined ? 1 : Number(m[1].replace(/,/g, ""));
}

/** The context with the task list added when a summary replaced the calls that kept it. */
export function withTaskList(context: ContextItem[], prior: Prior, history: readonly StoredMessage[]): ContextItem[] {
  const n = summarisedCount(prior);
  if (n === 0) return context;
  const items = latestTodoList(history.slice(0, n));
  if (!items || items.length === 0) return context;
  return [...context, { source: TASK_LIST_SOURCE, text: taskListText(items) }];
}
