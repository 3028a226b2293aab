// A capture of content already counted makes no tokenizer call at all, short pieces (the
// "\n\n" between an OpenAI assistant message's texts, "Done.") included. The tokenizer is
// the real one; the test only records the pieces it looks up in its vocabulary (every piece
// of every text it counts is), through the very module instance src/tokens/count.ts loads.
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { captureRequest } from "../../src/context/capture.js";
import type { ProseMessage, Request } from "../../src/provider/types.js";
import { countTokens } from "../../src/tokens/count.js";

type Count = (text: string, opts?: unknown) => number;
interface Core {
  getBpeRankFromString: (piece: string) => number | undefined;
}
const require = createRequire(import.meta.url);
const o200k = require("gpt-tokenizer/cjs/encoding/o200k_base") as { countTokens: Count; default: { bytePairEncodingCoreProcessor: Core } };
const real = o200k.countTokens;
const core = o200k.default.bytePairEncodingCoreProcessor;
const lookup = core.getBpeRankFromString;

/** Pieces of text the real tokenizer looked up while `fn` ran. */
function tokenized(fn: () => void): string[] {
  const seen: string[] = [];
  core.getBpeRankFromString = function (this: Core, piece: string) {
    seen.push(piece);
    return lookup.call(this, piece);
  };
  try {
    fn();
  } finally {
    core.getBpeRankFromString = lookup;
  }
  return seen;
}

afterEach(() => {
  core.getBpeRankFromString = lookup;
});

// Built afresh each time, so no string object is shared between two requests' parts that
// the encoding builds (joins, prefixes): only the characters are the same.
function request(): Request {
  const history: ProseMessage[] = [
    { role: "user", content: [{ type: "text", text: "Please look at the failing test in src/app.ts and fix it." }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "I read the file; the loop ends one element early." },
        { type: "text", text: "Done." },
      ],
    },
    { role: "user", content: [{ type: "text", text: "ok" }] },
    { role: "assistant", content: [{ type: "text", text: ["Fixed", "and", "ran", "the", "tests"].join(" ") + "." }] },
  ];
  return {
    provider: "openai",
    model: "gpt-4o",
    system: "You are albedo, a coding agent working in the user's repository.",
    context: [{ source: "AGENTS.md", text: "# Rules\nRun npm test before every commit." }],
    history,
    live: [{ role: "user", content: [{ type: "text", text: "Thanks" }] }],
    tools: [{ name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
    maxOutputTokens: 4096,
    reasoning: "off",
  };
}

describe("token counts of a repeated capture", () => {
  it("a second capture of the same content calls the tokenizer for nothing, joins and short texts included", () => {
    const first = tokenized(() => captureRequest(request(), { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z" }));
    // the first capture did count the short pieces, the join among them
    expect(first).toContain("\n\n");
    expect(first).toContain("Done");
    let again: ReturnType<typeof captureRequest> | undefined;
    const second = tokenized(() => {
      again = captureRequest(request(), { iteration: 2, capturedAt: "2026-01-01T00:00:01.000Z" });
    });
    expect(second).toEqual([]);
    // and the figures are the same as counted the first time
    const fresh = captureRequest(request(), { iteration: 3, capturedAt: "2026-01-01T00:00:02.000Z" });
    expect(again!.sections.map((s) => s.estimate)).toEqual(fresh.sections.map((s) => s.estimate));
  });

  it("a short text is counted by the tokenizer once, and gives the tokenizer's count", () => {
    const text = "ok!";
    const expected = real(text, { disallowedSpecial: new Set() });
    const once = tokenized(() => expect(countTokens(text, "o200k tokenizer")).toBe(expected));
    expect(once).toEqual(["ok", "!"]);
    const twice = tokenized(() => expect(countTokens(text, "o200k tokenizer")).toBe(expected));
    expect(twice).toEqual([]);
  });
});
