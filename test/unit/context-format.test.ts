import { describe, expect, it } from "vitest";
import { captureRequest } from "../../src/context/capture.js";
import { formatDelta, formatFigure, formatPage, formatView, neutralizeControls, requestEstimate } from "../../src/context/format.js";
import type { InspectorView } from "../../src/context/types.js";
import type { Request } from "../../src/provider/types.js";

const req: Request = {
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  system: "s".repeat(12_345),
  context: [{ source: "AGENTS.md", text: "rules" }],
  history: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
  maxOutputTokens: 1000,
  reasoning: "off",
};

function current(extra: Parameters<typeof captureRequest>[1]): InspectorView {
  const c = captureRequest(req, extra);
  return { state: "current", meta: c.meta, sections: c.sections };
}

describe("formatView", () => {
  it("says pending, with its reason and since when", () => {
    const out = formatView({ state: "pending", reason: "model switched to gpt-4o", since: "2026-01-01T00:00:00Z" });
    expect(out).toContain("pending");
    expect(out).toContain("reason: model switched to gpt-4o");
    expect(out).toContain("since: 2026-01-01T00:00:00Z");
    expect(out).not.toContain("bytes");
  });

  it("shows metadata with an unknown window and no usage", () => {
    const out = formatView(current({ iteration: 2, capturedAt: "2026-01-01T10:00:00Z" }));
    expect(out).toContain("anthropic / claude-sonnet-4-5");
    expect(out).toContain("captured: 2026-01-01T10:00:00Z (iteration 2)");
    expect(out).toContain("context window: unknown");
    expect(out).toContain("provider usage (previous response): none reported");
    expect(out).not.toContain("compaction:");
    // thousands separators and the estimate's method in the table; sections counted from 1,
    // as --section takes them and the screen shows them
    expect(out).toMatch(/^1\s+system\s+1\s+12,345\s+≈ 3,087 tokens \(chars\/4\)\s+new\s+2$/m);
    expect(out).toMatch(/^2\s+AGENTS\.md\s+1\s+5\s+≈ 2 tokens \(chars\/4\)\s+new\s+1$/m);
    expect(out).not.toMatch(/^0\s/m);
    expect(out).toMatch(/--section N \[--page K\], numbered as above, from 1/);
    expect(out).toMatch(/^#\s+source\s+items\s+bytes\s+estimate\s+change\s+pages$/m);
  });

  it("shows a known window, labelled provider usage, compaction and changes", () => {
    const first = captureRequest(req, { iteration: 1, capturedAt: "t0" });
    const v = current({
      iteration: 3,
      capturedAt: "t1",
      contextWindow: 200_000,
      providerUsage: { inputTokens: 41_200, outputTokens: 310, cacheReadTokens: 40_000 },
      compaction: "summary of messages 1–40",
      previousBytes: new Map([...first.sections.map((s) => [`${s.kind}:${s.source}`, s.bytes + 1_500] as const)]),
    });
    const out = formatView(v);
    expect(out).toContain("context window: 200,000 tokens");
    expect(out).toContain(
      "provider usage (previous response): 41,200 input, 310 output, 40,000 cache read tokens",
    );
    expect(out).toContain("compaction: summary of messages 1–40");
    expect(out).toMatch(/^1\s+system\s+.*−1,500\s+2$/m);
  });
});

describe("the whole request's figure", () => {
  it("is the sum of the sections' estimates, printed in the summary", () => {
    const v = current({ iteration: 1, capturedAt: "t" });
    if (v.state !== "current") throw new Error("expected a current view");
    const total = v.sections.reduce((a, s) => a + s.estimate.tokens, 0);
    expect(requestEstimate(v.sections)).toEqual({ tokens: total, method: "chars/4" });
    expect(formatView(v)).toContain(`total: ${v.meta.totalBytes.toLocaleString("en-US")} bytes, ≈ ${total.toLocaleString("en-US")} tokens (chars/4)`);
  });

  it("names every method it relied on, once", () => {
    const e = (tokens: number, method: string): { estimate: { tokens: number; method: string } } => ({ estimate: { tokens, method } });
    // images counted by size in the history: the figure relied on that too
    expect(requestEstimate([e(10, "chars/4"), e(1600, "chars/4 + images by size"), e(5, "chars/4")])).toEqual({ tokens: 1615, method: "chars/4 + images by size" });
    expect(requestEstimate([e(1, "o200k tokenizer"), e(2, "chars/4")])).toEqual({ tokens: 3, method: "o200k tokenizer; chars/4" });
  });

  it("says whether it is the last request or an estimate of the next", () => {
    expect(formatFigure("last request", { tokens: 1226, method: "chars/4" })).toBe("≈ 1,226 tokens (chars/4)");
    expect(formatFigure("next request", { tokens: 1200, method: "chars/4" })).toBe("next request ≈ 1,200 tokens (chars/4)");
  });
});

describe("formatPage and helpers", () => {
  it("counts sections and pages from 1 for people (the page holds them from 0) and prints the text", () => {
    const out = formatPage({ section: 3, page: 0, pages: 2, text: "hello\nworld" });
    expect(out).toBe("section 4, page 1 of 2\n\nhello\nworld");
    const c = captureRequest(req, { iteration: 1, capturedAt: "t" });
    const withSummary = formatPage({ section: 0, page: 1, pages: 2, text: "x" }, c.sections[0]);
    expect(withSummary.split("\n")[0]).toBe("section 1 (system), page 2 of 2");
  });

  it("shows control characters instead of sending them to the terminal", () => {
    const out = formatPage({ section: 0, page: 0, pages: 1, text: "a\u001b]0;title\u0007b\r\tc\u009bd" });
    expect(out).not.toMatch(/[\u001b\u0007\r\u009b]/);
    expect(out).toContain("a^[]0;title^Gb^M\tc\\u009bd");
    expect(neutralizeControls("line\nnext")).toBe("line\nnext");
  });

  it("formats changes with signs", () => {
    expect(formatDelta(null)).toBe("new");
    expect(formatDelta(0)).toBe("0");
    expect(formatDelta(1234)).toBe("+1,234");
    expect(formatDelta(-5)).toBe("−5");
  });
});
