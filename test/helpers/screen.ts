// The screen in-process: the real src/ui (blessed, our key parser, the rooms) painting into a
// headless xterm through an injected terminal, driven by a scripted controller that emits the
// session's events. The real controller behind a real terminal is the pty suite's
// (test/e2e/tui.test.ts); this one lets a test say exactly which events arrive when.
import type { StoredSummary } from "../../src/compaction/types.js";
import { PassThrough, Writable } from "node:stream";
import type { AppInfo, ContextStatus, Controller } from "../../src/session/controller/types.js";
import { sessionCost, type SessionCost } from "../../src/session/controller/cost.js";
import { EventHub, type SessionEvent, type SubscribeOptions } from "../../src/session/turn/events.js";
import type { ImageBlock, Session, StoredMessage } from "../../src/record/types.js";
import type { Terminal } from "../../src/ui/screen.js";
import type { TurnOutcome } from "../../src/session/turn/env.js";
import { headlessTerminal, visibleText } from "./pty.js";

type XTerm = ReturnType<typeof headlessTerminal>;

/** A terminal the screen can run on, showing what it wrote in a headless xterm. */
export class HeadlessTerminal {
  readonly xterm: XTerm;
  /** a terminal's input: raw mode is recorded in `rawModes` (the last is the mode in force) */
  readonly input = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (raw: boolean): void => {
      this.rawModes.push(raw);
    },
  });
  readonly rawModes: boolean[] = [];
  /**
   * what a suspend does in place of stopping the process (set by a test): it runs while the
   * screen has given the terminal back, and says whether the process was stopped
   */
  onSuspend: (() => boolean) | undefined;
  readonly output: Writable & { columns: number; rows: number; isTTY: boolean };
  private pending = 0;
  private raw = "";

  constructor(cols = 100, rows = 30) {
    this.xterm = headlessTerminal(cols, rows);
    const out = new Writable({
      decodeStrings: false,
      write: (chunk: string | Buffer, _enc, done) => {
        const s = typeof chunk === "string" ? chunk : chunk.toString("utf8");
        this.raw += s;
        this.pending++;
        this.xterm.write(s, () => this.pending--);
        done();
      },
    });
    this.output = Object.assign(out, { columns: cols, rows, isTTY: true });
  }

  /** what to hand startTui() */
  terminal(): Terminal {
    const t: Terminal = { input: this.input, output: this.output, name: "xterm-256color", ownsProcess: false };
    if (this.onSuspend) {
      const hook = this.onSuspend;
      t.suspend = () => Promise.resolve(hook());
    }
    return t;
  }

  /** whether the xterm shows its normal screen (not the alternate one the app draws on) */
  onNormalScreen(): boolean {
    return this.xterm.buffer.active.type === "normal";
  }

  screenText(): string {
    return visibleText(this.xterm);
  }

  line(y: number): string {
    return this.screenText().split("\n")[y] ?? "";
  }

  lastRow(): string {
    return this.line(this.xterm.rows - 1);
  }

  rawOutput(): string {
    return this.raw;
  }

  /** keys as a terminal sends them (see KEYS in pty.ts) */
  send(keys: string): void {
    this.input.write(keys);
  }

  resize(cols: number, rows: number): void {
    this.xterm.resize(cols, rows);
    this.output.columns = cols;
    this.output.rows = rows;
    this.output.emit("resize");
  }

  waitFor(what: string | RegExp | (() => boolean), timeoutMs = 10_000): Promise<void> {
    return this.poll(() => test(this.screenText(), what), timeoutMs, `screen did not show ${String(what)}`);
  }

  waitForGone(what: string | RegExp, timeoutMs = 10_000): Promise<void> {
    return this.poll(() => !test(this.screenText(), what), timeoutMs, `screen still showed ${String(what)}`);
  }

  private poll(ok: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const t0 = Date.now();
      const tick = (): void => {
        // only judge a screen whose written data the terminal has fully parsed
        if (this.pending === 0 && ok()) return resolve();
        if (Date.now() - t0 > timeoutMs) return reject(new Error(`${what} within ${timeoutMs} ms. Screen:\n${this.screenText()}`));
        setTimeout(tick, 10);
      };
      tick();
    });
  }
}

function test(screen: string, what: string | RegExp | (() => boolean)): boolean {
  if (typeof what === "function") return what();
  return typeof what === "string" ? screen.includes(what) : what.test(screen);
}

const SESSION: Session = { id: "5e55i0n0-0000-4000-8000-000000000001", title: "", workspace: "/work/space", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" };

/**
 * A controller whose turns are scripted by the test: submit() records the prompt and keeps the
 * turn running until finish(); everything the screen is told goes through emit().
 */
export class ScriptedController implements Omit<Controller, "events"> {
  readonly hub = new EventHub();
  readonly submitted: { text: string; images: ImageBlock[] }[] = [];
  interrupts = 0;
  running = false;
  messages: StoredMessage[] = [];
  infoOver: Partial<AppInfo> = {};
  /** how runPrompt()'s turn ends, and what loadProblems() reports */
  outcome: TurnOutcome = { ok: true, finalText: "" };
  problems: string[] = [];
  private nextId = 1;

  subscribe(fn: (e: SessionEvent) => void, opts?: SubscribeOptions): () => void {
    return this.hub.subscribe(fn, opts);
  }

  emit(e: SessionEvent): void {
    this.hub.emit(e);
  }

  /** a stored message as the store would return it */
  stored(role: "user" | "assistant", blocks: StoredMessage["blocks"], status: StoredMessage["status"] = "complete"): StoredMessage {
    const id = this.nextId++;
    return { id, sessionId: SESSION.id, seq: id, role, blocks, status, createdAt: "2026-01-01T00:00:00Z" };
  }

  /** ends the running turn as the controller does */
  finish(): void {
    this.running = false;
    this.emit({ type: "state", state: "idle" });
    this.emit({ type: "turn_end", ok: true });
  }

  cost(): SessionCost {
    return sessionCost(this.messages);
  }

  info(): AppInfo {
    return {
      provider: "anthropic",
      model: "scripted-model",
      baseUrl: "http://127.0.0.1:1",
      contextWindow: 200_000,
      vision: true,
      permission: this.mode,
      compaction: "none",
      reasoning: "off",
      workspace: SESSION.workspace,
      dbPath: "/nowhere/history.sqlite",
      ...this.infoOver,
    };
  }
  private mode: AppInfo["permission"] = "ask";
  setPermission(mode: AppInfo["permission"]): void {
    this.mode = mode;
    this.emit({ type: "info" });
  }
  session(): Session {
    return SESSION;
  }
  history(): readonly StoredMessage[] {
    return this.messages;
  }
  /** what summaries() and readOnly() report */
  storedSummaries: StoredSummary[] = [];
  readOnlyWhy: string | undefined;
  summaries(): readonly StoredSummary[] {
    return this.storedSummaries;
  }
  readOnly(): string | undefined {
    return this.readOnlyWhy;
  }
  fork(): Promise<string> {
    return Promise.resolve("forked");
  }
  busy(): boolean {
    return this.running;
  }
  async submit(text: string, images: ImageBlock[] = []): Promise<{ sent: boolean }> {
    this.submitted.push({ text, images });
    this.running = true;
    const user = this.stored("user", [{ type: "text", text }]);
    this.messages.push(user);
    this.emit({ type: "message", msg: user });
    return { sent: true };
  }
  /** headless mode's turn: runs as submit() and finish() do, and ends as `outcome` says */
  async runPrompt(text: string, images: ImageBlock[] = []): Promise<TurnOutcome> {
    await this.submit(text, images);
    this.finish();
    return this.outcome;
  }
  startNotices(): readonly string[] {
    return [];
  }

  loadProblems(): readonly string[] {
    return this.problems;
  }
  interrupt(): void {
    this.interrupts++;
  }
  contextStatus(): ContextStatus {
    return { figure: { basis: "last request", tokens: 1234, method: "chars/4" }, estimate: "≈ 1,234 tokens (chars/4)", window: 200_000, compaction: "auto-compaction off" };
  }
  async inspectorView(): Promise<{ state: "pending"; reason: string; since: string }> {
    return { state: "pending", reason: "nothing sent yet", since: "2026-01-01T00:00:00Z" };
  }
  async inspectorPage(): Promise<undefined> {
    return undefined;
  }
  async close(): Promise<void> {}
  // not used by these tests: a call says so instead of passing quietly
  newSession = notHere("newSession");
  listSessions = notHere("listSessions");
  switchSession = notHere("switchSession");
  setModel = notHere("setModel");
  listModels = notHere("listModels");
  reload = notHere("reload");
  compact = notHere("compact");
  exportSession = notHere("exportSession");
  loadImage = notHere("loadImage");
}

function notHere(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`ScriptedController.${name} is not scripted`));
}

/** the controller for attach() (its deprecated `events` channel is not used by the screen) */
export function asController(c: ScriptedController): Controller {
  return c as unknown as Controller;
}
