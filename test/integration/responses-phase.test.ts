// Responses message items keep their phase: the built CLI against the strict fake, which
// sends `phase` as gpt-5.3-codex and later do and notes every live-round assistant message
// that comes back without it; and input images go with detail "auto".
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import type { ResponsesFakeOptions } from "../helpers/fake-responses.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-responses-phase-SECRET-5151";
const options: ResponsesFakeOptions = { phases: true };
let fake: FakeProvider;
let home: Home;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY, responses: options });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  home = await makeHome({ OPENAI_API_KEY: KEY });
  const dir = path.join(home.root, "config", "albedo");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ api: "responses" }));
  fake.requests.length = 0;
  options.phaseDropped = [];
});

const openai = (): string[] => ["--provider", "openai", "--model", "gpt-5.4", "--base-url", fake.openaiBase, "--permission", "auto"];
type Item = { type: string; role?: string; phase?: string; content?: Array<{ type: string; detail?: string }> };

describe("phase on the Responses API", () => {
  it("an assistant message of the live round goes back with its phase; history goes as prose without it", async () => {
    await fs.writeFile(path.join(home.workspace, "notes.txt"), "the word is heron\n");
    fake.script({ text: "Reading the notes.", toolCalls: [{ name: "read", input: { path: "notes.txt" } }] }, { text: "The word is heron." });
    const r = await runCli(["-p", "what is the word?", ...openai()], home);
    expect(r.code).toBe(0);
    expect(fake.rejections()).toEqual([]);
    const second = fake.requests[1]!.body.input as Item[];
    const said = second.find((i) => i.role === "assistant");
    expect(said).toMatchObject({ type: "message", role: "assistant", phase: "commentary" });
    expect(options.phaseDropped).toEqual([]);
    expect(fake.requests.map((q) => q.headers["user-agent"])).toEqual([expect.stringMatching(/^albedo-tui\/\d/), expect.stringMatching(/^albedo-tui\/\d/)]);
    // stored with the text, so a resumed round still has it
    const store = await openStore(home.db);
    try {
      const [s] = await store.listSessions();
      const { messages } = await store.loadHistory(s!.id);
      expect(messages[1]!.blocks[0]).toEqual({ type: "text", text: "Reading the notes.", phase: "commentary" });
      expect(messages.at(-1)!.blocks[0]).toEqual({ type: "text", text: "The word is heron.", phase: "final_answer" });
    } finally {
      await store.close();
    }
    // the next turn replays the last as prose: no phase, no call ids
    fake.script({ text: "ok" });
    const again = await runCli(["-p", "thanks", "--continue", ...openai()], home);
    expect(again.code).toBe(0);
    const third = fake.requests[2]!.body.input as Item[];
    expect(third.filter((i) => i.phase !== undefined)).toEqual([]);
  });

  it("an input image goes with detail auto", async () => {
    // a 1x1 PNG
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
    await fs.writeFile(path.join(home.workspace, "dot.png"), png);
    fake.script({ text: "a dot" });
    const r = await runCli(["-p", "what is this?", "--image", path.join(home.workspace, "dot.png"), ...openai()], home);
    expect(r.code).toBe(0);
    expect(fake.rejections()).toEqual([]);
    const input = fake.requests[0]!.body.input as Item[];
    const image = input.flatMap((i) => i.content ?? []).find((p) => p.type === "input_image");
    expect(image?.detail).toBe("auto");
  });
});
