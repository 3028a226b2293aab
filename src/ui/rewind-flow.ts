// The rewind box's steps as the screen carries them out: a prompt chosen leads to the three
// choices, a choice to the preview (worked out by the controller; nothing is done), the
// preview's Enter to the rewind itself. Each new step waits to be seen before it takes keys
// (the screen's box guard), so keys typed ahead can never run through to a rewind unread.
// After it, what was restored is in the transcript and the prompt's text is in the input box.
import { assertNever } from "../record/types.js";
import type { Controller } from "../session/controller/types.js";
import { doneLines } from "../session/controller/rewind.js";
import { inertLine } from "./inert.js";
import { REWIND_CHOICES, type Modal, type RewindStep } from "./modal-state.js";
import type { InputEditor, PromptHistory } from "./input.js";
import type { Line, StyleName } from "./style.js";
import type { Transcript } from "./transcript.js";

/** the parts of the screen the flow uses (run-command.ts, ScreenHandle, has them all) */
export interface RewindScreen {
  controller: Controller;
  transcript: Transcript;
  editor: InputEditor;
  history: PromptHistory;
  flash(text: string, style?: StyleName, turn?: boolean): void;
  fail(what: string, e: unknown): void;
  render(): void;
}

/** what the flow needs of the screen */
export interface RewindHost {
  handle: RewindScreen;
  modal(): Modal | undefined;
  /** a new step of the box (or none): the screen shows it, and it waits to be seen */
  show(step: RewindStep | undefined): void;
}

function step(h: RewindHost): RewindStep | undefined {
  const m = h.modal();
  return m?.kind === "rewind" ? m.step : undefined;
}

/** Enter (or a row's number) in the rewind box. */
export function chooseRewind(h: RewindHost, index?: number): void {
  const st = step(h);
  const c = h.handle.controller;
  const r = c.rewind;
  if (!st || !r) return;
  switch (st.at) {
    case "prompt": {
      const p = st.prompts[index ?? st.index];
      if (!p) return;
      h.show({ at: "mode", prompt: p, index: 0 });
      return;
    }
    case "mode": {
      const mode = REWIND_CHOICES[index ?? st.index];
      if (!mode) return;
      h.show({ at: "planning", prompt: st.prompt, mode });
      r.preview(st.prompt.n, mode).then(
        (preview) => {
          // cancelled, or another box came meanwhile
          const now = step(h);
          if (now?.at !== "planning" || now.prompt.n !== preview.prompt.n) return;
          h.show({ at: "preview", preview, scroll: 0, maxScroll: 0 });
        },
        (e: unknown) => {
          if (step(h)?.at === "planning") h.show(undefined);
          h.handle.fail("/rewind", e);
        },
      );
      return;
    }
    case "planning":
      return;
    case "preview": {
      if (index !== undefined) return; // a digit chooses no row here
      const preview = st.preview;
      h.show(undefined);
      h.handle.flash("rewinding…", "info");
      run(h.handle, c, preview);
      return;
    }
    default:
      return assertNever(st, "rewind step");
  }
}

function run(s: RewindScreen, c: Controller, preview: Parameters<NonNullable<Controller["rewind"]>["run"]>[0]): void {
  const r = c.rewind;
  if (!r) return;
  r.run(preview).then(
    (done) => {
      const lines = doneLines(done, preview);
      const out: Line[] = [[{ t: `Rewound to before prompt ${preview.prompt.n}`, s: "heading" }]];
      for (const l of lines) out.push([/^(Could not|Not restored|Code not)/.test(l) ? { t: inertLine(l), s: "warn" } : { t: inertLine(l) }]);
      if (lines.length === 0) out.push([{ t: "Nothing needed changing.", s: "dim" }]);
      s.transcript.lines(out);
      s.transcript.bottom();
      // the prompt comes back for editing, unless something was typed meanwhile (↑ has it then)
      if (s.editor.isEmpty()) s.editor.set(done.text);
      else if (done.text) s.history.add(done.text);
      s.flash(done.failed.length > 0 ? "rewound, with paths that could not be restored: see above" : "rewound · the prompt is back in the input box", done.failed.length > 0 ? "warn" : "ok");
      s.render();
    },
    (e: unknown) => s.fail("/rewind", e),
  );
}

/** d in the preview: the diffs shown under their paths, or hidden again. */
export function toggleRewindDiffs(h: RewindHost): void {
  const st = step(h);
  const r = h.handle.controller.rewind;
  if (st?.at !== "preview" || !r) return;
  if (st.diffs !== undefined) {
    h.show({ ...st, diffs: undefined });
    return;
  }
  const items = st.preview.code?.items ?? [];
  if (items.length === 0) {
    h.handle.flash("no file changes to show", "info");
    return;
  }
  h.show({ ...st, diffs: "loading" });
  void Promise.all(items.map(async (i) => [i.path, await r.diff(i).catch(() => undefined)] as const)).then((pairs) => {
    const now = step(h);
    if (now?.at !== "preview" || now.preview !== st.preview || now.diffs !== "loading") return;
    h.show({ ...now, diffs: new Map(pairs) });
  });
}
