// The box open over the screen (a permission question, the session picker, the model list)
// and the arithmetic of moving in it. Pure: each function returns the box as it is after the
// move, and the screen keeps that. How far a question can scroll is known only once its box
// is laid out at the terminal's size, so the painter reports it and fitted() takes it in.
import type { SessionInfo } from "../record/types.js";
import { assertNever } from "../record/types.js";
import type { PermissionAnswer, PermissionRequest } from "../tools/types.js";
import type { ModelPicker } from "./model-list.js";
import type { PromptChoice, RewindMode, RewindPreview } from "../session/controller/rewind.js";

/**
 * The rewind box, one step at a time: pick a prompt, then what to restore, then see what will
 * change (with the diffs on request) before anything is done.
 */
export type RewindStep =
  | { at: "prompt"; prompts: PromptChoice[]; index: number }
  | { at: "mode"; prompt: PromptChoice; index: number }
  /** the preview is being worked out */
  | { at: "planning"; prompt: PromptChoice; mode: RewindMode }
  | {
      at: "preview";
      preview: RewindPreview;
      scroll: number;
      maxScroll: number;
      /** the diffs shown, by path (undefined: no text diff); "loading" while they are read */
      diffs?: ReadonlyMap<string, string | undefined> | "loading" | undefined;
    };

/** the three choices of the mode step, in order */
export const REWIND_CHOICES: readonly RewindMode[] = ["both", "conversation", "code"];

/** a permission question waiting for its answer */
interface Question {
  req: PermissionRequest;
  answer: (a: PermissionAnswer) => void;
}

export type Modal =
  /** the first question is shown; `maxScroll` is from the last frame that drew it */
  | { kind: "permission"; queue: Question[]; scroll: number; maxScroll: number }
  | { kind: "sessions"; list: SessionInfo[]; index: number }
  | { kind: "models"; picker: ModelPicker }
  | { kind: "rewind"; step: RewindStep };

/** `at` moved by `by`: never below 0, and moving down never past `last` */
export function stepWithin(at: number, by: number, last: number): number {
  return by < 0 ? Math.max(0, at + by) : Math.max(0, Math.min(last, at + by));
}

/** a question's text scrolled by `by` lines; the pickers do not scroll */
export function scrollBy(m: Modal, by: number): Modal {
  switch (m.kind) {
    case "permission":
      return { ...m, scroll: stepWithin(m.scroll, by, m.maxScroll) };
    case "rewind":
      return m.step.at === "preview" ? { ...m, step: { ...m.step, scroll: stepWithin(m.step.scroll, by, m.step.maxScroll) } } : m;
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
    case "rewind":
      return { ...m, step: moveRewind(m.step, by) };
    default:
      return assertNever(m, "modal");
  }
}

/** a question as drawn at `maxScroll`: a scroll past it (the box grew) comes back to the end */
export function fitted(m: Modal, maxScroll: number): Modal {
  switch (m.kind) {
    case "permission":
      return { ...m, maxScroll, scroll: Math.min(m.scroll, maxScroll) };
    case "rewind":
      return m.step.at === "preview" ? { ...m, step: { ...m.step, maxScroll, scroll: Math.min(m.step.scroll, maxScroll) } } : m;
    case "sessions":
    case "models":
      return m;
    default:
      return assertNever(m, "modal");
  }
}

/** the rewind box's selection moved (a list), or its preview scrolled */
function moveRewind(st: RewindStep, by: number): RewindStep {
  switch (st.at) {
    case "prompt":
      return { ...st, index: stepWithin(st.index, by, st.prompts.length - 1) };
    case "mode":
      return { ...st, index: stepWithin(st.index, by, REWIND_CHOICES.length - 1) };
    case "planning":
      return st;
    case "preview":
      return { ...st, scroll: stepWithin(st.scroll, by, st.maxScroll) };
    default:
      return assertNever(st, "rewind step");
  }
}
