// The inspector's change line: what differs from the previous request, the
// first history item that differs (counted from 1, as the pages number them) and why, read
// from the encoding that is sent, for both providers.
import { describe, expect, it } from "vitest";
import type { ProseMessage, ProviderName, Request, WireMessage } from "../../src/provider/types.js";
import { captureRequest } from "../../src/context/capture.js";
import { describeChange, requestPrintSchema, SIDE_REQUEST_CHANGE, type RequestPrint } from "../../src/context/change.js";
import { encodeRequest } from "../../src/provider/encode.js";
import { printEncoded } from "../../src/context/change.js";
import { clearedOutputMarker } from "../../src/compaction/microcompact.js";
import { summaryText } from "../../src/compaction/summary.js";
import { toolResultProse, toolUseProse } from "../../src/replay/replay.js";

const text = (role: "user" | "assistant", t: string): ProseMessage => ({ role, content: [{ type: "text", text: t }] });
const output = (n: number): string => `output number ${n} `.repeat(40);

/** A prose history of `turns` turns, each a prompt, a tool round and an answer; `blurred`
 * outputs (by turn) replaced by microcompact's marker. */
function history(turns: number, blurred: ReadonlySet<number> = new Set()): ProseMessage[] {
  const out: ProseMessage[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(text("user", `prompt ${t}`));
    out.push(text("assistant", `Let me look.\n${toolUseProse("read", { path: `f${t}.ts` })}`));
    const o = output(t);
    out.push(text("user", toolResultProse("read", blurred.has(t) ? clearedOutputMarker("read", false, Buffer.byteLength(o)) : o, false)));
    out.push(text("assistant", `done ${t}`));
  }
  return out;
}

function request(provider: ProviderName, h: ProseMessage[], o: { live?: WireMessage[]; model?: string; context?: string } = {}): Request {
  return {
    provider,
    model: o.model ?? (provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o"),
    system: "You are a coding agent.",
    context: [{ source: "AGENTS.md", text: o.context ?? "Use tabs." }],
    history: h,
    ...(o.live ? { live: o.live } : {}),
    tools: [{ name: "read", description: "read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
    maxOutputTokens: 1000,
    reasoning: "off",
  };
}

const print = (req: Request): RequestPrint => printEncoded(req, encodeRequest(req));
const change = (a: Request, b: Request): string | undefined => describeChange(print(a), print(b));

describe.each(["anthropic", "openai"] as const)("the change line (%s)", (provider) => {
  it("says nothing without a previous request, and 'unchanged' for the same request", () => {
    const r = request(provider, history(3));
    expect(describeChange(undefined, print(r))).toBeUndefined();
    expect(change(r, r)).toBe("history unchanged");
  });

  it("a grown history with the same prefix keeps it", () => {
    expect(change(request(provider, history(3)), request(provider, history(5)))).toBe("history: the previous 12 items unchanged, 8 new");
  });

  it("a microcompact step names its first blurred item and how many outputs it blurred", () => {
    const before = request(provider, history(8, new Set([0, 1])));
    const after = request(provider, history(9, new Set([0, 1, 2, 3, 4])));
    // turn 2's tool result is the 11th message
    expect(change(before, after)).toBe("history changed from item 11: microcompact blurred 3 outputs");
  });

  it("a summary applied names item 1; a newer summary says so", () => {
    const s = { text: "what happened", model: "claude-sonnet-4-5" };
    const before = request(provider, history(6));
    const summarised = request(provider, [text("user", summaryText(s, 8)), ...history(6).slice(8)]);
    expect(change(before, summarised)).toBe("history changed from item 1: summary applied");
    const again = request(provider, [text("user", summaryText({ ...s, text: "more" }, 16)), ...history(7).slice(16)]);
    expect(change(summarised, again)).toBe("history changed from item 1: a new summary applied");
  });

  it("the previous turn's live round, replayed as prose at the next turn, is named", () => {
    const live: WireMessage[] = [
      { role: "user", content: [{ type: "text", text: "prompt 3" }] },
      { role: "assistant", content: [{ type: "text", text: "Let me look." }, { type: "tool_call", id: "call_1", name: "read", input: { path: "f3.ts" } }] },
      { role: "user", content: [{ type: "tool_result", callId: "call_1", name: "read", output: output(3), isError: false }] },
    ];
    const during = request(provider, history(3), { live });
    const next = request(provider, history(4), { live: [{ role: "user", content: [{ type: "text", text: "prompt 4" }] }] });
    // the prompt crosses the same way live or replayed; the answer with its call does not
    expect(change(during, next)).toBe("history changed from item 14: the previous turn now replays as prose");
  });

  it("a switched model, and changed project context, are named", () => {
    const r = request(provider, history(2));
    expect(change(r, request(provider, history(2), { model: "other-model" }))).toMatch(/^model switched \(.+\/.+ → .+\/other-model\): nothing cached carries over$/);
    expect(change(r, request(provider, history(3), { context: "Use spaces." }))).toBe(
      "project context (AGENTS.md) changed; history: the previous 8 items unchanged, 4 new",
    );
  });

  it("a change with no reason the request shows says where only", () => {
    const h = history(4);
    const edited = h.slice();
    edited[5] = text("assistant", "something else");
    expect(change(request(provider, h), request(provider, edited))).toBe("history changed from item 6");
  });
});

describe("the print", () => {
  it("is valid by its schema after a JSON round trip (it is stored with the capture)", () => {
    const p = print(request("anthropic", history(5, new Set([0, 1]))));
    expect(p.cleared).toEqual([[2, 1], [6, 1]]);
    expect(requestPrintSchema.parse(JSON.parse(JSON.stringify(p)))).toEqual(p);
  });

  it("the capture takes it only when asked, and a side request keeps the previous one", () => {
    const r = request("anthropic", history(3));
    const plain = captureRequest(r, { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z" });
    expect(plain.print).toBeUndefined();
    expect(plain.meta.change).toBeUndefined();
    const first = captureRequest(r, { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z", print: {} });
    expect(first.print?.history).toHaveLength(12);
    const side = captureRequest(request("anthropic", [text("user", "summarise")]), {
      iteration: 1,
      capturedAt: "2026-01-01T00:00:00.000Z",
      print: { previous: first.print, side: true },
    });
    expect(side.meta.change).toBe(SIDE_REQUEST_CHANGE);
    expect(side.print).toEqual(first.print);
    const next = captureRequest(request("anthropic", history(4)), { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z", print: { previous: side.print } });
    expect(next.meta.change).toBe("history: the previous 12 items unchanged, 4 new");
  });
});
