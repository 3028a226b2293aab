// The todo tool: the model keeps its plan as a list of items, each pending, in progress or
// done, sending the whole list with each call. The list lives in the record (the call's
// input), the screen shows it, and after a summary it is sent whole as its own context item
// (session/turn/task-list.ts), so compaction cannot lose the plan.
import { z } from "zod";
import type { ToolDef } from "./types.js";
import { formatTodoList, TODO_MAX_CHARS, TODO_MAX_ITEMS, TODO_STATUSES, TODO_TOOL } from "./todo-list.js";

const input = z.object({
  items: z
    .array(
      z
        .object({
          content: z.string().min(1).max(TODO_MAX_CHARS).describe("What the task is, in a few words"),
          status: z.enum(TODO_STATUSES).describe("pending, in_progress (one at a time) or done"),
        })
        .strict(),
    )
    .max(TODO_MAX_ITEMS)
    .describe("The whole list, in order: it replaces the previous one"),
});

export const todoTool: ToolDef<typeof input> = {
  name: TODO_TOOL,
  // it changes nothing outside the record
  kind: "read",
  description:
    "Keep your plan for a task of several steps as a list: send the whole list each time, each item pending, in_progress or done. " +
    "Mark an item in_progress before you start it and done when it is finished. The person sees the list; it is kept across compaction.",
  input,
  summarize: (i) => `todo: ${i.items.length} ${i.items.length === 1 ? "item" : "items"}`,
  run(i) {
    return Promise.resolve({ output: `Task list updated:\n${formatTodoList(i.items)}`, isError: false });
  },
};
