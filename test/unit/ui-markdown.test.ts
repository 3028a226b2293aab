import { describe, expect, it } from "vitest";
import { loadHighlighter } from "../../src/ui/highlight.js";
import { renderMarkdown } from "../../src/ui/markdown.js";
import { lineText, type Line } from "../../src/ui/style.js";
import { lineWidth } from "../../src/ui/text.js";

const texts = (ls: Line[]): string[] => ls.map(lineText);
const styles = (l: Line | undefined): (string | undefined)[] => (l ?? []).map((s) => s.s);

describe("renderMarkdown", () => {
  it("renders headings, emphasis and inline code with styles and no markup", () => {
    const out = renderMarkdown("# Title\n\nSome **bold** and `code` here.", 40);
    expect(texts(out)).toEqual(["Title", "", "Some bold and code here."]);
    expect(styles(out[0])).toEqual(["heading"]);
    const para = out[2]!;
    expect(para.find((s) => s.t === "bold")?.b).toBe(true);
    expect(para.find((s) => s.t === "code")?.s).toBe("code");
  });

  it("renders bullet and numbered lists with hanging indents, nested lists indented", () => {
    const out = renderMarkdown("- one\n- two is long enough to wrap here\n  - inner\n\n1. first\n2. second", 20);
    expect(texts(out)).toEqual(["• one", "• two is long enough", "  to wrap here", "  • inner", "", "1. first", "2. second"]);
  });

  it("colours fenced code by language and keeps its lines", async () => {
    // the highlighter loads in the background (ui-highlight.test.ts covers the time before)
    await loadHighlighter();
    const out = renderMarkdown("```ts\nconst x = 1; // note\n```", 40);
    expect(texts(out)).toEqual(["  const x = 1; // note"]);
    const st = styles(out[0]);
    expect(st).toContain("hl.keyword");
    expect(st).toContain("hl.comment");
  });

  it("shows unknown-language code plainly", () => {
    const out = renderMarkdown("```nosuchlang\na <b> c\n```", 40);
    expect(texts(out)).toEqual(["  a <b> c"]);
    expect(styles(out[0])).toEqual([undefined, "codeBlock"]);
  });

  it("lays out a table as a grid when it fits, as label: value lines when not", () => {
    const md = "| name | n |\n|---|--:|\n| alpha | 1 |\n| beta | 22 |";
    expect(texts(renderMarkdown(md, 40))).toEqual(["name  │  n", "──────┼───", "alpha │  1", "beta  │ 22"]);
    const wide = "| k | v |\n|---|---|\n| alpha | one long value |\n| beta | two |";
    expect(texts(renderMarkdown(wide, 18))).toEqual(["k: alpha", "v: one long value", "", "k: beta", "v: two"]);
  });

  it("keeps every line within the width, wide characters included", () => {
    const out = renderMarkdown("中文字符测试中文字符测试 😀😀😀 > quote\n\n> 引用中文字符测试中文字符测试", 11);
    for (const l of out) expect(lineWidth(l)).toBeLessThanOrEqual(11);
  });

  it("shows a link's target after its text", () => {
    expect(texts(renderMarkdown("see [docs](https://example.com/x)", 60))).toEqual(["see docs (https://example.com/x)"]);
  });
});

describe("strikethrough keeps its markers as written", () => {
  it("~~two~~ shows two tildes each side and ~one~ one (both were shown as ~x~)", () => {
    expect(texts(renderMarkdown("a ~~gone~~ b", 40))).toEqual(["a ~~gone~~ b"]);
    expect(texts(renderMarkdown("a ~gone~ b", 40))).toEqual(["a ~gone~ b"]);
    // inside other inline markup, and the struck text keeps its own markup
    expect(texts(renderMarkdown("**x ~~y `z`~~**", 40))).toEqual(["x ~~y z~~"]);
  });
});
