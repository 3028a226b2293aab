// The .gitignore rules a checkpoint walk follows: git's meaning of each pattern form, and a
// pattern from a hostile repository that a regular expression would take minutes over.
import { describe, expect, it } from "vitest";
import { IgnoreRules, matchTokens, parseIgnoreFile } from "../../src/session/checkpoints/ignore.js";

const rules = (text: string, base = ""): IgnoreRules => new IgnoreRules().with(parseIgnoreFile(text, base));

describe("gitignore rules", () => {
  it("a name without a slash matches at any depth; with one it is anchored", () => {
    const r = rules("*.log\nbuild\n/top.txt\ndocs/*.md\n");
    expect(r.ignored("a.log", false)).toBe(true);
    expect(r.ignored("x/y/a.log", false)).toBe(true);
    expect(r.ignored("x/build", true)).toBe(true);
    expect(r.ignored("top.txt", false)).toBe(true);
    expect(r.ignored("x/top.txt", false)).toBe(false);
    expect(r.ignored("docs/a.md", false)).toBe(true);
    expect(r.ignored("docs/sub/a.md", false)).toBe(false);
    expect(r.ignored("x/docs/a.md", false)).toBe(false);
  });

  it("a trailing slash is for folders; ! takes a name back; the last rule wins", () => {
    const r = rules("out/\n*.txt\n!keep.txt\n");
    expect(r.ignored("out", true)).toBe(true);
    expect(r.ignored("out", false)).toBe(false);
    expect(r.ignored("a.txt", false)).toBe(true);
    expect(r.ignored("keep.txt", false)).toBe(false);
  });

  it("** forms: leading, inner, trailing", () => {
    const r = rules("**/gen\na/**/b\nlib/**\n");
    expect(r.ignored("gen", true)).toBe(true);
    expect(r.ignored("x/y/gen", false)).toBe(true);
    expect(r.ignored("a/b", false)).toBe(true);
    expect(r.ignored("a/x/y/b", false)).toBe(true);
    expect(r.ignored("lib/x", false)).toBe(true);
    expect(r.ignored("lib", true)).toBe(false);
  });

  it("classes, ?, escapes, comments and trailing spaces", () => {
    const r = rules("# comment\n\\#hash\nfile[0-9].c\n?.o\nspace\\ \nplain   \n[!a]z\n");
    expect(r.ignored("#hash", false)).toBe(true);
    expect(r.ignored("# comment", false)).toBe(false);
    expect(r.ignored("file7.c", false)).toBe(true);
    expect(r.ignored("filex.c", false)).toBe(false);
    expect(r.ignored("a.o", false)).toBe(true);
    expect(r.ignored("ab.o", false)).toBe(false);
    expect(r.ignored("space ", false)).toBe(true);
    expect(r.ignored("plain", false)).toBe(true);
    expect(r.ignored("bz", false)).toBe(true);
    expect(r.ignored("az", false)).toBe(false);
  });

  it("a nested .gitignore applies below its folder, and after the ones above it", () => {
    const r = rules("*.tmp\n").with(parseIgnoreFile("!keep.tmp\nlocal\n", "sub"));
    expect(r.ignored("sub/keep.tmp", false)).toBe(false);
    expect(r.ignored("keep.tmp", false)).toBe(true);
    expect(r.ignored("sub/local", false)).toBe(true);
    expect(r.ignored("local", false)).toBe(false);
  });

  it("a hostile pattern is matched in time linear in the name (a regular expression backtracks for minutes)", () => {
    const [rule] = parseIgnoreFile("*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n", "");
    const name = "a".repeat(250);
    // each call would take minutes through picomatch's regular expression (measured: 217 s
    // for 60 characters with one star fewer); here all of them end at once
    for (let i = 0; i < 100; i++) expect(matchTokens(rule!.tokens, name)).toBe(false);
    expect(matchTokens(rule!.tokens, "a".repeat(20) + "b")).toBe(true);
  });
});
