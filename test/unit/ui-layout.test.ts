import { describe, expect, it } from "vitest";
import { centred, layout, promptScroll, promptWidth, SIDE_BY_SIDE_COLS, type Layout, type Rect } from "../../src/ui/layout.js";

/** every rectangle of a layout, by name */
function rects(l: Layout): [string, Rect][] {
  const out: [string, Rect][] = [];
  for (const k of ["transcript", "divider", "gap", "pane", "hint", "prompt", "status"] as const) {
    const r = l[k];
    if (r) out.push([k, r]);
  }
  return out;
}

function overlap(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

describe("layout", () => {
  it("puts the status line last, the prompt above it, the hint line above that", () => {
    const l = layout({ cols: 100, rows: 30, promptRows: 1, paneOpen: false })!;
    expect(l.status).toEqual({ x: 0, y: 29, w: 100, h: 1 });
    expect(l.prompt).toEqual({ x: 0, y: 28, w: 100, h: 1 });
    expect(l.hint).toEqual({ x: 0, y: 27, w: 100, h: 1 });
    expect(l.transcript).toEqual({ x: 0, y: 0, w: 100, h: 27 });
    expect(l.transcriptTextWidth).toBe(99);
    expect(l.pane).toBeUndefined();
  });

  it("grows the prompt to 12 rows and 40% of the screen, no more", () => {
    expect(layout({ cols: 100, rows: 30, promptRows: 5, paneOpen: false })!.prompt.h).toBe(5);
    expect(layout({ cols: 100, rows: 30, promptRows: 50, paneOpen: false })!.prompt.h).toBe(10);
    expect(layout({ cols: 100, rows: 80, promptRows: 50, paneOpen: false })!.prompt.h).toBe(12);
  });

  it("sets the pane beside the transcript from SIDE_BY_SIDE_COLS columns, over it below", () => {
    const wide = layout({ cols: SIDE_BY_SIDE_COLS, rows: 30, promptRows: 1, paneOpen: true })!;
    expect(wide.transcript && wide.pane && wide.divider && wide.gap).toBeTruthy();
    // the columns add up: transcript, rule, blank, pane
    expect(wide.transcript!.w + wide.divider!.w + wide.gap!.w + wide.pane!.w).toBe(SIDE_BY_SIDE_COLS);
    expect(wide.pane!.x + wide.pane!.w).toBe(SIDE_BY_SIDE_COLS);
    const narrow = layout({ cols: SIDE_BY_SIDE_COLS - 1, rows: 30, promptRows: 1, paneOpen: true })!;
    expect(narrow.transcript).toBeUndefined();
    expect(narrow.pane).toEqual({ x: 0, y: 0, w: SIDE_BY_SIDE_COLS - 1, h: 27 });
  });

  it("at every size from 1×2 to 200×60 the parts stay on screen and never overlap", () => {
    for (let cols = 1; cols <= 200; cols += 7) {
      for (let rows = 2; rows <= 60; rows += 3) {
        for (const paneOpen of [false, true]) {
          for (const promptRows of [1, 4, 40]) {
            const l = layout({ cols, rows, promptRows, paneOpen })!;
            const rs = rects(l).filter(([, r]) => r.w > 0 && r.h > 0);
            for (const [name, r] of rs) {
              expect(r.x >= 0 && r.y >= 0 && r.x + r.w <= cols && r.y + r.h <= rows, `${name} at ${cols}×${rows}`).toBe(true);
            }
            for (let i = 0; i < rs.length; i++) {
              for (let j = i + 1; j < rs.length; j++) {
                expect(overlap(rs[i]![1], rs[j]![1]), `${rs[i]![0]} and ${rs[j]![0]} at ${cols}×${rows}`).toBe(false);
              }
            }
          }
        }
      }
    }
    expect(layout({ cols: 0, rows: 24, promptRows: 1, paneOpen: false })).toBeUndefined();
    // one row: the status line is painted last, over the prompt
    expect(layout({ cols: 80, rows: 1, promptRows: 1, paneOpen: false })!.status.y).toBe(0);
  });

  it("scrolls a tall prompt so the cursor's row shows, and centres boxes above the status line", () => {
    expect(promptScroll(0, 30, 10)).toBe(0);
    expect(promptScroll(29, 30, 10)).toBe(20);
    expect(promptScroll(15, 30, 10)).toBe(6);
    expect(promptWidth(1)).toBe(2);
    expect(centred({ cols: 100, rows: 30 }, 60, 9)).toEqual({ x: 20, y: 10, w: 60, h: 9 });
  });
});
