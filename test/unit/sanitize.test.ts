import { describe, expect, it } from "vitest";
import stripAnsi from "strip-ansi";
import { sanitizeForTerminal as clean, visibleEscape as escape, visibleJson } from "../../src/text/sanitize.js";

// Anything a terminal might act on: C0 except \t and \n, DEL, C1, bidi overrides.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const FORBIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe("sanitizeForTerminal", () => {
  it("keeps ordinary text, tabs, newlines and non-ASCII unchanged", () => {
    const s = "héllo\tworld\n日本語 😀 ñ — “quotes”\n";
    expect(clean(s)).toBe(s);
  });

  it("removes SGR colours", () => {
    expect(clean("\x1b[31mred\x1b[0m and \x1b[1;38;5;208mbold orange\x1b[m")).toBe("red and bold orange");
  });

  it("removes cursor movement, clears, scroll regions and private modes", () => {
    const s = "\x1b[2J\x1b[H\x1b[10;20Hx\x1b[3A\x1b[K\x1b[1;24r\x1b[?25l\x1b[?1049h\x1b[6n\x1b[>c\x1b[ q";
    expect(clean(s)).toBe("x");
  });

  it("removes OSC 0/2 titles ended by BEL or ST", () => {
    expect(clean("a\x1b]0;pwned title\x07b")).toBe("ab");
    expect(clean("a\x1b]2;other title\x1b\\b")).toBe("ab");
  });

  it("removes OSC 8 hyperlinks but keeps the link text", () => {
    expect(clean("\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\")).toBe("click here");
  });

  it("removes OSC 52 clipboard writes (BEL and ST forms)", () => {
    expect(clean("before\x1b]52;c;cm0gLXJmIH4=\x07after")).toBe("beforeafter");
    expect(clean("before\x1b]52;p;Y3VybCBldmls\x1b\\after")).toBe("beforeafter");
  });

  it("removes DCS, APC, PM and SOS strings", () => {
    expect(clean("x\x1bP1$qm\x1b\\y")).toBe("xy"); // DCS status request
    expect(clean("x\x1b_Gf=100,a=T;iVBORw0KGgo=\x1b\\y")).toBe("xy"); // APC (kitty graphics)
    expect(clean("x\x1b^private\x1b\\y")).toBe("xy"); // PM
    expect(clean("x\x1bXstart of string\x1b\\y")).toBe("xy"); // SOS
  });

  it("ends a control string at CAN/SUB, and at an ESC that starts something else", () => {
    expect(clean("a\x1b]0;t\x18b")).toBe("ab");
    expect(clean("a\x1b]0;t\x1b[31mb")).toBe("ab");
  });

  it("drops a lone ESC and short escapes (save/restore cursor, reset, charsets)", () => {
    expect(clean("end\x1b")).toBe("end");
    expect(clean("\x1b7saved\x1b8")).toBe("saved");
    expect(clean("\x1bcreset")).toBe("reset");
    expect(clean("\x1b(0lqqk\x1b(B")).toBe("lqqk");
    expect(clean("\x1b#8fill")).toBe("fill");
    expect(clean("a\x1b\nb")).toBe("a\nb");
  });

  it("leaves no ESC behind for unterminated sequences", () => {
    for (const s of ["\x1b]0;title with no end", "\x1b[12;", "\x1bP no end", "\x1b_", "\x9d0;x", "\x9b1;"]) {
      const out = clean(s);
      expect(out).not.toMatch(FORBIDDEN);
      expect(out).not.toContain("\x1b");
    }
    // the body of an unterminated string stays visible as plain text instead of hiding the rest
    expect(clean("\x1b]0;title with no end")).toBe("0;title with no end");
  });

  it("removes C0 controls except \\n and \\t, and DEL", () => {
    expect(clean("a\x07b\x08c\x00d\x0be\x0cf\x7fg\x01h\x1fi")).toBe("abcdefghi");
  });

  it("turns CRLF into \\n and a lone \\r into \\n, so nothing can be overwritten", () => {
    expect(clean("one\r\ntwo\r\n")).toBe("one\ntwo\n");
    expect(clean("one\r\r\ntwo")).toBe("one\ntwo");
    expect(clean("rm -rf ~\rls -la   ")).toBe("rm -rf ~\nls -la   ");
  });

  it("removes 8-bit C1 controls: CSI, OSC, DCS, ST, NEL and the rest", () => {
    expect(clean("\u009b31mred\u009b0m")).toBe("red");
    expect(clean("a\u009d0;title\u0007b")).toBe("ab");
    expect(clean("a\u009d52;c;AAAA\u009cb")).toBe("ab");
    expect(clean("a\u0090dcs body\u009cb")).toBe("ab");
    expect(clean("a\u0085b\u0084c\u009cd")).toBe("abcd");
  });

  it("handles C1 that arrived as UTF-8 bytes", () => {
    const decoded = Buffer.from([0x61, 0xc2, 0x9b, 0x32, 0x4a, 0x62]).toString("utf8"); // a CSI 2J b
    expect(clean(decoded)).toBe("ab");
  });

  it("keeps U+FFFD from invalid UTF-8 and replaces lone surrogates", () => {
    const decoded = Buffer.from([0x61, 0xff, 0xfe, 0x62]).toString("utf8");
    expect(clean(decoded)).toBe("a\ufffd\ufffdb");
    expect(clean("x\ud800y")).toBe("x\ufffdy");
    expect(clean("x\udc00y")).toBe("x\ufffdy");
    expect(clean("end\ud83d")).toBe("end\ufffd");
  });

  it("removes bidi overrides that reorder what is displayed", () => {
    expect(clean("access\u202e level\u202c ok\u2066x\u2069")).toBe("access level okx");
  });

  it("catches what strip-ansi lets through", () => {
    const nasty = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1bP+q544e\x1b\\\u009b2J\x1b";
    expect(stripAnsi(nasty)).toMatch(FORBIDDEN); // the gap this function exists for
    expect(clean(nasty)).toBe("");
  });

  it("never lets a control character through, whatever the input", () => {
    // deterministic pseudo-random input weighted towards the dangerous bytes
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const alphabet = ["\x1b", "[", "]", "P", "_", "\\", "\x07", "\x9b", "\x9d", "\x9c", "\r", "\n", "\t", "\x00", "\x85", "a", "1", ";", "m", "\u202e", "\ud800", "é"];
    for (let round = 0; round < 2000; round++) {
      let s = "";
      const len = Math.floor(rnd() * 40);
      for (let k = 0; k < len; k++) s += alphabet[Math.floor(rnd() * alphabet.length)];
      const out = clean(s);
      expect(out, JSON.stringify(s)).not.toMatch(FORBIDDEN);
      expect(out, JSON.stringify(s)).not.toMatch(LONE_SURROGATE);
    }
  });
});

describe("visibleEscape", () => {
  it("writes every control and invisible character as an escape and removes nothing", () => {
    expect(escape("a\x1b]0;title\x07b")).toBe("a\\u001b]0;title\\u0007b");
    expect(escape("\x1b[2J\x9b6n\x7f")).toBe("\\u001b[2J\\u009b6n\\u007f");
    expect(escape("line\nnext\ttab\r")).toBe("line\\nnext\\ttab\\r");
    expect(escape("back\\slash")).toBe("back\\\\slash");
    expect(escape("\u202egnp.exe\u2066 a\u200bb\u00a0c\ufeffd\u00ade\u2028f")).toBe("\\u202egnp.exe\\u2066 a\\u200bb\\u00a0c\\ufeffd\\u00ade\\u2028f");
    expect(escape("lone \ud800 and \udc00")).toBe("lone \\ud800 and \\udc00");
    // a tag character (invisible) as JSON writes it: its surrogate pair
    expect(escape("x\u{e0041}y")).toBe("x\\udb40\\udc41y");
    // what can be seen stays as it is
    const plain = "héllo 日本語 😀 ñ — “quotes” é";
    expect(escape(plain)).toBe(plain);
  });

  it("keeps layout or backslashes when asked, escaping the rest", () => {
    expect(escape("a\n\tb\x1b", { layout: true })).toBe("a\n\tb\\u001b");
    expect(escape(JSON.stringify("a\\b\x1b\u202e"), { plainBackslash: true })).toBe('"a\\\\b\\u001b\\u202e"');
    expect(JSON.parse(visibleJson("a\\b\x1b\u202e\n"))).toBe("a\\b\x1b\u202e\n");
  });

  it("no two strings look alike: its output, read as a JSON string, is the input again", () => {
    let seed = 777;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const alphabet = ["\x1b", "]", "\\", "u", "0", "1", "b", "\x07", "\x9b", "\r", "\n", "\t", "\x00", "\u202e", "\u200b", "\ud800", "\udc00", "é", "a", " ", '"', "\u00a0"];
    for (let round = 0; round < 2000; round++) {
      let s = "";
      const len = Math.floor(rnd() * 30);
      for (let k = 0; k < len; k++) s += alphabet[Math.floor(rnd() * alphabet.length)];
      const out = escape(s);
      expect(out, JSON.stringify(s)).not.toMatch(FORBIDDEN);
      expect(out, JSON.stringify(s)).not.toMatch(LONE_SURROGATE);
      expect(out, JSON.stringify(s)).not.toMatch(/[\n\t\u200b\u00a0]/);
      expect(JSON.parse(`"${out.replace(/"/g, '\\"')}"`), JSON.stringify(s)).toBe(s);
    }
  });
});
