// The highlighter loads in the background: until it has arrived, code is shown plain (never
// waiting for it), and the transcript lays out again exactly the items that showed code plain.
// This file must be the first to use the highlighter in its module graph (vitest isolates
// test files), so the "before" state is real.
import { describe, expect, it } from "vitest";
import { highlightCode, highlighterLoaded, loadHighlighter, plainMisses } from "../../src/ui/highlight.js";
import { Transcript } from "../../src/ui/transcript.js";
import type { Line } from "../../src/ui/style.js";
import type { StoredMessage } from "../../src/record/types.js";

const styles = (ls: Line[]): (string | undefined)[] => ls.flat().map((s) => s.s);

function answer(id: number, text: string): StoredMessage {
  return { id, sessionId: "s", seq: id, role: "assistant", blocks: [{ type: "text", text }], status: "complete", createdAt: "2026-01-01T00:00:00Z" };
}

describe("highlighting off the first frame", () => {
  it("shows code plain while the highlighter loads, then colours the items that had code", async () => {
    expect(highlighterLoaded()).toBe(false);
    const t = new Transcript();
    t.load([answer(1, "Some prose, no code."), answer(2, "Here:\n\n```ts\nconst x = 1; // note\n```"), answer(3, "Code without a language:\n\n```\nplain\n```")]);

    const before = plainMisses();
    const first = t.view(60, 30).lines;
    // the ts block was shown plain, counted once; the unlabelled one is plain anyway
    expect(plainMisses()).toBe(before + 1);
    expect(styles(first)).not.toContain("hl.keyword");
    expect(first.some((l) => l.some((s) => s.t.includes("const x = 1; // note")))).toBe(true);
    expect(t.awaitingColour()).toBe(true);

    // the plain lines are not cached: asked again, the code is still waiting for colour
    expect(highlightCode("const x = 1; // note", "ts").flat().map((s) => s.s)).toEqual(["codeBlock"]);

    await loadHighlighter();
    expect(highlighterLoaded()).toBe(true);
    const rendersBefore = t.renders;
    expect(t.recolour()).toBe(true);
    const after = t.view(60, 30).lines;
    expect(styles(after)).toContain("hl.keyword");
    expect(styles(after)).toContain("hl.comment");
    // only the item with the labelled code block was laid out again
    expect(t.renders - rendersBefore).toBe(1);
    expect(t.awaitingColour()).toBe(false);
    expect(t.recolour()).toBe(false);
  });

  it("once loaded, code is coloured on the first layout and nothing waits", () => {
    const t = new Transcript();
    const misses = plainMisses();
    t.load([answer(10, "```js\nlet y = 'z';\n```")]);
    expect(styles(t.view(60, 10).lines)).toContain("hl.keyword");
    expect(plainMisses()).toBe(misses);
    expect(t.awaitingColour()).toBe(false);
  });
});
