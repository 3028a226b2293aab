// Which background the terminal has, and the colour arithmetic to judge what is legible on it.
//
// The theme in force is the config's "theme" when it says "dark" or "light". With "auto" (the
// default) it follows the terminal: asked with OSC 11 ("ESC ] 11 ; ? BEL"), which xterm, VTE
// terminals, iTerm2, kitty, WezTerm, foot, Alacritty, Windows Terminal and tmux 3.3+ answer
// with their background colour. Nothing waits for the answer: the first frame is drawn with
// the "dark" theme (or what COLORFGBG says), whose body text, hints and code are chosen to be
// legible on black and on white alike, and the answer, when one comes, repaints the screen in
// the theme it calls for. A terminal that never answers (tmux without passthrough, an old
// terminal over SSH) keeps that first choice. The key parser (keys.ts) drops the reply as the
// string sequence it is, so it never reaches the prompt; this module reads the same chunks.
import type { ThemeChoice } from "../config/config.js";

export type { ThemeChoice } from "../config/config.js";
export type Background = Exclude<ThemeChoice, "auto">;

export type Rgb = readonly [number, number, number];

/**
 * xterm's default colours. Without resources xterm is black on white (XtDefaultForeground on
 * XtDefaultBackground); the dark setting its own XTerm-col.ad suggests is gray90 on black. The
 * 16 ANSI colours are XTerm-col.ad's (red3, green3, yellow3, blue2, magenta3, cyan3, gray90,
 * gray50, then the bright ones, blue as rgb:5c/5c/ff), as blessed's table has them too.
 */
export const XTERM_DARK = { fg: [0xe5, 0xe5, 0xe5], bg: [0, 0, 0] } as const satisfies { fg: Rgb; bg: Rgb };
export const XTERM_LIGHT = { fg: [0, 0, 0], bg: [0xff, 0xff, 0xff] } as const satisfies { fg: Rgb; bg: Rgb };

const ANSI16: Rgb[] = [
  [0x00, 0x00, 0x00],
  [0xcd, 0x00, 0x00],
  [0x00, 0xcd, 0x00],
  [0xcd, 0xcd, 0x00],
  [0x00, 0x00, 0xee],
  [0xcd, 0x00, 0xcd],
  [0x00, 0xcd, 0xcd],
  [0xe5, 0xe5, 0xe5],
  [0x7f, 0x7f, 0x7f],
  [0xff, 0x00, 0x00],
  [0x00, 0xff, 0x00],
  [0xff, 0xff, 0x00],
  [0x5c, 0x5c, 0xff],
  [0xff, 0x00, 0xff],
  [0x00, 0xff, 0xff],
  [0xff, 0xff, 0xff],
];
/** the steps of xterm's 6×6×6 colour cube (256colres.h) */
const CUBE = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff];

/** the colour xterm shows for palette index 0–255 */
export function xtermColor(i: number): Rgb {
  if (!Number.isInteger(i) || i < 0 || i > 255) throw new RangeError(`not an xterm colour index: ${i}`);
  if (i < 16) return ANSI16[i]!;
  if (i >= 232) {
    const v = 8 + 10 * (i - 232);
    return [v, v, v];
  }
  const n = i - 16;
  return [CUBE[Math.floor(n / 36)]!, CUBE[Math.floor(n / 6) % 6]!, CUBE[n % 6]!];
}

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

/** WCAG 2 relative luminance, 0 (black) to 1 (white) */
function luminance([r, g, b]: Rgb): number {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** WCAG 2 contrast ratio, 1 to 21 */
export function contrast(a: Rgb, b: Rgb): number {
  const x = luminance(a);
  const y = luminance(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** light when black text on it reads better than white text would */
export function backgroundOf(rgb: Rgb): Background {
  return contrast(rgb, [0, 0, 0]) > contrast(rgb, [255, 255, 255]) ? "light" : "dark";
}

// "ESC ] 11 ; rgb:RRRR/GGGG/BBBB" ended by BEL or ST; 1 to 4 hex digits a channel (XParseColor)
const REPLY = /\x1b\]11;rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})(?:\/[0-9a-f]{1,4})?(?:\x07|\x1b\\)/i;

/** the background colour in an OSC 11 reply found anywhere in `s`, or undefined */
export function parseBackgroundReply(s: string): Rgb | undefined {
  const m = REPLY.exec(s);
  if (!m) return undefined;
  const scale = (h: string): number => Math.round((parseInt(h, 16) / (16 ** h.length - 1)) * 255);
  return [scale(m[1]!), scale(m[2]!), scale(m[3]!)];
}

/**
 * COLORFGBG ("15;0", rxvt's "0;default;15"), set by rxvt, Konsole and others: its last field
 * is the background's palette index. Undefined when unset or not a number ("default").
 */
export function fromColorFgBg(v: string | undefined): Background | undefined {
  if (!v) return undefined;
  const last = v.split(";").pop() ?? "";
  if (!/^\d{1,3}$/.test(last)) return undefined;
  const i = Number(last);
  return i <= 255 ? backgroundOf(xtermColor(i)) : undefined;
}

/** the query; BEL-terminated, which more terminals accept than ST, and they answer alike */
export const BACKGROUND_QUERY = "\x1b]11;?\x07";
/** an answer later than this is not waited for: long enough for a slow SSH link, or a terminal
 * that answers only once a busy start is over, and the theme follows whenever it comes */
const ANSWER_MS = 30_000;

/** what is needed of the screen's terminal (screen.ts's Terminal has it) */
interface BackgroundTerminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: { isTTY?: boolean };
  name: string | undefined;
}

interface BackgroundWatch {
  /** what COLORFGBG said at start, if anything */
  initial: Background | undefined;
  /** stops listening (the screen is closing) */
  stop(): void;
}

/**
 * Asks the terminal for its background and calls `onAnswer` once with what it says. Asks
 * only a terminal that can answer without showing the question: not TERM=dumb, and not the
 * Linux console, which prints an OSC it does not know as text.
 */
export function watchBackground(
  term: BackgroundTerminal,
  write: (s: string) => void,
  onAnswer: (bg: Background) => void,
  env: NodeJS.ProcessEnv = process.env,
): BackgroundWatch {
  const initial = fromColorFgBg(env.COLORFGBG);
  const name = term.name ?? "";
  if (!term.input.isTTY || !term.output.isTTY || name === "" || name === "dumb" || name.startsWith("linux")) {
    return { initial, stop: () => undefined };
  }
  let seen = "";
  let done = false;
  const onData = (chunk: string | Buffer): void => {
    // keep enough of the tail for a reply cut between two chunks
    seen = (seen + (typeof chunk === "string" ? chunk : chunk.toString("latin1"))).slice(-256);
    const rgb = parseBackgroundReply(seen);
    if (!rgb) return;
    stop();
    onAnswer(backgroundOf(rgb));
  };
  const timer = setTimeout(() => stop(), ANSWER_MS);
  timer.unref?.();
  const stop = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    term.input.off("data", onData);
  };
  term.input.on("data", onData);
  write(BACKGROUND_QUERY);
  return { initial, stop };
}
