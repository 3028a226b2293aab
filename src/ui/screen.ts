// The blessed side of the screen, and the only file that touches blessed's internals.
// blessed gives us terminfo, the alternate screen, resize handling and a cell buffer that it
// diffs against what the terminal shows, so each frame writes only the cells that changed.
// We paint that buffer ourselves from styled Lines instead of using blessed's widgets: the
// widths are then string-width's (blessed's tables count emoji as one cell), and no text ever
// goes through blessed's tag or escape parsing. The terminal modes the screen turns on
// (bracketed paste, the mouse wheel) are turned off whenever it gives the terminal back: on
// leave() for a suspend, and on destroy().
import { PassThrough } from "node:stream";
import blessed from "blessed";
import type { Line, Seg, Theme } from "./style.js";
import { graphemes, graphemeWidth, isAsciiPrintable } from "./text.js";

type Cell = [number, string];
type CellRow = Cell[] & { dirty?: boolean };

interface BlessedInternals {
  lines: CellRow[];
  cols: number;
  rows: number;
  dattr: number;
  tput: { brokenACS: boolean; unicode: boolean; colors: number };
  program: {
    cup(y: number, x: number): void;
    showCursor(): void;
    hideCursor(): void;
    cursorHidden: boolean;
    _write(s: string): void;
    flush(): void;
  };
}

let patched = false;

// blessed decides whether a cell holds a double-width character with its own table, which
// says one cell for most emoji; the terminal then draws two and the rest of the row shifts.
// We put exactly one grapheme per cell, so measuring the cell with our width is exact.
function patchCharWidth(): void {
  if (patched) return;
  patched = true;
  // the module blessed itself uses, bundled or not (a require of its path could load another copy)
  const unicode = (blessed as unknown as { unicode: { charWidth: (s: string, i?: number) => number } }).unicode;
  const original = unicode.charWidth;
  unicode.charWidth = function (str: string, i?: number): number {
    if (i === undefined && typeof str === "string" && str.length > 0) {
      if (str.length === 1 && str.charCodeAt(0) < 0x7f) return str.charCodeAt(0) >= 0x20 ? 1 : 0;
      return graphemeWidth(str);
    }
    return original.call(this, str, i);
  };
}

export interface Surface {
  readonly cols: number;
  readonly rows: number;
  readonly colors: number;
  /** paints lines into the rectangle; cells past a line's end get `fill`'s style */
  paint(x: number, y: number, w: number, h: number, lines: Line[], fill?: Seg): void;
  /** diffs the painted buffer against the terminal and writes the changes */
  render(): void;
  /** hands what was written to the terminal now (blessed holds output until setImmediate) */
  flush(): void;
  /** shows the terminal cursor at (x, y), or hides it */
  cursor(pos: { x: number; y: number } | undefined): void;
  /** forgets what the terminal shows and repaints everything (Ctrl-L) */
  repaintAll(): void;
  /** raw bytes to the terminal (mode switches like bracketed paste) */
  write(s: string): void;
  /** has the terminal report the mouse wheel (and, unavoidably, clicks), or stop */
  setMouse(on: boolean): void;
  /** gives the terminal back for a while (a suspend): the normal screen, the cursor, no modes */
  leave(): void;
  /** takes it again after leave(): the alternate screen at the terminal's size now; call repaintAll() */
  enter(): void;
  onResize(cb: () => void): void;
  /** called at the start of every render, including blessed's own after a resize */
  onPaint(cb: () => void): void;
  destroy(): void;
}

/**
 * The terminal the screen runs on, injected: the process's own (processTerminal()), or in a
 * test a headless xterm behind a stream, so the whole screen runs in-process.
 */
export interface Terminal {
  /** keys and pastes arrive here (raw mode is set when it is a TTY) */
  input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };
  /** frames go here; its columns/rows are the size, and it emits "resize" */
  output: NodeJS.WritableStream & { columns?: number; rows?: number; isTTY?: boolean };
  /** the terminfo name (TERM) */
  name: string | undefined;
  /**
   * whether the screen answers the process's signals and fatal errors (quits on SIGTERM,
   * reports an unhandled rejection, suspends on SIGTSTP): the process's own terminal does, a
   * test's does not
   */
  ownsProcess: boolean;
  /**
   * Stops the process until the shell continues it (job control) and returns when it runs
   * again, at once when nothing stopped it (a process group with no shell to continue it is
   * not stopped: the kernel drops the signal). The promise says whether it was stopped.
   * Without it, Ctrl-Z says it cannot suspend.
   */
  suspend?(): Promise<boolean>;
}

export function processTerminal(): Terminal {
  return { input: process.stdin, output: process.stdout, name: process.env.TERM, ownsProcess: true, suspend: suspendProcess };
}

/** how long after a suspend returns a SIGCONT is looked for (its handler runs on a later turn of the event loop) */
const CONTINUED_WAIT_MS = 100;

function suspendProcess(): Promise<boolean> {
  let continued = false;
  const onCont = (): void => {
    continued = true;
  };
  process.on("SIGCONT", onCont);
  // The screen's own SIGTSTP listener (which suspends the screen) would catch the signal; with
  // no listener the default action, stopping, applies. Node restores it synchronously.
  const ours = process.listeners("SIGTSTP");
  for (const l of ours) process.off("SIGTSTP", l);
  try {
    process.kill(process.pid, "SIGTSTP"); // returns once continued, or at once when dropped
  } finally {
    for (const l of ours) process.on("SIGTSTP", l);
  }
  return new Promise((resolve) =>
    setTimeout(
      () =>
        setImmediate(() => {
          process.off("SIGCONT", onCont);
          resolve(continued);
        }),
      CONTINUED_WAIT_MS,
    ),
  );
}

// bracketed paste: a paste arrives as one event, not as keystrokes (Enter must not send it)
const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";
// button events (the wheel is buttons 4 and 5) in SGR encoding; no motion, no drag reports
const MOUSE_ON = "\x1b[?1000h\x1b[?1006h";
const MOUSE_OFF = "\x1b[?1006l\x1b[?1000l";

interface SurfaceOptions {
  theme: Theme;
  output?: Terminal["output"];
  /** the terminfo name; TERM when not given */
  term?: string | undefined;
}

// screen-* and tmux-* terminfo entries use ncurses 6's format, which blessed cannot read
export function terminalFor(term: string | undefined): string {
  const t = term ?? "";
  if (!t || /^(screen|tmux)/.test(t)) return "xterm-256color";
  return t;
}

export function createSurface(opts: SurfaceOptions): Surface {
  patchCharWidth();
  const output = opts.output ?? process.stdout;
  // blessed gets a silent input: we read stdin ourselves (see keys.ts)
  const input = new PassThrough();
  const savedError = console.error;
  // terminfo compilation prints warnings (Setulc and friends) straight to stderr
  console.error = () => undefined;
  let screen: blessed.Widgets.Screen;
  try {
    screen = blessed.screen({
      smartCSR: true,
      fullUnicode: true,
      forceUnicode: true,
      terminal: terminalFor("term" in opts ? opts.term : process.env.TERM),
      input,
      output: output as NodeJS.WriteStream,
      autoPadding: false,
      warnings: false,
      dockBorders: false,
      useBCE: true,
      resizeTimeout: 0,
    } as blessed.Widgets.IScreenOptions);
  } finally {
    console.error = savedError;
  }
  const s = screen as unknown as BlessedInternals;
  // draw line characters as Unicode, not the VT100 alternate charset (tmux shows "lqqk")
  s.tput.brokenACS = true;
  s.tput.unicode = true;
  const theme = opts.theme;
  const paintCbs: (() => void)[] = [];
  let mouse = false;
  type Modes = { enter(): void; leave(): void };
  const modes = screen as unknown as Modes;
  screen.on("prerender", () => {
    for (const cb of paintCbs) cb();
  });

  const setCell = (row: CellRow, x: number, attr: number, ch: string): void => {
    const cell = row[x];
    if (!cell) return;
    if (cell[0] !== attr || cell[1] !== ch) {
      cell[0] = attr;
      cell[1] = ch;
      row.dirty = true;
    }
  };

  const surface: Surface = {
    get cols() {
      return s.cols;
    },
    get rows() {
      return s.rows;
    },
    get colors() {
      return s.tput.colors;
    },
    paint(x0, y0, w, h, lines, fill) {
      const fillAttr = fill ? theme.attr(fill) : s.dattr;
      const x1 = Math.min(s.cols, x0 + w);
      for (let r = 0; r < h; r++) {
        const y = y0 + r;
        const row = s.lines[y];
        if (!row || y < 0) continue;
        // a wide character just left of the rectangle would be drawn over its first cell
        const left = row[x0 - 1];
        if (x0 > 0 && left && graphemeWidth(left[1]) === 2) setCell(row, x0 - 1, left[0], " ");
        let x = x0;
        for (const sg of lines[r] ?? []) {
          if (x >= x1) break;
          const attr = theme.attr(sg);
          if (isAsciiPrintable(sg.t)) {
            for (let i = 0; i < sg.t.length && x < x1; i++) setCell(row, x++, attr, sg.t[i]!);
            continue;
          }
          for (const g of graphemes(sg.t)) {
            if (x >= x1) break;
            const gw = graphemeWidth(g);
            if (gw === 0) continue;
            if (gw === 2) {
              if (x + 1 >= x1) {
                setCell(row, x++, attr, " ");
                break;
              }
              setCell(row, x++, attr, g);
              // the second cell is covered by the wide character; blessed skips it when drawing
              setCell(row, x++, attr, " ");
              continue;
            }
            setCell(row, x++, attr, g);
          }
        }
        while (x < x1) setCell(row, x++, fillAttr, " ");
      }
    },
    render() {
      screen.render();
    },
    flush() {
      s.program.flush();
    },
    cursor(pos) {
      if (!pos) {
        if (!s.program.cursorHidden) s.program.hideCursor();
        return;
      }
      s.program.cup(pos.y, pos.x);
      if (s.program.cursorHidden) s.program.showCursor();
    },
    repaintAll() {
      (screen as unknown as { realloc(): void }).realloc();
      screen.render();
    },
    write(str) {
      s.program._write(str);
    },
    setMouse(on) {
      if (on === mouse) return;
      mouse = on;
      s.program._write(on ? MOUSE_ON : MOUSE_OFF);
    },
    leave() {
      s.program._write(PASTE_OFF + (mouse ? MOUSE_OFF : ""));
      modes.leave(); // keypad off, cursor shown, the normal screen, flushed
    },
    enter() {
      refreshSize(output);
      modes.enter();
      s.program._write(PASTE_ON + (mouse ? MOUSE_ON : ""));
    },
    onResize(cb) {
      screen.on("resize", cb);
    },
    onPaint(cb) {
      paintCbs.push(cb);
    },
    destroy() {
      if (mouse) s.program._write(MOUSE_OFF);
      mouse = false;
      screen.destroy();
    },
  };
  return surface;
}

/**
 * The terminal may have changed size while the process was stopped (no SIGWINCH reaches a
 * stopped process): ask it, and report a change as a resize.
 */
function refreshSize(output: Terminal["output"]): void {
  const o = output as Terminal["output"] & { getWindowSize?(): [number, number] };
  if (typeof o.getWindowSize !== "function") return;
  try {
    const [cols, rows] = o.getWindowSize();
    if (cols > 0 && rows > 0 && (cols !== o.columns || rows !== o.rows)) {
      o.columns = cols;
      o.rows = rows;
      o.emit("resize");
    }
  } catch {
    // not a terminal after all: keep the size known
  }
}
