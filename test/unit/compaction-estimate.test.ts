import { describe, expect, it } from "vitest";
import type { Block, StoredMessage } from "../../src/record/types.js";
import {
  estimateBlock,
  estimateMessage,
  estimateMessages,
  IMAGE_TOKENS_MAX,
  imageTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from "../../src/compaction/estimate.js";
import { countTokens, formatEstimate, methodFor } from "../../src/tokens/count.js";
import { EMPTY_MESSAGE_MARKER } from "../../src/replay/replay.js";

let nextId = 1;
function msg(role: "user" | "assistant", blocks: Block[]): StoredMessage {
  const id = nextId++;
  return { id, sessionId: "s1", seq: id, role, blocks, status: "complete", createdAt: "2026-01-01T00:00:00.000Z" };
}

const base = (): StoredMessage[] => [
  msg("user", [{ type: "text", text: "Please look at the failing test in src/app.ts." }]),
  msg("assistant", [{ type: "text", text: "I will read the file first." }]),
];

// A tiny but valid PNG header is enough: the estimator never decodes image data.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const kinds: Array<{ kind: Block["type"]; block: Block }> = [
  { kind: "text", block: { type: "text", text: "Here is a longer paragraph of prose explaining the plan in detail." } },
  { kind: "tool_use", block: { type: "tool_use", id: "c1", name: "read", input: { path: "src/app.ts", from: 1, to: 200 } } },
  {
    kind: "tool_result",
    block: { type: "tool_result", toolUseId: "c1", name: "read", output: "export function main() {\n  return 42;\n}\n", isError: false },
  },
  { kind: "reasoning", block: { type: "reasoning", text: "The test fails because main returns a string." } },
  { kind: "image", block: { type: "image", mediaType: "image/png", data: PNG, bytes: 70, width: 800, height: 600 } },
];

describe("pressure counts every block kind", () => {
  for (const method of ["chars/4", "o200k tokenizer"] as const) {
    for (const { kind, block } of kinds) {
      it(`adding a ${kind} block raises the estimate (${method})`, () => {
        const before = estimateMessages(base(), method).tokens;
        const withBlock = base();
        withBlock.push(msg(kind === "tool_result" ? "user" : "assistant", [block]));
        const after = estimateMessages(withBlock, method).tokens;
        expect(after - before).toBe(MESSAGE_OVERHEAD_TOKENS + estimateBlock(block, method));
        expect(estimateBlock(block, method)).toBeGreaterThan(0);
      });
    }
  }

  it("counts a tool call by its name and input, as replay sends it", () => {
    const small: Block = { type: "tool_use", id: "a", name: "bash", input: { command: "ls" } };
    const large: Block = { type: "tool_use", id: "b", name: "bash", input: { command: "ls " + "-la ".repeat(200) } };
    expect(estimateBlock(large, "chars/4")).toBeGreaterThan(estimateBlock(small, "chars/4") + 150);
  });

  it("counts a tool result by its output and name", () => {
    const out = "x".repeat(4000);
    const b: Block = { type: "tool_result", toolUseId: "a", name: "bash", output: out, isError: false };
    expect(estimateBlock(b, "chars/4")).toBe(Math.ceil(`Result (bash): ${out}`.length / 4));
  });

  it("does not count the opaque reasoning body, which is not replayed", () => {
    const plain: Block = { type: "reasoning", text: "thinking about it" };
    const signed: Block = { type: "reasoning", text: "thinking about it", opaque: { kind: "signature", body: "s".repeat(10_000) } };
    expect(estimateBlock(signed, "chars/4")).toBe(estimateBlock(plain, "chars/4"));
  });

  it("counts an empty message as the interrupted marker it replays as", () => {
    expect(estimateMessage({ blocks: [] }, "chars/4")).toBe(MESSAGE_OVERHEAD_TOKENS + countTokens(EMPTY_MESSAGE_MARKER, "chars/4"));
  });
});

describe("images by size", () => {
  it("uses width × height / 750 for small images", () => {
    expect(imageTokens(200, 100)).toBe(Math.ceil((200 * 100) / 750));
    expect(imageTokens(1000, 1000)).toBe(1334);
  });

  it("caps large images after the resize to a 1568 px long edge", () => {
    expect(imageTokens(4000, 3000)).toBe(IMAGE_TOKENS_MAX);
    // a long thin image is resized, not capped: 1568 × 98 after scaling
    expect(imageTokens(6400, 400)).toBe(Math.ceil((1568 * 98) / 750));
  });

  it("counts an image of unknown size as the cap", () => {
    const b: Block = { type: "image", mediaType: "image/jpeg", data: PNG, bytes: 70 };
    expect(estimateBlock(b, "chars/4")).toBe(IMAGE_TOKENS_MAX);
    expect(imageTokens(0, 10)).toBe(IMAGE_TOKENS_MAX);
  });

  it("counts an image the model cannot see as its short marker", () => {
    const b: Block = { type: "image", mediaType: "image/png", data: PNG, bytes: 70, width: 1000, height: 1000 };
    const unseen = estimateBlock(b, "chars/4", { vision: false });
    expect(unseen).toBeGreaterThan(0);
    expect(unseen).toBeLessThan(estimateBlock(b, "chars/4", { vision: true }));
  });
});

describe("estimates say their method", () => {
  it("names the o200k tokenizer for gpt-4o on openai", () => {
    const e = estimateMessages(base(), methodFor("openai", "gpt-4o"));
    expect(e.method).toBe("o200k tokenizer");
    expect(e.tokenizer).toBe("o200k tokenizer");
    expect(formatEstimate(e)).toMatch(/^≈ [\d,]+ tokens \(o200k tokenizer\)$/);
  });

  it("names chars/4 for claude", () => {
    const e = estimateMessages(base(), methodFor("anthropic", "claude-sonnet-4-5"));
    expect(e.method).toBe("chars/4");
  });

  it("adds the image rule to the label when images are counted by size", () => {
    const h = base();
    h.push(msg("user", [kinds[4]!.block]));
    expect(estimateMessages(h, "chars/4").method).toBe("chars/4 + images by size");
    expect(estimateMessages(h, "o200k tokenizer").method).toBe("o200k tokenizer + images by size");
    // unseen images cross as text, so the plain method is the whole truth
    expect(estimateMessages(h, "chars/4", { vision: false }).method).toBe("chars/4");
  });

  it("formats thousands with separators", () => {
    expect(formatEstimate({ tokens: 41200, method: "chars/4" })).toBe("≈ 41,200 tokens (chars/4)");
  });

  it("the tokenizer and chars/4 disagree on real text, so the label matters", () => {
    const text = "const x = 1; // ".repeat(100);
    const b: Block = { type: "text", text };
    expect(estimateBlock(b, "o200k tokenizer")).not.toBe(estimateBlock(b, "chars/4"));
  });
});

describe("cache", () => {
  it("recounts a block whose text grew in place (a streaming checkpoint)", () => {
    const b: Block & { type: "text" } = { type: "text", text: "short" };
    const first = estimateBlock(b, "chars/4");
    b.text += " and now much longer than it was before, after more streamed in";
    expect(estimateBlock(b, "chars/4")).toBeGreaterThan(first);
  });

  it("keeps separate counts per method", () => {
    const b: Block = { type: "text", text: "function foo(bar) { return bar * 2; }" };
    const a = estimateBlock(b, "chars/4");
    const o = estimateBlock(b, "o200k tokenizer");
    expect(estimateBlock(b, "chars/4")).toBe(a);
    expect(estimateBlock(b, "o200k tokenizer")).toBe(o);
    expect(a).toBe(Math.ceil(b.text.length / 4));
  });
});
