// The one rule for a session id that comes from outside, and how a refused one is shown.
import { describe, expect, it } from "vitest";
import { quoteId, sessionIdProblem } from "../../src/record/session-id.js";

describe("sessionIdProblem", () => {
  it("lets an id that can be looked up through, whatever it looks like", () => {
    for (const id of ["3f9c2a1b7d0e", "x", " padded", "../../etc/passwd", "é", "a b"]) expect(sessionIdProblem(id), id).toBeUndefined();
  });

  it("names an empty id, one of blanks only (any Unicode space), and one with control characters", () => {
    expect(sessionIdProblem("")).toBe("the session id is empty");
    expect(sessionIdProblem("\u00a0\u3000 ")).toBe('the session id "\u00a0\u3000 " is only whitespace');
    expect(sessionIdProblem("\n")).toBe('the session id "\\n" is only whitespace');
    expect(sessionIdProblem("a\u001bb")).toBe('the session id "a\\u001bb" holds a control character (\\u001b)');
    expect(sessionIdProblem("\u0007a\u0007\u0085\u2066")).toBe('the session id "\\u0007a\\u0007\\u0085\\u2066" holds control characters (\\u0007, \\u0085, \\u2066)');
  });
});

describe("quoteId", () => {
  it("quotes as JSON does, and escapes what JSON leaves raw: DEL, C1, line separators, bidi controls", () => {
    expect(quoteId('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteId("\u007f\u009b\u2028\u202e\u2069")).toBe('"\\u007f\\u009b\\u2028\\u202e\\u2069"');
    expect(quoteId("\ud800")).toBe('"\\ud800"');
    // eslint-disable-next-line no-control-regex
    expect(quoteId("\u0000\u001f")).not.toMatch(/[\u0000-\u001f]/);
  });
});
