// Whether the full screen can be drawn on this terminal, decided before anything is drawn.
//
// The screen moves the cursor to paint each cell. A terminal whose terminfo entry has no
// cursor addressing (TERM=dumb: Emacs's shell buffer, some CI and serial consoles; also
// "unknown", "glasstty", "lpr") shows the escape sequences as garbage, so the screen is
// refused there with a sentence pointing to -p. TERM=dumb (and dumb-*) is refused by name
// too, since a system without the terminfo database would otherwise fall back to xterm.
//
// An unset or empty TERM is not refused: the screen draws as xterm-256color (terminalFor in
// screen.ts). A terminal that leaves TERM unset (docker exec without -t's environment, a bare
// `env -i`, some IDE consoles) is nearly always an xterm-like emulator, and one that is not
// can say so with TERM=dumb. The same holds for a TERM with no terminfo entry here: blessed
// draws it as xterm, as it always has.
import blessed from "blessed";
import { terminalFor } from "./screen.js";

interface TerminfoReader {
  readTerminfo(term: string): { strings: Record<string, string | undefined> };
}

/** The sentence that refuses the full screen on this terminal, or undefined when it can be drawn. */
export function screenRefusal(term: string | undefined): string | undefined {
  if (!term) return undefined;
  const name = terminalFor(term).toLowerCase();
  const cannot = (why: string): string =>
    `this terminal (TERM=${term}) ${why}, so the full screen cannot be drawn on it. ` +
    `Run a turn without the screen instead: albedo-tui -p "your request" (or -p - to read the request from stdin). ` +
    `If the terminal can do more, set TERM to its type (for example TERM=xterm-256color).`;
  if (name === "dumb" || name.startsWith("dumb-")) return cannot("is a dumb terminal: it cannot move the cursor");
  let caps: Record<string, string | undefined>;
  try {
    // a Tput made without a terminal reads nothing until asked (no compile, no output)
    const { Tput } = blessed as unknown as { Tput: new (opts: object) => TerminfoReader };
    caps = new Tput({}).readTerminfo(name).strings;
  } catch {
    // no entry, or one blessed cannot parse: blessed falls back to xterm, as it always has
    return undefined;
  }
  if (!caps.cursor_address) return cannot("cannot move the cursor (its terminfo entry has no cursor addressing)");
  return undefined;
}
