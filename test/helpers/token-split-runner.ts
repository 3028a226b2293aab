// Run by test/unit/token-count-split.test.ts under --expose-gc --trace-regexp-tier-up: counts a
// text, lets full collections pass as an idle spell between turns does, then counts a new text
// with the product's counter and one with the library's own countTokens, printing a marker
// before each so the test can tell whose regex compilations the trace shows.
import { createRequire } from "node:module";
import { countTokens } from "../../src/tokens/count.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const require = createRequire(import.meta.url);
const o200k = require("gpt-tokenizer/cjs/encoding/o200k_base") as { countTokens: (t: string, o?: unknown) => number };

countTokens("the first turn's prompt, counted once the tokenizer is loaded", "o200k tokenizer");
o200k.countTokens("and the library's own count, before the idle spell", { disallowedSpecial: new Set() });
for (let i = 0; i < 4; i++) gc();
console.log("--- product");
countTokens("the next turn's prompt, never counted before", "o200k tokenizer");
console.log("--- library");
o200k.countTokens("another prompt, never counted before either", { disallowedSpecial: new Set() });
console.log("--- end");
