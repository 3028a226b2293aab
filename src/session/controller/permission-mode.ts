// The permission mode of a running session: what the model is told in plan mode, and the
// order Shift-Tab cycles the modes in. Pure.
import type { ContextItem } from "../../provider/types.js";
import type { PermissionPolicy } from "../../tools/types.js";
import { assertNever } from "../../record/types.js";

/** what the model is told in plan mode: it plans, and the tools that change anything are refused */
export const PLAN_ITEM: ContextItem = {
  source: "permission mode: plan",
  text: "You are in plan mode: the person wants a plan before any change. Only tools that read run; edits, writes and commands are refused until the person leaves plan mode. Investigate, then present a concise plan and wait.",
};

/** the context items, with the plan item last when the mode is plan */
export function withPlanItem(items: ContextItem[], mode: PermissionPolicy): ContextItem[] {
  return mode === "plan" ? [...items, PLAN_ITEM] : items;
}

/** Shift-Tab's order: ask, accept-edits, plan, then back to ask (auto and read-only are
 * chosen by flag or config, and Shift-Tab from them goes to ask) */
export function nextMode(mode: PermissionPolicy): PermissionPolicy {
  switch (mode) {
    case "ask":
      return "accept-edits";
    case "accept-edits":
      return "plan";
    case "plan":
    case "read-only":
    case "auto":
      return "ask";
    default:
      return assertNever(mode, "permission mode");
  }
}
