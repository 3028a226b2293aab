// Where the previous request's cached prefix broke: the first part, in the providers' prefix
// order (tools, system, project context, history item by item), whose bytes changed; stored
// in the capture's meta (so `context --json` and the pane show it) and through the CLI.
import { describe, expect, it } from "vitest";
import type { ProseMessage, ProviderName, Request } from "../../src/provider/types.js";
import { captureRequest } from "../../src/context/capture.js";
import { describeCacheBreak, printEncoded, type RequestPrint } from "../../src/context/change.js";
import { encodeRequest } from "../../src/provider/encode.js";
import { clearedOutputMarker } from "../../src/compaction/microcompact.js";
import { toolResultProse } from "../../src/replay/replay.js";

const text = (role: "user" | "assistant", t: string): ProseMessage => ({ role, content: [{ type: "text", text: t }] });

function history(turns: number, blurred: ReadonlySet<number> = new Set()): ProseMessage[] {
  const out: ProseMessage[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(text("user", `prompt ${t}`));
    const o = `output ${t} `.repeat(30);
    out.push(text("user", toolResultProse("read", blurred.has(t) ? clearedOutputMarker("read", false, Buffer.byteLength(o)) : o, false)));
    out.push(text("assistant", `done ${t}`));
  }
  return out;
}

interface Opts {
  system?: string;
  context?: string;
  tool?: string;
  model?: string;
}

function request(provider: ProviderName, h: ProseMessage[], o: Opts = {}): Request {
  return {
    provider,
    model: o.model ?? (provider === "anthropic" ? "claude-sonnet-4-6" : "gpt-5.2"),
    system: o.system ?? "You are a coding agent.",
    context: [{ source: "AGENTS.md", text: o.context ?? "Use tabs." }],
    history: h,
    tools: [{ name: "read", description: o.tool ?? "read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
    maxOutputTokens: 1000,
    reasoning: "off",
  };
}

const print = (r: Request): RequestPrint => printEncoded(r, encodeRequest(r));
const broke = (a: Request, b: Request): string | undefined => describeCacheBreak(print(a), print(b));

describe.each(["anthropic", "openai"] as const)("where the cached prefix broke (%s)", (provider) => {
  it("nothing without a previous request, nor when the previous request is still the prefix", () => {
    const r = request(provider, history(2));
    expect(describeCacheBreak(undefined, print(r))).toBeUndefined();
    expect(broke(r, r)).toBeUndefined();
    expect(broke(r, request(provider, history(4)))).toBeUndefined();
  });

  it("the first changed part in prefix order: tools before system before project context before history", () => {
    const r = request(provider, history(3));
    // everything changed at once: the tools come first in the prefix
    expect(broke(r, request(provider, history(3, new Set([0])), { tool: "read any file", system: "Be brief.", context: "Use spaces." }))).toBe(
      "at the tools (changed): nothing after it is read from the cache",
    );
    expect(broke(r, request(provider, history(3), { system: "Be brief.", context: "Use spaces." }))).toBe(
      "at the system prompt (changed): nothing after it is read from the cache",
    );
    expect(broke(r, request(provider, history(3), { context: "Use spaces." }))).toBe(
      "at the project context (AGENTS.md) (changed): nothing after it is read from the cache",
    );
  });

  it("a history item names its number and, when the request shows it, why", () => {
    const before = request(provider, history(4));
    const after = request(provider, history(5, new Set([1])));
    // turn 1's tool output is the 5th item
    expect(broke(before, after)).toBe("at history item 5 (microcompact blurred 1 output): the items before it can be read from the cache");
    expect(broke(request(provider, history(4)), request(provider, history(4).slice(0, 6)))).toBe("at history item 7 (the history was shortened)");
  });

  it("a switched model breaks it at the model", () => {
    const r = request(provider, history(2));
    expect(broke(r, request(provider, history(2), { model: "other-model" }))).toBe("at the model: another model caches nothing of the previous one");
  });

  it("the capture's meta carries it, beside the change line", () => {
    const first = captureRequest(request(provider, history(2)), { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z", print: {} });
    expect(first.meta.cacheBreak).toBeUndefined();
    const next = captureRequest(request(provider, history(3), { system: "Be brief." }), {
      iteration: 1,
      capturedAt: "2026-01-01T00:00:01.000Z",
      print: { previous: first.print },
    });
    expect(next.meta.change).toBe("system prompt changed; history: the previous 6 items unchanged, 3 new");
    expect(next.meta.cacheBreak).toBe("at the system prompt (changed): nothing after it is read from the cache");
  });
});
