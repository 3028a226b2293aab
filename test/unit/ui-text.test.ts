import { describe, expect, it } from "vitest";
import { fit, graphemeWidth, lineWidth, textWidth, truncate, wrapLine, wrapText } from "../../src/ui/text.js";
import { lineText, type Line } from "../../src/ui/style.js";

const texts = (ls: Line[]): string[] => ls.map(lineText);

describe("widths", () => {
  it("counts CJK and emoji as two cells, combining marks as none", () => {
    expect(textWidth("abc")).toBe(3);
    expect(textWidth("中文")).toBe(4);
    expect(textWidth("😀")).toBe(2);
    expect(textWidth("e\u0301")).toBe(1);
    expect(textWidth("👍🏽")).toBe(2);
    expect(graphemeWidth("\u200b")).toBe(0);
  });
});

describe("wrapLine", () => {
  it("breaks at spaces and keeps every row within the width", () => {
    const rows = wrapText("the quick brown fox jumps over the lazy dog", 10);
    expect(texts(rows)).toEqual(["the quick", "brown fox", "jumps over", "the lazy", "dog"]);
    for (const r of rows) expect(lineWidth(r)).toBeLessThanOrEqual(10);
  });

  it("breaks inside a word longer than the row", () => {
    expect(texts(wrapText("abcdefghijkl", 5))).toEqual(["abcde", "fghij", "kl"]);
  });

  it("never splits or overhangs a wide character", () => {
    const rows = wrapText("中文中文中", 5);
    expect(texts(rows)).toEqual(["中文", "中文", "中"]);
    for (const r of rows) expect(lineWidth(r)).toBeLessThanOrEqual(5);
    const emoji = wrapText("ab😀😀😀", 5);
    expect(texts(emoji)).toEqual(["ab😀", "😀😀"]);
  });

  it("keeps styles across the break and applies a hanging indent", () => {
    const line: Line = [{ t: "bold words ", b: true }, { t: "and code", s: "code" }];
    const rows = wrapLine(line, 12, { indent: [{ t: "  " }] });
    expect(texts(rows)).toEqual(["bold words", "  and code"]);
    expect(rows[1]![1]).toEqual({ t: "and code", s: "code" });
    expect(rows[0]![0]!.b).toBe(true);
  });

  it("hard mode breaks anywhere and keeps spaces", () => {
    expect(texts(wrapText("a b c d e f", 4, undefined, { hard: true }))).toEqual(["a b ", "c d ", "e f"]);
  });

  it("an empty line stays one empty row", () => {
    expect(wrapText("a\n\nb", 10).map(lineText)).toEqual(["a", "", "b"]);
  });
});

describe("truncate and fit", () => {
  it("ends a cut line with an ellipsis within the width", () => {
    const t = truncate([{ t: "hello world" }], 8);
    expect(lineText(t)).toBe("hello w…");
    expect(lineWidth(truncate([{ t: "中文中文中文" }], 5))).toBeLessThanOrEqual(5);
  });

  it("pads to an exact width", () => {
    expect(lineText(fit([{ t: "ab" }], 5))).toBe("ab   ");
    expect(lineWidth(fit([{ t: "😀😀😀" }], 5))).toBe(5);
  });
});

describe("preserving wrap", () => {
  it("breaks at spaces but loses no character", () => {
    const text = "alpha beta  gamma delta";
    const rows = wrapText(text, 8, undefined, { preserve: true });
    expect(rows.map(lineText).join("")).toBe(text);
    for (const r of rows) expect(lineWidth(r)).toBeLessThanOrEqual(8);
  });
});
