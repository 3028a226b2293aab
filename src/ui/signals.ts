// What the process's signals and failures do to the screen, when the screen owns the process
// (screen.ts, Terminal.ownsProcess). SIGTERM, SIGHUP, SIGINT and SIGQUIT quit with the shell's
// code for the signal (128 + its number); SIGTSTP from outside (kill -TSTP) suspends as Ctrl-Z
// does, and SIGCONT after a stop the screen did not see (kill -STOP) repaints a terminal others
// wrote on; an uncaught exception restores the terminal before its stack is printed; a promise
// nobody awaited that failed is said in the transcript and the session goes on (the record is
// intact). A terminal that goes away (SIGHUP, EIO or EPIPE on it, its input ending) quits with
// 129, whichever terminal it is; unless a turn is running, which hangUp() lets go on to its
// end without a screen (the process exits then).
import os from "node:os";
import { messageOf } from "../record/errors.js";
import type { Terminal } from "./screen.js";

interface ProcessEnds {
  closed(): boolean;
  quit(code: number): void;
  /** restores the terminal, so that what is printed after it is readable */
  teardown(): void;
  /** an error line in the transcript */
  report(text: string): void;
  suspend(): void;
  resume(): void;
  /** the terminal is gone: true when a turn goes on without it (the screen exits after it) */
  hangUp?(): boolean;
}

/** installs the handlers; the function returned removes those that go with the screen */
export function watchProcess(term: Terminal, on: ProcessEnds): () => void {
  let detached = false;
  const onTerminalGone = (): void => {
    if (on.closed() || detached) return;
    if (on.hangUp?.()) detached = true;
    else on.quit(129);
  };
  // These stay installed after the screen is gone: when the terminal hangs up, more
  // SIGHUPs and EIO errors follow, and their default (die at once) would cut short the
  // store's last write of what had arrived.
  term.output.on("error", onTerminalGone);
  term.input.on("error", onTerminalGone);
  term.input.on("end", onTerminalGone);
  if (!term.ownsProcess) return () => undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    // a hang-up ends the screen; a running turn goes on to its end without it
    if (sig === "SIGHUP" && (detached || (!on.closed() && on.hangUp?.()))) {
      detached = true;
      return;
    }
    const code = 128 + (os.constants.signals[sig] ?? 1);
    if (!on.closed()) on.quit(code);
    // the caller closes the store and exits; should that hang, end anyway
    setTimeout(() => process.exit(code), 5000).unref();
  };
  const onFatal = (e: unknown): void => {
    on.teardown();
    process.stderr.write(`albedo-tui: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  };
  const onRejection = (e: unknown): void => on.report(`internal error (please report it): ${messageOf(e)}`);
  const signals: NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT"];
  for (const s of signals) process.on(s, onSignal);
  const onStop = (): void => on.suspend();
  const onCont = (): void => on.resume();
  process.on("SIGTSTP", onStop);
  process.on("SIGCONT", onCont);
  process.on("uncaughtException", onFatal);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onFatal);
    process.off("unhandledRejection", onRejection);
    process.off("SIGTSTP", onStop);
    process.off("SIGCONT", onCont);
  };
}
