// Tool output is untrusted text: a file or a command can contain sequences that move the
// cursor, retitle the window, write the clipboard (OSC 52) or paint over the screen.
// Before any of it is displayed, every control sequence goes; only printable text,
// newlines and tabs remain. A single pass over the string, no regex: the grammar of
// escape sequences (ECMA-48) is easy to follow by hand and regexes miss its corners.

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const C1_CSI = 0x9b;
const C1_ST = 0x9c;

/** C1 introducers of a control string (DCS, SOS, OSC, PM, APC) that run until a terminator */
function isC1StringStart(c: number): boolean {
  return c === 0x90 || c === 0x98 || c === 0x9d || c === 0x9e || c === 0x9f;
}

/** ESC followed by one of these starts a control string: DCS P, SOS X, OSC ], PM ^, APC _ */
function isStringIntroducer(c: number): boolean {
  return c === 0x50 || c === 0x58 || c === 0x5d || c === 0x5e || c === 0x5f;
}

/** Explicit direction overrides and isolates: they can make text display in another order. */
function isBidiControl(c: number): boolean {
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/**
 * Skips a CSI sequence whose parameters start at j; returns the index after it.
 * Parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E. A sequence cut off by
 * something else ends there, and that character is handled on its own.
 */
function skipCsi(s: string, j: number): number {
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c >= 0x20 && c <= 0x3f) j++;
    else if (c >= 0x40 && c <= 0x7e) return j + 1;
    else return j;
  }
  return j;
}

/**
 * Skips a control string's body starting at j (OSC, DCS, APC, PM, SOS); returns the index
 * after its terminator (BEL, ESC \, or C1 ST; CAN and SUB cancel it). An ESC that does not
 * start ST aborts the string, as in xterm. With no terminator at all only the introducer
 * is dropped (returns -1): the rest is then shown as inert text rather than hidden.
 */
function skipControlString(s: string, j: number): number {
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === BEL || c === C1_ST || c === CAN || c === SUB) return j + 1;
    if (c === ESC) return s.charCodeAt(j + 1) === 0x5c ? j + 2 : j;
  }
  return -1;
}

/** Skips an escape sequence starting at the ESC at index i; returns the index after it. */
function skipEscape(s: string, i: number): number {
  if (i + 1 >= s.length) return i + 1; // a lone ESC at the end
  const c = s.charCodeAt(i + 1);
  if (c === 0x5b) return skipCsi(s, i + 2); // ESC [
  if (isStringIntroducer(c)) {
    const end = skipControlString(s, i + 2);
    return end < 0 ? i + 2 : end;
  }
  if (c >= 0x20 && c <= 0x2f) {
    // ESC, intermediates, final: charset selection "ESC ( B", "ESC # 8" screen fill…
    let j = i + 1;
    while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
    if (j < s.length && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x7e) j++;
    return j;
  }
  if (c >= 0x30 && c <= 0x7e) return i + 2; // ESC 7 / ESC 8 / ESC c / ESC M …
  return i + 1; // ESC before a control or non-ASCII: drop the ESC, handle the rest normally
}

/**
 * Returns `s` with nothing a terminal would act on: no CSI/OSC/DCS/APC/PM/SOS sequences (7-
 * or 8-bit), no lone ESC, no C0 controls except \n and \t, no DEL, no C1 controls, no bidi
 * overrides, no lone surrogates (they become U+FFFD). CRLF becomes \n; a lone \r becomes
 * \n too, because "overwrite this line" is exactly how a command hides what it printed.
 */
export function sanitizeForTerminal(s: string): string {
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  let runStart = -1; // start of a run of characters copied unchanged
  const flush = (end: number) => {
    if (runStart >= 0) {
      out.push(s.slice(runStart, end));
      runStart = -1;
    }
  };

  while (i < n) {
    const c = s.charCodeAt(i);
    const plain =
      (c >= 0x20 && c < 0x7f) ||
      c === 0x0a ||
      c === 0x09 ||
      (c > 0x9f && c < 0xd800 && !isBidiControl(c)) ||
      (c > 0xdfff && c <= 0xffff);
    if (plain) {
      if (runStart < 0) runStart = i;
      i++;
      continue;
    }
    flush(i);

    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        out.push(s.slice(i, i + 2));
        i += 2;
      } else {
        out.push("\uFFFD");
        i++;
      }
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      out.push("\uFFFD"); // a low surrogate without its high half
      i++;
      continue;
    }
    if (c === 0x0d) {
      let j = i + 1;
      while (j < n && s.charCodeAt(j) === 0x0d) j++;
      if (j < n && s.charCodeAt(j) === 0x0a) i = j; // CRLF, CRCRLF: the \n stays
      else {
        out.push("\n");
        i = j;
      }
      continue;
    }
    if (c === ESC) {
      i = skipEscape(s, i);
      continue;
    }
    if (c === C1_CSI) {
      i = skipCsi(s, i + 1);
      continue;
    }
    if (isC1StringStart(c)) {
      const end = skipControlString(s, i + 1);
      i = end < 0 ? i + 1 : end;
      continue;
    }
    // every other C0 control (BEL, BS, VT, FF…), DEL, C1 control, bidi override: dropped
    i++;
  }
  flush(n);
  return out.join("");
}

/**
 * Characters written as an escape by visibleEscape: every control (C0, DEL, C1), every
 * format character (bidi marks and overrides, zero-width spaces and joiners, soft hyphen,
 * byte-order mark, tags), line and paragraph separators, every space but U+0020, lone
 * surrogates, private-use and unassigned code points, variation selectors and the Hangul
 * fillers that draw as blanks: each either acts on a terminal or cannot be seen for what it is.
 */
const NOT_VISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u115f\u1160\u3164\uffa0\u2800\ufe00-\ufe0f\u{e0100}-\u{e01ef}\\]/gu;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", "\\": "\\\\" };

interface EscapeOptions {
  /** \n, \t and \r\n stay as they are: text laid out in lines (a script, a diff) */
  layout?: boolean;
  /** a backslash stays single: the text is JSON already (its backslashes are its escapes),
   * or code where backslashes are common */
  plainBackslash?: boolean;
}

/**
 * `s` with every character one cannot see for what it is written as a JSON-style escape
 * (ESC as \u001b, a right-to-left override as \u202e, a newline as \n, a backslash as \\), so
 * that what is shown is exactly what is there: nothing is removed, nothing acts on the
 * terminal, and no two different strings look alike. For text a person approves or acts on
 * (a command, its arguments, a path); sanitizeForTerminal, which removes sequences whole, is
 * for output that is only read.
 */
export function visibleEscape(s: string, opts: EscapeOptions = {}): string {
  return s.replace(NOT_VISIBLE, (c, at: number) => {
    if (opts.layout && (c === "\n" || c === "\t" || (c === "\r" && s[at + 1] === "\n"))) return c;
    if (opts.plainBackslash && c === "\\") return c;
    const named = NAMED[c];
    if (named) return named;
    const code = c.codePointAt(0)!;
    // beyond the BMP as its surrogate pair, as JSON writes it
    if (code > 0xffff) return c.split("").map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    return `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** A string as a JSON string literal with every character visibleEscape escapes escaped too:
 * the form a value of a JSON file is shown in, so it reads as the file writes it. */
export function visibleJson(s: string): string {
  return visibleEscape(JSON.stringify(s), { plainBackslash: true });
}
