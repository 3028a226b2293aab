// Telling a person who is looking elsewhere that the turn ended or a question waits. The
// terminal reports its focus (mode 1004: CSI I / CSI O, read as focusin/focusout keys by
// keys.ts); only while it says it has lost the focus is anything sent, so a person watching the
// screen is never beeped at. What is sent: OSC 9 (iTerm2, WezTerm, Ghostty, kitty, Windows
// Terminal...), OSC 777 where that is the terminal's own (VTE terminals such as GNOME Terminal,
// rxvt-unicode, foot), else BEL. Inside tmux an OSC is wrapped for its passthrough (DCS tmux;
// ... ST, each ESC doubled; tmux needs "allow-passthrough on"), and BEL goes as it is: tmux
// marks the window and rings the outer terminal itself. At most one notice per interval, so a
// flood of questions is one sound, not fifty. Pure but for the write it is given.
import { sanitizeForTerminal } from "../text/sanitize.js";
import type { NotifyChoice } from "../config/config.js";

export type { NotifyChoice } from "../config/config.js";
type Style = "osc9" | "osc777" | "bell" | "off";

/** the least time between two notices */
export const NOTIFY_MIN_INTERVAL_MS = 3000;
/** a notice's text at most (terminals show one line) */
const MAX_TEXT = 120;

export const FOCUS_REPORTING_ON = "\x1b[?1004h";
export const FOCUS_REPORTING_OFF = "\x1b[?1004l";

/** how this terminal is told, for the config's choice and the environment */
export function notifyStyle(choice: NotifyChoice, env: NodeJS.ProcessEnv): Style {
  switch (choice) {
    case "off":
      return "off";
    case "bell":
      return "bell";
    case "osc9":
      return "osc9";
    case "auto":
      return autoStyle(env);
    default: {
      const never: never = choice;
      return never;
    }
  }
}

function autoStyle(env: NodeJS.ProcessEnv): Style {
  const program = env.TERM_PROGRAM ?? "";
  const term = env.TERM ?? "";
  // the terminal's own convention first: VTE, urxvt and foot show OSC 777 notifications
  if (env.VTE_VERSION || term.startsWith("rxvt-unicode") || term.startsWith("foot")) return "osc777";
  if (
    program === "iTerm.app" ||
    program === "WezTerm" ||
    program === "ghostty" ||
    env.LC_TERMINAL === "iTerm2" ||
    env.WT_SESSION ||
    env.KITTY_WINDOW_ID ||
    term === "xterm-kitty" ||
    term === "xterm-ghostty"
  ) {
    return "osc9";
  }
  return "bell";
}

/** one line, no control characters, bounded: it goes into an OSC string */
export function noticeText(text: string): string {
  // sanitizeForTerminal leaves \n and \t; an OSC string must hold neither (nor ; for OSC 777's fields)
  const one = sanitizeForTerminal(text).replace(/[\n\t\r]+/g, " ").replace(/\s{2,}/g, " ").trim();
  return [...one].slice(0, MAX_TEXT).join("");
}

/** the bytes for one notice, wrapped for tmux when inside it */
export function notifySequence(style: Style, text: string, env: NodeJS.ProcessEnv): string {
  const t = noticeText(text);
  let seq: string;
  switch (style) {
    case "off":
      return "";
    case "bell":
      return "\x07";
    case "osc9":
      seq = `\x1b]9;${t}\x07`;
      break;
    case "osc777":
      seq = `\x1b]777;notify;albedo-tui;${t.replace(/;/g, ",")}\x07`;
      break;
    default: {
      const never: never = style;
      return never;
    }
  }
  return env.TMUX ? tmuxPassthrough(seq) : seq;
}

/** DCS tmux; <sequence with each ESC doubled> ST */
export function tmuxPassthrough(seq: string): string {
  return `\x1bPtmux;${seq.replace(/\x1b/g, "\x1b\x1b")}\x1b\\`;
}

export class Notifier {
  /** undefined until the terminal reports it: a terminal that never does is never notified */
  private focused: boolean | undefined;
  private lastAt = -Infinity;
  private readonly style: Style;

  constructor(
    private readonly write: (bytes: string) => void,
    choice: NotifyChoice,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly now: () => number = Date.now,
  ) {
    this.style = notifyStyle(choice, env);
  }

  get active(): boolean {
    return this.style !== "off";
  }

  focus(focused: boolean): void {
    this.focused = focused;
  }

  /** sends the notice when the terminal has said it lost the focus; gives whether it did */
  notify(text: string): boolean {
    if (this.style === "off" || this.focused !== false) return false;
    const t = this.now();
    if (t - this.lastAt < NOTIFY_MIN_INTERVAL_MS) return false;
    this.lastAt = t;
    try {
      this.write(notifySequence(this.style, text, this.env));
    } catch {
      // the terminal is gone: nobody to tell
    }
    return true;
  }
}
