import { describe, expect, it } from "vitest";
import { DEFAULT_KEEP_RECENT_TOKENS, fixedTokens, strategyInForce, summarisesAutomatically, summaryKeepRecentTokens } from "../../src/compaction/policy.js";
import { KEEP_RECENT_SHARE } from "../../src/compaction/prepare.js";
import type { CompactionStrategy } from "../../src/compaction/types.js";

const ALL: CompactionStrategy[] = ["none", "microcompact", "summary", "microcompact+summary"];

describe("compaction policy", () => {
  it("only the summary strategies ask for summaries by themselves", () => {
    expect(ALL.filter(summarisesAutomatically)).toEqual(["summary", "microcompact+summary"]);
  });

  it("a stored summary is used whatever the configured strategy; without one the configured strategy holds", () => {
    expect(ALL.map((s) => strategyInForce(s, false))).toEqual(ALL);
    expect(ALL.map((s) => strategyInForce(s, true))).toEqual(["summary", "microcompact+summary", "summary", "microcompact+summary"]);
  });

  it("a forced summary keeps nothing recent; an automatic one keeps the share prepareHistory keeps", () => {
    expect(summaryKeepRecentTokens({ force: true, contextWindow: 200_000, threshold: 0.8, fixedTokens: 1000 })).toBe(0);
    expect(summaryKeepRecentTokens({ force: false, contextWindow: 200_000, threshold: 0.8, fixedTokens: 1000 })).toBe(Math.floor((160_000 - 1000) * KEEP_RECENT_SHARE));
    expect(summaryKeepRecentTokens({ force: false, threshold: 0.8, fixedTokens: 1000 })).toBe(DEFAULT_KEEP_RECENT_TOKENS);
  });

  it("the fixed sections' reserve counts system, context items and encoded tool schemas at chars/4", () => {
    const tools = [{ name: "read", description: "reads", inputSchema: { type: "object" } }];
    const chars = 8 + 4 + JSON.stringify(tools[0]).length;
    expect(fixedTokens("system!!", [{ source: "AGENTS.md", text: "tabs" }], tools)).toBe(Math.ceil(chars / 4));
  });
});
