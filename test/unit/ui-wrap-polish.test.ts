// How text wraps where people read it: an exact page never starts a row with the space that
// did not fit, wrapped code and tool output keep their indent, /help's rows wrap under their
// text, and the context pane's table drops its minor columns before it cuts a source's name.
import { describe, expect, it } from "vitest";
import { lineText, type Line } from "../../src/ui/style.js";
import { wrapLine, wrapText } from "../../src/ui/text.js";
import { Transcript } from "../../src/ui/transcript.js";
import { helpLines } from "../../src/ui/run-command.js";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { renderMarkdown } from "../../src/ui/markdown.js";
import { ContextPane } from "../../src/ui/context-pane.js";
import type { InspectorView, SectionSummary } from "../../src/context/types.js";

const rows = (ls: Line[]): string[] => ls.map(lineText);

describe("wrapping", () => {
  it("an exact page (kept character for character) never starts a row with a space, and loses none", () => {
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho";
    // from the width of the longest word on: a word that fills a row alone is followed by its space
    for (let w = 8; w <= 40; w++) {
      const out = rows(wrapText(text, w, undefined, { preserve: true }));
      for (const r of out) expect(r.startsWith(" "), `${w}: ${JSON.stringify(r)}`).toBe(false);
      expect(out.join("")).toBe(text);
    }
  });

  it("wrapped code keeps its indent; a line indented by half the width or more wraps as before", () => {
    const line: Line = [{ t: "        return someFunction(argumentNumberOne, argumentNumberTwo, three);" }];
    const out = rows(wrapLine(line, 30, { hard: true, keepIndent: true }));
    expect(out.length).toBeGreaterThan(1);
    for (const r of out.slice(1)) expect(r.startsWith("        ") && r[8] !== " ", JSON.stringify(r)).toBe(true);
    const deep = rows(wrapLine([{ t: `${" ".repeat(20)}${"x".repeat(40)}` }], 30, { hard: true, keepIndent: true }));
    expect(deep[1]!.startsWith(" ")).toBe(false);
  });

  it("a code block in an answer keeps its indent when it wraps", () => {
    const md = "```ts\nfunction f() {\n    const value = computeSomethingLong(first, second, third, fourth);\n}\n```";
    const out = rows(renderMarkdown(md, 40));
    const at = out.findIndex((r) => r.includes("const value"));
    const lead = (r: string): number => r.length - r.trimStart().length;
    expect(lead(out[at + 1]!)).toBe(lead(out[at]!));
  });

  it("/help's rows wrap under their text, not at column 2", () => {
    const t = new Transcript();
    t.lines(helpLines(defaultKeymap()));
    const out = rows(t.view(120, 200).lines);
    const at = out.findIndex((r) => r.includes("/sessions [ID]"));
    expect(at).toBeGreaterThan(-1);
    const textCol = out[at]!.indexOf("pick a");
    const next = out[at + 1]!;
    expect(next.length - next.trimStart().length, JSON.stringify(next)).toBe(textCol);
  });
});

describe("the context pane's table", () => {
  const sec = (index: number, source: string): SectionSummary => ({
    index,
    kind: "context",
    source,
    items: 12,
    bytes: 123_456 + index,
    estimate: { tokens: 30_000 + index, method: "chars/4" },
    preview: "",
    chars: 8000,
    pages: 16,
    deltaBytes: 1204,
  });
  const view: InspectorView = {
    state: "current",
    meta: { provider: "anthropic", model: "m", capturedAt: "2026-11-30T10:00:00.000Z", iteration: 1, totalBytes: 1 },
    sections: [sec(0, "system"), sec(1, "workspace AGENTS.md"), sec(2, "history")],
  };
  const src = { inspectorView: async () => view, inspectorPage: async () => undefined };

  it("drops the items and change columns before it cuts a source's name", async () => {
    const pane = new ContextPane(src, () => undefined);
    await pane.refresh();
    const keys = { page: "←/→", section: "↑/↓", scroll: "PgUp/PgDn", close: "Esc" };
    const narrow = rows(pane.render(48, 30, keys)).join("\n");
    expect(narrow).toContain("workspace AGENTS.md");
    expect(narrow).not.toContain("workspac…");
    const wide = rows(pane.render(100, 30, keys)).join("\n");
    expect(wide).toMatch(/items/);
    expect(wide).toMatch(/change/);
  });
});
