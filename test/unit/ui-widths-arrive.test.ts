// Widths before string-width is loaded are estimates (text.ts): the screen loads it at the
// first key, or when a frame had to estimate. What was laid out with an estimate is laid out
// again once the exact widths are in, the growing answer's kept lines included. This file
// loads string-width itself, midway: it must run in a module graph of its own (vitest's
// default isolation per file).
import { describe, expect, it } from "vitest";
import { GrowingMarkdown } from "../../src/ui/markdown-growing.js";
import { renderMarkdown } from "../../src/ui/markdown.js";
import { lineWidth, loadWidths, takeEstimated, widthsExact } from "../../src/ui/text.js";
import type { Line } from "../../src/ui/style.js";

const text = (lines: Line[]) => lines.map((l) => l.map((s) => s.t).join(""));

describe("widths that arrive after a layout", () => {
  it("a growing answer laid out with estimates is laid out again with the exact widths", async () => {
    // U+2615 is two cells; the estimate says one
    const para = `Cups: ${"\u2615 ".repeat(30)}end.`;
    const raw = `${para}\n\nSecond paragraph, plain.\n\nThird ${"\u2615".repeat(10)} para`;
    const md = new GrowingMarkdown();
    expect(widthsExact()).toBe(false);
    let shown = "";
    let before: Line[] = [];
    for (let i = 0; i < raw.length; i += 23) {
      const next = raw.slice(0, i + 23);
      md.grew(shown, next, next.slice(shown.length));
      shown = next;
      before = md.render(shown, 40, (s) => s);
    }
    expect(takeEstimated()).toBe(true);
    // with estimates the cups' paragraph takes fewer rows than it will
    expect(Math.max(...before.map(lineWidth))).toBeLessThanOrEqual(40);

    await loadWidths();
    expect(widthsExact()).toBe(true);
    // the measuring above estimated too: from here on nothing does
    takeEstimated();
    const after = md.render(shown, 40, (s) => s);
    const whole = renderMarkdown(shown, 40);
    expect(text(after)).toEqual(text(whole));
    expect(text(after)).not.toEqual(text(before));
    // every row fits in exact cells
    for (const l of after) expect(lineWidth(l)).toBeLessThanOrEqual(40);
    expect(takeEstimated()).toBe(false);
  });
});
