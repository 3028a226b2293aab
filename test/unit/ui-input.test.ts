import { describe, expect, it } from "vitest";
import { InputEditor, PASTE_FOLD_CHARS, PromptHistory } from "../../src/ui/input.js";
import { lineText } from "../../src/ui/style.js";

describe("InputEditor", () => {
  it("edits by grapheme: an emoji, a flag or an accented letter is one step", () => {
    const e = new InputEditor();
    e.insert("a👍🏽e\u0301🇺🇸");
    e.backspace();
    expect(e.text).toBe("a👍🏽e\u0301");
    e.left();
    e.backspace();
    expect(e.text).toBe("ae\u0301");
    e.home();
    e.right();
    e.deleteForward();
    expect(e.text).toBe("a");
  });

  it("keeps a small paste as text and a large one as an atom whose full text is sent", () => {
    const e = new InputEditor();
    e.paste("short\r\npaste");
    expect(e.text).toBe("short\npaste");
    e.clear();
    const big = "x".repeat(PASTE_FOLD_CHARS + 1);
    e.insert("see: ");
    e.paste(big);
    e.insert(" thanks");
    expect(e.text).toMatch(/^see: \[pasted #1 · 2\.0 kB · 1 line\] thanks$/);
    expect(e.value()).toBe(`see: ${big} thanks`);
  });

  it("moves over and deletes an atom as one unit", () => {
    const e = new InputEditor();
    e.paste("y".repeat(5000));
    e.insert("!");
    e.left();
    e.left(); // jumps over the whole atom
    expect(e.cursor).toBe(0);
    e.end();
    e.left();
    e.backspace(); // removes the atom, keeps "!"
    expect(e.text).toBe("!");
    expect(e.value()).toBe("!");
    expect(e.pasteCount()).toBe(0);
  });

  it("a 2 MB paste stays one short line in the editor", () => {
    const e = new InputEditor();
    const big = "0123456789abcdef\n".repeat(125_000);
    e.paste(big);
    const layout = e.layout(80);
    expect(layout.rows).toHaveLength(1);
    expect(lineText(layout.rows[0]!)).toContain("2.1 MB");
    expect(e.value()).toHaveLength(big.length);
  });

  it("wraps wide characters by cells and places the cursor on them", () => {
    const e = new InputEditor();
    e.insert("中文中文中");
    const l = e.layout(4);
    expect(l.rows.map(lineText)).toEqual(["中文", "中文", "中"]);
    expect([l.cursorRow, l.cursorCol]).toEqual([2, 2]);
  });

  it("Up and Down move between visual rows and report the first and last row", () => {
    const e = new InputEditor();
    e.insert("first line\nsecond");
    e.layout(40);
    expect(e.vertical(-1)).toBe(true);
    expect(e.cursor).toBe(6); // same column on the row above
    expect(e.vertical(-1)).toBe(false);
    expect(e.vertical(1)).toBe(true);
    expect(e.vertical(1)).toBe(false);
  });

  it("word and line kills", () => {
    const e = new InputEditor();
    e.insert("one two three");
    e.deleteWordBack();
    expect(e.text).toBe("one two ");
    e.home();
    e.killToEnd();
    expect(e.text).toBe("");
  });

  it("drops control characters from typed and pasted text", () => {
    const e = new InputEditor();
    e.paste("a\x1b[31mb\x07c");
    expect(e.text).toBe("a[31mbc");
  });
});

describe("PromptHistory", () => {
  it("recalls earlier prompts and returns to the unfinished draft", () => {
    const h = new PromptHistory(["one", "two"]);
    expect(h.prev("draft")).toBe("two");
    expect(h.prev("two")).toBe("one");
    expect(h.prev("one")).toBeUndefined();
    expect(h.next()).toBe("two");
    expect(h.next()).toBe("draft");
    expect(h.next()).toBeUndefined();
  });

  it("skips blanks and repeats of the last prompt, and keeps a bounded number", () => {
    const h = new PromptHistory([], 3);
    for (const p of ["a", "a", " ", "b", "c", "d"]) h.add(p);
    expect(h.size()).toBe(3);
    expect(h.prev("")).toBe("d");
    expect(h.prev("")).toBe("c");
    expect(h.prev("")).toBe("b");
  });
});

describe("PromptHistory.replace", () => {
  it("recalls another session's prompts, newest first, and forgets the old ones", () => {
    const h = new PromptHistory(["old one", "old two"]);
    h.replace(["new one", "new two"]);
    expect(h.prev("")).toBe("new two");
    expect(h.prev("")).toBe("new one");
    expect(h.prev("")).toBeUndefined();
    expect(h.size()).toBe(2);
  });
});

describe("recalling a prompt as it was typed", () => {
  it("a typed 33-line prompt comes back as its lines, a paste as its atom, the draft as it was", () => {
    const e = new InputEditor();
    const h = new PromptHistory();
    const typed = Array.from({ length: 33 }, (_, i) => `line ${i + 1}`).join("\n");
    for (const ch of typed) if (ch === "\n") e.newline(); else e.insert(ch);
    h.add(e.value(), e.shape());
    e.clear();
    e.paste("pasted\n".repeat(50));
    e.insert(" and typed");
    const withPaste = e.value();
    h.add(withPaste, e.shape());
    e.clear();
    e.insert("a draft\nof two lines");
    const up1 = h.prev(e.value(), e.shape())!;
    e.recall(up1, h.shapeOf(up1));
    expect(e.text).toMatch(/^\[pasted #\d+ · .*\] and typed$/);
    expect(e.value()).toBe(withPaste);
    const up2 = h.prev(e.value(), e.shape())!;
    e.recall(up2, h.shapeOf(up2));
    expect(e.text).toBe(typed);
    expect(e.text).not.toContain("[pasted");
    expect(e.pasteCount()).toBe(0);
    h.next();
    const down = h.next()!;
    e.recall(down, h.shapeOf(down));
    expect(e.text).toBe("a draft\nof two lines");
  });

  it("a prompt from the record (no shape known) comes back as typed text, folded only when huge", () => {
    const e = new InputEditor();
    const lines33 = "x\n".repeat(33).trimEnd();
    e.recall(lines33);
    expect(e.text).toBe(lines33);
    const huge = "y\n".repeat(5000);
    e.recall(huge);
    expect(e.text).toMatch(/^\[pasted #\d+ · /);
    expect(e.value()).toBe(huge);
  });
});
