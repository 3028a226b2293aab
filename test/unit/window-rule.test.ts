// The window rule (src/compaction/window.ts) and the opaque-body bound (src/replay/replay.ts,
// boundOpaque; request.ts, opaqueBudget): what a whole request is estimated at, when it is over
// the window, how a prepared history is cut to fit, and which opaque bodies a request carries.
import { describe, expect, it } from "vitest";
import { cutToFit, describeCut, fitLimit, LEFT_OUT_PREFIX, overWindow, requestTokens } from "../../src/compaction/window.js";
import { OPAQUE_MAX_BYTES, opaqueBudget, turnRequest, type RequestSettings } from "../../src/replay/request.js";
import { boundOpaque, imageTarget } from "../../src/replay/replay.js";
import { captureRequest } from "../../src/context/capture.js";
import { requestEstimate } from "../../src/context/format.js";
import type { WireMessage } from "../../src/provider/types.js";
import type { Block, MessageStatus, Role } from "../../src/record/types.js";
import type { PreparedMessage } from "../../src/compaction/types.js";

const settings = (over: Partial<RequestSettings> = {}): RequestSettings => ({
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  system: "SYS",
  context: [],
  tools: [],
  maxOutputTokens: 32000,
  reasoning: "medium",
  vision: imageTarget("anthropic", true),
  ...over,
});
type Live = { role: Role; blocks: Block[]; status: MessageStatus };
const msg = (role: Role, blocks: Block[], status: MessageStatus = "complete"): Live => ({ role, blocks, status });
const text = (t: string): Block => ({ type: "text", text: t });
const signed = (body: string, t = "plan"): Block => ({ type: "reasoning", text: t, opaque: { kind: "thinking_signature", body } });
const call = (id: string): Block => ({ type: "tool_use", id, name: "read", input: { path: "a.txt" } });
const result = (id: string, output = "a"): Block => ({ type: "tool_result", toolUseId: id, name: "read", output, isError: false });

/** a live round of `n` tool rounds whose reasoning bodies are `bytes` long each */
function rounds(n: number, bytes: number): Live[] {
  const out: Live[] = [msg("user", [text("go")])];
  for (let i = 1; i <= n; i++) out.push(msg("assistant", [signed(String(i).repeat(bytes), `round ${i}`), call(`t${i}`)]), msg("user", [result(`t${i}`)]));
  return out;
}

describe("requestTokens", () => {
  it("counts every part kind, opaque bodies by size, and names what it counted", () => {
    const plain = requestTokens(turnRequest([], rounds(1, 0).slice(0, 1), settings()), "chars/4");
    expect(plain.method).toBe("chars/4");
    const live = rounds(1, 4000);
    const e = requestTokens(turnRequest([], live, settings()), "chars/4");
    // the 4,000-byte body alone counts 1,000 tokens
    expect(e.tokens).toBeGreaterThan(plain.tokens + 1000);
    expect(e.method).toBe("chars/4 + opaque bodies by size");
    const withImage = requestTokens(turnRequest([], [msg("user", [text("see"), { type: "image", mediaType: "image/png", data: "AAAA", bytes: 3, width: 750, height: 1000 }])], settings()), "chars/4");
    expect(withImage.tokens).toBeGreaterThanOrEqual(1000);
    expect(withImage.method).toBe("chars/4 + images by size");
  });

  it("agrees with the inspector's figure within the labels it leaves out", () => {
    const req = turnRequest([msg("user", [text("x".repeat(40_000))]), msg("assistant", [text("ok")])], rounds(2, 8000), settings());
    const mine = requestTokens(req, "chars/4");
    const shown = requestEstimate(captureRequest(req, { iteration: 1, capturedAt: "2025-01-01T00:00:00Z" }).sections);
    expect(shown.method).toBe("chars/4 + opaque bodies by size");
    expect(Math.abs(mine.tokens - shown.tokens)).toBeLessThan(100);
  });
});

describe("overWindow", () => {
  const req = turnRequest([], [msg("user", [text("y".repeat(80_000))])], settings());
  it("is silent when the window is unknown or the request fits", () => {
    expect(overWindow(req, { contextWindow: undefined, method: "chars/4" })).toBeUndefined();
    expect(overWindow(req, { contextWindow: 100_000, method: "chars/4" })).toBeUndefined();
  });
  it("gives the figures when the estimate is over", () => {
    expect(overWindow(req, { contextWindow: 10_000, method: "chars/4" })).toMatchObject({ window: 10_000, method: "chars/4" });
    expect(overWindow(req, { contextWindow: 10_000, method: "chars/4" })!.tokens).toBeGreaterThan(20_000);
  });
  it("fits to the threshold's share, never the whole window", () => {
    expect(fitLimit(200_000, 0.8)).toBe(160_000);
    expect(fitLimit(200_000, 1)).toBe(190_000);
  });
});

describe("cutToFit", () => {
  const history: PreparedMessage[] = [
    { role: "user", blocks: [text("small prompt"), text("p".repeat(400_000))] },
    { role: "assistant", blocks: [text("fine"), call("t1")] },
    { role: "user", blocks: [result("t1", "r".repeat(40_000))] },
    { role: "assistant", blocks: [text("a".repeat(8_000))] },
  ];
  const copy = JSON.stringify(history);

  it("leaves out the largest blocks first, just enough, with markers that say what went", () => {
    const c = cutToFit(history, { excess: 50_000, method: "chars/4" });
    expect(c.blocks).toBe(1);
    expect(c.tokens).toBe(100_000);
    const marker = (c.messages[0]!.blocks[1] as { text: string }).text;
    expect(marker.startsWith(`${LEFT_OUT_PREFIX}the text of a user message, ≈ 100,000 tokens (400,000 characters). The session's record keeps it whole. It began: "ppp`)).toBe(true);
    expect(marker.length).toBeLessThan(500);
    // the rest shared, the input untouched
    expect(c.messages[2]!.blocks[0]).toBe(history[2]!.blocks[0]);
    expect(JSON.stringify(history)).toBe(copy);
    expect(describeCut(c)).toBe("left out to fit the window: 1 block, ≈ 100,000 tokens");
  });

  it("keeps a tool result a tool result (its call's pairing) and cuts down to small blocks only when asked", () => {
    const c = cutToFit(history, { excess: 105_000, method: "chars/4" });
    expect(c.blocks).toBe(2);
    const r = c.messages[2]!.blocks[0]!;
    expect(r).toMatchObject({ type: "tool_result", toolUseId: "t1", name: "read", isError: false });
    expect((r as { output: string }).output).toMatch(/^\[Left out of this request to fit the model's context window: the output of read, ≈ 10,00\d tokens \(40,000 characters\)/);
    // with a floor above the result's size, only the paste goes
    expect(cutToFit(history, { excess: 105_000, method: "chars/4", minTokens: 50_000 }).blocks).toBe(1);
    // nothing is worth cutting below the marker's own size
    expect(cutToFit([{ role: "user", blocks: [text("tiny")] }], { excess: 10, method: "chars/4" }).blocks).toBe(0);
  });
});

describe("the opaque-body bound", () => {
  it("is a quarter of the window by size, at most 2 MB", () => {
    expect(opaqueBudget(200_000)).toBe(200_000);
    expect(opaqueBudget(10_000_000)).toBe(OPAQUE_MAX_BYTES);
    expect(opaqueBudget(undefined)).toBe(OPAQUE_MAX_BYTES);
  });

  const bodies = (ms: readonly WireMessage[]): (number | undefined)[] =>
    ms.filter((m) => m.role === "assistant").map((m) => m.content.find((p) => p.type === "reasoning")).map((p) => (p?.type === "reasoning" ? p.opaque?.body.length : undefined));

  it("keeps the newest bodies that fit; from the first that does not, the older ones go as text", () => {
    const live = turnRequest([], rounds(5, 60_000), settings({ contextWindow: 200_000 })).live!;
    expect(bodies(live)).toEqual([undefined, undefined, 60_000, 60_000, 60_000]);
    const prose = live.filter((m) => m.role === "assistant")[0]!.content[0]!;
    expect(prose).toEqual({ type: "reasoning", text: "round 1" });
    // a newer body too large stops the count: the older ones are not kept past it
    const mixed = [msg("user", [text("go")]), msg("assistant", [signed("s".repeat(10)), call("a")]), msg("user", [result("a")]), msg("assistant", [signed("b".repeat(300_000)), call("b")]), msg("user", [result("b")])];
    expect(bodies(turnRequest([], mixed, settings({ contextWindow: 200_000 })).live!)).toEqual([undefined, undefined]);
  });

  it("returns the messages as they are when everything fits", () => {
    const live = turnRequest([], rounds(2, 10), settings()).live!;
    expect(boundOpaque(live, OPAQUE_MAX_BYTES).every((m, i) => m === live[i])).toBe(true);
  });
});
