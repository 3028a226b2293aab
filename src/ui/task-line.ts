// The task list's one line in the status area, worked out once per change of the record (the
// status line paints every frame; the record only grows or is replaced).
import { latestTodoList, todoSummary } from "../tools/todo-list.js";
import type { StoredMessage } from "../record/types.js";

let seen: { history: readonly StoredMessage[]; length: number; last: StoredMessage | undefined; line: string | undefined } | undefined;

export function taskLine(history: readonly StoredMessage[]): string | undefined {
  const last = history[history.length - 1];
  if (seen && seen.history === history && seen.length === history.length && seen.last === last) return seen.line;
  const items = latestTodoList(history);
  const line = items && items.length > 0 ? todoSummary(items) : undefined;
  seen = { history, length: history.length, last, line };
  return line;
}
