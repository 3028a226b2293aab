// The full-screen interface: holds the screen's state and sequences its rooms. Keys come in
// through the key router (keyrouter.ts) as intents that act() carries out (ops.ts for the
// editor's, the transcript's and the pane's); the session's events come in through one
// subscription and one switch (onEvent). A frame is the scheduler's to time (frames.ts);
// layout.ts says where each part goes, paint.ts what it shows, and app.ts writes that into
// the cell buffer. An open box is a Modal value (modal-state.ts); Ctrl-Z is suspend.ts, the
// process's signals signals.ts, slash commands run-command.ts. The terminal is injected
// (screen.ts), so all of it runs in-process against a headless xterm as well as on a real
// terminal.
//
// The screen comes first: startTui() draws a usable frame (the prompt takes keys at once, the
// status line says it is starting) before the CLI reads the config, opens the store and builds
// the app; attach() then hands it the controller and the configured keymap. What was typed
// meanwhile stays in the prompt, and an Enter pressed meanwhile is held and sent on attach.
// Only what that first frame needs is imported statically; the rest of the screen (parts.ts:
// the transcript with marked, the context pane, the boxes, the commands, the highlighter)
// loads behind it.
import type { Controller, ContextStatus } from "../session/controller/types.js";
import type { SessionEvent, TurnState } from "../session/turn/events.js";
import type { ImageBlock } from "../record/types.js";
import { assertNever } from "../record/types.js";
import { messageOf } from "../record/errors.js";
import type { PermissionAnswer } from "../tools/types.js";
import type { Usage } from "../provider/types.js";
import { defaultKeymap, keyLabel, prettyKey, type Keymap } from "./bindings.js";
import { ModeCycle } from "./mode-cycle.js";
import { completeCommand } from "./commands.js";
import { MentionCompleter } from "./mention-complete.js";
import type { ContextPane } from "./context-pane.js";
import { FrameScheduler } from "./frames.js";
import { inertLine } from "./inert.js";
import { InputEditor, PromptHistory } from "./input.js";
import { KeyParser, type InputEvent } from "./keys.js";
import { BoxGuard, FocusState } from "./focus.js";
import { watchBackground, type ThemeChoice } from "./background.js";
import { KeyRouter, QUIT_WINDOW_MS, type Intent } from "./keyrouter.js";
import { PromptQueue } from "./queue.js";
import { Attention } from "./attention.js";
import type { HangupChoice, NotifyChoice } from "../config/config.js";
import { layout, promptWidth, sideBySide, type Rect } from "./layout.js";
import { prelayout, PRELAYOUT_IDLE_MS, wantsPrelayout } from "./prelayout.js";
import { fitted, moveBy, scrollBy, type Modal } from "./modal-state.js";
import { editOp, paneOp, transcriptOp } from "./ops.js";
import { paintScreen } from "./paint.js";
import { loadParts, type ScreenParts } from "./parts.js";
import type { ScreenHandle } from "./run-command.js";
import { createSurface, processTerminal, type Surface, type Terminal } from "./screen.js";
import { watchProcess } from "./signals.js";
import { LISTING_MODELS, type Flash, type Retry } from "./status.js";
import { Theme, type StyleName } from "./style.js";
import { resumeScreen, suspendScreen } from "./suspend.js";
import { loadWidths, takeEstimated } from "./text.js";
import type { Transcript } from "./transcript.js";
import type { NoticeLevel } from "./transcript-item.js";
import { FirstKey } from "./first-key.js";

export type { Keymap } from "./bindings.js";
export type { Terminal } from "./screen.js";

interface StartOptions {
  noColor: boolean;
  /** the process's own terminal when not given */
  terminal?: Terminal;
}

interface AttachOptions {
  keymap: Keymap;
  keymapWarnings: string[];
  /** the config's "theme"; "auto" (the default) follows the terminal's background */
  theme?: ThemeChoice;
  /** the config's "notify" (notify.ts); "auto" when absent */
  notify?: NotifyChoice;
  /** the config's "hangup": what a running turn does when the terminal hangs up */
  hangup?: HangupChoice;
  /** run right after the frame that shows the session */
  afterSessionFrame?: () => void;
  /** run at the person's first key once the session is shown (first-key.ts): what a turn needs loads then */
  onFirstKey?: () => void;
}

interface TuiOptions extends StartOptions, AttachOptions {}

/** The screen between startTui() and the end of the session. */
export interface Tui {
  /**
   * Gives the screen its session and the configured keymap; resolves with the exit code when
   * the person quits. Called after a quit during start-up, it resolves with that quit's code.
   */
  attach(controller: Controller, opts: AttachOptions): Promise<number>;
  /** tears the screen down and restores the terminal (start-up failed) */
  close(): void;
}

const FLASH_MS = 3000;
/** the status is read again after messages at most this often */
const STATUS_MIN_MS = 500;
/** the pane's "updated" mark lasts 2 s: repaint once it has gone */
const PANE_FLASH_MS = 2100;

/** what the screen has once the session is open */
interface Attached {
  controller: Controller;
  transcript: Transcript;
  pane: ContextPane;
  history: PromptHistory;
  run: ScreenParts["run"];
  boxes: ScreenParts["boxes"];
  highlight: ScreenParts["highlight"];
  /** what slash commands may touch */
  handle: ScreenHandle;
  /** what was typed during the turn, sent after it (queue.ts) */
  queue: PromptQueue;
}

/** Draws the starting frame at once; throws (with the terminal restored) if it cannot. */
export function startTui(opts: StartOptions): Tui {
  const app = new TuiApp(opts);
  app.start();
  return {
    attach: (controller, o) => app.attach(controller, o),
    close: () => app.close(),
  };
}

/** The screen for a controller that is ready already (start and attach in one). */
export async function runTui(controller: Controller, opts: TuiOptions): Promise<number> {
  return startTui(opts).attach(controller, opts);
}

class TuiApp {
  private readonly theme: Theme;
  private readonly term: Terminal;
  private surface!: Surface;
  private readonly frames = new FrameScheduler(() => this.frame());
  private readonly editor = new InputEditor();
  /** `@path` completion: the workspace's files, walked behind the screen once it is up */
  private readonly firstKey = new FirstKey();
  /** a frame estimated a width and string-width is on its way (text.ts) */
  private widthsComing = false;
  private readonly mentions = new MentionCompleter(
    () => this.s?.controller.info().workspace,
    () => this.frames.request(),
  );
  private readonly parser = new KeyParser();
  /** the default keys until attach() brings the configured ones */
  private km: Keymap = defaultKeymap();
  private readonly router = new KeyRouter(this.km);
  /** set by attach(): the session's parts */
  private s: Attached | undefined;
  /** Enter was pressed before the session was ready: send the prompt when it is */
  private held = false;
  /** notices that arrived before there was a transcript to show them in */
  private early: { level: NoticeLevel; text: string }[] = [];
  /** where keys go: the prompt, the transcript or the pane (focus.ts); a box is over it */
  private readonly focus = new FocusState();
  private modal: Modal | undefined;
  /** an open box takes keys only once it has been seen (type-ahead never answers it) */
  private readonly guard = new BoxGuard(this.frames, () => this.frames.request());
  /** where the pane was last drawn: the wheel over it scrolls it */
  private paneRect: Rect | undefined;
  /** `waiting`: streaming, with nothing of the answer in yet */
  private turn: { state: TurnState; detail?: string | undefined; waiting?: boolean } = { state: "idle" };
  /** images for the next prompt (one array for the screen's life: commands change it in place) */
  private readonly attachments: ImageBlock[] = [];
  private flashMsg: Flash | undefined;
  private usage: Usage | undefined;
  private retry: Retry | undefined;
  private context: ContextStatus | undefined;
  private contextAt = 0;
  private cursorPos: { x: number; y: number } | undefined;
  private waitingForColour = false;
  private partsLoad: Promise<ScreenParts> | undefined;
  private closed = false;
  private resolveRun!: (code: number) => void;
  /** resolves with the exit code once the screen has closed (a quit, a signal, or close()) */
  private readonly done: Promise<number>;
  private readonly offs: (() => void)[] = [];
  /** the title and the notices for a person looking elsewhere (attention.ts) */
  private attention!: Attention;

  constructor(opts: StartOptions) {
    this.theme = new Theme(opts.noColor || !!process.env.NO_COLOR);
    this.term = opts.terminal ?? processTerminal();
    this.done = new Promise<number>((resolve) => (this.resolveRun = resolve));
  }

  // ---- start and stop ------------------------------------------------------------------------

  start(): void {
    try {
      this.surface = createSurface({ theme: this.theme, output: this.term.output, term: this.term.name });
      this.theme.setColors(this.surface.colors);
      this.surface.onPaint(() => this.paint());
      this.surface.onResize(() => {
        this.focus.resized(this.s?.pane.open ?? false, !sideBySide(this.surface.cols));
        this.frames.drawNow();
      });
      // bracketed paste: a paste arrives as one event, not as keystrokes (Enter must not send it)
      this.surface.write("\x1b[?2004h");
      this.attention = new Attention((b) => this.surface.write(b));
      this.attention.start();
      this.listenInput();
      // the background: COLORFGBG at once, the terminal's answer to OSC 11 when it comes; the
      // first frame does not wait for it (background.ts)
      const bg = watchBackground(this.term, (q) => this.surface.write(q), (answer) => {
        this.theme.setDetected(answer);
        this.frames.request();
      });
      this.theme.setDetected(bg.initial);
      this.offs.push(bg.stop);
      this.offs.push(
        watchProcess(this.term, {
          closed: () => this.closed,
          quit: (code) => this.quit(code),
          teardown: () => this.teardown(),
          report: (text) => {
            this.notice("error", text);
            this.frames.request();
          },
          suspend: () => this.suspend(),
          hangUp: () => this.hangUp(),
          resume: () => {
            if (!this.closed) resumeScreen(this.term, this.surface);
          },
        }),
      );
      this.frames.drawNow();
    } catch (e) {
      this.close();
      throw e;
    }
    // once the frame is out, the rest of the screen loads while the session does: its file
    // reads overlap the store's, instead of all of it waiting for attach()
    setImmediate(() => void this.parts().catch(() => undefined));
  }

  /** the rest of the screen (parts.ts), loaded once */
  private parts(): Promise<ScreenParts> {
    this.partsLoad ??= loadParts();
    return this.partsLoad;
  }

  async attach(controller: Controller, opts: AttachOptions): Promise<number> {
    if (this.closed) return this.done;
    // what the full screen needs beyond the first frame, loaded while that frame is up
    const { Transcript, ContextPane, run, boxes, highlight } = await this.parts();
    if (this.closed) return this.done;
    this.km = opts.keymap;
    this.router.setKeymap(opts.keymap);
    this.theme.setChoice(opts.theme ?? "auto");
    this.attention.configure(opts.notify ?? "auto");
    // the wheel only where the keymap asks for it: reporting it costs plain drag-selection
    if (opts.keymap.mouse) this.surface.setMouse(true);
    const transcript = new Transcript();
    const history = new PromptHistory(withWorkspaceHistory(controller));
    const queue = new PromptQueue();
    const a: Attached = {
      queue,
      controller,
      transcript,
      pane: new ContextPane(controller, () => this.frames.request()),
      history,
      run,
      boxes,
      highlight,
      handle: {
        controller,
        transcript,
        editor: this.editor,
        history,
        km: this.km,
        attachments: this.attachments,
        queue,
        flash: (text, style, turn) => this.flash(text, style, FLASH_MS, turn),
        fail: (what, e) => this.fail(what, e),
        render: () => this.frames.request(),
        pickSession: (list) => {
          const cur = list.findIndex((x) => x.id === controller.session().id);
          if (!this.modal) {
            this.modal = { kind: "sessions", list, index: Math.max(0, cur) };
            this.guard.reset();
          }
          this.frames.request();
        },
        pickModel: (picker) => {
          // the list is open: "listing models…" is said and done
          if (this.flashMsg?.text === LISTING_MODELS) this.flashMsg = undefined;
          if (!this.modal) {
            this.modal = { kind: "models", picker };
            this.guard.reset();
          }
          this.frames.request();
        },
        pickRewind: (prompts, index) => {
          if (!this.modal) this.showRewind({ at: "prompt", prompts, index });
        },
        toggleContext: () => this.toggleContext(),
        repaintAll: () => this.surface.repaintAll(),
        writeRaw: (bytes) => this.surface.write(bytes),
        quit: (code) => this.quit(code),
      },
    };
    this.s = a;
    this.offs.push(controller.subscribe((e) => this.onEvent(a, e), { answersPermissions: true }));

    transcript.load(controller.history(), controller.summaries());
    this.attention.session(sessionLabel(controller));
    const info = controller.info();
    if (controller.history().length === 0) {
      transcript.notice(
        "info",
        `albedo-tui · ${info.provider}/${info.model} in ${info.workspace}. Type a request and press ${keyLabel(this.km, "input.submit")}; /help lists commands and keys; ${keyLabel(this.km, "context.toggle")} shows what the model is sent.`,
      );
    }
    for (const w of opts.keymapWarnings) transcript.notice("warning", w);
    this.hangupMode = opts.hangup ?? "continue";
    this.restoreDraft(controller, transcript);
    if (info.keyProblem) transcript.notice("error", info.keyProblem);
    // said before this screen listened: where commands run
    for (const n of controller.startNotices()) transcript.notice("warning", n);
    // open in another process: shown, never written to from here
    const readOnly = controller.readOnly();
    if (readOnly) transcript.notice("warning", readOnly);
    // with --api: printed before the screen, the address would be lost under it
    if (info.api) transcript.notice("info", `Local API on ${info.api.url} (token in ${info.api.tokenFile}); /api shows its routes.`);
    const fork = controller.session().forkedFrom;
    if (fork) transcript.notice("info", `This session is a fork of ${fork.id} at prompt ${fork.atPrompt}; that session stays as it was (/sessions lists both).`);
    for (const n of this.early.splice(0)) transcript.notice(n.level, n.text);
    if (this.paneWanted) {
      this.paneWanted = false;
      this.toggleContext();
    }
    // what the status line knows now, in this frame (a timer's frame would follow idle); the
    // controller says "info" when its figure changes
    this.refreshStatus(true);
    if (this.held) {
      this.held = false;
      this.flashMsg = undefined;
      try {
        run.submitPrompt(a.handle);
      } catch (e) {
        this.fail("sending", e);
      }
    }
    this.frames.drawNow();
    // MCP servers start behind this frame: they never delay the prompt
    setImmediate(() => controller.mcp?.start());
    if (opts.afterSessionFrame) setImmediate(opts.afterSessionFrame);
    // the file list for `@` is walked at the first key, so the first `@` finds it in and an
    // idle screen walks nothing
    this.firstKey.arm(() => {
      if (this.closed) return;
      opts.onFirstKey?.();
      // exact widths for what is typed next (a frame that needed one sooner loaded them then)
      void loadWidths().catch(() => undefined);
      void this.mentions.prewarm().catch(() => undefined);
    });
    return this.done;
  }

  /** start-up failed: restore the terminal so the caller's message is readable */
  close(): void {
    if (this.closed) return;
    this.teardown();
    this.resolveRun(1);
  }

  /** a line in the transcript, or kept for it when it does not exist yet */
  private notice(level: NoticeLevel, text: string): void {
    if (this.s) this.s.transcript.notice(level, text);
    else this.early.push({ level, text });
  }

  private listenInput(): void {
    const input = this.term.input;
    if (input.isTTY) input.setRawMode?.(true);
    input.setEncoding("utf8");
    const onData = (chunk: string | Buffer): void => {
      const events = this.parser.feed(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      this.frames.cancel("esc");
      // a lone Esc byte may be the start of a sequence still on its way
      if (this.parser.hasPending()) this.frames.after("esc", this.parser.pendingWaitMs(), () => this.handleInput(this.parser.flush()));
      this.handleInput(events);
    };
    input.on("data", onData);
    input.resume();
    this.offs.push(() => {
      input.off("data", onData);
      if (input.isTTY) {
        try {
          input.setRawMode?.(false);
        } catch {
          // the terminal is gone
        }
      }
      input.pause();
    });
  }


  private teardown(): void {
    if (this.closed) return;
    this.closed = true;
    this.frames.close();
    for (const off of this.offs.splice(0)) {
      try {
        off();
      } catch {
        // keep restoring the rest
      }
    }
    try {
      this.surface?.write("\x1b[?2004l" + (this.attention?.restore() ?? ""));
      this.surface?.destroy();
    } catch {
      // the terminal may be gone (SIGHUP)
    }
  }

  private quit(code = 0): void {
    if (this.closed) return;
    this.saveDraft();
    const c = this.s?.controller;
    if (c?.busy()) c.interrupt();
    // questions still open are answered "deny" so the turn can end
    if (this.modal?.kind === "permission") for (const q of this.modal.queue) q.answer("deny");
    this.modal = undefined;
    this.teardown();
    this.resolveRun(code);
  }

  /** what the quit key last emptied from the prompt: a quit right after it keeps it as the draft */
  private cleared: { text: string; at: number } | undefined;

  /** what the config's "hangup" says a running turn does when the terminal goes */
  private hangupMode: HangupChoice = "continue";

  /**
   * The terminal hung up (SIGHUP, or it went away) while a turn runs: the screen goes, the
   * turn goes on to its end (alongside.ts answers its questions), then the run ends with 129.
   * False when nothing runs: the caller quits as before.
   */
  private hangUp(): boolean {
    const c = this.s?.controller;
    if (this.closed || !c?.alongside || !c.busy()) return false;
    // the questions open now get the answer the later ones will
    const open = this.modal?.kind === "permission" ? this.modal.queue : [];
    const ended = c.alongside.detach(this.hangupMode, open.map((q) => q.req.tool));
    for (const q of open) q.answer("deny");
    this.modal = undefined;
    this.saveDraft();
    this.teardown();
    void ended.then(() => this.resolveRun(129));
    return true;
  }

  /** the prompt's unsent text (and what was queued) stays with the session */
  private saveDraft(): void {
    const a = this.s;
    if (!a?.controller.alongside) return;
    const typed = this.editor.value().trim() ? this.editor.value() : this.cleared && Date.now() - this.cleared.at <= QUIT_WINDOW_MS + 500 ? this.cleared.text : "";
    const parts = [...a.queue.texts(), typed].filter((t) => t.trim());
    a.controller.alongside.saveDraft(parts.join("\n\n"));
  }

  /** the draft left when the session was last closed, and how detached turns ended */
  private restoreDraft(c: Controller, t: Transcript): void {
    const al = c.alongside;
    if (!al) return;
    for (const n of al.detachedNotes()) t.notice("warning", n);
    const draft = al.draft();
    if (!draft) return;
    if (this.editor.isEmpty()) {
      this.editor.set(draft);
      t.notice("info", "Your unsent draft is back in the prompt.");
    }
  }

  // ---- the session's events: one switch over the union --------------------------------------

  private onEvent(a: Attached, e: SessionEvent): void {
    const t = a.transcript;
    switch (e.type) {
      case "message":
        t.message(e.msg, e.answer);
        this.staleStatus();
        break;
      case "answer_start":
        t.answerStart(e.answer);
        break;
      case "text_delta":
        this.firstByte();
        t.textDelta(e.answer, e.text);
        break;
      case "reasoning_delta":
        this.firstByte();
        t.reasoningDelta(e.answer, e.text);
        break;
      case "tool_input":
        this.firstByte();
        t.toolInput(e.answer, e.index, e.name, e.bytes);
        break;
      case "state":
        this.turn = { state: e.state, detail: e.detail, waiting: e.state === "streaming" };
        if (e.state === "streaming") this.retry = undefined;
        t.turnState(e.state !== "idle" || a.controller.busy(), e.state === "permission");
        this.attention.session(sessionLabel(a.controller));
        this.attention.turnState(e.state, a.controller.busy());
        break;
      case "tool_start":
        t.toolStart(e.id);
        this.startTicker(t);
        break;
      case "tool_output":
        t.toolOutput(e.id, e.tail, e.bytes);
        break;
      case "tool_end":
        t.toolEnd(e);
        break;
      case "permission":
        if (this.modal?.kind === "permission") this.modal.queue.push({ req: e.req, answer: e.answer });
        else {
          // a picker in the way gives way to the question
          this.modal = { kind: "permission", queue: [{ req: e.req, answer: e.answer }], scroll: 0, maxScroll: 0 };
          this.guard.reset();
        }
        this.attention.question(inertLine(e.req.tool));
        break;
      case "retry":
        this.retry = { attempt: e.attempt, until: Date.now() + e.delayMs, reason: e.reason };
        break;
      case "usage":
        this.usage = e.usage;
        break;
      case "capture":
        // the pane repaints when its refresh is in, and again once its "updated" mark is gone
        if (!a.pane.open) {
          a.pane.outdated();
          return;
        }
        void a.pane.refresh(true);
        this.frames.after("paneFlash", PANE_FLASH_MS, () => this.frames.request());
        return;
      case "notice":
        t.notice(e.level, e.text);
        break;
      case "turn_end":
        this.attention.session(sessionLabel(a.controller));
        this.attention.turnEnded(e);
        // what was queued behind it, once the turn's end has settled
        setImmediate(() => {
          if (!this.closed) a.run.turnEnded(a.handle, e);
        });
        t.closeLive();
        t.turnState(false, false);
        this.retry = undefined;
        this.refreshStatus(true);
        break;
      case "session":
        t.load(a.controller.history(), a.controller.summaries());
        this.attention.session(sessionLabel(a.controller));
        // ↑ recalls this session's prompts (all of them, once the whole record is read), and
        // the provider's usage shown belongs to the session left behind
        a.history.replace(promptsOf(a.controller));
        this.usage = undefined;
        this.focus.sessionChanged();
        if (a.pane.open) void a.pane.refresh(false);
        else a.pane.outdated();
        this.refreshStatus(true);
        break;
      case "info":
        // the context figure is worked out by then (a cached read): shown at once, as the pane shows it
        this.refreshStatus(true);
        break;
      default:
        assertNever(e, "session event");
    }
    this.frames.request();
  }

  // ---- keys: every one goes through the router -----------------------------------------------

  private handleInput(events: InputEvent[]): void {
    this.firstKey.input(events);
    for (const ev of events) {
      if (this.closed) return;
      try {
        const a = this.s;
        const intents = this.router.route(ev, {
          attached: a !== undefined,
          modal: this.modal?.kind,
          boxReady: this.guard.isReady(),
          focus: this.focus.place,
          paneOpen: a?.pane.open ?? false,
          paneCovers: !sideBySide(this.surface.cols),
          paneRect: a?.pane.open ? this.paneRect : undefined,
          // busy() covers a turn; a /compact runs outside one but reports its state
          interruptible: a !== undefined && (a.controller.busy() || this.turn.state !== "idle"),
          promptEmpty: this.editor.isEmpty(),
          held: this.held,
          queued: a?.queue.size ?? 0,
        });
        for (const i of intents) if (!this.closed) this.act(i);
      } catch (e) {
        this.notice("error", `internal error handling a key: ${messageOf(e)}`);
      }
    }
    this.frames.request();
  }

  private act(i: Intent): void {
    const a = this.s;
    const e = this.editor;
    switch (i.type) {
      case "quit":
        return this.quit(0);
      case "flash":
        return this.flash(i.text, i.style, i.ms);
      case "redraw":
        return this.surface.repaintAll();
      case "suspend":
        return this.suspend();
      case "toggleContext":
        return this.toggleContext();
      case "showTasks":
        if (a) a.run.showTasks(a.handle);
        return;
      case "pane":
        if (a) paneOp(a.pane, i.op);
        if (i.op === "close") this.focus.paneClosed();
        return;
      case "focus":
        this.focus.toPrompt();
        return;
      case "compose":
        this.focus.compose();
        return;
      case "focusTranscript":
        this.focus.toTranscript();
        if (a && !a.transcript.selection()) a.transcript.select(-1);
        return;
      case "transcript":
        if (a) transcriptOp(a.transcript, i.op);
        return;
      case "interrupt":
        a?.controller.interrupt();
        this.flash("interrupting… what arrived is kept", "warn", FLASH_MS, true);
        return;
      case "submit": {
        if (!a) return;
        const typed = !e.isEmpty();
        a.run.submitPrompt(a.handle);
        if (typed && e.isEmpty()) this.mentions.sent();
        // sent, or run as a command (the prompt is empty now): keys go back to where it was typed from
        if (typed && e.isEmpty()) this.focus.sent(a.pane.open);
        return;
      }
      case "steer":
        if (a) a.run.submitPrompt(a.handle, true);
        return;
      case "queue":
        if (a) a.run.queueOp(a.handle, i.op);
        return;
      case "clearPrompt":
        // ↑ brings it back; quitting at once keeps it as the session's draft
        if (a && e.value().trim()) a.history.add(e.value());
        this.cleared = { text: e.value(), at: Date.now() };
        e.clear();
        this.flash(`prompt cleared (↑ brings it back) · press ${keyLabel(this.km, "app.quit")} again to quit, keeping it as a draft`, "warn", QUIT_WINDOW_MS);
        return;
      case "termFocus":
        return this.attention.focus(i.focused);
      case "hold":
        if (e.value().trim()) this.held = true;
        return;
      case "release":
        this.held = false;
        this.flash(`kept in the prompt · ${keyLabel(this.km, "input.submit")} sends it`);
        return;
      case "edit":
        return editOp(e, i.op);
      case "history": {
        if (e.vertical(i.dir)) return;
        // the prompt history comes with the session
        if (!a) return;
        const text = i.dir < 0 ? a.history.prev(e.value(), e.shape()) : a.history.next();
        if (text !== undefined) e.recall(text, a.history.shapeOf(text));
        return;
      }
      case "complete": {
        const mention = this.mentions.complete(e.text, e.cursor);
        if (mention) {
          e.text = mention.text;
          e.cursor = mention.cursor;
          return;
        }
                const done = completeCommand(e.text, a?.controller.workflow?.commands());
        if (done !== undefined) e.set(done);
        return;
      }
      case "type":
        // typing leaves the prompt history
        a?.history.reset();
        e.insert(i.ch);
        // typing makes the slash-command hint more useful than an old message
        if (this.flashMsg && this.flashMsg.style !== "err") this.flashMsg = undefined;
        return;
      case "paste":
        e.paste(i.text);
        return;
      case "dismissFlash":
        this.flashMsg = undefined;
        return;
      case "typedAhead":
        this.guard.typed();
        return;
      case "answer":
        return this.answerQuestion(i.answer);
      case "scrollQuestion":
        if (this.modal) this.modal = scrollBy(this.modal, i.by);
        return;
      case "pickerMove":
        if (this.modal) this.modal = moveBy(this.modal, i.by);
        return;
      case "pickerClose":
        if (this.modal?.kind === "rewind") this.flash("rewind cancelled: nothing was changed");
        this.modal = undefined;
        return;
      case "pickerChoose":
        if (this.modal?.kind === "rewind") return a?.run.chooseRewind(this.rewindHost(a), i.index);
        return this.modal?.kind === "models" ? this.chooseModel(i.index) : this.chooseSession();
      case "rewind":
        // Esc Esc on an empty prompt: as /rewind
        if (a && !this.modal) a.run.openRewind(a.handle);
        return;
      case "rewindDiff":
        if (a) a.run.toggleRewindDiffs(this.rewindHost(a));
        return;
      case "cycleMode": {
        if (!a) return;
        const said = this.modes.press(a.controller.info().permission, Date.now(), keyLabel(this.km, "permission.cycle"));
        if (said.next) a.controller.setPermission(said.next);
        return this.flash(said.say);
      }
      default:
        assertNever(i, "intent");
    }
  }

  private answerQuestion(answer: PermissionAnswer): void {
    const m = this.modal;
    if (m?.kind !== "permission") return;
    // the whole tool only where the box offered it
    if (answer === "tool" && m.queue[0]?.req.wholeTool === undefined) return;
    const q = m.queue.shift();
    m.scroll = 0;
    if (m.queue.length === 0) this.modal = undefined;
    // the next question is new to the person: it waits to be seen like the first
    else this.guard.reset();
    if (!q) return;
    const said = answer === "once" ? "allowed once" : answer === "session" ? "allowed for this session" : answer === "tool" ? `every ${q.req.tool} command allowed for this session` : "denied";
    this.flash(`${inertLine(q.req.tool)}: ${said}`, answer === "deny" ? "warn" : "ok");
    q.answer(answer);
  }

  /** a row of the model list, by its number or the selection: /model with that row's spec */
  private chooseModel(index: number | undefined): void {
    const m = this.modal;
    const a = this.s;
    if (m?.kind !== "models" || !a) return;
    const row = m.picker.rows[index ?? m.picker.index];
    // a number past the list chooses nothing and leaves it open
    if (!row) return;
    this.modal = undefined;
    a.controller.setModel(row.spec).then(
      (said) => {
        a.transcript.notice("info", said);
        this.frames.request();
      },
      (e: unknown) => this.fail("/model", e),
    );
  }

  /** the answer's first bytes are in: "waiting for the provider" becomes "streaming" */
  private firstByte(): void {
    if (this.turn.waiting) this.turn = { ...this.turn, waiting: false };
  }

  private chooseSession(): void {
    const m = this.modal;
    const c = this.s?.controller;
    if (m?.kind !== "sessions" || !c) return;
    const s = m.list[m.index];
    this.modal = undefined;
    if (!s || s.id === c.session().id) return;
    c.switchSession(s.id).then(
      () => this.flash(`switched to ${s.title ? inertLine(s.title) : s.id.slice(0, 8)}`, "ok"),
      (e: unknown) => this.fail("switching session", e),
    );
  }

  /** the rewind box at a new step (or closed): a new step waits to be seen before it takes keys */
  private showRewind(step: import("./modal-state.js").RewindStep | undefined): void {
    const m = this.modal;
    // a permission question came up meanwhile: it keeps the screen, and the rewind is dropped
    if (m && m.kind !== "rewind") return;
    this.modal = step ? { kind: "rewind", step } : undefined;
    if (step) this.guard.reset();
    this.frames.request();
  }

  private rewindHost(a: Attached): import("./rewind-flow.js").RewindHost {
    return { handle: a.handle, modal: () => this.modal, show: (step) => this.showRewind(step) };
  }

  /** the pane was asked for while the session was opening: it opens with the session */
  private paneWanted = false;

  private toggleContext(): void {
    const pane = this.s?.pane;
    if (!pane) {
      // the key is remembered: the pane opens with the session; pressed again it changes the mind
      this.paneWanted = !this.paneWanted;
      this.flash(this.paneWanted ? "the context pane opens once the session is open" : "the context pane stays closed");
      return;
    }
    if (pane.open) {
      pane.open = false;
      this.focus.paneClosed();
      return;
    }
    pane.open = true;
    this.focus.paneOpened();
    void pane.refresh(false);
  }

  private fail(what: string, e: unknown): void {
    this.notice("error", `${what} failed: ${messageOf(e)}`);
    this.frames.request();
  }

  /** `turn`: it speaks of the running turn, and goes when the turn ends (status.ts activeFlash) */
  /** the permission-mode key's state (leaving plan takes a second press) */
  private readonly modes = new ModeCycle();

  private flash(text: string, style: StyleName = "info", ms = FLASH_MS, turn = false): void {
    this.flashMsg = { text, style, until: Date.now() + ms, ...(turn ? { turn } : {}) };
    this.frames.after("flash", ms + 10, () => this.frames.request());
    this.frames.request();
  }

  // ---- suspending (Ctrl-Z, SIGTSTP) -------------------------------------------------------------

  /** an open box stays open and unanswered; its wait for keys starts again once it is redrawn */
  private suspend(): void {
    if (this.closed) return;
    const key = prettyKey(this.km.bindings["app.suspend"][0] ?? "C-z");
    const retaken = (): void => {
      if (this.modal) this.guard.reset();
    };
    suspendScreen({ term: this.term, surface: this.surface, retaken, warn: (text) => this.flash(text, "warn") }, key);
  }

  // ---- timers ---------------------------------------------------------------------------------

  /** read again at most every STATUS_MIN_MS while messages stream in */
  private staleStatus(): void {
    if (this.frames.isSet("status")) return;
    const wait = Math.max(0, this.contextAt + STATUS_MIN_MS - Date.now());
    this.frames.after("status", wait, () => {
      this.refreshStatus(false);
      this.frames.request();
    });
  }

  private refreshStatus(now: boolean): void {
    if (now) this.frames.cancel("status");
    try {
      this.context = this.s?.controller.contextStatus();
    } catch {
      this.context = undefined;
    }
    this.contextAt = Date.now();
  }

  /** a running tool's line shows its time so far: once a second while any runs */
  private startTicker(t: Transcript): void {
    this.frames.every("ticker", 1000, () => {
      if (!t.tick()) this.frames.cancel("ticker");
      this.frames.request();
    });
  }

  // ---- frames ---------------------------------------------------------------------------------

  private frame(): void {
    // synchronized output: terminals that know mode 2026 show the frame at once (no tearing);
    // the others ignore it
    this.surface.write("\x1b[?2026h");
    try {
      this.surface.render(); // paints through onPaint, then writes only changed cells
      this.surface.cursor(this.cursorPos);
    } finally {
      this.surface.write("\x1b[?2026l");
      // out now: blessed would hold the frame until setImmediate, behind whatever else this
      // turn of the event loop runs (the session loading at start-up, a burst of the stream)
      this.surface.flush();
    }
    this.afterFrame();
  }

  /** frames drawn before something arrived are drawn again when it does */
  private afterFrame(): void {
    // a width was estimated (string-width not loaded yet): what was laid out with it is laid
    // out again once exact widths are in, and the whole screen drawn again, since a cell
    // estimated one wide and drawn two by the terminal left it other than blessed believes
    if (takeEstimated() && !this.widthsComing) {
      this.widthsComing = true;
      void loadWidths().then(() => {
        if (this.closed) return;
        this.s?.transcript.widthsArrived();
        this.s?.pane.widthsArrived();
        this.surface.repaintAll();
        this.frames.request();
      });
    }
    // code shown plain while the highlighter loads: colour it when it is there
    const a = this.s;
    const idle = { cols: this.surface.cols, rows: this.surface.rows, paneOpen: a?.pane.open ?? true, turnIdle: this.turn.state === "idle" && (this.firstKey.started() || a?.transcript.answered() === true) };
    if (a && wantsPrelayout(idle)) {
      this.frames.after("prelayout", PRELAYOUT_IDLE_MS, () => prelayout(a.transcript, a.pane, { ...idle, promptRows: this.editor.layout(promptWidth(idle.cols)).rows.length }));
    }
    if (a && !this.waitingForColour && a.transcript.awaitingColour()) {
      this.waitingForColour = true;
      void a.highlight.loadHighlighter().then(() => {
        this.waitingForColour = false;
        if (a.transcript.recolour()) this.frames.request();
      });
    }
  }

  /** where things go (layout.ts), what they show (paint.ts), then into the cell buffer */
  private paint(): void {
    const cols = this.surface.cols;
    const prompt = this.editor.layout(promptWidth(cols));
    const a = this.s;
    const l = layout({ cols, rows: this.surface.rows, promptRows: prompt.rows.length, paneOpen: a?.pane.open ?? false });
    if (!l) return;
    const p = paintScreen(
      {
        km: this.km,
        now: Date.now(),
        session: a,
        focus: this.focus.place,
        flash: this.flashMsg,
        held: this.held,
        attachments: this.attachments.length,
        prompt: { text: this.editor.text, empty: this.editor.isEmpty(), layout: prompt, mentions: this.mentions.hint(this.editor.text, this.editor.cursor) },
        turn: this.turn,
        retry: this.retry,
        usage: this.usage,
        context: this.context,
        modal: this.modal,
        boxReady: this.guard.isReady(),
      },
      l,
    );
    for (const { rect: r, lines, fill } of p.areas) this.surface.paint(r.x, r.y, r.w, r.h, lines, fill);
    if (l.main.h > 0 && a) this.paneRect = l.pane;
    if (p.box) {
      if (this.modal && p.box.maxScroll !== undefined) this.modal = fitted(this.modal, p.box.maxScroll);
      // it is on screen once this frame is out: its wait for keys starts
      this.guard.drawn();
    }
    this.cursorPos = p.cursor;
  }
}

/** the session in the terminal's title: its title, else its short id */
function sessionLabel(c: Controller): string {
  const s = c.session();
  return s.title || s.id.slice(0, 8);
}

/** ↑'s list: the workspace's prompts from other sessions (as a shell keeps them), then this session's */
function withWorkspaceHistory(c: Controller): string[] {
  const own = promptsOf(c);
  const seen = new Set(own);
  return [...(c.alongside?.history() ?? []).filter((p) => !seen.has(p)), ...own];
}

function promptsOf(c: Controller): string[] {
  const out: string[] = [];
  for (const m of c.history()) {
    if (m.role !== "user") continue;
    const text = m.blocks
      .filter((b) => b.type === "text")
      .map((b) => (b as { text: string }).text)
      .join("\n");
    if (text.trim()) out.push(text);
  }
  return out;
}
