// A killed turn never breaks the next request, on the Responses API too:
// the built CLI as a real process killed with SIGKILL mid-answer and mid-tool, against the
// strict fake's /v1/responses, then --continue on the same shape. Whatever the killed turn
// left (an interrupted answer with its reasoning; a call
// with no result) crosses as prose, so the strict fake refuses nothing.
import { describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { runCli, startCli, waitUntil, type Home } from "../helpers/cli.js";
import { fakeProviderAndHomes } from "../helpers/suite.js";
import { openStore } from "../../src/session/store/store.js";
import { INTERRUPTED_MARKER, noResultProse } from "../../src/replay/replay.js";
import type { StoredMessage } from "../../src/record/types.js";

const KEY = "sk-test-responses-killed-SECRET-8181";
const suite = fakeProviderAndHomes(KEY);

const args = (): string[] => ["--provider", "openai", "--model", "gpt-5", "--base-url", suite.fake().openaiBase, "--reasoning", "high", "--permission", "auto"];

async function useResponses(h: Home): Promise<void> {
  const dir = path.join(h.root, "config", "albedo");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ api: "responses" }));
}

async function stored(h: Home): Promise<StoredMessage[]> {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    return s ? (await store.loadHistory(s.id)).messages : [];
  } finally {
    await store.close();
  }
}

type Item = { type?: string; role?: string; content?: unknown };
const input = (body: Record<string, unknown>): Item[] => (body["input"] as Item[]).filter((i) => i.role !== "system");

describe("a killed Responses turn never breaks the next request", () => {
  it("killed mid-answer after its reasoning item: the next turn sends the checkpoint as prose", async () => {
    const h = suite.home();
    await useResponses(h);
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    suite.fake().script({ reasoning: "Plan the long answer.", text: words, wordsPerEvent: 1, delayMs: 20 });
    const run = startCli(["-p", "write a lot", ...args()], h);
    // a checkpoint holds the reasoning, with its encrypted item, and some of the text
    await waitUntil(
      async () => {
        const m = (await stored(h))[1];
        return m?.status === "interrupted" && m.blocks.some((b) => b.type === "text");
      },
      30_000,
      "a checkpoint of the answer",
    );
    run.child.kill("SIGKILL");
    await run.done;
    const cut = (await stored(h))[1]!;
    expect(cut.status).toBe("interrupted");
    // the reasoning is kept (its encrypted item, when a checkpoint holds it, never leaves its round)
    expect(cut.blocks[0]).toMatchObject({ type: "reasoning", text: "Plan the long answer." });

    suite.fake().script({ text: "Picking up." });
    const next = await runCli(["-p", "go on", "--continue", ...args()], h);
    expect(next.code, next.stderr).toBe(0);
    expect(suite.fake().rejections()).toEqual([]);
    const body = suite.fake().requests.at(-1)!.body;
    const items = input(body);
    // one message item per stored message, no reasoning item from the killed turn
    expect(items.map((i) => `${i.type}:${i.role}`)).toEqual(["message:user", "message:assistant", "message:user"]);
    const text = JSON.stringify(items);
    expect(text).toContain("[Reasoning]: Plan the long answer.");
    expect(text).toContain(INTERRUPTED_MARKER);
    expect(text).not.toContain("encrypted_content");
  }, 90_000);

  it("killed while its tool runs: the call without a result crosses as prose, no function_call item", async () => {
    const h = suite.home();
    await useResponses(h);
    suite.fake().script({ reasoning: "Run the slow thing.", toolCalls: [{ name: "bash", input: { command: "sleep 30" } }] });
    const run = startCli(["-p", "run the slow thing", ...args()], h);
    await waitUntil(() => run.stderr().includes("▸ bash"), 30_000, "the bash tool to start");
    run.child.kill("SIGKILL");
    await run.done;
    expect((await stored(h)).map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
    ]);

    suite.fake().script({ text: "It was cut off." });
    const next = await runCli(["-p", "what happened?", "--continue", ...args()], h);
    expect(next.code, next.stderr).toBe(0);
    expect(suite.fake().rejections()).toEqual([]);
    const items = input(suite.fake().requests.at(-1)!.body);
    expect(items.every((i) => i.type === "message")).toBe(true);
    const text = JSON.stringify(items);
    expect(text).toContain('Tool use: bash({\\"command\\":\\"sleep 30\\"})');
    expect(text).toContain(noResultProse("bash"));
    expect(text).not.toContain("call_id");
  }, 90_000);
});
