// The context pane's exact figures from the config's countTokens "each request": shown for
// the capture they count only, labelled with their method and the time asked, on their own
// line apart from the estimates; a provider without a counter says its figures are the
// tokenizer's; what a server said passes the pane's inert filter.
import { describe, expect, it } from "vitest";
import { ContextPane, type InspectorSource } from "../../src/ui/context-pane.js";
import { lineText, type Line } from "../../src/ui/style.js";
import type { InspectorView, SectionSummary } from "../../src/context/types.js";
import type { AutoCount } from "../../src/session/controller/shown-request.js";

const keys = { page: "←/→", section: "↑/↓", scroll: "PgUp/PgDn", close: "Esc" };
const text = (ls: Line[]): string => ls.map(lineText).join("\n");
const AT = "2026-11-30T10:00:00.000Z";

function section(index: number, kind: SectionSummary["kind"], source: string): SectionSummary {
  return { index, kind, source, items: 1, bytes: 1000, estimate: { tokens: 250, method: "chars/4" }, preview: "", chars: 10, pages: 1, deltaBytes: null };
}
const view: InspectorView = {
  state: "current",
  meta: { provider: "anthropic", model: "claude-x", capturedAt: AT, iteration: 1, totalBytes: 3000 },
  sections: [section(0, "system", "system"), section(1, "history", "history"), section(2, "tools", "tools")],
};

function pane(auto: () => AutoCount | undefined, count?: InspectorSource["countShownRequest"]): ContextPane {
  const src: InspectorSource = {
    inspectorView: async () => view,
    inspectorPage: async (s, p) => ({ section: s, page: p, pages: 1, text: "page text" }),
    autoCount: auto,
    ...(count ? { countShownRequest: count } : {}),
  };
  return new ContextPane(src, () => undefined);
}

const counts = (total: number, askedAt = "2026-11-30T10:00:01.500Z") => ({
  method: "count_tokens (anthropic)",
  askedAt,
  total,
  sections: [
    { source: "system", tokens: 40 },
    { source: "history", tokens: 30 },
    { source: "tools", tokens: 20 },
  ],
});

describe("the pane's automatic exact counts", () => {
  it("shows the figures of the capture shown, labelled, apart from the estimates", async () => {
    let auto: AutoCount | undefined = { of: AT, asking: true };
    const p = pane(() => auto);
    await p.refresh();
    expect(text(p.render(140, 40, keys))).toContain("count_tokens: asking the provider…");
    auto = { of: AT, counts: counts(93) };
    const s = text(p.render(140, 40, keys));
    expect(s).toContain("exact, count_tokens (anthropic), asked 10:00:01: total 93 tokens · system 40 · history 30 · tools 20");
    // the estimates keep their own method and line
    expect(s).toContain("≈ 750 tokens (chars/4)");
    expect(s.split("\n").filter((l) => l.includes("count_tokens")).every((l) => !l.includes("≈"))).toBe(true);
  });

  it("never shows another capture's figures", async () => {
    const p = pane(() => ({ of: "2026-11-30T09:59:00.000Z", counts: counts(11) }));
    await p.refresh();
    expect(text(p.render(140, 40, keys))).not.toContain("count_tokens");
  });

  it("a provider without a counter: its figures stay the tokenizer's, and the pane says so", async () => {
    const p = pane(() => ({ of: AT, note: "openai has no provider count: the figures are the tokenizer's estimates" }));
    await p.refresh();
    expect(text(p.render(140, 40, keys))).toContain("exact counts: openai has no provider count: the figures are the tokenizer's estimates");
  });

  it("a failure is shown as one, inert; the key's own count wins over the automatic one", async () => {
    let auto: AutoCount | undefined = { of: AT, error: "server said \u001b[31mred\u0007 no" };
    const p = pane(() => auto, async () => counts(200, "2026-11-30T10:05:00.000Z"));
    await p.refresh();
    const failed = text(p.render(140, 40, keys));
    expect(failed).toContain("exact count failed: server said");
    expect(failed).not.toContain("\u001b");
    expect(failed).not.toContain("\u0007");
    auto = { of: AT, counts: counts(93) };
    await p.countExact();
    const s = text(p.render(140, 40, keys));
    expect(s).toContain("asked 10:05:00: total 200 tokens");
    expect(s).not.toContain("total 93 tokens");
  });
});
