// The colours a person sees, cell by cell: read from a headless xterm's buffer, written to and
// read back from an ".ansi" capture (plain SGR text, which `cat` shows in colour), and turned
// into the RGB pair xterm draws for a given default foreground and background.
import type xterm from "@xterm/headless";
import { contrast, xtermColor, XTERM_DARK, XTERM_LIGHT, type Background, type Rgb } from "../../src/ui/background.js";

type XTerm = InstanceType<typeof xterm.Terminal>;

/** a colour as the terminal holds it: its own default, or a palette index */
export type CellColour = "default" | number;

export interface Cell {
  ch: string;
  fg: CellColour;
  bg: CellColour;
  bold: boolean;
  underline: boolean;
  inverse: boolean;
}

/** the visible screen, row by row (a wide character's second cell is left out) */
export function readCells(term: XTerm): Cell[][] {
  const buf = term.buffer.active;
  const rows: Cell[][] = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buf.getLine(buf.viewportY + y);
    const row: Cell[] = [];
    for (let x = 0; line && x < term.cols; x++) {
      const c = line.getCell(x);
      if (!c || c.getWidth() === 0) continue;
      if (c.isFgRGB() || c.isBgRGB()) throw new Error(`cell ${x},${y} has a 24-bit colour: the themes use palette colours only`);
      row.push({
        ch: c.getChars() || " ",
        fg: c.isFgDefault() ? "default" : c.getFgColor(),
        bg: c.isBgDefault() ? "default" : c.getBgColor(),
        bold: c.isBold() !== 0,
        underline: c.isUnderline() !== 0,
        inverse: c.isInverse() !== 0,
      });
    }
    rows.push(row);
  }
  return rows;
}

function sgr(c: Cell): string {
  const p = ["0"];
  if (c.bold) p.push("1");
  if (c.underline) p.push("4");
  if (c.inverse) p.push("7");
  if (c.fg !== "default") p.push(`38;5;${c.fg}`);
  if (c.bg !== "default") p.push(`48;5;${c.bg}`);
  return `\x1b[${p.join(";")}m`;
}

/** rows of cells as text with SGR codes (colours as 256-palette indices), trailing blanks trimmed */
export function toAnsi(rows: Cell[][]): string {
  const plain = sgr({ ch: " ", fg: "default", bg: "default", bold: false, underline: false, inverse: false });
  return rows
    .map((row) => {
      let end = row.length;
      while (end > 0 && row[end - 1]!.ch === " " && sgr(row[end - 1]!) === plain) end--;
      let out = "";
      let last = plain;
      for (const c of row.slice(0, end)) {
        const code = sgr(c);
        if (code !== last) out += code;
        last = code;
        out += c.ch;
      }
      return last === plain ? out : out + plain;
    })
    .join("\n");
}

/** the reverse of toAnsi: the cells of each row (SGR 0, 1, 4, 7, 22, 24, 27, 38;5, 48;5, 39, 49) */
export function fromAnsi(text: string): Cell[][] {
  return text.split("\n").map((line) => {
    const row: Cell[] = [];
    let cur: Omit<Cell, "ch"> = { fg: "default", bg: "default", bold: false, underline: false, inverse: false };
    const parts = line.split(/(\x1b\[[0-9;]*m)/);
    for (const part of parts) {
      const m = /^\x1b\[([0-9;]*)m$/.exec(part);
      if (!m) {
        for (const ch of part) row.push({ ch, ...cur });
        continue;
      }
      const n = (m[1] || "0").split(";").map(Number);
      for (let i = 0; i < n.length; i++) {
        const v = n[i]!;
        if (v === 0) cur = { fg: "default", bg: "default", bold: false, underline: false, inverse: false };
        else if (v === 1) cur.bold = true;
        else if (v === 4) cur.underline = true;
        else if (v === 7) cur.inverse = true;
        else if (v === 22) cur.bold = false;
        else if (v === 24) cur.underline = false;
        else if (v === 27) cur.inverse = false;
        else if (v === 39) cur.fg = "default";
        else if (v === 49) cur.bg = "default";
        else if ((v === 38 || v === 48) && n[i + 1] === 5 && n[i + 2] !== undefined) {
          if (v === 38) cur.fg = n[i + 2]!;
          else cur.bg = n[i + 2]!;
          i += 2;
        } else throw new Error(`SGR ${v} is not one a capture holds`);
      }
    }
    return row;
  });
}

/**
 * The foreground and background xterm draws a cell in, on a terminal of the given default
 * colours: bold text in colours 0–7 takes the bright colour 8–15 (xterm's boldColors, on by
 * default); inverse swaps the two after that.
 */
export function shown(c: Omit<Cell, "ch">, terminal: Background): { fg: Rgb; bg: Rgb } {
  const dflt = terminal === "dark" ? XTERM_DARK : XTERM_LIGHT;
  const fgIndex = c.fg !== "default" && c.bold && c.fg < 8 ? c.fg + 8 : c.fg;
  const fg = fgIndex === "default" ? dflt.fg : xtermColor(fgIndex);
  const bg = c.bg === "default" ? dflt.bg : xtermColor(c.bg);
  return c.inverse ? { fg: bg, bg: fg } : { fg, bg };
}

export function cellContrast(c: Omit<Cell, "ch">, terminal: Background): number {
  const p = shown(c, terminal);
  return contrast(p.fg, p.bg);
}

/** box drawing and block characters: lines and frames, judged as graphics (3:1), not as text */
export function isDecoration(ch: string): boolean {
  return /^[\u2500-\u259f]$/.test(ch);
}
