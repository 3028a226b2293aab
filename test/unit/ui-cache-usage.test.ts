// The provider's cache usage on the screen, in-process (src/ui into a
// headless xterm): the status line gives the last request's hit share, the context pane's
// usage line the read / written / uncached tokens, labelled as the provider's report.
import { afterEach, describe, expect, it } from "vitest";
import { startTui, type Tui } from "../../src/ui/app.js";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { statusLine, type StatusInput } from "../../src/ui/status.js";
import { lineText } from "../../src/ui/style.js";
import { cacheHitShare, formatCacheUsage } from "../../src/context/format.js";
import type { InspectorView } from "../../src/context/types.js";
import { KEYS } from "../helpers/pty.js";
import { asController, HeadlessTerminal, ScriptedController } from "../helpers/screen.js";

const open: Tui[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

// 9,000 of 10,200 input tokens read from cache: 88.2%
const usage = { inputTokens: 100, outputTokens: 50, cacheReadTokens: 9000, cacheWriteTokens: 1100 };

const view: Extract<InspectorView, { state: "current" }> = {
  state: "current",
  meta: { provider: "anthropic", model: "claude-sonnet-4-5", capturedAt: "2026-11-30T10:00:00.000Z", iteration: 2, totalBytes: 40_000, contextWindow: 200_000, providerUsage: usage },
  sections: [
    { index: 0, kind: "system", source: "system", items: 1, bytes: 4000, estimate: { tokens: 1000, method: "chars/4" }, preview: "", chars: 4000, pages: 1, deltaBytes: null },
    { index: 1, kind: "history", source: "history", items: 4, bytes: 36_000, estimate: { tokens: 9000, method: "chars/4" }, preview: "", chars: 36_000, pages: 5, deltaBytes: 1200 },
  ],
};

describe("cache usage on the screen", () => {
  it("the status line shows the last request's hit share once the provider reports it", async () => {
    const term = new HeadlessTerminal(200, 30);
    const tui = startTui({ noColor: false, terminal: term.terminal() });
    open.push(tui);
    const c = new ScriptedController();
    c.inspectorView = (async () => view) as unknown as ScriptedController["inspectorView"];
    void tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [] });
    await term.waitFor(/Type a request|Esc interrupts/);
    expect(term.lastRow()).not.toContain("cache ");
    c.emit({ type: "usage", usage });
    await term.waitFor(() => term.lastRow().includes("cache 88%"));
    // the next request's report replaces it
    c.emit({ type: "usage", usage: { inputTokens: 10_200, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    await term.waitFor(() => term.lastRow().includes("cache 0%"));

    term.send(KEYS.ctrl("o"));
    // the pane's line, wrapped at its width
    await term.waitFor("provider usage (previous response, as reported): 9,000 read from cache, 1,100 written to");
    expect(term.screenText()).toContain("cache, 100 uncached input, 50 output tokens (cache 88%)");
  });

  it("no share without a cache report; never 100% while anything was not read", () => {
    const base: StatusInput = {
      info: { provider: "openai", model: "local" },
      sessionId: "0123456789abcdef",
      state: "idle",
      busy: false,
      now: 0,
      usage: { inputTokens: 1200, outputTokens: 34 },
      km: defaultKeymap(),
    };
    expect(lineText(statusLine(base, 200))).not.toContain("cache");
    expect(cacheHitShare({ inputTokens: 1200, outputTokens: 34 })).toBeUndefined();
    expect(lineText(statusLine({ ...base, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 999 } }, 200))).toContain("cache 99%");
    expect(formatCacheUsage({ inputTokens: 3, outputTokens: 4 })).toBe("3 input, 4 output tokens");
  });
});
