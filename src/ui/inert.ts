// Everything the screen shows that it did not write itself (tool output, model text, file
// names, errors) goes through here first. sanitizeForTerminal removes every control sequence
// (cursor moves, titles, clipboard writes, colours) and control character but \n and \t;
// the screen then turns tabs into spaces because it measures every cell itself.
import { sanitizeForTerminal, visibleEscape } from "../text/sanitize.js";

const TAB = 4;

function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  let col = 0;
  for (const ch of line) {
    if (ch === "\t") {
      const n = TAB - (col % TAB);
      out += " ".repeat(n);
      col += n;
    } else {
      out += ch;
      col++;
    }
  }
  return out;
}

export function inert(text: string): string {
  if (!text) return "";
  const s = sanitizeForTerminal(text);
  return s.includes("\t") ? s.split("\n").map(expandTabs).join("\n") : s;
}

/** one line for a summary: newlines folded, runs of spaces collapsed */
export function inertLine(text: string): string {
  return inert(text).replace(/\n+/g, " ⏎ ").replace(/ {2,}/g, " ").trim();
}

/**
 * Text a person approves, or that records what ran (a command, a tool's input, a diff): every
 * character one cannot see for what it is shown as an escape (\u001b…), never removed, so
 * what is shown is what runs or is written. Lines and tabs keep their layout, and backslashes
 * stay single (code is full of them).
 */
export function inertExact(text: string): string {
  return inert(visibleEscape(text, { layout: true, plainBackslash: true }));
}
