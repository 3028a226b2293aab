// What the screen makes ready while idle for the context pane's key: the pane's view read
// without a frame, and the transcript laid out at the pane's width; counted, not timed.
import { describe, expect, it } from "vitest";
import { ContextPane } from "../../src/ui/context-pane.js";
import { layout } from "../../src/ui/layout.js";
import { prelayout, wantsPrelayout } from "../../src/ui/prelayout.js";
import { Transcript } from "../../src/ui/transcript.js";
import { lineText, type Line } from "../../src/ui/style.js";
import type { InspectorView } from "../../src/context/types.js";
import { recordingSource } from "../helpers/inspector-source.js";

const keys = { page: "←/→", section: "↑/↓", scroll: "PgUp/PgDn", close: "Esc" };
const text = (ls: Line[]): string => ls.map(lineText).join("\n");

const view: InspectorView = {
  state: "current",
  meta: { provider: "anthropic", model: "claude-x", capturedAt: "2026-11-30T10:00:00.000Z", iteration: 1, totalBytes: 9000 },
  sections: [{ index: 0, kind: "history", source: "history", items: 2, bytes: 9000, estimate: { tokens: 2250, method: "chars/4" }, preview: "", chars: 9000, pages: 2, deltaBytes: null }],
};

const source = () => recordingSource(view, (_s, p) => `page ${p} \x1b[31m of the history`);

describe("making the context pane's opening ready while idle", () => {
  it("reads the view and first page once, asks for no frame, and the pane shows them at once when opened", async () => {
    const src = source();
    let frames = 0;
    const pane = new ContextPane(src, () => frames++);
    await pane.prefetch();
    expect(frames).toBe(0);
    expect(src.calls).toEqual(["view", "page 0 0"]);
    // ready already: a second idle moment reads nothing
    await pane.prefetch();
    expect(src.calls).toHaveLength(2);
    pane.open = true;
    const shown = text(pane.render(60, 30, keys));
    expect(shown).toContain("total 9,000 bytes");
    expect(shown).toContain("page 0");
    expect(shown).not.toContain("loading…");
    expect(shown).not.toContain("\x1b");
    // open, it is never read behind the screen's back
    pane.view = undefined;
    await pane.prefetch();
    expect(src.calls).toHaveLength(2);
  });

  it("lays the transcript out at the pane's width only when idle after an answer, pane closed, terminal wide", () => {
    expect(wantsPrelayout({ cols: 160, rows: 40, paneOpen: false, turnIdle: true })).toBe(true);
    expect(wantsPrelayout({ cols: 160, rows: 40, paneOpen: true, turnIdle: true })).toBe(false);
    expect(wantsPrelayout({ cols: 160, rows: 40, paneOpen: false, turnIdle: false })).toBe(false);
    const t = new Transcript(() => 0);
    t.load([]);
    t.answerStart(1);
    t.textDelta(1, Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" "));
    t.message({ id: 1, sessionId: "s", seq: 1, role: "assistant", blocks: [{ type: "text", text: Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ") }], status: "complete", createdAt: "2026-01-01T00:00:00Z" }, 1);
    expect(t.answered()).toBe(true);
    const full = text(t.view(159, 36).lines);
    const src = source();
    const pane = new ContextPane(src, () => undefined);
    const before = t.renders;
    prelayout(t, pane, { cols: 160, rows: 40, promptRows: 1, paneOpen: false, turnIdle: true });
    expect(t.renders).toBe(before + 1);
    expect(text(t.view(159, 36).lines)).toBe(full);
    const laid = t.renders;
    // the pane opens: the transcript beside it, at the width layout.ts gives it, is ready
    const l = layout({ cols: 160, rows: 40, promptRows: 1, paneOpen: true })!;
    expect(l.transcriptTextWidth).toBeLessThan(159);
    expect(text(t.view(l.transcriptTextWidth, l.transcript!.h).lines)).toContain("word2999");
    expect(t.renders).toBe(laid);
  });
});
