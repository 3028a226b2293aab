// The box open over the screen (a permission question, the session picker, the model list)
// and the arithmetic of moving in it. Pure: each function returns the box as it is after the
// move, and the screen keeps that. How far a question can scroll is known only once its box
// is laid out at the terminal's size, so the painter reports it and fitted() takes it in.
import type { Session } from "../record/types.js";
import { assertNever } from "../record/types.js";
import type { PermissionAnswer, PermissionRequest } from "../tools/types.js";
import type { ModelPicker } from "./model-list.js";

/** a permission question waiting for its answer */
export interface Question {
  req: PermissionRequest;
  answer: (a: PermissionAnswer) => void;
}

export type Modal =
  /** the first question is shown; `maxScroll` is from the last frame that drew it */
  | { kind: "permission"; queue: Question[]; scroll: number; maxScroll: number }
  | { kind: "sessions"; list: Session[]; index: number }
  | { kind: "models"; picker: ModelPicker };

/** `at` moved by `by`: never below 0, and moving down never past `last` */
export function stepWithin(at: number, by: number, last: number): number {
  return by < 0 ? Math.max(0, at + by) : Math.max(0, Math.min(last, at + by));
}

/** a question's text scrolled by `by` lines; the pickers do not scroll */
export function scrollBy(m: Modal, by: number): Modal {
  switch (m.kind) {
    case "permission":
      return { ...m, scroll: stepWithin(m.scroll, by, m.maxScroll) };
    case "sessions":
    case "models":
      return m;
    default:
      return assertNever(m, "modal");
  }
}

/** a picker's selection moved by `by` rows; a question has none */
export function moveBy(m: Modal, by: number): Modal {
  switch (m.kind) {
    case "permission":
      return m;
    case "sessions":
      return { ...m, index: stepWithin(m.index, by, m.list.length - 1) };
    case "models":
      return { ...m, picker: { ...m.picker, index: stepWithin(m.picker.index, by, m.picker.rows.length - 1) } };
    default:
      return assertNever(m, "modal");
  }
}

/** a question as drawn at `maxScroll`: a scroll past it (the box grew) comes back to the end */
export function fitted(m: Modal, maxScroll: number): Modal {
  switch (m.kind) {
    case "permission":
      return { ...m, maxScroll, scroll: Math.min(m.scroll, maxScroll) };
    case "sessions":
    case "models":
      return m;
    default:
      return assertNever(m, "modal");
  }
}
