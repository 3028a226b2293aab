// What the screen shows: the screen's state and its layout in, the lines of each rectangle
// out. It writes nothing: the screen paints the areas into the terminal's cell buffer in the
// order given (a box last, over the rest) and puts the cursor where it says. The only state
// it touches is the transcript's and the pane's caches, which their view() and render() keep.
// frames.ts says when a frame is drawn, layout.ts where each part goes.
import type { Controller, ContextStatus } from "../session/controller/types.js";
import type { TurnState } from "../session/turn/events.js";
import { assertNever } from "../record/types.js";
import type { Usage } from "../provider/types.js";
import { keyLabel, type Keymap } from "./bindings.js";
import type { ContextPane } from "./context-pane.js";
import type { InputLayout } from "./input.js";
import type { Focus } from "./keyrouter.js";
import { centred, modalLimit, promptScroll, type Layout, type Rect } from "./layout.js";
import type { Box } from "./modal.js";
import type { Modal } from "./modal-state.js";
import type { ScreenParts } from "./parts.js";
import type { MentionHint } from "./mention-complete.js";
import { activeFlash, hintLine, placeholder, startingHint, startingStatus, statusLine, type Flash, type Retry } from "./status.js";
import type { Line, Seg } from "./style.js";
import type { Transcript } from "./transcript.js";
import { taskLine } from "./task-line.js";
import type { PromptQueue } from "./queue.js";

/** the session's parts the painter reads */
export interface PaintedSession {
  controller: Controller;
  transcript: Transcript;
  pane: ContextPane;
  boxes: ScreenParts["boxes"];
  run: ScreenParts["run"];
  /** messages typed during the turn, shown under the transcript */
  queue: PromptQueue;
}

export interface ScreenState {
  km: Keymap;
  now: number;
  /** undefined while the screen is starting */
  session: PaintedSession | undefined;
  focus: Focus;
  /** the hint line's message, expired or not (it is checked against `now` here) */
  flash: Flash | undefined;
  /** Enter was pressed before the session was open */
  held: boolean;
  attachments: number;
  /** the prompt's text as typed, laid out at promptWidth() */
  prompt: { text: string; empty: boolean; layout: InputLayout; mentions?: MentionHint | undefined };
  turn: { state: TurnState; detail?: string | undefined; waiting?: boolean };
  retry: Retry | undefined;
  usage: Usage | undefined;
  context: ContextStatus | undefined;
  modal: Modal | undefined;
  /** the box takes keys (focus.ts, BoxGuard): its footer lists the choices */
  boxReady: boolean;
}

/** lines for one rectangle; cells past a line's end take `fill`'s style */
interface Area {
  rect: Rect;
  lines: Line[];
  fill?: Seg;
}

export interface Painted {
  areas: Area[];
  /** the terminal cursor, in the prompt when typing goes there; hidden otherwise */
  cursor: { x: number; y: number } | undefined;
  /** the box over the rest, when one is drawn; a question's says how far it can scroll */
  box: { maxScroll: number | undefined } | undefined;
}

export function paintScreen(st: ScreenState, l: Layout): Painted {
  const areas: Area[] = [];
  const fill = (rect: Rect, lines: Line[], fillSeg?: Seg): void => {
    areas.push(fillSeg ? { rect, lines, fill: fillSeg } : { rect, lines });
  };
  const cols = l.cols;
  const prompt = st.prompt.layout;
  const a = st.session;
  const km = st.km;
  const flash = activeFlash(st.flash, st.now, a !== undefined && (a.controller.busy() || st.turn.state !== "idle"));

  // transcript and context pane (none yet while starting: the area stays blank)
  if (l.main.h > 0 && !a) fill(l.main, []);
  if (l.main.h > 0 && a) {
    if (l.transcript) {
      // what is queued sits under the transcript, which gives up the rows (keeping at least half)
      const queued = a.queue.lines(l.transcript.w, { edit: keyLabel(km, "queue.edit"), remove: keyLabel(km, "queue.remove") });
      const qh = Math.min(queued.length, Math.floor(l.transcript.h / 2));
      const th = l.transcript.h - qh;
      fill({ ...l.transcript, h: th }, a.transcript.view(l.transcriptTextWidth, th).lines);
      if (qh > 0) fill({ ...l.transcript, y: l.transcript.y + th, h: qh }, queued.slice(queued.length - qh));
    }
    if (l.divider) fill(l.divider, Array.from({ length: l.main.h }, (): Line => [{ t: "│", s: st.focus === "context" ? "border" : "rule" }]));
    if (l.pane) {
      const keys = {
        page: `${keyLabel(km, "context.prevPage")}/${keyLabel(km, "context.nextPage")}`,
        section: `${keyLabel(km, "context.prevSection")}/${keyLabel(km, "context.nextSection")}`,
        scroll: `${keyLabel(km, "context.scrollUp")}/${keyLabel(km, "context.scrollDown")}`,
        close: keyLabel(km, "context.close"),
      };
      fill(l.pane, a.pane.render(l.pane.w, l.pane.h, keys));
    }
    if (l.gap) fill(l.gap, []);
  }

  // hint line, prompt, status
  if (l.hint) {
    const hint = a
      ? hintLine({ attachments: st.attachments, flash, focus: st.focus, prompt: st.prompt.text, commands: st.prompt.text.startsWith("/") ? a.controller.workflow?.commands() : undefined, following: a.transcript.follow, km, mentions: st.prompt.mentions }, cols)
      : startingHint({ flash, held: st.held, km }, cols);
    fill(l.hint, [hint]);
  }
  const start = promptScroll(prompt.cursorRow, prompt.rows.length, l.prompt.h);
  const promptLines: Line[] = [];
  for (let r = 0; r < l.prompt.h; r++) {
    const row = prompt.rows[start + r] ?? [];
    const gutter: Seg = start + r === 0 ? { t: "› ", s: "userGutter" } : { t: "  " };
    promptLines.push([gutter, ...row]);
  }
  if (st.prompt.empty && st.focus === "input") {
    promptLines[0] = [{ t: "› ", s: "userGutter" }, { t: placeholder(a !== undefined, a?.controller.busy() ?? false), s: "dim" }];
  }
  fill(l.prompt, promptLines);
  const status = a
    ? statusLine(
        {
          info: a.controller.info(),
          sessionId: a.controller.session().id,
          state: st.turn.state,
          detail: st.turn.detail,
          waiting: st.turn.waiting === true,
          busy: a.controller.busy(),
          retry: st.retry,
          now: st.now,
          context: st.context,
          usage: st.usage,
          tasks: taskLine(a.controller.history()),
          km,
        },
        cols,
      )
    : startingStatus(cols);
  fill(l.status, [status], { t: "", s: "status" });

  // modal boxes over everything else
  const open = a && st.modal ? openBox(st.modal, a, km, modalLimit(l), st.boxReady) : undefined;
  if (open) fill(centred(l, open.box.width, open.box.lines.length), open.box.lines);

  // the terminal cursor sits in the prompt when typing goes there
  let cursor: Painted["cursor"];
  if (!open && st.focus === "input") {
    const col = st.prompt.empty ? 0 : prompt.cursorCol;
    cursor = { x: Math.min(cols - 1, 2 + col), y: l.prompt.y + (prompt.cursorRow - start) };
  }
  return { areas, cursor, box: open ? { maxScroll: open.maxScroll } : undefined };
}

/** the open box at the largest size it may take */
function openBox(m: Modal, a: PaintedSession, km: Keymap, lim: { w: number; h: number }, ready: boolean): { box: Box; maxScroll?: number } | undefined {
  switch (m.kind) {
    case "permission": {
      const q = m.queue[0];
      if (!q) return undefined;
      const keys = {
        once: keyLabel(km, "permission.allowOnce"),
        session: keyLabel(km, "permission.allowSession"),
        deny: keyLabel(km, "permission.deny"),
        scroll: `${keyLabel(km, "permission.scrollUp")}/${keyLabel(km, "permission.scrollDown")} ${keyLabel(km, "permission.pageUp")}/${keyLabel(km, "permission.pageDown")}`,
      };
      return a.boxes.permissionBox(q.req, keys, m.queue.length - 1, m.scroll, lim.w, lim.h, ready);
    }
    case "sessions":
      return {
        box: a.boxes.sessionsBox(
          m.list,
          a.controller.session().id,
          m.index,
          lim.w,
          lim.h,
          { move: `${keyLabel(km, "sessions.prev")}/${keyLabel(km, "sessions.next")}`, choose: keyLabel(km, "sessions.choose"), close: keyLabel(km, "sessions.close") },
          ready,
        ),
      };
    case "models":
      return {
        box: a.run.modelsBox(
          m.picker,
          lim.w,
          lim.h,
          { move: `${keyLabel(km, "sessions.prev")}/${keyLabel(km, "sessions.next")}`, choose: keyLabel(km, "sessions.choose"), close: keyLabel(km, "sessions.close") },
          ready,
        ),
      };
    case "rewind":
      return a.run.rewindBox(
        m.step,
        lim.w,
        lim.h,
        { move: `${keyLabel(km, "sessions.prev")}/${keyLabel(km, "sessions.next")}`, choose: keyLabel(km, "sessions.choose"), close: keyLabel(km, "sessions.close"), diff: keyLabel(km, "rewind.diff") },
        ready,
      );
    default:
      return assertNever(m, "modal");
  }
}
