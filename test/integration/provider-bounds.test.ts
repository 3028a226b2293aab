// The bounds on one answer through the built CLI (headless), against the fake provider over
// loopback HTTP and a real SQLite file: what the person reads, what is stored, what is not run.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-albedo-BOUNDS-9090";
const MB = 1024 * 1024;
let fake: FakeProvider;
let home: Home;

// a fake per test: a step one test left unused must not reach the next
beforeEach(async () => {
  fake = await startFakeProvider({ key: KEY });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY });
});
afterEach(async () => {
  await fake.close();
  await fs.rm(home.root, { recursive: true, force: true });
});

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];
const openai = (): string[] => ["--provider", "openai", "--model", "gpt-4o", "--base-url", fake.openaiBase];

async function writeConfig(h: Home, config: unknown): Promise<void> {
  const file = path.join(h.env.XDG_CONFIG_HOME as string, "albedo", "config.json");
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(config));
}

async function messages(h: Home) {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    return (await store.loadHistory(s!.id)).messages;
  } finally {
    await store.close();
  }
}

function textOf(blocks: { type: string; text?: string }[]): string {
  return blocks.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

describe("headless: bounds on one answer", () => {
  it("an endless stream stops at 4 MB with a clear error; the text up to it is stored as interrupted; the next turn works", async () => {
    fake.script({ fault: "endless_text", text: "Starting." });
    const r = await runCli(["-p", "go on", ...anthropic()], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: the provider sent more than 4 MB in one answer; stopped reading it; what arrived up to the bound was kept/);
    const stored = await messages(home);
    expect(stored.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "interrupted"],
    ]);
    const kept = textOf(stored[1]!.blocks);
    expect(kept.startsWith("Starting.lorem ipsum")).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(4 * MB);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(4 * MB - 1024);

    fake.script({ text: "Back to normal." });
    const next = await runCli(["-p", "and now?", "--continue", ...anthropic()], home);
    expect(next.code).toBe(0);
    expect(next.stdout).toBe("Back to normal.\n");
    expect(fake.rejections()).toEqual([]);
  });

  it("a config's maxOutputTokens sets the bound (400,000 × 16 bytes = 6.1 MB)", async () => {
    await writeConfig(home, { maxOutputTokens: 400_000 });
    fake.script({ fault: "endless_text", text: "Starting." });
    const r = await runCli(["-p", "go on", ...openai()], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the provider sent more than 6.1 MB in one answer");
    const stored = await messages(home);
    expect(Buffer.byteLength(textOf(stored[1]!.blocks))).toBeLessThanOrEqual(400_000 * 16);
  });

  for (const [shape, args] of [
    ["anthropic", anthropic],
    ["openai", openai],
  ] as const) {
    it(`${shape}: a 50 MB tool input is cut off and the tool is not run; the text before it is kept`, async () => {
      fake.script({ fault: "huge_tool_input", text: "I will write it." });
      const r = await runCli(["-p", "write a big file", "--permission", "auto", ...args()], home);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('the input of the tool call "write" was cut off there, and the call is not run');
      await expect(fs.access(path.join(home.workspace, "huge.txt"))).rejects.toThrow();
      const stored = await messages(home);
      expect(stored.map((m) => [m.role, m.status])).toEqual([
        ["user", "complete"],
        ["assistant", "interrupted"],
      ]);
      expect(stored[1]!.blocks).toEqual([{ type: "text", text: "I will write it." }]);
      // no second request: nothing ran, so there was nothing to send back
      expect(fake.requests).toHaveLength(1);
    });
  }

  it("a server that sends only pings ends the turn at the configured idle timeout, naming the wait", async () => {
    await writeConfig(home, { idleTimeoutSeconds: 1 });
    fake.script({ fault: "pings_only", pingEveryMs: 100 });
    const r = await runCli(["-p", "hello?", ...anthropic()], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /albedo-tui: no content from the provider for 1 s \(.+\) while waiting for the answer to start: only keep-alive pings or empty events arrived; gave up waiting \(the idle timeout, idleTimeoutSeconds in the config\)/,
    );
    const stored = await messages(home);
    expect(stored.map((m) => m.role)).toEqual(["user"]);
  });
});
