// messageOf is the one rule for showing a caught value: an Error's message, anything else
// thrown as text (a bare `(e as Error).message` said "undefined" for a thrown string).
import { describe, expect, it } from "vitest";
import { messageOf } from "../../src/record/errors.js";

describe("messageOf", () => {
  it("gives an Error's message without its name or stack", () => {
    expect(messageOf(new TypeError("bad input"))).toBe("bad input");
  });
  it("gives whatever else was thrown as text", () => {
    expect(messageOf("plain string")).toBe("plain string");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(null)).toBe("null");
    expect(messageOf(undefined)).toBe("undefined");
  });
});
