import { describe, expect, it } from "vitest";
import { capText, cutNote, HeadTailBuffer } from "../../src/tools/cap.js";

describe("capText", () => {
  it("leaves short text alone", () => {
    expect(capText("short", 100)).toBe("short");
  });

  it("keeps head and tail and says how many bytes went", () => {
    const text = Array.from({ length: 1000 }, (_, k) => `line ${k}`).join("\n");
    const out = capText(text, 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    const m = /\[… ([\d,]+) bytes cut …\]\n/.exec(out);
    expect(m).not.toBeNull();
    const head = out.slice(0, m!.index);
    const tail = out.slice(m!.index + m![0].length);
    // the cuts snapped to line breaks, so head and tail are whole lines of the original
    expect(head.endsWith("\n")).toBe(true);
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    // nothing lost unaccounted: kept + cut = whole (ASCII, so bytes = chars)
    const cut = Number(m![1]!.replace(/,/g, ""));
    expect(head.length + cut + tail.length).toBe(text.length);
    expect(head.startsWith("line 0\n")).toBe(true);
    expect(tail.endsWith("line 999")).toBe(true);
  });

  it("never splits a surrogate pair", () => {
    const out = capText("😀".repeat(5000), 1001);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe("HeadTailBuffer", () => {
  it("keeps everything while under the limits", () => {
    const b = new HeadTailBuffer(10, 10);
    b.push(Buffer.from("hello "));
    b.push(Buffer.from("world"));
    expect(b.text()).toBe("hello world");
  });

  it("keeps the first and last bytes of a long stream in bounded memory", () => {
    const b = new HeadTailBuffer(6, 4);
    for (let k = 0; k < 1000; k++) b.push(Buffer.from(`${k % 10}`));
    expect(b.totalBytes).toBe(1000);
    expect(b.text()).toBe(`012345\n${cutNote(990)}\n6789`);
  });

  it("moves a split multi-byte character into the cut instead of showing U+FFFD", () => {
    const b = new HeadTailBuffer(4, 4);
    b.push(Buffer.from("abcé" + "x".repeat(20) + "éz", "utf8")); // é is 2 bytes; the head cut splits it
    const out = b.text();
    expect(out).not.toContain("\ufffd");
    expect(out.startsWith("abc\n")).toBe(true);
    expect(out.endsWith("\néz")).toBe(false); // tail holds the last 4 bytes: "xéz" is 4 bytes
    expect(out.endsWith("\nxéz")).toBe(true);
    const total = Buffer.byteLength("abcé" + "x".repeat(20) + "éz");
    expect(out).toContain(cutNote(total - 3 - 4));
  });
});
