// Interrupted work crosses to the model saying so (the built CLI, real SIGKILL, the strict
// fake provider, both API shapes): an answer cut off ends with the interrupted marker, and a
// call whose result never landed is followed by a no-result line — as prose, one wire
// message per stored message, no tool roles, so the strict server accepts the request.
import { describe, expect, it } from "vitest";
import { runCli, startCli, waitUntil, type Home } from "../helpers/cli.js";
import { fakeProviderAndHomes } from "../helpers/suite.js";
import { openStore } from "../../src/session/store/store.js";
import { INTERRUPTED_MARKER, noResultProse } from "../../src/replay/replay.js";

const KEY = "sk-test-interrupted-SECRET-5150";
const suite = fakeProviderAndHomes(KEY);

const SHAPES = {
  anthropic: () => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", suite.fake().anthropicBase],
  openai: () => ["--provider", "openai", "--model", "gpt-4o", "--base-url", suite.fake().openaiBase],
} as const;

async function stored(h: Home) {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    return s ? (await store.loadHistory(s.id)).messages : [];
  } finally {
    await store.close();
  }
}

/** The text of each wire message of a received body, whichever the shape; and whether any tool protocol was sent. */
function wire(body: any): { texts: string[]; toolProtocol: boolean } {
  // OpenAI carries the system text and context items as leading system messages
  const msgs: any[] = body.messages.filter((m: any) => m.role !== "system" && m.role !== "developer");
  const texts = msgs.map((m) =>
    typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((c: any) => c.text ?? "").join("\n") : "",
  );
  const toolProtocol = msgs.some(
    (m) => m.role === "tool" || m.tool_calls !== undefined || (Array.isArray(m.content) && m.content.some((c: any) => c.type === "tool_use" || c.type === "tool_result")),
  );
  return { texts, toolProtocol };
}

describe("interrupted work is replayed saying so", () => {
  for (const [shape, args] of Object.entries(SHAPES)) {
    it(`${shape}: an answer cut by a dropped link ends with the marker in the next turn's request`, async () => {
      suite.fake().script({ fault: "reset_mid" });
      const first = await runCli(["-p", "explain the build", ...args()], suite.home());
      expect(first.code).toBe(1);
      const msgs = await stored(suite.home());
      expect(msgs.map((m) => [m.role, m.status])).toEqual([
        ["user", "complete"],
        ["assistant", "interrupted"],
      ]);
      suite.fake().script({ text: "Picking up where I stopped." });
      const next = await runCli(["-p", "go on", "--continue", ...args()], suite.home());
      expect(next.code, next.stderr).toBe(0);
      expect(suite.fake().rejections()).toEqual([]);
      const { texts, toolProtocol } = wire(suite.fake().requests.at(-1)!.body);
      expect(toolProtocol).toBe(false);
      // one wire message per stored message: prompt, cut answer, new prompt
      expect(texts.filter((t) => t.length > 0)).toHaveLength(3);
      expect(texts[1]!.endsWith(INTERRUPTED_MARKER)).toBe(true);
      expect(texts[1]).toContain("partial answer");
    }, 60_000);

    it(`${shape}: a tool call killed with the agent (kill -9) is followed by a no-result line`, async () => {
      suite.fake().script({ text: "Running it.", toolCalls: [{ name: "bash", input: { command: "sleep 30" } }] });
      const run = startCli(["-p", "run the slow thing", "--permission", "auto", ...args()], suite.home());
      await waitUntil(() => run.stderr().includes("▸ bash"), 20_000, "the bash tool to start");
      run.child.kill("SIGKILL");
      await run.done;
      expect((await stored(suite.home())).map((m) => [m.role, m.status])).toEqual([
        ["user", "complete"],
        ["assistant", "complete"],
      ]);
      suite.fake().script({ text: "It was cut off; let me try again." });
      const next = await runCli(["-p", "what happened?", "--continue", ...args()], suite.home());
      expect(next.code, next.stderr).toBe(0);
      expect(suite.fake().rejections()).toEqual([]);
      const { texts, toolProtocol } = wire(suite.fake().requests.at(-1)!.body);
      expect(toolProtocol).toBe(false);
      expect(texts[1]).toContain('Tool use: bash({"command":"sleep 30"})');
      expect(texts[1]).toContain(noResultProse("bash"));
      expect(texts[1]).not.toContain(INTERRUPTED_MARKER);
    }, 60_000);
  }
});
