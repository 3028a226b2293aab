// The rewind box drawn from its steps (pure): every step fits its box, a path or prompt from
// outside reaches the terminal inert, diffs come under their paths, and what cannot be
// restored is said before anything is done.
import { describe, expect, it } from "vitest";
import { previewBody, rewindBox } from "../../src/ui/rewind-box.js";
import { moveBy, type Modal } from "../../src/ui/modal-state.js";
import type { RewindPreview } from "../../src/session/controller/rewind.js";
import type { Line } from "../../src/ui/style.js";

const KEYS = { move: "↑/↓", choose: "Enter", close: "Esc", diff: "d" };
const text = (lines: Line[]): string => lines.map((l) => l.map((s) => s.t).join("")).join("\n");
const session = { id: "abc123abc123", title: "", workspace: "/w", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" };
const prompt = { n: 2, text: "fix \x1b[31mred\x1b[0m it", images: 0, createdAt: "2026-01-01T10:00:00.000Z" };

const preview: RewindPreview = {
  session,
  prompt,
  mode: "both",
  code: {
    root: "/w",
    items: [
      { path: "a.txt", action: "restore", target: { kind: "file", hash: "0".repeat(64), size: 3, mode: 0o644 }, current: { kind: "file", hash: "1".repeat(64), size: 3, mode: 0o644 }, prompt: 2, editedSince: false },
      { path: "evil\nname\x1b]0;x\x07", action: "delete", target: { kind: "absent" }, current: { kind: "file", hash: "2".repeat(64), size: 1, mode: 0o644 }, prompt: 3, editedSince: true },
    ],
    unrestorable: ["pipe: a FIFO, a special file is not checkpointed"],
    unchanged: 0,
    notes: [],
  },
  conversation: { keeps: 3, leaves: 5 },
};

describe("the rewind box", () => {
  it("the preview names every path, inert, what cannot be restored, and the fork", () => {
    const body = text(previewBody(preview, undefined, 200));
    expect(body).toContain("Code: 2 paths go back to how they were before prompt 2:");
    expect(body).toContain("restore a.txt");
    // the name's newline and escapes are shown escaped, never sent raw
    expect(body).toContain('delete "evil\\nname\\u001b]0;x\\u0007" (made from prompt 3 on)');
    expect(body).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(body).toContain("changed since albedo's last turn touched it");
    expect(body).toContain("Cannot be put back (1):");
    expect(body).toContain("pipe: a FIFO");
    expect(body).toContain("Conversation: a new session with the 3 messages before prompt 2");
    expect(body).not.toContain("\x1b");
  });

  it("diffs on request come under their paths", () => {
    const diffs = new Map([["a.txt", "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-new\n+old\n"]]);
    const body = text(previewBody(preview, diffs, 80));
    const at = body.indexOf("restore a.txt");
    expect(body.indexOf("-new")).toBeGreaterThan(at);
    expect(body.indexOf("+old")).toBeGreaterThan(at);
    expect(text(previewBody(preview, "loading", 80))).toContain("reading the diffs…");
  });

  it("each step fits its box at any size, and lists its keys once ready", () => {
    const prompts = Array.from({ length: 30 }, (_, i) => ({ ...prompt, n: i + 1, text: `prompt number ${i + 1}` }));
    const steps = [
      { at: "prompt" as const, prompts, index: 29 },
      { at: "mode" as const, prompt, index: 1 },
      { at: "planning" as const, prompt, mode: "both" as const },
      { at: "preview" as const, preview, scroll: 0, maxScroll: 0 },
    ];
    for (const st of steps) {
      for (const [cols, rows] of [[40, 12], [110, 40], [200, 60]] as const) {
        const { box } = rewindBox(st, cols, rows, KEYS, true);
        expect(box.lines.length).toBeLessThanOrEqual(rows - 2);
        expect(box.width).toBeLessThanOrEqual(Math.max(30, cols - 2));
      }
    }
    // the selected prompt is on screen even at the end of a long list
    expect(text(rewindBox(steps[0]!, 110, 20, KEYS).box.lines)).toContain("prompt number 30");
    expect(text(rewindBox(steps[3]!, 110, 40, KEYS).box.lines)).toContain("Enter rewind");
    expect(text(rewindBox(steps[3]!, 110, 40, KEYS, false).box.lines)).not.toContain("Enter rewind");
  });

  it("moving walks the list and the three choices, and scrolls the preview", () => {
    const m: Modal = { kind: "rewind", step: { at: "mode", prompt, index: 0 } };
    const down = moveBy(moveBy(moveBy(m, 1), 1), 1);
    expect(down.kind === "rewind" && down.step.at === "mode" && down.step.index).toBe(2);
    const p: Modal = { kind: "rewind", step: { at: "preview", preview, scroll: 0, maxScroll: 4 } };
    const end = moveBy(p, Infinity);
    expect(end.kind === "rewind" && end.step.at === "preview" && end.step.scroll).toBe(4);
  });
});
