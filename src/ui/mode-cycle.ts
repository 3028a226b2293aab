// The permission-mode key: each press moves to the next mode (permission-mode.ts), except that
// leaving plan mode takes a second press within a few seconds, so the plan is not left by a
// stray key. Pure apart from the clock it is given.
import { nextMode } from "../session/controller/permission-mode.js";
import type { PermissionPolicy } from "../tools/types.js";

const CONFIRM_MS = 3_000;

export class ModeCycle {
  private armedAt: number | undefined;

  /** what a press does now: the mode to switch to (if any) and what to say */
  press(current: PermissionPolicy, now: number, key: string): { next?: PermissionPolicy; say: string } {
    const next = nextMode(current);
    if (current === "plan" && (this.armedAt === undefined || now - this.armedAt > CONFIRM_MS)) {
      this.armedAt = now;
      return { say: `Leave plan mode? ${key} again to switch to ${next} (edits and commands can then run)` };
    }
    this.armedAt = undefined;
    return { next, say: `permission mode: ${next}${next === "plan" ? " (read-only tools; the model is told it is planning)" : next === "accept-edits" ? " (edits in the workspace run without asking)" : ""}` };
  }
}
