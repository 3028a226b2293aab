// Makes any text safe to put on the screen: tool output, model text, file names, errors.
// Colour codes (SGR) are dropped silently so coloured program output stays readable; every
// other control sequence (cursor moves, title changes, clipboard writes, mode switches) is
// kept visible but inert, with ESC shown as ␛ and other control characters as their Unicode
// "control picture", so a person can see that a tool tried something without the terminal
// acting on it. Tabs become spaces and carriage-return overwrites are resolved, because the
// screen measures every cell itself.

const SGR = /\x1b\[[0-9;:]*m|\x9b[0-9;:]*m/g;
// Unicode bidirectional overrides and isolates can reorder what is drawn (trojan-source style).
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
const TAB = 4;

function picture(c: number): string {
  if (c === 0x1b) return "␛";
  if (c === 0x7f) return "␡";
  if (c < 0x20) return String.fromCharCode(0x2400 + c);
  // C1 controls (0x80–0x9f) have no pictures; show their code
  return `<${c.toString(16).padStart(2, "0")}>`;
}

function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  for (const ch of line) {
    if (ch === "\t") out += " ".repeat(TAB - (out.length % TAB));
    else out += ch;
  }
  return out;
}

/** "progress 10%\rprogress 20%" shows what a terminal would: the last overwrite */
function resolveCarriageReturns(line: string): string {
  const i = line.lastIndexOf("\r");
  if (i < 0) return line;
  const tail = line.slice(i + 1);
  // a bare trailing \r (CRLF remnants were handled before) overwrites nothing
  if (!tail) return resolveCarriageReturns(line.slice(0, i));
  return tail;
}

export function inert(text: string): string {
  if (!text) return "";
  let s = text.replace(SGR, "").replace(/\r\n/g, "\n").replace(BIDI, "").replace(/\ufeff/g, "");
  if (s.includes("\r")) s = s.split("\n").map(resolveCarriageReturns).join("\n");
  // eslint-disable-next-line no-control-regex
  s = s.replace(/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g, (m) => picture(m.charCodeAt(0)));
  if (s.includes("\t")) s = s.split("\n").map(expandTabs).join("\n");
  return s;
}

/** one line for a summary: newlines and tabs folded to spaces */
export function inertLine(text: string): string {
  return inert(text).replace(/\n+/g, " ⏎ ").replace(/ {2,}/g, " ").trim();
}
