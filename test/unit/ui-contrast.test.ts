// Every colour the screen draws, judged as a person sees it: each style of each theme is
// painted through the real surface (blessed, as on a terminal of 256, 16 and 8 colours) into a
// headless xterm, read back cell by cell, and turned into the RGB xterm shows on its default
// dark (gray90 on black) and light (black on white) backgrounds. Text needs WCAG's 4.5:1,
// rules and borders 3:1. The "dark" theme is also the one a terminal that does not say its
// background gets, so it is judged on both; "light" on light. Then the same for the captures in
// docs/screens/ (scripts/screens.ts), which are the real program's screens.
import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { contrast, fromColorFgBg, parseBackgroundReply, backgroundOf, xtermColor, type Background } from "../../src/ui/background.js";
import { createSurface } from "../../src/ui/screen.js";
import { DECORATION, paletteFor, Theme, type Line, type Seg, type StyleName } from "../../src/ui/style.js";
import { cellContrast, fromAnsi, isDecoration, readCells, shown, type Cell } from "../helpers/cells.js";
import { headlessTerminal } from "../helpers/pty.js";

const require = createRequire(import.meta.url);
const blessedColours = (require("blessed/lib/colors.js") as { colors: string[] }).colors;

const TEXT = 4.5;
const GRAPHICS = 3;

// every style name, from the palette itself (a new one is judged without being listed here)
const STYLES = Object.keys(paletteFor("dark", 256)) as StyleName[];

const TERMINALS = [
  { term: "xterm-256color", colors: 256 },
  { term: "xterm-16color", colors: 16 },
  { term: "xterm", colors: 8 },
] as const;

const judgedOn: Record<Background, Background[]> = { dark: ["dark", "light"], light: ["light"] };

/** paints the lines through the real surface on a terminal of that name; the cells xterm holds */
async function paintThrough(theme: Theme, term: string, lines: Line[]): Promise<Cell[][]> {
  const cols = 30;
  const rows = lines.length + 1;
  const x = headlessTerminal(cols, rows);
  const out = Object.assign(
    new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _e, done) {
        x.write(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
        done();
      },
    }),
    { columns: cols, rows, isTTY: true },
  );
  const surface = createSurface({ theme, output: out, term });
  theme.setColors(surface.colors);
  surface.onPaint(() => surface.paint(0, 0, cols, lines.length, lines));
  surface.render();
  // blessed flushes what it drew on a later tick: only after that is an empty write's
  // callback the sign that xterm has parsed the frame (else, on a busy machine, xterm yields
  // between the two writes and the cells are read before the frame)
  await new Promise<void>((r) => setImmediate(r));
  await new Promise<void>((r) => x.write("", r));
  const cells = readCells(x);
  surface.destroy();
  return cells;
}

interface Variant {
  style: StyleName;
  how: "plain" | "bold" | "inverse";
}

function variants(): { lines: Line[]; what: Variant[] } {
  const lines: Line[] = [];
  const what: Variant[] = [];
  for (const style of STYLES) {
    for (const how of ["plain", "bold", "inverse"] as const) {
      const s: Seg = { t: "Sample text", s: style };
      if (how === "bold") s.b = true;
      if (how === "inverse") s.inv = true;
      lines.push([s]);
      what.push({ style, how });
    }
  }
  return { lines, what };
}

describe("the colour arithmetic", () => {
  it("knows xterm's 256 colours as blessed's table has them, and WCAG's ratios", () => {
    for (let i = 0; i < 256; i++) {
      const hex = "#" + xtermColor(i).map((v) => v.toString(16).padStart(2, "0")).join("");
      expect(hex, `colour ${i}`).toBe(blessedColours[i]);
    }
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    // the well-known minimum grey for text on white
    expect(contrast(xtermColor(243), [255, 255, 255])).toBeCloseTo(4.54, 2);
    expect(contrast([0xe5, 0xe5, 0xe5], [0, 0, 0])).toBeCloseTo(16.7, 1);
  });

  it("reads the terminal's answer to OSC 11 and COLORFGBG", () => {
    expect(parseBackgroundReply("\x1b]11;rgb:ffff/ffff/ffff\x1b\\")).toEqual([255, 255, 255]);
    expect(parseBackgroundReply("junk\x1b]11;rgb:00/2b/36\x07more")).toEqual([0, 0x2b, 0x36]);
    expect(parseBackgroundReply("\x1b]11;rgba:fdfd/f6f6/e3e3/ffff\x07")).toEqual([0xfd, 0xf6, 0xe3]);
    expect(parseBackgroundReply("\x1b]11;rgb:ffff/ffff/ffff")).toBeUndefined(); // not ended yet
    expect(parseBackgroundReply("\x1b]10;rgb:ffff/ffff/ffff\x07")).toBeUndefined(); // the foreground
    expect(backgroundOf([0xfd, 0xf6, 0xe3])).toBe("light"); // Solarized light
    expect(backgroundOf([0x00, 0x2b, 0x36])).toBe("dark"); // Solarized dark
    expect(backgroundOf([0x1e, 0x1e, 0x1e])).toBe("dark");
    expect(fromColorFgBg("15;0")).toBe("dark");
    expect(fromColorFgBg("0;15")).toBe("light");
    expect(fromColorFgBg("0;default;15")).toBe("light");
    expect(fromColorFgBg("default;default")).toBeUndefined();
    expect(fromColorFgBg(undefined)).toBeUndefined();
  });
});

describe("every style of every theme, as xterm shows it", () => {
  it("the 256-colour palettes use 16–255 only and the 8/16-colour ones 0–7 only (nothing reduced on the way)", () => {
    for (const bg of ["dark", "light"] as const) {
      for (const style of STYLES) {
        for (const c of [paletteFor(bg, 256)[style].fg, paletteFor(bg, 256)[style].bg]) if (c !== undefined) expect(c, `${bg} 256 ${style}`).toBeGreaterThanOrEqual(16);
        for (const c of [paletteFor(bg, 16)[style].fg, paletteFor(bg, 16)[style].bg]) if (c !== undefined) expect(c, `${bg} 16 ${style}`).toBeLessThan(8);
      }
    }
  });

  // "dark" chosen is known dark, judged on dark; "auto" before the terminal answers is dark
  // as a guess, judged on both
  for (const bg of ["dark", "light", "guess"] as const) {
    for (const t of TERMINALS) {
      const on = bg === "guess" ? judgedOn.dark : bg === "dark" ? ["dark" as const] : judgedOn[bg];
      it(`"${bg}" on ${t.term} (${t.colors} colours): text ≥ ${TEXT}:1, rules and borders ≥ ${GRAPHICS}:1 on ${on.join(" and ")}`, async () => {
        const theme = new Theme(false);
        theme.setChoice(bg === "guess" ? "auto" : bg);
        const { lines, what } = variants();
        const cells = await paintThrough(theme, t.term, lines);
        const failures: string[] = [];
        what.forEach((v, row) => {
          const need = DECORATION.has(v.style) ? GRAPHICS : TEXT;
          const cell = cells[row]![0]!;
          for (const against of on) {
            const r = cellContrast(cell, against);
            if (r < need) failures.push(`${v.style} (${v.how}) on ${against}: ${r.toFixed(2)} (fg ${cell.fg}, bg ${cell.bg}, bold ${cell.bold})`);
          }
        });
        expect(failures).toEqual([]);
      });
    }
  }

  it("in 8 and 16 colours the code has colours on a background known to be dark, as on a light one, and none while dark is a guess", async () => {
    const src = (): Line => [
      { t: "const", s: "hl.keyword" },
      { t: " x = ", s: "codeBlock" },
      { t: '"s"', s: "hl.string" },
      { t: " + ", s: "codeBlock" },
      { t: "42", s: "hl.number" },
    ];
    for (const term of ["xterm", "xterm-16color"]) {
      const coloured = async (set: (t: Theme) => void): Promise<number> => {
        const theme = new Theme(false);
        set(theme);
        const cells = await paintThrough(theme, term, [src()]);
        return new Set(cells[0]!.filter((c) => c.ch.trim() !== "" && c.fg !== "default").map((c) => c.fg)).size;
      };
      expect(await coloured((t) => t.setChoice("dark")), `${term} dark chosen`).toBeGreaterThanOrEqual(2);
      expect(await coloured((t) => t.setDetected("dark")), `${term} dark answered`).toBeGreaterThanOrEqual(2);
      expect(await coloured((t) => t.setChoice("light")), `${term} light`).toBeGreaterThanOrEqual(2);
      expect(await coloured(() => undefined), `${term} dark guessed`).toBe(0);
    }
  });

  it("in 8 and 16 colours, inline code and bold-italic are not red (they read as errors)", async () => {
    for (const bg of ["dark", "light"] as const) {
      for (const term of ["xterm", "xterm-16color"]) {
        const theme = new Theme(false);
        theme.setChoice(bg);
        const cells = await paintThrough(theme, term, [[{ t: "code", s: "code" }], [{ t: "em", s: "em", b: true }], [{ t: "code", s: "code", b: true }]]);
        for (const row of cells.slice(0, 3)) {
          const p = shown(row[0]!, bg);
          const red = (c: readonly number[]): boolean => c[0]! > 150 && c[1]! < 80 && c[2]! < 80;
          expect(red(p.fg) || red(p.bg), `${bg} ${term}: ${JSON.stringify(row[0])}`).toBe(false);
        }
      }
    }
  });
});

const SCREENS = path.resolve(import.meta.dirname, "../../docs/screens");

interface Capture {
  file: string;
  /** the text capture of the same screen */
  text: string;
  term: string;
  /** what the terminal answered to OSC 11 (null: it did not) */
  answered: Background | null;
  /** the theme the screen was drawn in */
  theme: Background;
}

describe("the captures in docs/screens/", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(SCREENS, "colours.json"), "utf8")) as { captures: Capture[] };

  it("come in dark and light, and from an 8-colour terminal that did not answer", () => {
    expect(new Set(manifest.captures.map((c) => c.theme))).toEqual(new Set(["dark", "light"]));
    expect(manifest.captures.some((c) => c.term === "xterm" && c.answered === null)).toBe(true);
  });

  for (const cap of manifest.captures) {
    it(`${cap.file}: every cell reads at ${TEXT}:1 (lines ${GRAPHICS}:1) on ${judgedOn[cap.theme].join(" and ")}`, () => {
      const rows = fromAnsi(fs.readFileSync(path.join(SCREENS, cap.file), "utf8").replace(/\n$/, ""));
      // the colours are those of the text capture's screen, cell for cell
      const text = fs.readFileSync(path.join(SCREENS, cap.text), "utf8").replace(/\n$/, "").split("\n");
      expect(rows.map((r) => r.map((c) => c.ch).join("").trimEnd())).toEqual(text);
      const failures: string[] = [];
      let judged = 0;
      rows.forEach((row, y) =>
        row.forEach((cell, x) => {
          if (cell.ch === " ") return;
          judged++;
          const need = isDecoration(cell.ch) ? GRAPHICS : TEXT;
          for (const on of judgedOn[cap.theme]) {
            const r = cellContrast(cell, on);
            if (r < need) failures.push(`${x},${y} "${cell.ch}" on ${on}: ${r.toFixed(2)} (fg ${cell.fg}, bg ${cell.bg})`);
          }
        }),
      );
      expect(judged).toBeGreaterThan(500);
      expect(failures.slice(0, 20)).toEqual([]);
    });
  }
});
