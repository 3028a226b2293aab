import { describe, expect, it } from "vitest";
import { imageMarker, MARKER_MAX, MARKER_RE, opaqueMarker, paginate } from "../../src/context/capture.js";
import { PAGE_CHARS } from "../../src/context/types.js";
import { prng as rng } from "../helpers/prng.js";

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Checks every promise paginate makes about a text; returns the page start offsets. */
function checkPages(text: string, pages: string[], pageChars: number): number[] {
  expect(pages.join("")).toBe(text);
  // problems are collected and compared once: one expect per page would dominate the run
  const problems: string[] = [];
  const starts: number[] = [];
  let off = 0;
  for (const [i, p] of pages.entries()) {
    starts.push(off);
    if (p.length > pageChars) problems.push(`page ${i} has ${p.length} units`);
    if (i < pages.length - 1 && p.length === 0) problems.push(`page ${i} is empty`);
    const end = off + p.length;
    if (end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) {
      problems.push(`page ${i} splits a surrogate pair`);
    }
    off = end;
  }
  // no marker crosses a page boundary
  const bounds = new Set(starts.slice(1));
  for (const m of text.matchAll(MARKER_RE)) {
    for (let k = m.index + 1; k < m.index + m[0].length; k++) {
      if (bounds.has(k)) problems.push(`marker at ${m.index} cut at ${k}`);
    }
  }
  expect(problems).toEqual([]);
  return starts;
}


describe("paginate", () => {
  it("gives one empty page for an empty text", () => {
    expect(paginate("")).toEqual([""]);
  });

  it("cuts at 8,000 UTF-16 units by default, numbered from zero", () => {
    const text = "a".repeat(PAGE_CHARS * 2 + 5);
    const pages = paginate(text);
    expect(pages.map((p) => p.length)).toEqual([PAGE_CHARS, PAGE_CHARS, 5]);
    expect(paginate("a".repeat(PAGE_CHARS))).toHaveLength(1);
  });

  it("ends a page one unit early rather than split an emoji", () => {
    const text = "a".repeat(PAGE_CHARS - 1) + "😀" + "b";
    const pages = paginate(text);
    expect(pages[0]).toBe("a".repeat(PAGE_CHARS - 1));
    expect(pages[1]).toBe("😀b");
    checkPages(text, pages, PAGE_CHARS);

    // an emoji ending exactly on the boundary stays whole where it is
    const exact = "a".repeat(PAGE_CHARS - 2) + "😀" + "c";
    expect(paginate(exact)[0]).toBe("a".repeat(PAGE_CHARS - 2) + "😀");
  });

  it("handles text made only of surrogate pairs", () => {
    const text = "🐛".repeat(10_001);
    const pages = paginate(text);
    checkPages(text, pages, PAGE_CHARS);
    for (const p of pages) expect(p.length % 2).toBe(0);
  });

  it("leaves a lone surrogate as it is (nothing to keep together)", () => {
    const text = "a".repeat(PAGE_CHARS - 1) + "\ud800" + "b";
    const pages = paginate(text);
    expect(pages[0]!.length).toBe(PAGE_CHARS);
    expect(pages.join("")).toBe(text);
  });

  it("ends a page before an omission marker instead of cutting it", () => {
    const marker = imageMarker("image/png", 123_456, 800, 600);
    const text = "x".repeat(PAGE_CHARS - 10) + marker + "tail";
    const pages = paginate(text);
    expect(pages[0]).toBe("x".repeat(PAGE_CHARS - 10));
    expect(pages[1]).toBe(marker + "tail");

    // a marker that ends exactly on the boundary stays on its page
    const fits = "y".repeat(PAGE_CHARS - marker.length) + marker + "z";
    expect(paginate(fits)[0]).toBe("y".repeat(PAGE_CHARS - marker.length) + marker);
  });

  it("does not move a boundary for brackets that are not markers", () => {
    const text = "x".repeat(PAGE_CHARS - 10) + "[image omitted: but never closed" + "x".repeat(100);
    expect(paginate(text)[0]!.length).toBe(PAGE_CHARS);
    const t2 = "x".repeat(PAGE_CHARS - 5) + "[ab]cdefgh";
    expect(paginate(t2)[0]!.length).toBe(PAGE_CHARS);
  });

  it("keeps every promise on random mixes of text, emoji and markers", () => {
    const next = rng(42);
    const pieces = [
      "plain ",
      "😀",
      "é",
      "[",
      "]",
      "\n",
      imageMarker("image/jpeg", 9_999),
      opaqueMarker("encrypted_content", 1_234_567),
      opaqueMarker("thinking_signature", 88),
    ];
    for (let round = 0; round < 40; round++) {
      const parts: string[] = [];
      const n = 200 + Math.floor(next() * 2000);
      for (let i = 0; i < n; i++) parts.push(pieces[Math.floor(next() * pieces.length)]!);
      const text = parts.join("");
      // page sizes above the longest marker, down to tight ones
      const pageChars = MARKER_MAX + Math.floor(next() * 600);
      checkPages(text, paginate(text, pageChars), pageChars);
    }
  });

  it("pages a text given as pieces exactly as the text joined, wherever the pieces are cut", () => {
    // the capture hands paginate a section's pieces (never joined whole): cuts may fall inside
    // a surrogate pair, a marker, or right at a page boundary, and pieces may be empty
    const next = rng(7);
    const alphabet = ["plain ", "😀", "é", "[", "]", "\n", imageMarker("image/png", 42, 8, 8), opaqueMarker("thinking_signature", 512), "\n[cache breakpoint: 5m]"];
    for (let round = 0; round < 60; round++) {
      const parts: string[] = [];
      const n = 50 + Math.floor(next() * 1500);
      for (let i = 0; i < n; i++) parts.push(alphabet[Math.floor(next() * alphabet.length)]!);
      const text = parts.join("");
      const pieces: string[] = [];
      for (let at = 0; at < text.length; ) {
        const len = next() < 0.1 ? 0 : 1 + Math.floor(next() * (next() < 0.5 ? 8 : 900));
        pieces.push(text.slice(at, at + len));
        at += len;
      }
      const pageChars = round % 5 === 0 ? 2 + Math.floor(next() * 20) : MARKER_MAX + Math.floor(next() * 600);
      const whole = paginate(text, pageChars);
      expect(paginate(pieces, pageChars)).toEqual(whole);
      if (pageChars >= MARKER_MAX) checkPages(text, whole, pageChars);
    }
    expect(paginate([])).toEqual([""]);
    expect(paginate(["", ""])).toEqual([""]);
  });

  it("still makes progress when a marker alone is longer than a page", () => {
    const marker = opaqueMarker("thinking_signature", 5);
    const pages = paginate(marker, 8);
    expect(pages.join("")).toBe(marker);
    for (const p of pages) expect(p.length).toBeLessThanOrEqual(8);
  });

  it("refuses page sizes that cannot hold a surrogate pair", () => {
    expect(() => paginate("abc", 1)).toThrow(RangeError);
    expect(() => paginate("abc", 2.5)).toThrow(RangeError);
  });

  it("pages a 10 MB text with markers and emoji completely", () => {
    const unit = "lorem ipsum 😀 dolor ".repeat(40) + imageMarker("image/png", 42, 1, 1) + "[x] ";
    const text = unit.repeat(Math.ceil(10_000_000 / unit.length));
    expect(text.length).toBeGreaterThanOrEqual(10_000_000);
    const pages = paginate(text);
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(text.length / PAGE_CHARS));
    checkPages(text, pages, PAGE_CHARS);
  });
});
