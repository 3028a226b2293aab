// The transcript's cost model in a long session, counted, not timed: what a keystroke's frame,
// a PageUp and a turn touch, and what the transcript keeps, must not grow with the session.
import { describe, expect, it } from "vitest";
import { Transcript } from "../../src/ui/transcript.js";
import { lineText, type Line } from "../../src/ui/style.js";
import type { Block, StoredMessage } from "../../src/record/types.js";

let nextId = 1;
function msg(role: "user" | "assistant", blocks: Block[]): StoredMessage {
  const id = nextId++;
  return { id, sessionId: "s", seq: id, role, blocks, status: "complete", createdAt: "2026-01-01T00:00:00Z" };
}
const screen = (ls: Line[]): string => ls.map(lineText).join("\n");

/** a prompt, a tool round with a long output, and an answer with Markdown, `n` times */
function session(n: number): StoredMessage[] {
  const out: StoredMessage[] = [];
  const output = Array.from({ length: 120 }, (_, i) => `line ${i} of a long tool output \x1b[31mwith a control sequence\x1b[0m`).join("\n");
  for (let i = 0; i < n; i++) {
    out.push(msg("user", [{ type: "text", text: `question ${i}` }]));
    out.push(msg("assistant", [{ type: "tool_use", id: `call${i}`, name: "bash", input: { command: `cat file${i}` } }]));
    out.push(msg("user", [{ type: "tool_result", toolUseId: `call${i}`, name: "bash", output, isError: false }]));
    out.push(msg("assistant", [{ type: "text", text: `**answer ${i}**\n\n- one\n- two\n\n\`\`\`ts\nconst x = ${i};\n\`\`\`` }]));
  }
  return out;
}

describe("a 50,000-message transcript", () => {
  const t = new Transcript(() => 0);
  t.load(session(12_500));

  it("draws a keystroke's frame touching a few items, laying out none", () => {
    expect(screen(t.view(118, 30).lines)).toContain("answer 12499");
    for (let k = 0; k < 20; k++) {
      const before = t.retained();
      const renders = t.renders;
      // what a typed letter costs the transcript: the frame asks for its window again
      t.view(118, 30);
      expect(t.renders).toBe(renders);
      // the items the window shows (four lines each at least), not the session's 50,000
      expect(t.retained().lookups - before.lookups).toBeLessThanOrEqual(30);
    }
  });

  it("pages up through it touching about a window's worth of items each time, keeping a bounded set of layouts", () => {
    t.view(118, 30);
    let worst = 0;
    let worstRenders = 0;
    for (let k = 0; k < 400; k++) {
      const before = t.retained().lookups;
      const renders = t.renders;
      t.pageUp();
      t.view(118, 30);
      worst = Math.max(worst, t.retained().lookups - before);
      worstRenders = Math.max(worstRenders, t.renders - renders);
    }
    expect(t.follow).toBe(false);
    expect(worst).toBeLessThanOrEqual(120);
    expect(worstRenders).toBeLessThanOrEqual(30);
    // 400 pages walked over about 1,600 items; the layouts kept stay bounded
    expect(t.retained().layouts).toBeLessThanOrEqual(300);
    // and the window is still right after what was let go
    t.bottom();
    expect(screen(t.view(118, 30).lines)).toContain("answer 12499");
  });
});

describe("1,000 streamed turns", () => {
  it("keep one answer's streaming state and a bounded set of layouts, and show the same lines", () => {
    const t = new Transcript(() => 0);
    t.load([]);
    for (let n = 1; n <= 1000; n++) {
      t.message(msg("user", [{ type: "text", text: `turn ${n} please` }]));
      t.turnState(true, false);
      t.answerStart(n);
      const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
      let text = "";
      for (const w of words) {
        t.textDelta(n, `${w} `);
        text += `${w} `;
        if (text.length % 3 === 0) t.view(100, 30);
      }
      t.view(100, 30);
      t.message(msg("assistant", [{ type: "text", text: `${text}Turnend${n}` }]), n);
      t.turnState(false, false);
      expect(screen(t.view(100, 30).lines)).toContain(`Turnend${n}`);
    }
    const kept = t.retained();
    expect(kept.growing).toBeLessThanOrEqual(1);
    expect(kept.layouts).toBeLessThanOrEqual(300);
    // the first turn, laid out again from its message when scrolled back to, reads as it did
    t.top();
    const top = screen(t.view(100, 30).lines);
    expect(top).toContain("turn 1 please");
    expect(top).toContain("word0 word1");
  });
});

describe("the context pane's width", () => {
  it("is laid out ahead by prepare(), without changing the window, and switching back lays out nothing", () => {
    const t = new Transcript(() => 0);
    const words = Array.from({ length: 20_000 }, (_, i) => (i % 10 === 9 ? `w${i}\n` : `w${i}`)).join(" ");
    t.load([msg("user", [{ type: "text", text: "a long one" }]), msg("assistant", [{ type: "text", text: `${words} Lastword` }])]);
    const wide = screen(t.view(119, 30).lines);
    expect(wide).toContain("Lastword");
    t.pageUp();
    const scrolled = screen(t.view(119, 30).lines);
    const renders = t.renders;
    // what the screen does while idle: the width the pane leaves the transcript
    t.prepare(64, 30);
    expect(t.renders).toBeGreaterThan(renders);
    expect(t.follow).toBe(false);
    expect(screen(t.view(119, 30).lines)).toBe(scrolled);
    t.bottom();
    t.view(119, 30);
    const ahead = t.renders;
    // the pane opens and closes, again and again: nothing is laid out again
    for (let k = 0; k < 3; k++) {
      expect(screen(t.view(64, 30).lines)).toContain("Lastword");
      expect(screen(t.view(119, 30).lines)).toBe(wide);
    }
    expect(t.renders).toBe(ahead);
  });
});

describe("a reader scrolled back", () => {
  it("finds the page above laid out by preparePageUp(), the window unchanged", () => {
    const t = new Transcript(() => 0);
    t.load(session(500));
    t.view(118, 30);
    t.pageUp();
    const here = screen(t.view(118, 30).lines);
    t.preparePageUp();
    expect(screen(t.view(118, 30).lines)).toBe(here);
    const renders = t.renders;
    t.pageUp();
    expect(screen(t.view(118, 30).lines)).not.toBe(here);
    expect(t.renders).toBe(renders);
    // following the bottom, there is nothing to do
    t.bottom();
    t.view(118, 30);
    const atEnd = t.renders;
    t.preparePageUp();
    expect(t.renders).toBe(atEnd);
    expect(t.follow).toBe(true);
  });
});
