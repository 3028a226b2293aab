import { describe, expect, it } from "vitest";
import { Transcript } from "../../src/ui/transcript.js";
import { lineText, type Line } from "../../src/ui/style.js";
import type { Block, StoredMessage } from "../../src/record/types.js";

let nextId = 1;
function msg(role: "user" | "assistant", blocks: Block[], status: "complete" | "interrupted" = "complete"): StoredMessage {
  const id = nextId++;
  return { id, sessionId: "s", seq: id, role, blocks, status, createdAt: "2026-01-01T00:00:00Z" };
}
const screen = (ls: Line[]): string => ls.map(lineText).join("\n");

function conversation(n: number): StoredMessage[] {
  const out: StoredMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(msg("user", [{ type: "text", text: `question ${i}` }]));
    out.push(msg("assistant", [{ type: "text", text: `answer ${i}` }]));
  }
  return out;
}

describe("transcript", () => {
  it("shows user messages with a › gutter and assistant markdown without one", () => {
    const t = new Transcript();
    t.load([msg("user", [{ type: "text", text: "hello" }]), msg("assistant", [{ type: "text", text: "**hi** there" }])]);
    const s = screen(t.view(40, 10).lines);
    expect(s).toContain("› hello");
    expect(s).toContain("  hi there");
    expect(s).not.toContain("**");
  });

  it("lays out only the visible items of a long session, and caches them", () => {
    const t = new Transcript();
    t.load(conversation(2500));
    const first = t.view(80, 20);
    expect(screen(first.lines)).toContain("answer 2499");
    const afterFirst = t.renders;
    // far fewer than 5,000 items were wrapped for one screen
    expect(afterFirst).toBeLessThan(30);
    t.view(80, 20);
    expect(t.renders).toBe(afterFirst);
    // a new width wraps again (the cache is keyed by width), still only what shows
    t.view(60, 20);
    expect(t.renders - afterFirst).toBeLessThan(30);
  });

  it("follows the bottom, stops following when scrolled up, resumes at the end", () => {
    const t = new Transcript();
    t.load(conversation(50));
    t.view(40, 10);
    t.pageUp();
    expect(t.follow).toBe(false);
    const up = screen(t.view(40, 10).lines);
    expect(up).not.toContain("answer 49");
    t.message(msg("user", [{ type: "text", text: "new question" }]));
    // new content does not pull a reader who scrolled up
    expect(screen(t.view(40, 10).lines)).toBe(up);
    t.pageDown();
    t.pageDown();
    expect(t.follow).toBe(true);
    expect(screen(t.view(40, 10).lines)).toContain("new question");
    t.top();
    expect(screen(t.view(40, 10).lines)).toContain("question 0");
  });

  it("draws a tool call as one line that expands to its input and output", () => {
    const t = new Transcript();
    t.load([
      msg("assistant", [{ type: "tool_use", id: "c1", name: "bash", input: { command: "npm test" } }]),
      msg("user", [{ type: "tool_result", toolUseId: "c1", name: "bash", output: "3 passed\n\x1b]0;title\x07done", isError: false }]),
    ]);
    const collapsed = t.view(60, 10).lines.map(lineText).filter((l) => l.trim());
    expect(collapsed).toEqual(["  ▸ bash  npm test   ✓"]);
    expect(t.select(-1)).toBe(true);
    expect(t.toggleSelected()).toBe(true);
    const open = screen(t.view(60, 20).lines);
    expect(open).toContain("▾ bash  npm test");
    expect(open).toContain("$ npm test");
    expect(open).toContain("3 passed");
    // the title-setting sequence is gone, the text around it stays
    expect(open).toContain("done");
    expect(open).not.toContain("\x1b");
    expect(open).not.toContain("title");
  });

  it("shows live tool states and a failed call with ✗", () => {
    let now = 1000;
    const t = new Transcript(() => now);
    t.message(msg("assistant", [{ type: "tool_use", id: "c9", name: "read", input: { path: "a.txt" } }]));
    t.turnState(true, false);
    t.toolStart("c9");
    now = 3500;
    t.tick();
    expect(screen(t.view(60, 5).lines)).toContain("… running 2.5s");
    t.toolEnd({ id: "c9", output: "no such file", isError: true, ms: 2600 });
    expect(screen(t.view(60, 5).lines)).toContain("▸ read  a.txt   ✗ 2.6s");
  });

  it("a call the running turn made is queued, then running or waiting, then done; one it never ran has no result", () => {
    let now = 1000;
    const t = new Transcript(() => now);
    const line = (name: string): string => t.view(60, 20).lines.map(lineText).find((l) => l.includes(name)) ?? "";
    t.turnState(true, false);
    t.message(msg("assistant", [{ type: "tool_use", id: "q1", name: "read", input: { path: "one.txt" } }, { type: "tool_use", id: "q2", name: "ls", input: { path: "two" } }]));
    expect(line("one.txt")).toContain("· queued");
    expect(line("two")).toContain("· queued");
    // expanded, a queued call says it has not started
    expect(t.select(-1)).toBe(true);
    t.toggleSelected();
    expect(screen(t.view(60, 20).lines)).toContain("(not started yet)");
    t.toolStart("q1");
    now = 1400;
    expect(t.tick()).toBe(true);
    expect(line("one.txt")).toContain("… running 0.4s");
    t.turnState(true, true);
    expect(line("one.txt")).toContain("? waiting for permission");
    t.turnState(true, false);
    t.toolEnd({ id: "q1", output: "contents", isError: false, ms: 1200 });
    expect(line("one.txt")).toContain("✓ 1.2s");
    expect(t.tick()).toBe(false);
    expect(line("two")).toContain("· queued");
    t.turnState(false, false);
    expect(line("two")).toContain("· no result");
    const s = screen(t.view(60, 30).lines);
    expect(s).toContain("(no result was stored: the turn ended before this call ran)");
  });

  it("keeps what a run said over the result read back from the record, and shows a call started before its message", () => {
    const t = new Transcript(() => 5000);
    t.turnState(true, false);
    t.toolStart("r1");
    t.message(msg("assistant", [{ type: "tool_use", id: "r1", name: "bash", input: { command: "make" } }]));
    expect(screen(t.view(60, 10).lines)).toContain("… running 0ms");
    t.toolEnd({ id: "r1", output: "built live", isError: false, ms: 500 });
    t.message(msg("user", [{ type: "tool_result", toolUseId: "r1", name: "bash", output: "built (stored)", isError: false }]));
    t.select(-1);
    t.toggleSelected();
    const s = screen(t.view(60, 20).lines);
    expect(s).toContain("▾ bash  make   ✓ 0.5s");
    expect(s).toContain("built live");
    expect(s).not.toContain("built (stored)");
  });

  it("shows a loaded record's call with no result as such, even while a turn runs", () => {
    const t = new Transcript();
    t.turnState(true, false);
    t.load([msg("assistant", [{ type: "tool_use", id: "l1", name: "read", input: { path: "gone.txt" } }])]);
    expect(screen(t.view(60, 10).lines)).toContain("▸ read  gone.txt   · no result");
  });

  it("recomputes an edit's diff from the stored input, coloured", () => {
    const t = new Transcript();
    t.load([
      msg("assistant", [{ type: "tool_use", id: "e1", name: "edit", input: { path: "src/a.ts", old_string: "let a = 1;", new_string: "let a = 2;" } }]),
      msg("user", [{ type: "tool_result", toolUseId: "e1", name: "edit", output: "edited src/a.ts", isError: false }]),
    ]);
    expect(screen(t.view(60, 5).lines)).toContain("▸ edit  src/a.ts (+1 −1)   ✓");
    t.select(-1);
    t.toggleSelected();
    const lines = t.view(60, 20).lines;
    const del = lines.find((l) => lineText(l).includes("-let a = 1;"));
    const add = lines.find((l) => lineText(l).includes("+let a = 2;"));
    expect(del?.some((s) => s.s === "diffDel")).toBe(true);
    expect(add?.some((s) => s.s === "diffAdd")).toBe(true);
  });

  it("streams deltas live, keeps them over a lagging checkpoint, and hands over to the stored message", () => {
    const t = new Transcript();
    t.message(msg("user", [{ type: "text", text: "go" }]));
    t.answerStart(1);
    t.textDelta(1, "Hello ");
    const stored = msg("assistant", [{ type: "text", text: "Hello " }], "interrupted");
    t.message(stored, 1); // the checkpoint holds less than has arrived
    t.textDelta(1, "world");
    let s = screen(t.view(40, 10).lines);
    expect(s).toContain("Hello world");
    expect(s.match(/Hello/g)).toHaveLength(1);
    t.message({ ...stored, blocks: [{ type: "text", text: "Hello world, done." }], status: "complete" }, 1);
    s = screen(t.view(40, 10).lines);
    expect(s).toContain("Hello world, done.");
    expect(s.match(/Hello/g)).toHaveLength(1);
  });

  it("keys a live answer by its id: another assistant message during it is not taken for its checkpoint", () => {
    const t = new Transcript();
    t.answerStart(7);
    t.textDelta(7, "live words");
    // an assistant message of no answer (e.g. a summary stored meanwhile) is its own item
    t.message(msg("assistant", [{ type: "text", text: "a summary" }]));
    t.textDelta(7, " and more");
    const s = screen(t.view(40, 10).lines);
    expect(s).toContain("a summary");
    expect(s).toContain("live words and more");
    // the answer stays last, below what was added while it streamed
    expect(s.indexOf("a summary")).toBeLessThan(s.indexOf("live words"));
  });

  it("the turn's end shows an answer's last checkpoint, or the live text marked not saved", () => {
    const t = new Transcript();
    t.answerStart(1);
    t.textDelta(1, "checkpointed part and the rest");
    t.message(msg("assistant", [{ type: "text", text: "checkpointed part" }], "interrupted"), 1);
    t.closeLive();
    let s = screen(t.view(60, 10).lines);
    expect(s).toContain("checkpointed part");
    expect(s).not.toContain("the rest");
    expect(s).toContain("[interrupted]");
    t.answerStart(2);
    t.textDelta(2, "never stored");
    t.closeLive();
    s = screen(t.view(60, 10).lines);
    expect(s).toContain("never stored");
    expect(s).toContain("[not saved");
    // an answer with nothing in it leaves nothing behind
    const before = t.itemCount();
    t.answerStart(3);
    t.closeLive();
    expect(t.itemCount()).toBe(before);
  });

  it("shows a tool call's input arriving, then the call itself once the message is complete", () => {
    const t = new Transcript();
    t.answerStart(4);
    t.textDelta(4, "Writing the file.");
    t.toolInput(4, 0, "write", 0);
    expect(screen(t.view(60, 10).lines)).toContain("▸ write  receiving input… 0 B");
    t.toolInput(4, 0, "write", 12_345);
    let s = screen(t.view(60, 10).lines);
    expect(s).toContain("▸ write  receiving input… 12.3 kB");
    expect(s.match(/▸ write/g)).toHaveLength(1);
    t.message(msg("assistant", [{ type: "text", text: "Writing the file." }, { type: "tool_use", id: "w1", name: "write", input: { path: "big.txt", content: "x" } }]), 4);
    s = screen(t.view(60, 10).lines);
    expect(s).not.toContain("receiving input");
    expect(s).toMatch(/▸ write {2}big\.txt/);
    expect(s.match(/▸ write/g)).toHaveLength(1);
    expect(s.match(/Writing the file/g)).toHaveLength(1);
  });

  it("folds reasoning to one dimmed line that expands", () => {
    const t = new Transcript();
    t.load([msg("assistant", [{ type: "reasoning", text: "step one\nstep two" }, { type: "text", text: "answer" }])]);
    const s = screen(t.view(40, 10).lines);
    expect(s).toContain("▸ thinking · 17 chars");
    expect(s).not.toContain("step one");
    t.select(-1);
    t.toggleSelected();
    const open = t.view(40, 10).lines;
    const line = open.find((l) => lineText(l).includes("step one"));
    expect(line?.some((x) => x.s === "reasoning")).toBe(true);
  });

  it("folds a huge user message instead of wrapping all of it", () => {
    const t = new Transcript();
    const big = "line of pasted text\n".repeat(50_000);
    t.load([msg("user", [{ type: "text", text: big }])]);
    const s = screen(t.view(80, 30).lines);
    expect(s).toContain("more lines");
    expect(s.split("\n").length).toBeLessThanOrEqual(30);
  });

  it("folds a long one-line prompt to six rows and says how much of the line is not shown, never '0 more lines'", () => {
    const t = new Transcript();
    const line = "abcdefghij ".repeat(4400).trimEnd(); // 48,399 characters on one line
    t.load([msg("user", [{ type: "text", text: line }])]);
    const rows = t.view(80, 40).lines.map(lineText);
    const label = rows.find((r) => r.includes("▸ …"));
    expect(label).toBeDefined();
    expect(label).not.toContain("0 more lines");
    const m = /▸ … ([\d,]+) more characters on the line \(48\.4 kB\)/.exec(label!);
    expect(m, label).not.toBeNull();
    const shownRows = rows.filter((r) => r.includes("abcdefghij"));
    expect(shownRows.length).toBeLessThanOrEqual(6);
    // what is shown and what is said to be hidden add up to the line
    const shownChars = shownRows.join("").replace(/[\s›]+/g, "").length;
    const hidden = Number(m![1]!.replace(/,/g, ""));
    const hiddenNoBlanks = line.slice(line.length - hidden).replace(/\s+/g, "").length;
    expect(shownChars + hiddenNoBlanks).toBe(line.replace(/\s+/g, "").length);
    // many lines, one of them long: both are counted
    const t2 = new Transcript();
    t2.load([msg("user", [{ type: "text", text: `${"x".repeat(2000)}\n${"short line\n".repeat(20)}` }])]);
    const label2 = t2.view(80, 40).lines.map(lineText).find((r) => r.includes("▸ …"));
    expect(label2).toMatch(/more characters on the line and 2[01] more lines/);
  });

  it("prints notices by level with what to do", () => {
    const t = new Transcript();
    t.notice("error", "No API key: set ANTHROPIC_API_KEY");
    const lines = t.view(60, 5).lines;
    const l = lines.find((x) => lineText(x).includes("✗ No API key"));
    expect(l?.some((x) => x.s === "err")).toBe(true);
  });
});

describe("a /compact summary in the transcript", () => {
  it("stands after the last message it replaced, its text folded under its heading; hostile text stays inert", () => {
    const t = new Transcript();
    const conv = conversation(3);
    const base = conv[0]!.seq;
    t.load(conv, [
      { id: 1, sessionId: "s", fromSeq: base, toSeq: base + 3, text: "SUMMARY line one\nline two \x1b]0;pwn\x07", model: "m1", createdAt: "2026-01-01T00:00:00Z" },
    ]);
    const lines = t.view(80, 40).lines.map(lineText);
    const at = lines.findIndex((l) => l.includes(`▸ Summary of messages ${base}–${base + 3} (compact) · m1 · 2 lines`));
    expect(at).toBeGreaterThan(lines.findIndex((l) => l.includes("answer 1")));
    expect(at).toBeLessThan(lines.findIndex((l) => l.includes("question 2")));
    expect(lines.join("\n")).not.toContain("SUMMARY line one");
    expect(t.select(-1)).toBe(true);
    expect(t.toggleSelected()).toBe(true);
    const open = screen(t.view(80, 40).lines);
    expect(open).toContain(`▾ Summary of messages ${base}–${base + 3} (compact)`);
    expect(open).toContain("SUMMARY line one");
    expect(open).not.toContain("\x1b");
  });
});
