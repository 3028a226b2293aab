// Run by test/unit/capture-shapes.test.ts under --trace-opt --trace-deopt --expose-gc: builds,
// encodes and captures a request for each provider again and again with a full collection
// between rounds, as requests go in a session where collections come between turns.
import { turnRequest } from "../../src/replay/request.js";
import { imageTarget } from "../../src/replay/replay.js";
import { encodeRequest } from "../../src/provider/encode.js";
import { captureRequest } from "../../src/context/capture.js";
import type { Block } from "../../src/record/types.js";
import type { ProviderName } from "../../src/provider/types.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

const history: { role: "user" | "assistant"; blocks: Block[] }[] = [];
for (let i = 0; i < 300; i++) {
  history.push({ role: "user", blocks: [{ type: "text", text: `Question ${i}: what does line ${i} do?` }] });
  history.push({
    role: "assistant",
    blocks: [
      { type: "text", text: `Let me read it (${i}).` },
      { type: "tool_use", id: `call_${i}`, name: "read", input: { path: `src/file${i}.ts` } },
    ],
  });
  history.push({ role: "user", blocks: [{ type: "tool_result", toolUseId: `call_${i}`, name: "read", output: `line ${i}\n`.repeat(40), isError: false }] });
  history.push({ role: "assistant", blocks: [{ type: "text", text: `It returns ${i}. `.repeat(20) }] });
}
history.push({ role: "user", blocks: [{ type: "text", text: "Thanks." }] });

function pass(provider: ProviderName, model: string): void {
  const req = turnRequest(history, [], {
    provider,
    model,
    system: "You are a coding agent.",
    context: [{ source: "AGENTS.md", text: "Run the tests." }],
    tools: [{ name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
    maxOutputTokens: 4096,
    reasoning: "off",
    vision: imageTarget(provider, true),
  });
  encodeRequest(req);
  captureRequest(req, { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z" });
}

for (let round = 0; round < Number(process.argv[2] ?? 12); round++) {
  for (let k = 0; k < 3; k++) {
    pass("anthropic", "claude-sonnet-4-5");
    pass("openai", "gpt-4o");
  }
  gc();
}
