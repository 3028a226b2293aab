// The rewind box (pure): pick one of the session's prompts, then what to restore, then read
// what will change (the paths, each diff on request, what cannot be restored) before anything
// is done. Prompts and paths come from outside: inert before they are drawn.
import { itemLine } from "../session/checkpoints/rewind.js";
import { promptLabel, type RewindPreview } from "../session/controller/rewind.js";
import { assertNever } from "../record/types.js";
import { diffLines } from "./diffview.js";
import { inertLine } from "./inert.js";
import { choiceRows, frame, NOT_READY, type Box } from "./modal.js";
import { REWIND_CHOICES, type RewindStep } from "./modal-state.js";
import type { Line } from "./style.js";
import { fit, formatInt, restyle, textWidth, truncate, wrapLine, wrapText } from "./text.js";

export interface RewindKeys {
  /** "↑/↓" */
  move: string;
  choose: string;
  close: string;
  diff: string;
}

const CHOICE_TEXT: Record<(typeof REWIND_CHOICES)[number], [string, string]> = {
  both: ["Restore code and conversation", "files back as they were before it; the conversation forks there"],
  conversation: ["Restore the conversation only", "it forks there; the files stay as they are"],
  code: ["Restore the code only", "files back as they were before it; the conversation stays"],
};

/** "“fix the parser”" as one inert line */
const label = (p: Parameters<typeof promptLabel>[0]): string => inertLine(promptLabel(p));

/** The preview's lines at `width`, the diffs under their paths when they are shown. */
export function previewBody(p: RewindPreview, diffs: ReadonlyMap<string, string | undefined> | "loading" | undefined, width: number): Line[] {
  const w = Math.max(8, width);
  const out: Line[] = [];
  const para = (text: string, style?: Line[number]["s"]): void => void out.push(...wrapText(inertLine(text), w, style));
  para(`Prompt ${p.prompt.n}: ${promptLabel(p.prompt)}`);
  out.push([]);
  if (p.noCode) para(`Code: ${p.noCode}.`, "warn");
  if (p.code) {
    const c = p.code;
    if (c.items.length === 0) {
      para(c.unchanged > 0 ? "Code: nothing to restore; the files are as they were." : "Code: no file changes were recorded from this prompt on.", "dim");
    } else {
      para(`Code: ${c.items.length} path${c.items.length === 1 ? "" : "s"} go back to how they were before prompt ${p.prompt.n}:`);
      for (const item of c.items) {
        out.push(...wrapLine([{ t: "  " }, { t: inertLine(itemLine(item)), s: item.editedSince ? "warn" : "toolArg" }], w));
        if (diffs === undefined || diffs === "loading") continue;
        const d = diffs.get(item.path);
        if (d === undefined) {
          if (item.target.kind === "file" || item.current.kind === "file") out.push([{ t: "    (no text diff: binary, large, or not a file)", s: "dim" }]);
          continue;
        }
        for (const l of diffLines(d)) out.push(...wrapLine([{ t: "    " }, ...l], w, { hard: true }));
      }
      if (diffs === "loading") out.push([{ t: "  reading the diffs…", s: "dim" }]);
    }
    if (c.unrestorable.length > 0) {
      out.push([]);
      para(`Cannot be put back (${c.unrestorable.length}):`, "warn");
      for (const u of c.unrestorable) out.push(...wrapText(`  ${inertLine(u)}`, w, "warn"));
    }
    for (const n of c.notes) out.push(...wrapText(`  note: ${inertLine(n)}`, w, "dim"));
  }
  if (p.conversation) {
    out.push([]);
    const { keeps, leaves } = p.conversation;
    para(
      `Conversation: a new session with the ${formatInt(keeps)} message${keeps === 1 ? "" : "s"} before prompt ${p.prompt.n}; this session stays as it is${leaves > 0 ? ` (its ${formatInt(leaves)} later messages included)` : ""}, and each names the other.`,
    );
  }
  out.push([]);
  para(`The prompt's text comes back into the input box.`, "dim");
  return out;
}

export function rewindBox(step: RewindStep, cols: number, rows: number, keys: RewindKeys, ready = true): { box: Box; maxScroll?: number } {
  const width = Math.max(30, Math.min(cols - 2, 110));
  const inner = width - 4;
  const choices = (choose: string): Line[] =>
    ready
      ? choiceRows(
          [
            [{ t: keys.move, s: "key" }, { t: " choose" }],
            [{ t: keys.choose, s: "key" }, { t: ` ${choose}` }],
            [{ t: keys.close, s: "key" }, { t: " cancel" }],
          ],
          inner,
        )
      : wrapText(NOT_READY, inner, "dim");
  const sized = (title: string, body: Line[], footer: Line[], scroll = 0): { box: Box; maxScroll: number } => {
    const chrome = 3 + footer.length;
    const height = Math.max(chrome + 1, Math.min(rows - 2, body.length + chrome));
    const room = height - chrome;
    const maxScroll = Math.max(0, body.length - room);
    const s = Math.min(Math.max(0, scroll), maxScroll);
    let visible = body.slice(s, s + room);
    if (maxScroll > 0) {
      const below = body.length - (s + room);
      visible = [...visible.slice(0, room - 1), [{ t: below > 0 ? `↓ ${formatInt(below)} more lines (${keys.move})` : "↑ scrolled to the end", s: "dim" }]];
    }
    return { box: frame(title, visible, footer, width, height), maxScroll };
  };
  switch (step.at) {
    case "prompt": {
      const footer = choices("next");
      const room = Math.max(1, Math.min(rows - 2, step.prompts.length + 3 + footer.length) - 3 - footer.length);
      const start = Math.min(Math.max(0, step.index - room + 1), Math.max(0, step.prompts.length - room));
      const numW = String(step.prompts.length).length;
      const body: Line[] = [];
      for (let i = start; i < Math.min(step.prompts.length, start + room); i++) {
        const p = step.prompts[i]!;
        const when = p.createdAt.replace("T", " ").replace(/:\d\d(\.\d+)?Z?$/, "");
        const left = `${String(p.n).padStart(numW)}  `;
        const textW = Math.max(4, inner - textWidth(left) - textWidth(when) - 2);
        const line: Line = [{ t: left, s: "key" }, ...fit(truncate([{ t: label(p) }], textW), textW), { t: "  " }, { t: when, s: "dim" }];
        body.push(i === step.index ? restyle(fit(line, inner), { inv: true }) : line);
      }
      return sized(`Rewind to before which prompt? (${formatInt(step.prompts.length)})`, body, footer);
    }
    case "mode": {
      const body: Line[] = [...wrapText(`Prompt ${step.prompt.n}: ${label(step.prompt)}`, inner), []];
      REWIND_CHOICES.forEach((m, i) => {
        const [head, tail] = CHOICE_TEXT[m];
        const line: Line = [{ t: `${i + 1}  `, s: "key" }, { t: head }, { t: ` — ${tail}`, s: "dim" }];
        const rowsOf = wrapLine(line, inner);
        body.push(...(i === step.index ? rowsOf.map((r) => restyle(fit(r, inner), { inv: true })) : rowsOf));
      });
      return sized(`Rewind to before prompt ${step.prompt.n}`, body, choices("see what changes"));
    }
    case "planning":
      return sized(`Rewind to before prompt ${step.prompt.n}`, [[{ t: "working out what will change…", s: "dim" }]], ready ? [[{ t: keys.close, s: "key" }, { t: " cancel" }]] : wrapText(NOT_READY, inner, "dim"));
    case "preview": {
      const footer: Line[] = ready
        ? choiceRows(
            [
              [{ t: keys.choose, s: "key" }, { t: " rewind" }],
              [{ t: keys.diff, s: "key" }, { t: step.diffs === undefined ? " show diffs" : " hide diffs" }],
              [{ t: keys.move, s: "key" }, { t: " scroll" }],
              [{ t: keys.close, s: "key" }, { t: " cancel: nothing is changed" }],
            ],
            inner,
          )
        : wrapText(NOT_READY, inner, "dim");
      const mode = step.preview.mode === "both" ? "code and conversation" : step.preview.mode === "code" ? "code only" : "conversation only";
      return sized(`Rewind (${mode}): what will change`, previewBody(step.preview, step.diffs, inner), footer, step.scroll);
    }
    default:
      return assertNever(step, "rewind step");
  }
}
