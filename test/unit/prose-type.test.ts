// The prose rule as a type: replayed history holds only text and image parts, and a live
// message only the native parts its role can carry. The `@ts-expect-error` lines are the test:
// `npx tsc -p tsconfig.test.json --noEmit` fails ("Unused '@ts-expect-error' directive") the
// day any of them compiles. The runtime checks below only keep vitest running the file.
import { describe, expect, it } from "vitest";
import type { ProseMessage, Request, WireMessage } from "../../src/provider/types.js";

const base: Omit<Request, "history" | "live"> = { provider: "anthropic", model: "m", system: "", context: [], tools: [], maxOutputTokens: 1, reasoning: "off" };

describe("the prose rule as a type", () => {
  it("refuses tool protocol in replayed history", () => {
    const history: ProseMessage[] = [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "user", content: [{ type: "image", mediaType: "image/png", data: "AAAA", bytes: 3 }] },
      // @ts-expect-error a tool call cannot be replayed: it would need its result and its id
      { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "ls", input: {} }] },
      // @ts-expect-error nor can a tool result
      { role: "user", content: [{ type: "tool_result", callId: "c1", name: "ls", output: "", isError: false }] },
      // @ts-expect-error nor signed reasoning
      { role: "assistant", content: [{ type: "reasoning", text: "t", opaque: { kind: "thinking_signature", body: "S" } }] },
    ];
    const liveRound: WireMessage[] = [{ role: "assistant", content: [{ type: "tool_call", id: "c1", name: "ls", input: {} }] }];
    const req: Request = {
      ...base,
      // @ts-expect-error the live round's messages do not fit in the history
      history: liveRound,
      live: liveRound,
    };
    expect(history).toHaveLength(5);
    expect(req.live).toHaveLength(1);
  });

  it("keeps each native part in the role that can carry it", () => {
    const live: WireMessage[] = [
      { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "ls", input: {} }, { type: "reasoning", text: "t" }] },
      { role: "user", content: [{ type: "tool_result", callId: "c1", name: "ls", output: "", isError: false }] },
      // @ts-expect-error a call is the assistant's
      { role: "user", content: [{ type: "tool_call", id: "c2", name: "ls", input: {} }] },
      // @ts-expect-error a result is the user's
      { role: "assistant", content: [{ type: "tool_result", callId: "c1", name: "ls", output: "", isError: false }] },
      // @ts-expect-error reasoning is the assistant's
      { role: "user", content: [{ type: "reasoning", text: "t" }] },
    ];
    expect(live).toHaveLength(5);
  });
});
