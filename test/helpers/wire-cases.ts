// Real requests, each encoded by albedo's own encoders: the bodies test/unit/sdk-wire-types.ts
// holds up to the official SDKs' parameter types (scripts/sdk-wire-bodies.ts writes them).
import type { Request, WireMessage } from "../../src/provider/types.js";
import { OPAQUE_OPENAI_REASONING } from "../../src/provider/responses/encode.js";

const TOOLS: Request["tools"] = [
  { name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "bash", description: "Run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
];

const base = (over: Partial<Request>): Request => ({
  provider: "anthropic",
  model: "claude-sonnet-4-6",
  system: "You are albedo.",
  context: [{ source: "AGENTS.md", text: "Use tabs." }],
  history: [
    { role: "user", content: [{ type: "text", text: "earlier question" }] },
    { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
  ],
  tools: TOOLS,
  maxOutputTokens: 32_000,
  reasoning: "off",
  cache: { key: "session-1", ttl: "5m" },
  ...over,
});

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** a tool round in progress, with an image, signed thinking and two calls */
function live(reasoning: { kind: string; body: string } | undefined, phase?: "commentary"): WireMessage[] {
  return [
    { role: "user", content: [{ type: "text", text: "look at this" }, { type: "image", mediaType: "image/png", data: PNG, bytes: 70, width: 1, height: 1 }] },
    {
      role: "assistant",
      content: [
        ...(reasoning ? [{ type: "reasoning" as const, text: "plan", opaque: reasoning }] : []),
        phase ? { type: "text" as const, text: "Reading.", phase } : { type: "text" as const, text: "Reading." },
        { type: "tool_call", id: "call_1", name: "read", input: { path: "a.ts" } },
        { type: "tool_call", id: "call_2", name: "bash", input: { command: "ls" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", callId: "call_1", name: "read", output: "export {}", isError: false },
        { type: "tool_result", callId: "call_2", name: "bash", output: "exit 1", isError: true },
      ],
    },
  ];
}

const OPENAI_REASONING = JSON.stringify({ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "plan" }], encrypted_content: "gAAAAB" });

export const ANTHROPIC_CASES: Record<string, Request> = {
  adaptive_live_round: base({ reasoning: "high", live: live({ kind: "thinking_signature", body: "SIG" }) }),
  budget_with_tools: base({ model: "claude-haiku-4-5", reasoning: "medium", live: live({ kind: "thinking_signature", body: "SIG" }) }),
  history_only: base({ model: "claude-opus-5-5", cache: { key: "s", ttl: "1h" } }),
};

export const CHAT_CASES: Record<string, Request> = {
  live_round: base({ provider: "openai", model: "gpt-4o", live: live(undefined) }),
  reasoning: base({ provider: "openai", model: "gpt-5", reasoning: "high" }),
};

export const RESPONSES_CASES: Record<string, Request> = {
  live_round_with_phase: base({ provider: "openai", api: "responses", model: "gpt-5.4", reasoning: "high", live: live({ kind: OPAQUE_OPENAI_REASONING, body: OPENAI_REASONING }, "commentary") }),
  history_only: base({ provider: "openai", api: "responses", model: "gpt-4.1" }),
};
