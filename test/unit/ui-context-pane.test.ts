import { describe, expect, it } from "vitest";
import { ContextPane, type InspectorSource } from "../../src/ui/context-pane.js";
import { lineText, type Line } from "../../src/ui/style.js";
import type { InspectorView, Page, SectionSummary } from "../../src/context/types.js";
import { recordingSource } from "../helpers/inspector-source.js";

const keys = { page: "←/→", section: "↑/↓", scroll: "PgUp/PgDn", close: "Esc" };
const text = (ls: Line[]): string => ls.map(lineText).join("\n");

function section(index: number, kind: SectionSummary["kind"], source: string, items: number, pages: number): SectionSummary {
  return { index, kind, source, items, bytes: 1000 + index, estimate: { tokens: 250 + index, method: "chars/4" }, preview: "", chars: pages * 8000, pages, deltaBytes: index === 2 ? 64 : null };
}

const source = (view: InspectorView) => recordingSource(view);

const current: InspectorView = {
  state: "current",
  meta: { provider: "anthropic", model: "claude-x", capturedAt: "2026-11-30T10:00:00.000Z", iteration: 2, totalBytes: 4006, providerUsage: { inputTokens: 1200, outputTokens: 80 } },
  sections: [section(0, "system", "system", 1, 1), section(1, "context", "AGENTS.md", 1, 1), section(2, "history", "history", 6, 3), section(3, "tools", "tools", 7, 2)],
};

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

describe("context pane", () => {
  it("opened again after a capture it missed, it says loading… until the new request is read, never the old request's figures", async () => {
    // the previous request: the same sections with half the bytes
    const before: InspectorView = { ...current, meta: { ...current.meta, totalBytes: 2000 }, sections: current.sections.map((x) => ({ ...x, bytes: 500, estimate: { tokens: 100, method: "chars/4" } })) };
    let view = before;
    const src = { ...source(current), inspectorView: async () => view };
    const pane = new ContextPane(src, () => undefined);
    await pane.refresh();
    expect(text(pane.render(90, 30, keys))).toContain("total 2,000 bytes · ≈ 400 tokens (chars/4)");
    // closed; a turn sends the next request (the screen calls outdated() on its capture event)
    view = current;
    pane.outdated();
    const opening = text(pane.render(90, 30, keys));
    expect(opening).toContain("loading…");
    expect(opening).not.toContain("total 2,000 bytes");
    await pane.refresh();
    expect(text(pane.render(90, 30, keys))).toContain("total 4,006 bytes · ≈ 1,006 tokens (chars/4)");
  });

  it("lists the sections with counts, meta, and the first page", async () => {
    const src = source(current);
    const pane = new ContextPane(src, () => undefined);
    await pane.refresh();
    const s = text(pane.render(90, 30, keys));
    for (const name of ["system", "AGENTS.md", "history", "tools"]) expect(s).toContain(name);
    expect(s).toContain("iteration 2");
    expect(s).toContain("window unknown");
    expect(s).toContain("provider usage (previous response, as reported): 1,200 input, 80 output tokens");
    // sections counted from 1, as `context --section` takes them
    expect(s).toMatch(/3\s+history\s+6\s+1,002\s+≈ 252\s+\+64\s+3/);
    expect(s).toMatch(/^1\s+system\s+1\s+1,000\s/m);
    expect(s).toContain("1 system · page 1 of 1");
    // the whole request's figure, the one the status line gives: 250 + 251 + 252 + 253
    expect(s).toContain("total 4,006 bytes · ≈ 1,006 tokens (chars/4)");
    expect(s).toContain("text of section 0 page 0");
  });

  it("steps sections and pages with only the two read calls", async () => {
    const src = source(current);
    const pane = new ContextPane(src, () => undefined);
    await pane.refresh();
    pane.stepSection(1);
    pane.stepSection(1);
    await settle();
    pane.stepPage(1);
    await settle();
    let s = text(pane.render(90, 30, keys));
    expect(s).toContain("3 history · page 2 of 3");
    expect(s).toContain("text of section 2 page 1");
    pane.stepPage(1);
    pane.stepPage(1); // past the last page: stays
    await settle();
    s = text(pane.render(90, 30, keys));
    expect(s).toContain("page 3 of 3");
    pane.stepPage(-1);
    await settle();
    expect(text(pane.render(90, 30, keys))).toContain("page 2 of 3");
    expect(src.calls.every((c) => c === "view" || c.startsWith("page "))).toBe(true);
    expect(src.calls.filter((c) => c === "view")).toHaveLength(1);
  });

  it("says pending with the reason when there is no current request", async () => {
    const pane = new ContextPane(source({ state: "pending", reason: "model switched to openai:gpt-4o", since: "2026-11-30T10:00:00Z" }), () => undefined);
    await pane.refresh();
    const s = text(pane.render(60, 20, keys));
    expect(s).toContain("pending: model switched to openai:gpt-4o");
    expect(s).not.toContain("next request ≈");
  });

  it("while pending, gives the estimate of the next request that the status line gives", async () => {
    let figure: { basis: "last request" | "next request"; tokens: number; method: string } = { basis: "next request", tokens: 1200, method: "chars/4" };
    const src = { ...source({ state: "pending", reason: "project context reloaded (/reload)", since: "2026-11-30T10:00:00Z" }), contextStatus: () => ({ compaction: "none", figure }) };
    const pane = new ContextPane(src, () => undefined);
    await pane.refresh();
    expect(text(pane.render(80, 20, keys))).toContain("next request ≈ 1,200 tokens (chars/4)");
    // a figure of another request (the controller has not caught up yet) is not shown as this one's
    figure = { basis: "last request", tokens: 99, method: "chars/4" };
    expect(text(pane.render(80, 20, keys))).not.toMatch(/≈ 99 /);
  });

  it("marks a refresh after a capture as updated, for a moment", async () => {
    let now = 1_000;
    const pane = new ContextPane(source(current), () => undefined, () => now);
    await pane.refresh(true);
    expect(text(pane.render(60, 20, keys))).toContain("updated");
    now = 6_000;
    expect(text(pane.render(60, 20, keys))).not.toContain("updated");
  });

  it("fills exactly the height it is given, footer last", async () => {
    const pane = new ContextPane(source(current), () => undefined);
    await pane.refresh();
    const lines = pane.render(50, 12, keys);
    expect(lines).toHaveLength(12);
    expect(lineText(lines[11]!)).toContain("Esc close");
  });
});

describe("context pane in a short window", () => {
  // a request as it is at the start of real work: six sections, and a history page of 200 lines
  const longPage = Array.from({ length: 200 }, (_, i) => `page line ${i + 1}`).join("\n");
  const six: InspectorView = {
    state: "current",
    meta: { provider: "anthropic", model: "claude-sonnet-4-5", capturedAt: "2026-11-30T10:00:00.000Z", iteration: 3, totalBytes: 48_211, contextWindow: 200_000, providerUsage: { inputTokens: 11_800, outputTokens: 420 }, compaction: "microcompact: 2 old tool results left out" },
    sections: [
      section(0, "system", "system", 1, 1),
      section(1, "context", "AGENTS.md", 1, 1),
      section(2, "context", "CLAUDE.md", 1, 1),
      section(3, "history", "history", 24, 1),
      section(4, "tools", "tools", 7, 2),
    ],
  };
  const longSource = (): InspectorSource => ({
    ...source(six),
    async inspectorPage(s: number, p: number): Promise<Page | undefined> {
      return { section: s, page: p, pages: 1, text: s === 3 ? longPage : `text of section ${s}` };
    },
    contextStatus: () => ({ compaction: "microcompact+summary at 80% of the window" }),
  });
  const pageRows = (ls: Line[]): number => ls.filter((l) => /^page line \d+$/.test(lineText(l))).length;

  async function onHistory(): Promise<ContextPane> {
    const pane = new ContextPane(longSource(), () => undefined);
    await pane.refresh();
    for (let i = 0; i < 3; i++) pane.stepSection(1);
    await settle();
    return pane;
  }

  // the pane's sizes on a 60×20 and an 80×24 terminal: all of the screen but the hint, prompt and status rows
  it("at 60×20 the page text gets half the pane or more, and paging moves through it", async () => {
    const pane = await onHistory();
    let lines = pane.render(60, 17, keys);
    expect(lines).toHaveLength(17);
    expect(pageRows(lines)).toBeGreaterThanOrEqual(8);
    const s = text(lines);
    expect(s).toContain("page line 1\n");
    // which section and page this is stays on screen, in one line
    expect(s).toContain("4 of 5: history · page 1 of 1");
    pane.scrollPage(1);
    lines = pane.render(60, 17, keys);
    expect(pageRows(lines)).toBeGreaterThanOrEqual(8);
    expect(text(lines)).not.toContain("page line 1\n");
  });

  it("at 80×24 the page text gets half the pane or more, with the section table kept", async () => {
    const pane = await onHistory();
    const lines = pane.render(80, 21, keys);
    expect(pageRows(lines)).toBeGreaterThanOrEqual(10);
    const s = text(lines);
    for (const name of ["system", "AGENTS.md", "CLAUDE.md", "history", "tools"]) expect(s).toContain(name);
    // the figure the status line gives, on one line
    expect(s).toContain("total 48,211 bytes · ≈ 1,260 tokens (chars/4)");
  });

  it("a tall pane keeps the whole header; a tiny one keeps the section rule and the page", async () => {
    const pane = await onHistory();
    const tall = text(pane.render(80, 50, keys));
    expect(tall).toContain("compaction in force: microcompact+summary at 80% of the window");
    expect(tall).toContain("bytes are exact UTF-8");
    const tiny = pane.render(40, 6, keys);
    expect(tiny).toHaveLength(6);
    expect(lineText(tiny[0]!)).toContain("history · page 1 of 1");
    expect(pageRows(tiny)).toBe(4);
  });
});
