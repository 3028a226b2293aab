// The status line at every width from 40 to 200 columns: a part is dropped only when even
// its shortest form has no room, what fits is shown, the figure shortens before it goes, and
// an over-window figure stays at 120 columns.
import { describe, expect, it } from "vitest";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { figureForms, shortTokens, statusLine, type StatusInput } from "../../src/ui/status.js";
import { lineText } from "../../src/ui/style.js";
import { lineWidth } from "../../src/ui/text.js";

const km = defaultKeymap();
const BASE: StatusInput = {
  info: { provider: "anthropic", model: "claude-sonnet-4-5" },
  sessionId: "3f9c2a1b7d0e",
  state: "idle",
  busy: false,
  now: 10_000,
  context: {
    estimate: "next request ≈ 34,765 tokens (o200k tokenizer + images by size)",
    figure: { basis: "next request", tokens: 34_765, method: "o200k tokenizer + images by size" },
    window: 200_000,
    compaction: "auto",
  },
  usage: { inputTokens: 2539, outputTokens: 27_000 },
  km,
};
const OVER: StatusInput = {
  ...BASE,
  context: {
    estimate: "≈ 245,120 tokens (o200k tokenizer + images by size)",
    figure: { basis: "last request", tokens: 245_120, method: "o200k tokenizer + images by size" },
    window: 200_000,
    compaction: "auto · auto-compaction failed",
  },
};
const text = (s: StatusInput, cols: number): string => lineText(statusLine(s, cols));
const SEP = " · ";

describe("the status line fits what fits", () => {
  it("is exactly as wide as the screen, and leaves no room a dropped part would fit in, at every width 40..200", () => {
    for (const input of [BASE, OVER, { ...BASE, info: { ...BASE.info, api: { url: "http://127.0.0.1:43210", tokenFile: "/t" } } }]) {
      for (let cols = 40; cols <= 200; cols++) {
        const line = statusLine(input, cols);
        expect(lineWidth(line), `${cols}`).toBe(cols);
        const t = lineText(line);
        const free = t.length - t.trimEnd().length;
        // each part it could have shown: the session id, the figure (short) and the usage (short)
        const id = "3f9c2a1b";
        const candidates = [id, ...figureForms(input.context!).map((f) => lineText(f))];
        const shownId = t.includes(id);
        if (!shownId) expect(free, `${cols}: the id is dropped with ${free} columns free`).toBeLessThan(SEP.length + id.length + 1);
        const shortest = candidates[candidates.length - 1]!;
        const figureShown = candidates.slice(1).some((f) => t.includes(f));
        if (!figureShown) expect(free, `${cols}: the figure is dropped with ${free} columns free`).toBeLessThan(SEP.length + shortest.length + 1);
        expect(t).toMatch(/^ idle · /);
        expect(t).toContain("^O context");
      }
    }
  });

  it("keeps the token figure and the session id at 80 and 90 columns", () => {
    for (const cols of [80, 90]) {
      const t = text(BASE, cols);
      expect(t, `${cols}`).toContain("3f9c2a1b");
      expect(t, `${cols}`).toMatch(/next ≈ 34(\.8k|,765)/);
    }
  });

  it("keeps an over-window figure at 120 columns, shortened, and says it is over", () => {
    const t = text(OVER, 120);
    expect(t).toMatch(/≈ 245(\.1k|,120)/);
    expect(t).toMatch(/over/);
    expect(t).toContain("3f9c2a1b");
  });

  it("puts back the longest form that fits as the screen widens", () => {
    expect(text(BASE, 200)).toContain("next request ≈ 34,765 / 200,000 tokens (o200k tokenizer + images by size)");
    let last = 0;
    for (let cols = 40; cols <= 200; cols++) {
      const shown = text(BASE, cols).trimEnd().length;
      // never a much shorter line at a wider screen: what fitted still fits
      expect(shown, `${cols}`).toBeGreaterThanOrEqual(last - 20);
      last = shown;
    }
  });

  it("keeps the task line whole, with the permission mode and sandbox shown, at 160 columns", () => {
    const input: StatusInput = { ...BASE, info: { ...BASE.info, permission: "ask", sandbox: "sandbox workspace-write" }, tasks: "tasks 1/3 · now: patch the loop" };
    const t = text(input, 160);
    expect(t).toContain("tasks 1/3 · now: patch the loop");
    expect(t).toMatch(/next ≈ 34(\.8k|,765)/);
    expect(t).toContain("3f9c2a1b");
    // at every width the task line takes only what the model, the id and the figure leave
    const without: StatusInput = { ...input, tasks: undefined };
    for (let cols = 40; cols <= 200; cols++) {
      const a = text(input, cols);
      const b = text(without, cols);
      expect(a.includes("3f9c2a1b"), `${cols}`).toBe(b.includes("3f9c2a1b"));
      expect(/≈ 34(\.8k|,765)/.test(a), `${cols}`).toBe(/≈ 34(\.8k|,765)/.test(b));
      expect(a.includes("claude-sonnet-4-5"), `${cols}`).toBe(b.includes("claude-sonnet-4-5"));
    }
  });

  it("writes tokens short", () => {
    expect([950, 1000, 34_765, 200_000, 999_999, 1_250_000].map(shortTokens)).toEqual(["950", "1k", "34.8k", "200k", "1000k", "1.3M"]);
  });
});
