// The task list the model keeps with the todo tool: its items, the list as of any point of a
// session's record (the input of the last todo call there), and how it reads. Pure and free
// of zod, so the screen's status line can use it before the tools are loaded.

export const TODO_STATUSES = ["pending", "in_progress", "done"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  content: string;
  status: TodoStatus;
}

export const TODO_TOOL = "todo";
/** the context item's source when the list is sent after a summary */
export const TASK_LIST_SOURCE = "task list";
/** a list holds at most this many items, each at most this long */
export const TODO_MAX_ITEMS = 100;
export const TODO_MAX_CHARS = 500;

/** An item as stored, or undefined when it is not one (a damaged or hand-made record). */
function itemOf(v: unknown): TodoItem | undefined {
  if (v === null || typeof v !== "object") return undefined;
  const o = v as Record<string, unknown>;
  const status = o["status"] === "completed" ? "done" : o["status"];
  if (typeof o["content"] !== "string" || !(TODO_STATUSES as readonly unknown[]).includes(status)) return undefined;
  return { content: o["content"].slice(0, TODO_MAX_CHARS), status: status as TodoStatus };
}

/** A todo call's input as a list (undefined: not a list). */
export function todoItems(input: unknown): TodoItem[] | undefined {
  if (input === null || typeof input !== "object") return undefined;
  const raw = (input as Record<string, unknown>)["items"];
  if (!Array.isArray(raw)) return undefined;
  const items = raw.slice(0, TODO_MAX_ITEMS).map(itemOf);
  return items.every((i): i is TodoItem => i !== undefined) ? items : undefined;
}

type Message = { role: string; blocks: ReadonlyArray<{ type: string; name?: string; input?: unknown }> };

/** The list as the record has it after `messages`: the last todo call's; undefined before any. */
export function latestTodoList(messages: readonly Message[]): TodoItem[] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    for (let j = m.blocks.length - 1; j >= 0; j--) {
      const b = m.blocks[j]!;
      if (b.type !== "tool_use" || b.name !== TODO_TOOL) continue;
      const items = todoItems(b.input);
      if (items) return items;
    }
  }
  return undefined;
}

const MARK: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[>]", done: "[x]" };

/** The whole list, one line an item: "[x] write the test" */
export function formatTodoList(items: readonly TodoItem[]): string {
  if (items.length === 0) return "(the task list is empty)";
  return items.map((i) => `${MARK[i.status]} ${i.content.replace(/\s+/g, " ").trim()}`).join("\n");
}

/** One line for the status area: "tasks 2/5 · now: write the test" */
export function todoSummary(items: readonly TodoItem[]): string {
  const done = items.filter((i) => i.status === "done").length;
  const now = items.find((i) => i.status === "in_progress");
  return `tasks ${done}/${items.length}${now ? ` · now: ${now.content.replace(/\s+/g, " ").trim()}` : ""}`;
}

/** The context item's text after a summary: the list whole, so the plan outlives compaction. */
export function taskListText(items: readonly TodoItem[]): string {
  return `Your task list (kept with the todo tool; the earlier conversation is summarised, the list is whole):\n${formatTodoList(items)}`;
}
