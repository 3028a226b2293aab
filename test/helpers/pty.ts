// A terminal for end-to-end tests: runs a command in a pseudo-terminal of a fixed size and
// feeds everything it writes into a headless xterm, so a test can read the screen as a person
// would see it. Independent of the app: any command, any environment.
import * as pty from "node-pty";
import xterm from "@xterm/headless";
import stringWidth from "string-width";

const { Terminal } = xterm;

// xterm.js measures characters with Unicode 6 tables (most emoji one cell wide); terminals people
// use today (and tmux, and glibc's wcwidth) use current tables (two cells). This provider makes
// the headless terminal measure like them, so a test sees what a person would.
const modernWidths = {
  version: "15-modern",
  wcwidth(cp: number): 0 | 1 | 2 {
    // emoji skin-tone modifiers and variation selectors join the character before them
    if ((cp >= 0x1f3fb && cp <= 0x1f3ff) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
    const w = stringWidth(String.fromCodePoint(cp));
    return w <= 0 ? 0 : w >= 2 ? 2 : 1;
  },
  charProperties(cp: number, preceding: number): number {
    let width: number = modernWidths.wcwidth(cp);
    let join = width === 0 && preceding !== 0;
    if (join) {
      const before = (preceding >> 1) & 3;
      if (before === 0) join = false;
      else if (before > width) width = before;
    }
    return ((width & 3) << 1) | (join ? 1 : 0);
  },
};

/** A headless xterm that measures characters as today's terminals do. */
export function headlessTerminal(cols: number, rows: number): InstanceType<typeof Terminal> {
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  term.unicode.register(modernWidths);
  term.unicode.activeVersion = modernWidths.version;
  return term;
}

/** The visible screen of a headless xterm, one line per row, trailing spaces trimmed. */
export function visibleText(term: InstanceType<typeof Terminal>): string {
  const buf = term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < term.rows; y++) out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? "");
  return out.join("\n");
}

export interface PtyOptions {
  cols?: number;
  rows?: number;
  cwd?: string;
  /** the whole environment of the child (TERM defaults to xterm-256color) */
  env?: NodeJS.ProcessEnv;
}

export interface PtySession {
  /** the visible screen, one line per row, trailing spaces trimmed */
  screenText(): string;
  /** one row of the visible screen */
  line(y: number): string;
  /** waits until the screen contains the text (or matches the pattern); fails with the screen in the message */
  waitFor(what: string | RegExp, timeoutMs?: number): Promise<void>;
  /** waits until the screen no longer contains the text */
  waitForGone(what: string | RegExp, timeoutMs?: number): Promise<void>;
  /** waits until the screen has not changed for `quietMs` */
  settle(quietMs?: number, timeoutMs?: number): Promise<void>;
  send(keys: string): void;
  /** stops reading the program's output, as a stalled terminal or link does: once the pty's
   * buffer is full, the program's writes to it wait */
  pause(): void;
  /** reads again */
  resume(): void;
  resize(cols: number, rows: number): void;
  /** every byte the program wrote, as a string */
  rawOutput(): string;
  /** which screen the terminal shows: a full-screen program draws on the alternate one */
  buffer(): "normal" | "alternate";
  /** resolves with the exit code once the program has ended */
  exited(): Promise<{ exitCode: number; signal?: number }>;
  hasExited(): boolean;
  kill(signal?: string): void;
  readonly pid: number;
  readonly cols: number;
  readonly rows: number;
}

export const KEYS = {
  enter: "\r",
  escape: "\x1b",
  tab: "\t",
  shiftTab: "\x1b[Z",
  /** Alt-Up (xterm modifier 3): moves focus into the transcript */
  altUp: "\x1b[1;3A",
  backspace: "\x7f",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  pageUp: "\x1b[5~",
  pageDown: "\x1b[6~",
  home: "\x1b[H",
  end: "\x1b[F",
  altEnter: "\x1b\r",
  ctrl: (c: string): string => String.fromCharCode(c.toUpperCase().charCodeAt(0) - 64),
  paste: (text: string): string => `\x1b[200~${text}\x1b[201~`,
};

function matches(screen: string, what: string | RegExp): boolean {
  return typeof what === "string" ? screen.includes(what) : what.test(screen);
}

export function spawnPty(file: string, args: string[], opts: PtyOptions = {}): PtySession {
  let cols = opts.cols ?? 100;
  let rows = opts.rows ?? 30;
  const env = { TERM: "xterm-256color", ...(opts.env ?? process.env) } as Record<string, string>;
  const term = headlessTerminal(cols, rows);
  const proc = pty.spawn(file, args, { name: env.TERM ?? "xterm-256color", cols, rows, cwd: opts.cwd ?? process.cwd(), env });
  const chunks: string[] = [];
  let pendingWrites = 0;
  let exit: { exitCode: number; signal?: number } | undefined;
  const exitWaiters: ((e: { exitCode: number; signal?: number }) => void)[] = [];
  proc.onData((d) => {
    chunks.push(d);
    pendingWrites++;
    term.write(d, () => pendingWrites--);
  });
  proc.onExit((e) => {
    exit = e.signal ? { exitCode: e.exitCode, signal: e.signal } : { exitCode: e.exitCode };
    for (const w of exitWaiters.splice(0)) w(exit);
  });

  const screenText = (): string => visibleText(term);

  const poll = (ok: () => boolean, timeoutMs: number, describe: () => string): Promise<void> =>
    new Promise((resolve, reject) => {
      const t0 = Date.now();
      const tick = (): void => {
        // only judge a screen whose written data the terminal has fully parsed
        if (pendingWrites === 0 && ok()) return resolve();
        if (Date.now() - t0 > timeoutMs) {
          return reject(new Error(`${describe()} within ${timeoutMs} ms${exit ? ` (the program exited with ${exit.exitCode})` : ""}. Screen (${cols}x${rows}):\n${screenText()}`));
        }
        setTimeout(tick, 25);
      };
      tick();
    });

  return {
    screenText,
    line: (y) => {
      const buf = term.buffer.active;
      return buf.getLine(buf.viewportY + y)?.translateToString(true) ?? "";
    },
    waitFor: (what, timeoutMs = 10_000) => poll(() => matches(screenText(), what), timeoutMs, () => `screen did not show ${String(what)}`),
    waitForGone: (what, timeoutMs = 10_000) => poll(() => !matches(screenText(), what), timeoutMs, () => `screen still showed ${String(what)}`),
    settle: (quietMs = 150, timeoutMs = 10_000) => {
      let last = "";
      let since = Date.now();
      return poll(
        () => {
          const now = screenText() + chunks.length;
          if (now !== last) {
            last = now;
            since = Date.now();
            return false;
          }
          return Date.now() - since >= quietMs;
        },
        timeoutMs,
        () => `screen did not settle for ${quietMs} ms`,
      );
    },
    send: (keys) => proc.write(keys),
    pause: () => proc.pause(),
    resume: () => proc.resume(),
    resize: (c, r) => {
      cols = c;
      rows = r;
      term.resize(c, r);
      proc.resize(c, r);
    },
    rawOutput: () => chunks.join(""),
    buffer: () => term.buffer.active.type,
    exited: () => (exit ? Promise.resolve(exit) : new Promise((resolve) => exitWaiters.push(resolve))),
    hasExited: () => exit !== undefined,
    kill: (signal) => {
      if (!exit) proc.kill(signal);
    },
    get pid() {
      return proc.pid;
    },
    get cols() {
      return cols;
    },
    get rows() {
      return rows;
    },
  };
}
