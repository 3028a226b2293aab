// Ctrl-Z and SIGTSTP: the screen gives the terminal back as it was (the normal screen, the
// cursor, cooked mode, no paste or mouse modes), the process stops until the shell's fg,
// then the screen takes the terminal again and repaints all of it. The stop itself is the
// terminal's (screen.ts, Terminal.suspend): a test's terminal has none, and a process with
// no shell to continue it is not stopped at all; both are said in the hint line.
import type { Surface, Terminal } from "./screen.js";

interface Suspendable {
  term: Terminal;
  surface: Surface;
  /** the terminal is the screen's again, before the repaint (an open box waits to be seen again) */
  retaken(): void;
  warn(text: string): void;
}

/** `key`: the key that suspends, named when suspending is not available */
export function suspendScreen(s: Suspendable, key: string): void {
  const stop = s.term.suspend;
  if (!stop) {
    s.warn(`${key}: suspending is not available here`);
    return;
  }
  const input = s.term.input;
  s.surface.leave();
  setRaw(input, false);
  let stopped: Promise<boolean>;
  try {
    stopped = stop.call(s.term);
  } finally {
    setRaw(input, true);
    s.surface.enter();
    s.retaken();
    s.surface.repaintAll();
  }
  void stopped.then((wasStopped) => {
    if (!wasStopped) s.warn("not suspended: no job control here (start albedo-tui from an interactive shell to use it)");
  });
}

/** SIGCONT: whoever stopped the process, the terminal may have been written on meanwhile */
export function resumeScreen(term: Terminal, surface: Surface): void {
  setRaw(term.input, true);
  surface.repaintAll();
}

function setRaw(input: Terminal["input"], raw: boolean): void {
  if (!input.isTTY) return;
  try {
    input.setRawMode?.(raw);
  } catch {
    // the terminal is gone
  }
}
