// A request's print (src/context/change.ts) is stored with its capture and compared with the
// next request's, across restarts and upgrades: its digests must stay the bytes they were.
// These figures were computed piece by piece (one hash update per piece), as prints stored
// before were; the print gathers short pieces now, and must give the very same digests for
// short and long pieces, images, opaque bodies, tools, and surrogate halves at piece edges.
import { describe, expect, it } from "vitest";
import { printEncoded } from "../../src/context/change.js";
import { encodeRequest } from "../../src/provider/encode.js";
import type { ProviderName, Request } from "../../src/provider/types.js";

function request(provider: ProviderName): Request {
  const long = "a long tool output line with ünïcödé and 日本語 😀\n".repeat(200); // > 4,096 units
  return {
    provider,
    model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o",
    system: "You are a coding agent.",
    context: [{ source: "AGENTS.md", text: "Use tabs." }],
    history: [
      { role: "user", content: [{ type: "text", text: "short prompt" }] },
      { role: "assistant", content: [{ type: "text", text: "ends on a lone high half \ud83d" }, { type: "text", text: "\ude00 starts on a low half" }] },
      { role: "user", content: [{ type: "text", text: `Result (read): ${long}` }, { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=", bytes: 8, width: 1, height: 1 }] },
      { role: "assistant", content: [{ type: "text", text: "x".repeat(4095) }, { type: "text", text: "y".repeat(4096) }] },
      { role: "user", content: [{ type: "text", text: "" }] },
    ],
    live: [
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "thinking it over", opaque: { kind: "thinking_signature", body: "c2lnbmF0dXJl" } },
          { type: "tool_call", id: "call_1", name: "read", input: { path: "a.ts" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", callId: "call_1", name: "read", output: long, isError: false }] },
    ],
    tools: [{ name: "read", description: "read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
    maxOutputTokens: 1000,
    reasoning: "off",
  };
}

describe("a request's print", () => {
  it("keeps the digests prints were stored with", () => {
    const got = Object.fromEntries((["anthropic", "openai"] as const).map((p) => [p, printEncoded(request(p), encodeRequest(request(p)))]));
    expect(got).toEqual(EXPECTED);
  });
});

const EXPECTED = {
  anthropic: {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    sections: [["system", "a4463ad5b463c58c"], ["context:AGENTS.md", "e2f131da8b27df79"], ["tools", "4821680ee1cc92be"]],
    history: ["a19cf5e67b2b21a5", "1c0059becec76491", "20b20c4beea3d140", "e081c7a337873392", "8396eae06ccbe6ca", "f5ac650b031704d2", "a3720c6c30063f4c"],
    cleared: [],
    liveFrom: 5,
  },
  openai: {
    provider: "openai",
    model: "gpt-4o",
    sections: [["system", "a4463ad5b463c58c"], ["context:AGENTS.md", "e2f131da8b27df79"], ["tools", "b8e1ad5b177b2e22"]],
    history: ["a19cf5e67b2b21a5", "43a2d39af0012735", "20b20c4beea3d140", "343fa542c71be3ce", "4e0ea2793cf054c7", "1a68698b9600ae42", "1b2a71e8dbbf0e38"],
    cleared: [],
    liveFrom: 5,
  },
};
