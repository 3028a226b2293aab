// The OpenAI counters (src/tokens/count.ts, keptSplitCounter) give gpt-tokenizer's own counts,
// and keep the tokenizer's split regex compiled across the full collections of an idle spell:
// the library's countTokens compiles it again after one (its matchAll makes a new RegExp
// each call). Counts and V8's own trace of regex compilations, never times.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countTokens, type TokenMethod } from "../../src/tokens/count.js";
import { prng } from "../helpers/prng.js";

type Count = (text: string, opts?: unknown) => number;
const require = createRequire(import.meta.url);
const library: Record<Exclude<TokenMethod, "chars/4">, Count> = {
  "o200k tokenizer": (require("gpt-tokenizer/cjs/encoding/o200k_base") as { countTokens: Count }).countTokens,
  "cl100k tokenizer": (require("gpt-tokenizer/cjs/encoding/cl100k_base") as { countTokens: Count }).countTokens,
};

const FIXED = [
  "a",
  " ",
  "\n\n",
  "   \n\t  \r\n",
  "Done.",
  "don't won't I'LL we've",
  "12345678901234567890 3.14159 0x1f",
  "const x = await fetch(`/api/${id}`, { method: \"POST\" });\n  return x?.json() ?? null;",
  "<|endoftext|> and <|im_start|>user<|im_end|> as plain text",
  "😀👍🏽🇫🇷 family: 👨‍👩‍👧‍👦",
  "日本語のテキストと中文文本，한국어 텍스트",
  "e\u0301 combining, \u200b zero width, \ufeff bom",
  "lone \ud800 high and \udc00 low surrogates",
  "Ωμέγα Привет مرحبا שלום",
  "x".repeat(5000),
  "word ".repeat(4000),
];

function randomText(next: () => number): string {
  const alphabet = ["the ", "Function", "(", ")", " ", "\n", "\t", "42", "é", "😀", "日本", "'s", "  ", ".", "<|endoftext|>", "\ud83d", "_", "ID", "ß"];
  const parts: string[] = [];
  const n = 1 + Math.floor(next() * 300);
  for (let i = 0; i < n; i++) parts.push(alphabet[Math.floor(next() * alphabet.length)]!);
  return parts.join("");
}

describe("the OpenAI token counters", () => {
  it("count exactly what gpt-tokenizer's countTokens counts", () => {
    const next = prng(31);
    const texts = [...FIXED];
    for (let i = 0; i < 200; i++) texts.push(randomText(next));
    for (const method of ["o200k tokenizer", "cl100k tokenizer"] as const) {
      const wrong = texts
        .map((t) => ({ t: t.slice(0, 40), ours: countTokens(t, method), theirs: library[method](t, { disallowedSpecial: new Set() }) }))
        .filter((r) => r.ours !== r.theirs);
      expect(wrong).toEqual([]);
    }
  });

  it("do not compile the split regex again after the full collections of an idle spell", () => {
    const runner = path.resolve(import.meta.dirname, "../helpers/token-split-runner.ts");
    const r = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", "--trace-regexp-tier-up", runner], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout;
    const between = (a: string, b: string): string[] =>
      out.slice(out.indexOf(a) + a.length, out.indexOf(b)).split("\n").filter((l) => /bytecode size|native code size/.test(l));
    // the trace does show compilations: the library's own count compiles its regex again
    expect(between("--- library", "--- end").length).toBeGreaterThan(0);
    expect(between("--- product", "--- library")).toEqual([]);
  }, 60_000);
});
