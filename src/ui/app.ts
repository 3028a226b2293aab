// The full-screen interface: wires the controller's events to the transcript, the keys to
// actions, and paints one frame at a time. Frames are coalesced by a single timer (at most
// one per FRAME_MS while things change, none at all when idle).
//
// The screen comes first: startTui() draws a usable frame (the prompt takes keys at once, the
// status line says it is starting) before the CLI reads the config, opens the store and builds
// the app; attach() then hands it the controller and the configured keymap. What was typed
// meanwhile stays in the prompt, and an Enter pressed meanwhile is held and sent on attach.
// Only what that first frame needs is imported statically; the transcript (marked), the
// context pane (the inspector's formatting) and the highlighter load afterwards.
import os from "node:os";
import type { Controller, ContextStatus } from "../session/controller-types.js";
import type { SessionEvents, TurnState } from "../session/events.js";
import type { ImageBlock, Session } from "../record/types.js";
import { assertNever } from "../record/types.js";
import type { PermissionAnswer, PermissionRequest } from "../tools/types.js";
import type { Usage } from "../provider/types.js";
import { COMMANDS, completeCommand, matchingCommands, parseInput, unquotePath, type CommandName } from "./commands.js";
import type { ContextPane } from "./context-pane.js";
import { loadHighlighter } from "./highlight.js";
import { inertLine } from "./inert.js";
import { InputEditor, PromptHistory } from "./input.js";
import { KeyParser, type InputEvent, type KeyEvent } from "./keys.js";
import { ACTION_HELP, ACTIONS, defaultKeymap, keyLabel, prettyKey, type Action, type Keymap } from "./keymap.js";
import { permissionBox, sessionsBox, type Box } from "./modal.js";
import { createSurface, type Surface } from "./screen.js";
import { Theme, type Line, type Seg, type StyleName } from "./style.js";
import { fit, formatBytes, formatInt, lineWidth, loadWidths, takeEstimated, textWidth, truncate } from "./text.js";
import type { NoticeLevel, Transcript } from "./transcript.js";

export type { Keymap } from "./keymap.js";

export interface StartOptions {
  noColor: boolean;
}

export interface AttachOptions {
  keymap: Keymap;
  keymapWarnings: string[];
}

export interface TuiOptions extends StartOptions, AttachOptions {}

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

const FRAME_MS = 20;
const CTRL_C_WINDOW_MS = 2000;
const FLASH_MS = 3000;
const STATUS_MIN_MS = 500;
/** the context pane sits beside the transcript from this many columns, over it below */
const SIDE_BY_SIDE_COLS = 110;

type Focus = "input" | "transcript" | "context";

type Modal =
  | { kind: "permission"; queue: { req: PermissionRequest; answer: (a: PermissionAnswer) => void }[]; scroll: number; maxScroll: number }
  | { kind: "sessions"; list: Session[]; index: number };

interface Flash {
  text: string;
  style: StyleName;
  until: number;
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
  private surface!: Surface;
  // set by attach(); until then `attached` is false and nothing below may touch them
  private controller!: Controller;
  private transcript!: Transcript;
  private pane!: ContextPane;
  private history!: PromptHistory;
  private attached = false;
  private readonly editor = new InputEditor();
  private readonly parser = new KeyParser();
  /** the default keys until attach() brings the configured ones */
  private km: Keymap = defaultKeymap();
  /** Enter was pressed before the session was ready: send the prompt when it is */
  private held = false;
  /** notices that arrived before there was a transcript to show them in */
  private early: { level: NoticeLevel; text: string }[] = [];
  private focus: Focus = "input";
  private modal: Modal | undefined;
  private state: TurnState = "idle";
  private stateDetail: string | undefined;
  private attachments: ImageBlock[] = [];
  private flashMsg: Flash | undefined;
  private ctrlCAt = 0;
  private usage: Usage | undefined;
  private retry: { attempt: number; until: number; reason: string } | undefined;
  private status: ContextStatus | undefined;
  private statusAt = 0;
  private statusTimer: NodeJS.Timeout | undefined;
  private frameTimer: NodeJS.Timeout | undefined;
  private lastFrame = 0;
  private escTimer: NodeJS.Timeout | undefined;
  private flashTimer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private paneFlashTimer: NodeJS.Timeout | undefined;
  private cursorPos: { x: number; y: number } | undefined;
  private waitingForColour = false;
  private partsLoad: Promise<[typeof import("./transcript.js"), typeof import("./context-pane.js"), void]> | undefined;
  private closed = false;
  private resolveRun!: (code: number) => void;
  /** resolves with the exit code once the screen has closed (a quit, a signal, or close()) */
  private readonly done: Promise<number>;
  private readonly offs: (() => void)[] = [];

  constructor(opts: StartOptions) {
    this.theme = new Theme(opts.noColor || !!process.env.NO_COLOR);
    this.done = new Promise<number>((resolve) => (this.resolveRun = resolve));
  }

  // ---- start and stop ------------------------------------------------------------------------

  start(): void {
    try {
      this.surface = createSurface({ theme: this.theme });
      this.surface.onPaint(() => this.paint());
      this.surface.onResize(() => this.frameNow());
      // bracketed paste: a paste arrives as one event, not as keystrokes (Enter must not send it)
      this.surface.write("\x1b[?2004h");
      this.listenInput();
      this.listenProcess();
      this.frameNow();
    } catch (e) {
      this.close();
      throw e;
    }
    // once the frame is out, the rest of the screen loads while the session does: its file
    // reads overlap the store's, instead of all of it waiting for attach()
    setImmediate(() => void this.parts().catch(() => undefined));
  }

  /** the transcript (with marked), the context pane and exact widths: the rest of the screen */
  private parts(): NonNullable<TuiApp["partsLoad"]> {
    this.partsLoad ??= Promise.all([import("./transcript.js"), import("./context-pane.js"), loadWidths()]);
    return this.partsLoad;
  }

  async attach(controller: Controller, opts: AttachOptions): Promise<number> {
    if (this.closed) return this.done;
    // what the full screen needs beyond the first frame, loaded while that frame is up
    const [{ Transcript }, { ContextPane }] = await this.parts();
    if (this.closed) return this.done;
    this.controller = controller;
    this.km = opts.keymap;
    this.transcript = new Transcript();
    this.pane = new ContextPane(controller, () => this.requestRender());
    this.history = new PromptHistory(promptsOf(controller));
    this.attached = true;
    this.listenEvents();

    this.transcript.load(controller.history());
    const info = controller.info();
    if (controller.history().length === 0) {
      this.transcript.notice(
        "info",
        `albedo-tui · ${info.provider}/${info.model} in ${info.workspace}. Type a request and press ${keyLabel(this.km, "input.submit")}; /help lists commands and keys; ${keyLabel(this.km, "context.toggle")} shows what the model is sent.`,
      );
    }
    for (const w of opts.keymapWarnings) this.transcript.notice("warning", w);
    if (info.keyProblem) this.transcript.notice("error", info.keyProblem);
    for (const n of this.early.splice(0)) this.transcript.notice(n.level, n.text);
    // The context estimate walks the whole history (with a real tokenizer for OpenAI models,
    // ~30 MB/s): the session's first frame does not wait for it, the next one shows it.
    this.staleStatus();
    if (this.held) {
      this.held = false;
      this.flashMsg = undefined;
      try {
        this.submit();
      } catch (e) {
        this.fail("sending", e);
      }
    }
    this.frameNow();
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
    if (this.attached) this.transcript.notice(level, text);
    else this.early.push({ level, text });
  }

  private listenInput(): void {
    const stdin = process.stdin;
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.setEncoding("utf8");
    const onData = (chunk: string | Buffer): void => {
      const events = this.parser.feed(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      if (this.escTimer) clearTimeout(this.escTimer);
      this.escTimer = undefined;
      if (this.parser.hasPending()) {
        this.escTimer = setTimeout(() => {
          this.escTimer = undefined;
          this.handleEvents(this.parser.flush());
        }, this.parser.pendingWaitMs());
      }
      this.handleEvents(events);
    };
    stdin.on("data", onData);
    stdin.resume();
    this.offs.push(() => {
      stdin.off("data", onData);
      if (stdin.isTTY) {
        try {
          stdin.setRawMode(false);
        } catch {
          // the terminal is gone
        }
      }
      stdin.pause();
    });
  }

  private listenProcess(): void {
    // Signal and terminal-error handlers stay installed after the screen is gone: when the
    // terminal hangs up, more SIGHUPs and EIO errors follow, and their default (die at once)
    // would cut short the store's last write of what had arrived.
    const onSignal = (sig: NodeJS.Signals): void => {
      const code = 128 + (os.constants.signals[sig] ?? 1);
      if (!this.closed) this.quit(code);
      // the caller closes the store and exits; should that hang, end anyway
      setTimeout(() => process.exit(code), 5000).unref();
    };
    const onFatal = (e: unknown): void => {
      this.teardown();
      process.stderr.write(`albedo-tui: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    };
    // a promise nobody awaited failed: say so and keep the session (the record is intact)
    const onRejection = (e: unknown): void => {
      this.notice("error", `internal error (please report it): ${e instanceof Error ? e.message : String(e)}`);
      this.requestRender();
    };
    // EIO/EPIPE on the terminal, or its input ending: the terminal went away
    const onTerminalGone = (): void => {
      if (!this.closed) this.quit(129);
    };
    const signals: NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT"];
    for (const s of signals) process.on(s, onSignal);
    process.stdout.on("error", onTerminalGone);
    process.stdin.on("error", onTerminalGone);
    process.stdin.on("end", onTerminalGone);
    process.on("uncaughtException", onFatal);
    process.on("unhandledRejection", onRejection);
    this.offs.push(() => {
      process.off("uncaughtException", onFatal);
      process.off("unhandledRejection", onRejection);
    });
  }

  private on<K extends keyof SessionEvents>(name: K, fn: (...args: SessionEvents[K]) => void): void {
    const ev = this.controller.events as unknown as { on(n: string, f: (...a: unknown[]) => void): void; off(n: string, f: (...a: unknown[]) => void): void };
    const f = fn as (...a: unknown[]) => void;
    ev.on(name, f);
    this.offs.push(() => ev.off(name, f));
  }

  private listenEvents(): void {
    this.on("message", (msg) => {
      this.transcript.message(msg);
      this.staleStatus();
      this.requestRender();
    });
    this.on("text_delta", (t) => {
      this.transcript.textDelta(t);
      this.requestRender();
    });
    this.on("reasoning_delta", (t) => {
      this.transcript.reasoningDelta(t);
      this.requestRender();
    });
    this.on("state", (state, detail) => {
      this.state = state;
      this.stateDetail = detail;
      if (state === "streaming") {
        this.transcript.streamingStarted();
        this.retry = undefined;
      }
      this.transcript.turnState(state !== "idle" || this.controller.busy(), state === "permission");
      this.requestRender();
    });
    this.on("tool_start", (call) => {
      this.transcript.toolStart(call.id);
      this.startTicker();
      this.requestRender();
    });
    this.on("tool_end", (r) => {
      this.transcript.toolEnd(r);
      this.requestRender();
    });
    this.on("permission", (req, answer) => {
      if (this.modal?.kind === "permission") this.modal.queue.push({ req, answer });
      else {
        // a picker in the way gives way to the question
        this.modal = { kind: "permission", queue: [{ req, answer }], scroll: 0, maxScroll: 0 };
      }
      this.requestRender();
    });
    this.on("retry", (r) => {
      this.retry = { attempt: r.attempt, until: Date.now() + r.delayMs, reason: r.reason };
      this.requestRender();
    });
    this.on("usage", (u) => {
      this.usage = u;
      this.requestRender();
    });
    this.on("capture", () => {
      if (!this.pane.open) return;
      void this.pane.refresh(true);
      if (this.paneFlashTimer) clearTimeout(this.paneFlashTimer);
      // repaint once the "updated" mark has expired
      this.paneFlashTimer = setTimeout(() => this.requestRender(), 2100);
    });
    this.on("notice", (n) => {
      this.transcript.notice(n.level, n.text);
      this.requestRender();
    });
    this.on("turn_end", () => {
      this.transcript.closeLive();
      this.transcript.turnState(false, false);
      this.retry = undefined;
      this.refreshStatus(true);
      this.requestRender();
    });
    this.on("session", () => {
      this.transcript.load(this.controller.history());
      this.focus = this.pane.open ? this.focus : "input";
      if (this.pane.open) void this.pane.refresh(false);
      this.refreshStatus(true);
      this.requestRender();
    });
    this.on("info", () => {
      this.staleStatus();
      this.requestRender();
    });
  }

  private teardown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of [this.frameTimer, this.escTimer, this.flashTimer, this.statusTimer, this.paneFlashTimer]) if (t) clearTimeout(t);
    if (this.ticker) clearInterval(this.ticker);
    for (const off of this.offs.splice(0)) {
      try {
        off();
      } catch {
        // keep restoring the rest
      }
    }
    try {
      this.surface?.write("\x1b[?2004l");
      this.surface?.destroy();
    } catch {
      // the terminal may be gone (SIGHUP)
    }
  }

  private quit(code = 0): void {
    if (this.closed) return;
    if (this.attached && this.controller.busy()) this.controller.interrupt();
    // questions still open are answered "deny" so the turn can end
    if (this.modal?.kind === "permission") for (const q of this.modal.queue) q.answer("deny");
    this.modal = undefined;
    this.teardown();
    this.resolveRun(code);
  }

  // ---- frames -----------------------------------------------------------------------------

  private requestRender(): void {
    if (this.closed || this.frameTimer) return;
    const wait = Math.max(0, FRAME_MS - (Date.now() - this.lastFrame));
    this.frameTimer = setTimeout(() => {
      this.frameTimer = undefined;
      this.frameNow();
    }, wait);
  }

  private frameNow(): void {
    if (this.closed) return;
    if (this.frameTimer) {
      clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
    }
    this.lastFrame = Date.now();
    // synchronized output: terminals that know mode 2026 show the frame at once (no tearing);
    // the others ignore it
    this.surface.write("\x1b[?2026h");
    try {
      this.surface.render(); // paints through onPaint, then writes only changed cells
      this.surface.cursor(this.cursorPos);
    } finally {
      this.surface.write("\x1b[?2026l");
    }
    this.afterFrame();
  }

  /** frames drawn before something arrived are drawn again when it does */
  private afterFrame(): void {
    // a width was estimated (string-width still loading): exact widths are moments away
    if (takeEstimated()) void loadWidths().then(() => this.requestRender());
    // code shown plain while the highlighter loads: colour it when it is there
    if (this.attached && !this.waitingForColour && this.transcript.awaitingColour()) {
      this.waitingForColour = true;
      void loadHighlighter().then(() => {
        this.waitingForColour = false;
        if (this.transcript.recolour()) this.requestRender();
      });
    }
  }

  private staleStatus(): void {
    if (this.statusTimer) return;
    const wait = Math.max(0, this.statusAt + STATUS_MIN_MS - Date.now());
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      this.refreshStatus(false);
      this.requestRender();
    }, wait);
  }

  /** the estimate walks the whole history, so it is recomputed at most every STATUS_MIN_MS */
  private refreshStatus(now: boolean): void {
    if (now && this.statusTimer) {
      clearTimeout(this.statusTimer);
      this.statusTimer = undefined;
    }
    try {
      this.status = this.controller.contextStatus();
    } catch {
      this.status = undefined;
    }
    this.statusAt = Date.now();
  }

  private startTicker(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => {
      if (!this.transcript.tick()) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
      this.requestRender();
    }, 1000);
  }

  private flash(text: string, style: StyleName = "info", ms = FLASH_MS): void {
    this.flashMsg = { text, style, until: Date.now() + ms };
    if (this.flashTimer) clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => {
      this.flashTimer = undefined;
      this.requestRender();
    }, ms + 10);
    this.requestRender();
  }

  // ---- painting ---------------------------------------------------------------------------

  private paint(): void {
    const cols = this.surface.cols;
    const rows = this.surface.rows;
    if (cols <= 0 || rows <= 0) return;
    const inputW = Math.max(2, cols - 2);
    const layout = this.editor.layout(inputW);
    const maxInput = Math.max(1, Math.min(12, Math.floor((rows - 3) * 0.4)));
    const inputH = Math.max(1, Math.min(layout.rows.length, maxInput, rows - 2));
    const statusY = rows - 1;
    const inputY = Math.max(0, statusY - inputH);
    const hintY = inputY - 1;
    const mainH = Math.max(0, hintY);

    // transcript and context pane (none yet while starting: the area stays blank)
    const paneOpen = this.attached && this.pane.open;
    const side = paneOpen && cols >= SIDE_BY_SIDE_COLS;
    const paneW = side ? Math.max(50, Math.min(Math.floor(cols * 0.45), cols - 50)) : cols;
    const transcriptW = side ? cols - paneW - 1 : cols;
    if (mainH > 0 && !this.attached) this.surface.paint(0, 0, cols, mainH, []);
    if (mainH > 0 && this.attached) {
      if (!paneOpen || side) {
        const view = this.transcript.view(Math.max(8, transcriptW - 1), mainH);
        this.surface.paint(0, 0, transcriptW, mainH, view.lines);
      }
      if (side) {
        const bar: Line[] = Array.from({ length: mainH }, () => [{ t: "│", s: this.focus === "context" ? "border" : "rule" } as Seg]);
        this.surface.paint(transcriptW, 0, 1, mainH, bar);
      }
      if (paneOpen) {
        const x = side ? transcriptW + 1 : 0;
        const w = side ? paneW : cols;
        const lines = this.pane.render(w - (side ? 1 : 0), mainH, {
          page: `${keyLabel(this.km, "context.prevPage")}/${keyLabel(this.km, "context.nextPage")}`,
          section: `${keyLabel(this.km, "context.prevSection")}/${keyLabel(this.km, "context.nextSection")}`,
          scroll: `${keyLabel(this.km, "context.scrollUp")}/${keyLabel(this.km, "context.scrollDown")}`,
          close: keyLabel(this.km, "context.close"),
        });
        this.surface.paint(x + (side ? 1 : 0), 0, w - (side ? 1 : 0), mainH, lines);
        if (side) this.surface.paint(x, 0, 1, mainH, []);
      }
    }

    // hint line, prompt, status
    if (hintY >= 0) this.surface.paint(0, hintY, cols, 1, [this.attached ? this.hintLine(cols) : this.startingHint(cols)]);
    const start = Math.min(Math.max(0, layout.cursorRow - inputH + 1), Math.max(0, layout.rows.length - inputH));
    const inputLines: Line[] = [];
    for (let r = 0; r < inputH; r++) {
      const row = layout.rows[start + r] ?? [];
      const gutter: Seg = start + r === 0 ? { t: "› ", s: "userGutter" } : { t: "  " };
      inputLines.push([gutter, ...row]);
    }
    if (this.editor.isEmpty() && this.focus === "input") {
      // "Type a request" only once a request can go out: tests and people wait for it
      const placeholder = !this.attached
        ? "Starting… type away; what you type is kept"
        : this.controller.busy()
          ? "Esc interrupts · type your next request"
          : "Type a request, or / for commands";
      inputLines[0] = [{ t: "› ", s: "userGutter" }, { t: placeholder, s: "dim" }];
    }
    this.surface.paint(0, inputY, cols, inputH, inputLines);
    const status = this.attached ? this.statusLine(cols) : fit([{ t: " starting…", s: "statusAccent" }], cols, { t: "", s: "status" });
    this.surface.paint(0, statusY, cols, 1, [status], { t: "", s: "status" });

    // modal boxes over everything else
    let box: Box | undefined;
    const m = this.modal;
    if (m?.kind === "permission") {
      const q = m.queue[0];
      if (q) {
        const r = permissionBox(
          q.req,
          { once: keyLabel(this.km, "permission.allowOnce"), session: keyLabel(this.km, "permission.allowSession"), deny: keyLabel(this.km, "permission.deny") },
          m.queue.length - 1,
          m.scroll,
          cols,
          Math.max(6, rows - 1),
        );
        m.maxScroll = r.maxScroll;
        m.scroll = Math.min(m.scroll, r.maxScroll);
        box = r.box;
      }
    } else if (m?.kind === "sessions") {
      box = sessionsBox(m.list, this.controller.session().id, m.index, cols, Math.max(6, rows - 1));
    }
    if (box) {
      const x = Math.max(0, Math.floor((cols - box.width) / 2));
      const y = Math.max(0, Math.floor((rows - 1 - box.lines.length) / 2));
      this.surface.paint(x, y, box.width, box.lines.length, box.lines);
    }

    // the terminal cursor sits in the prompt when typing goes there
    if (!box && this.focus === "input") {
      const col = this.editor.isEmpty() ? 0 : layout.cursorCol;
      this.cursorPos = { x: Math.min(cols - 1, 2 + col), y: inputY + (layout.cursorRow - start) };
    } else {
      this.cursorPos = undefined;
    }
  }

  /** the hint line before the session is ready: what Enter will do, and any flash */
  private startingHint(cols: number): Line {
    const f = this.flashMsg && this.flashMsg.until > Date.now() ? this.flashMsg : undefined;
    const right: Line = f
      ? [{ t: f.text, s: f.style }]
      : this.held
        ? [{ t: `sent once the session is open · ${keyLabel(this.km, "turn.interrupt")} keeps it in the prompt`, s: "warn" }]
        : [{ t: `opening the session · ${keyLabel(this.km, "input.submit")} sends once it is open`, s: "hint" }];
    const r = truncate(right, Math.max(0, cols - 2));
    return [{ t: "─".repeat(Math.max(0, cols - lineWidth(r) - 2)) + " ", s: "rule" }, ...r];
  }

  private hintLine(cols: number): Line {
    const left: Line = [];
    if (this.attachments.length) {
      const n = this.attachments.length;
      left.push({ t: `📎 ${n} image${n === 1 ? "" : "s"} `, s: "key" }, { t: "(/image clear) ", s: "dim" });
    }
    const f = this.flashMsg && this.flashMsg.until > Date.now() ? this.flashMsg : undefined;
    let right: Line;
    if (f) right = [{ t: f.text, s: f.style }];
    else if (this.focus === "input" && this.editor.text.startsWith("/") && !this.editor.text.includes("\n")) {
      const matches = matchingCommands(this.editor.text);
      if (matches.length === 0) right = [{ t: "no such command · /help lists them · //text sends a message starting with /", s: "warn" }];
      else {
        right = [];
        const first = matches[0]!;
        right.push({ t: `/${first.name}`, s: "key" });
        if (first.args) right.push({ t: ` ${first.args}`, s: "dim" });
        right.push({ t: ` — ${first.help}`, s: "hint" });
        for (const c of matches.slice(1)) right.push({ t: `  /${c.name}`, s: "hint" });
        if (matches.length > 1 || !this.editor.text.includes(" ")) right.push({ t: `   ${keyLabel(this.km, "input.complete")} completes`, s: "dim" });
      }
    } else if (!this.transcript.follow) {
      right = [{ t: `↓ more below · ${keyLabel(this.km, "transcript.pageDown")} or ${prettyKey(this.km.bindings["transcript.bottom"][0] ?? "end")} in the transcript to follow`, s: "warn" }];
    } else if (this.focus === "transcript") {
      right = [
        { t: `transcript: ${keyLabel(this.km, "transcript.selectPrev")}/${keyLabel(this.km, "transcript.selectNext")} select · ${keyLabel(this.km, "transcript.toggleExpand")} expand · ${keyLabel(this.km, "input.focus")} back to the prompt`, s: "hint" },
      ];
    } else if (this.focus === "context") {
      right = [{ t: `context pane · typing goes to the prompt · ${keyLabel(this.km, "context.toggle")} or ${keyLabel(this.km, "context.close")} closes`, s: "hint" }];
    } else {
      right = [{ t: `${keyLabel(this.km, "input.submit")} send · ${keyLabel(this.km, "input.newline")} newline · ${keyLabel(this.km, "transcript.focus")} transcript · /help`, s: "hint" }];
    }
    const used = lineWidth(left);
    const r = truncate(right, Math.max(0, cols - used - 2));
    const gap = Math.max(1, cols - used - lineWidth(r) - 1);
    return [...left, { t: "─".repeat(Math.max(0, gap - 1)) + " ", s: "rule" }, ...r];
  }

  private statusLine(cols: number): Line {
    const info = this.controller.info();
    const parts: { line: Line; prio: number }[] = [];
    const sep: Seg = { t: " · ", s: "status" };
    const stateText = ((): { t: string; s: StyleName } => {
      if (this.retry && this.retry.until > Date.now()) return { t: `retrying (attempt ${this.retry.attempt})`, s: "statusWarn" };
      switch (this.state) {
        case "idle":
          return { t: this.controller.busy() ? "working" : "idle", s: "status" };
        case "streaming":
          return { t: "streaming", s: "statusAccent" };
        case "tool":
          return { t: `running ${inertLine(this.stateDetail ?? "tool")}`, s: "statusAccent" };
        case "permission":
          return { t: `waiting for permission${this.stateDetail ? ` (${inertLine(this.stateDetail)})` : ""}`, s: "statusWarn" };
        case "compacting":
          return { t: "compacting", s: "statusAccent" };
        default:
          return assertNever(this.state, "turn state");
      }
    })();
    parts.push({ line: [{ t: ` ${stateText.t}`, s: stateText.s }], prio: 0 });
    if (info.keyProblem) parts.push({ line: [{ t: `⚠ ${inertLine(info.keyProblem)}`, s: "statusWarn" }], prio: 1 });
    parts.push({ line: [{ t: `${info.provider}/${inertLine(info.model)}`, s: "status" }], prio: 3 });
    parts.push({ line: [{ t: `session ${this.controller.session().id.slice(0, 8)}`, s: "status" }], prio: 5 });
    if (this.status) parts.push({ line: [{ t: contextText(this.status), s: "status" }], prio: 4 });
    if (this.status) parts.push({ line: [{ t: inertLine(this.status.compaction), s: "status" }], prio: 6 });
    if (this.usage) parts.push({ line: [{ t: `provider usage: ${formatInt(this.usage.inputTokens)} in / ${formatInt(this.usage.outputTokens)} out`, s: "status" }], prio: 7 });
    parts.push({ line: [{ t: `${keyLabel(this.km, "context.toggle")} context`, s: "statusAccent" }], prio: 2 });
    if (info.api) parts.push({ line: [{ t: `api ${info.api.url}`, s: "status" }], prio: 6 });
    // drop the least important parts until the line fits
    let shown = parts;
    const width = (ps: typeof parts): number => ps.reduce((a, p) => a + lineWidth(p.line), 0) + (ps.length - 1) * 3 + 1;
    while (width(shown) > cols && shown.some((p) => p.prio > 2)) {
      const worst = shown.reduce((a, p) => (p.prio > a.prio ? p : a));
      shown = shown.filter((p) => p !== worst);
    }
    // still too wide: the key problem sentence gives way (it is in the transcript in full)
    const problem = shown.find((p) => p.prio === 1);
    if (problem && width(shown) > cols) {
      const rest = width(shown) - lineWidth(problem.line);
      problem.line = truncate(problem.line, Math.max(8, cols - rest));
    }
    const out: Line = [];
    shown.forEach((p, i) => {
      if (i > 0) out.push(sep);
      out.push(...p.line);
    });
    return fit(out, cols, { t: "", s: "status" });
  }

  // ---- input ------------------------------------------------------------------------------

  private handleEvents(events: InputEvent[]): void {
    for (const ev of events) {
      if (this.closed) return;
      try {
        if (ev.type === "paste") this.onPaste(ev.text);
        else this.onKey(ev);
      } catch (e) {
        this.notice("error", `internal error handling a key: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.requestRender();
  }

  private is(action: Action, k: KeyEvent): boolean {
    return this.km.bindings[action].includes(k.full);
  }

  private onPaste(text: string): void {
    if (this.modal) return;
    if (this.focus === "transcript") this.transcript.clearSelection();
    this.focus = "input";
    this.editor.paste(text);
  }

  private onKey(k: KeyEvent): void {
    // quitting works everywhere, even with a question open (it is then answered "deny")
    if (this.modal && !this.is("app.quit", k)) {
      this.onModalKey(this.modal, k);
      return;
    }
    if (this.is("app.quit", k)) {
      const now = Date.now();
      if (now - this.ctrlCAt < CTRL_C_WINDOW_MS) {
        this.quit(0);
        return;
      }
      this.ctrlCAt = now;
      this.flash(`press ${keyLabel(this.km, "app.quit")} again to quit`, "warn", CTRL_C_WINDOW_MS);
      return;
    }
    this.ctrlCAt = 0;
    if (!this.attached) return this.onStartingKey(k);
    if (this.is("context.toggle", k)) {
      this.toggleContext();
      return;
    }
    if (this.is("app.redraw", k)) {
      this.surface.repaintAll();
      return;
    }
    if (this.focus === "context" && this.pane.open && this.onContextKey(k)) return;
    // busy() covers a turn; a /compact runs outside one but reports its state
    if (this.is("turn.interrupt", k) && (this.controller.busy() || this.state !== "idle")) {
      this.controller.interrupt();
      this.flash("interrupting… what arrived is kept", "warn");
      return;
    }
    if (this.focus === "transcript" && this.onTranscriptKey(k)) return;
    this.onInputKey(k);
  }

  private onModalKey(m: Modal, k: KeyEvent): void {
    switch (m.kind) {
      case "permission": {
        const q = m.queue[0];
        if (!q) {
          this.modal = undefined;
          return;
        }
        let answer: PermissionAnswer | undefined;
        if (this.is("permission.allowOnce", k)) answer = "once";
        else if (this.is("permission.allowSession", k)) answer = "session";
        else if (this.is("permission.deny", k)) answer = "deny";
        else if (k.full === "up" || k.full === "k") m.scroll = Math.max(0, m.scroll - 1);
        else if (k.full === "down" || k.full === "j") m.scroll = Math.min(m.maxScroll, m.scroll + 1);
        else if (k.full === "pageup") m.scroll = Math.max(0, m.scroll - 10);
        else if (k.full === "pagedown") m.scroll = Math.min(m.maxScroll, m.scroll + 10);
        if (!answer) return;
        m.queue.shift();
        m.scroll = 0;
        if (m.queue.length === 0) this.modal = undefined;
        const said = answer === "once" ? "allowed once" : answer === "session" ? "allowed for this session" : "denied";
        this.flash(`${inertLine(q.req.tool)}: ${said}`, answer === "deny" ? "warn" : "ok");
        q.answer(answer);
        return;
      }
      case "sessions": {
        if (k.full === "up" || k.full === "k") m.index = Math.max(0, m.index - 1);
        else if (k.full === "down" || k.full === "j") m.index = Math.min(m.list.length - 1, m.index + 1);
        else if (k.full === "pageup") m.index = Math.max(0, m.index - 10);
        else if (k.full === "pagedown") m.index = Math.min(m.list.length - 1, m.index + 10);
        else if (k.full === "home") m.index = 0;
        else if (k.full === "end") m.index = m.list.length - 1;
        else if (k.full === "escape" || k.full === "q") this.modal = undefined;
        else if (k.full === "enter") {
          const s = m.list[m.index];
          this.modal = undefined;
          if (s && s.id !== this.controller.session().id) {
            this.controller.switchSession(s.id).then(
              () => this.flash(`switched to ${s.title ? inertLine(s.title) : s.id.slice(0, 8)}`, "ok"),
              (e: unknown) => this.fail("switching session", e),
            );
          }
        }
        return;
      }
      default:
        assertNever(m, "modal");
    }
  }

  private onContextKey(k: KeyEvent): boolean {
    if (this.is("context.close", k)) {
      this.toggleContext();
      return true;
    }
    if (this.is("context.nextPage", k)) this.pane.stepPage(1);
    else if (this.is("context.prevPage", k)) this.pane.stepPage(-1);
    else if (this.is("context.nextSection", k)) this.pane.stepSection(1);
    else if (this.is("context.prevSection", k)) this.pane.stepSection(-1);
    else if (this.is("context.scrollUp", k)) this.pane.scrollPage(-1);
    else if (this.is("context.scrollDown", k)) this.pane.scrollPage(1);
    else if (this.is("transcript.focus", k)) {
      // over a narrow screen the pane hides the transcript: close it to show what gets focus
      if (this.surface.cols < SIDE_BY_SIDE_COLS) this.pane.open = false;
      this.focusTranscript();
    } else if (this.is("input.focus", k)) {
      this.focus = "input";
    } else if (k.ch !== undefined && !k.ctrl && !k.meta) {
      // typing goes to the prompt
      this.focus = "input";
      return false;
    } else return true; // other keys do nothing here
    return true;
  }

  private onTranscriptKey(k: KeyEvent): boolean {
    if (this.is("transcript.selectPrev", k)) this.transcript.select(-1);
    else if (this.is("transcript.selectNext", k)) this.transcript.select(1);
    else if (this.is("transcript.toggleExpand", k)) {
      if (!this.transcript.toggleSelected()) this.transcript.select(-1);
    } else if (this.is("transcript.top", k)) this.transcript.top();
    else if (this.is("transcript.bottom", k)) this.transcript.bottom();
    else if (this.is("transcript.pageUp", k)) this.transcript.pageUp();
    else if (this.is("transcript.pageDown", k)) this.transcript.pageDown();
    else if (this.is("input.focus", k)) {
      this.focus = "input";
      this.transcript.clearSelection();
    } else if (this.is("transcript.focus", k)) {
      this.focus = "input";
      this.transcript.clearSelection();
    } else if (k.ch !== undefined && !k.ctrl && !k.meta) {
      this.focus = "input";
      this.transcript.clearSelection();
      return false;
    } else return true;
    return true;
  }

  private focusTranscript(): void {
    this.focus = "transcript";
    if (!this.transcript.selection()) this.transcript.select(-1);
  }

  private onInputKey(k: KeyEvent): void {
    const e = this.editor;
    if (this.is("input.submit", k)) return this.submit();
    if (this.is("input.newline", k)) return e.newline();
    if (this.is("input.historyPrev", k)) {
      if (e.vertical(-1)) return;
      const prev = this.history.prev(e.value());
      if (prev !== undefined) e.set(prev);
      return;
    }
    if (this.is("input.historyNext", k)) {
      if (e.vertical(1)) return;
      const next = this.history.next();
      if (next !== undefined) e.set(next);
      return;
    }
    if (this.is("input.complete", k)) {
      const done = completeCommand(e.text);
      if (done !== undefined) e.set(done);
      return;
    }
    if (this.is("transcript.focus", k)) return this.focusTranscript();
    if (this.is("transcript.pageUp", k)) return this.transcript.pageUp();
    if (this.is("transcript.pageDown", k)) return this.transcript.pageDown();
    if (this.is("app.quitIfEmpty", k)) {
      if (e.isEmpty()) return this.quit(0);
      return e.deleteForward();
    }
    // Esc over a narrow screen also closes the context pane that hides the transcript
    if (k.full === "escape" && this.pane.open && this.surface.cols < SIDE_BY_SIDE_COLS) this.pane.open = false;
    this.editKey(k);
  }

  /**
   * Keys before the session is ready: the prompt edits as it always does, Tab completes a
   * command, Enter is held (the prompt goes out on attach) and Esc lets go of it again.
   * History, the transcript and the context pane come with the session.
   */
  private onStartingKey(k: KeyEvent): void {
    const e = this.editor;
    if (this.is("app.redraw", k)) return this.surface.repaintAll();
    if (this.is("input.submit", k)) {
      if (e.value().trim()) this.held = true;
      return;
    }
    if (this.held && this.is("turn.interrupt", k)) {
      this.held = false;
      this.flash(`kept in the prompt · ${keyLabel(this.km, "input.submit")} sends it`);
      return;
    }
    if (this.is("input.newline", k)) return e.newline();
    if (this.is("input.historyPrev", k)) return void e.vertical(-1);
    if (this.is("input.historyNext", k)) return void e.vertical(1);
    if (this.is("input.complete", k)) {
      const done = completeCommand(e.text);
      if (done !== undefined) e.set(done);
      return;
    }
    if (this.is("app.quitIfEmpty", k)) {
      if (e.isEmpty()) return this.quit(0);
      return e.deleteForward();
    }
    this.editKey(k);
  }

  /** cursor movement, deletion and typing in the prompt */
  private editKey(k: KeyEvent): void {
    const e = this.editor;
    switch (k.full) {
      case "left":
      case "C-b":
        return e.left();
      case "right":
      case "C-f":
        return e.right();
      case "M-left":
      case "C-left":
      case "M-b":
        return e.wordLeft();
      case "M-right":
      case "C-right":
      case "M-f":
        return e.wordRight();
      case "home":
      case "C-a":
        return e.home();
      case "end":
      case "C-e":
        return e.end();
      case "backspace":
        return e.backspace();
      case "M-backspace":
      case "C-w":
        return e.deleteWordBack();
      case "delete":
        return e.deleteForward();
      case "C-k":
        return e.killToEnd();
      case "C-u":
        return e.killToStart();
      case "escape":
        this.flashMsg = undefined;
        return;
      default:
        break;
    }
    if (k.ch !== undefined && !k.ctrl && !k.meta) {
      // typing leaves the prompt history (there is none before the session is attached)
      if (this.attached) this.history.reset();
      e.insert(k.ch);
      // typing makes the slash-command hint more useful than an old message
      if (this.flashMsg && this.flashMsg.style !== "err") this.flashMsg = undefined;
    }
  }

  // ---- actions ----------------------------------------------------------------------------

  private toggleContext(): void {
    if (this.pane.open) {
      this.pane.open = false;
      if (this.focus === "context") this.focus = "input";
      return;
    }
    this.pane.open = true;
    this.focus = "context";
    void this.pane.refresh(false);
  }

  private fail(what: string, e: unknown): void {
    this.transcript.notice("error", `${what} failed: ${e instanceof Error ? e.message : String(e)}`);
    this.requestRender();
  }

  private submit(): void {
    const raw = this.editor.value();
    const parsed = parseInput(raw.trimEnd());
    switch (parsed.kind) {
      case "command":
        this.history.add(raw.trim());
        this.editor.clear();
        this.runCommand(parsed.name, parsed.arg);
        return;
      case "unknown":
        this.flash(`unknown command /${inertLine(parsed.name)} · /help lists them`, "err");
        return;
      case "prompt":
        break;
      default:
        assertNever(parsed, "input");
    }
    const text = parsed.text.trimEnd();
    if (!text.trim() && this.attachments.length === 0) return;
    if (this.controller.busy()) {
      this.flash(`a turn is running · ${keyLabel(this.km, "turn.interrupt")} interrupts it; your text stays here`, "warn");
      return;
    }
    const keyProblem = this.controller.info().keyProblem;
    if (keyProblem) {
      // nothing can be sent: keep what was typed rather than lose it to an error line
      // the full sentence is in the transcript and the status line already
      this.flash("no API key: see above · your text stays here", "err");
      return;
    }
    this.history.add(text);
    this.editor.clear();
    const images = this.attachments;
    this.attachments = [];
    this.transcript.bottom();
    this.controller.submit(text, images).catch((e: unknown) => this.fail("sending", e));
  }

  private runCommand(name: CommandName, arg: string): void {
    const c = this.controller;
    const info = (line: string): void => {
      this.transcript.notice("info", line);
      this.requestRender();
    };
    const guard = (what: string, p: Promise<unknown>): void => {
      p.catch((e: unknown) => this.fail(what, e));
    };
    switch (name) {
      case "help":
        this.transcript.lines(this.helpLines());
        this.transcript.bottom();
        return;
      case "new":
        guard("/new", c.newSession().then(() => this.flash("new session", "ok")));
        return;
      case "sessions":
        guard(
          "/sessions",
          c.listSessions().then((list) => {
            const cur = list.findIndex((s) => s.id === c.session().id);
            if (!this.modal) this.modal = { kind: "sessions", list, index: Math.max(0, cur) };
            this.requestRender();
          }),
        );
        return;
      case "model":
        guard("/model", c.setModel(arg).then(info));
        return;
      case "image": {
        if (!arg) {
          info(
            this.attachments.length
              ? `attached: ${this.attachments.map((a) => `${a.mediaType} ${formatBytes(a.bytes)}`).join(", ")} (sent with your next prompt; /image clear drops them)`
              : "usage: /image PATH (the image goes with your next prompt)",
          );
          return;
        }
        if (arg === "clear") {
          this.attachments = [];
          info("attachments cleared");
          return;
        }
        const file = unquotePath(arg, os.homedir());
        guard(
          "/image",
          c.loadImage(file).then((img) => {
            this.attachments.push(img);
            const dims = img.width && img.height ? ` ${img.width}×${img.height}` : "";
            info(`attached ${inertLine(file)} (${img.mediaType}${dims}, ${formatBytes(img.bytes)}); it goes with your next prompt`);
            if (!c.info().vision) this.transcript.notice("warning", `${c.info().model} is not known to see images: it will get a note that an image was attached, not the image.`);
          }),
        );
        return;
      }
      case "reload":
        guard("/reload", c.reload().then(info));
        return;
      case "compact":
        if (c.busy()) {
          this.flash("a turn is running; compact after it ends", "warn");
          return;
        }
        info("compacting…");
        guard("/compact", c.compact().then(info));
        return;
      case "context":
        this.toggleContext();
        return;
      case "export": {
        const fmt = arg.toLowerCase() || "md";
        if (fmt !== "md" && fmt !== "json") {
          this.flash(`/export takes md or json (got "${inertLine(arg)}")`, "err");
          return;
        }
        guard("/export", c.exportSession(fmt).then((p) => info(`exported to ${p}`)));
        return;
      }
      case "clear-screen":
        this.transcript.clearView();
        this.surface.repaintAll();
        return;
      case "quit":
        this.quit(0);
        return;
      default:
        assertNever(name, "command");
    }
  }

  private helpLines(): Line[] {
    const out: Line[] = [[{ t: "Commands", s: "heading" }]];
    const cmdW = Math.max(...COMMANDS.map((c) => textWidth(`/${c.name} ${c.args}`)));
    for (const c of COMMANDS) {
      const left = `/${c.name}${c.args ? ` ${c.args}` : ""}`;
      out.push([{ t: left.padEnd(cmdW + 2), s: "key" }, { t: c.help }]);
    }
    out.push([{ t: "//text".padEnd(cmdW + 2), s: "key" }, { t: "send a message that starts with /" }]);
    out.push([]);
    out.push([{ t: `Keys (${this.km.name} keymap; override in the config's "keys")`, s: "heading" }]);
    const keys = (a: Action): string => this.km.bindings[a].map(prettyKey).join(", ");
    const keyW = Math.min(24, Math.max(...ACTIONS.map((a) => textWidth(keys(a)))));
    for (const a of ACTIONS) out.push([{ t: keys(a).padEnd(keyW + 2), s: "key" }, { t: ACTION_HELP[a] }, { t: `  ${a}`, s: "dim" }]);
    out.push([{ t: "In the prompt: ←/→ ^A/^E ^W ^K ^U Alt-←/→ edit; Esc interrupts a running turn.", s: "dim" }]);
    return out;
  }
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

/** "≈ 12,400 / 200,000 tokens (chars/4)", or the estimate with "window unknown" */
export function contextText(s: ContextStatus): string {
  if (s.window !== undefined) {
    const withWindow = s.estimate.replace(/ tokens/, ` / ${formatInt(s.window)} tokens`);
    return withWindow !== s.estimate ? withWindow : `${s.estimate} of ${formatInt(s.window)}`;
  }
  return `${s.estimate} · window unknown`;
}
