// The terminal's title (OSC 2): the session and what it is doing, so a tab or a tmux window
// says "waiting for you" from across the room. The title is pushed on the terminal's title
// stack at start and popped at the end (xterm's CSI 22;2 t / 23;2 t; terminals without a
// stack ignore both), so the shell's title comes back. What the title holds passes the
// sanitizer and loses every control character: a session's title comes from a prompt.
import { sanitizeForTerminal } from "../text/sanitize.js";

export type TitleState = "idle" | "working" | "waiting for you";

export const TITLE_PUSH = "\x1b[22;2t";
export const TITLE_POP = "\x1b[23;2t";
const MAX_LABEL = 48;

export function titleSequence(label: string, state: TitleState): string {
  const clean = sanitizeForTerminal(label).replace(/[\n\t\r]+/g, " ").replace(/\s{2,}/g, " ").trim();
  const cut = [...clean];
  const shown = cut.length > MAX_LABEL ? `${cut.slice(0, MAX_LABEL - 1).join("")}…` : clean;
  return `\x1b]2;albedo-tui · ${shown ? `${shown} · ` : ""}${state}\x07`;
}

/** writes the title only when it changes */
export class TitleKeeper {
  private last = "";
  private pushed = false;

  constructor(private readonly write: (bytes: string) => void) {}

  set(label: string, state: TitleState): void {
    const seq = titleSequence(label, state);
    if (seq === this.last) return;
    if (!this.pushed) {
      this.pushed = true;
      this.write(TITLE_PUSH);
    }
    this.last = seq;
    this.write(seq);
  }

  /** gives the terminal its own title back */
  restore(): string {
    return this.pushed ? TITLE_POP : "";
  }
}
