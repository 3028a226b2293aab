// albedo-tui -p with MCP servers, end to end: the built CLI as a real process, real servers
// started by it, the strict fake provider over loopback, a real SQLite file. A turn calls MCP
// tools in the live round (native call ids) and the next run replays them as prose; the
// values of env and headers never reach the database, the captures or the log; a project's
// .mcp.json is never started until approved (its command would leave a marker file).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import crypto from "node:crypto";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { allFiles, makeHome, runCli, type Home } from "../helpers/cli.js";
import { everythingStdio, faultyStdio } from "../helpers/mcp-servers.js";
import { approve } from "../../src/extensions/approvals.js";

const T = 90_000;
const KEY = "sk-test-albedo-MCP-9911";
const SECRET = "ghp_mcpSecretValue0123456789abcdef";
let fake: FakeProvider;
let home: Home;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  home = await makeHome({ ANTHROPIC_API_KEY: KEY, MY_TOKEN: SECRET });
  fake.requests.length = 0;
});

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];

async function writeConfig(h: Home, config: unknown): Promise<void> {
  const dir = path.join(h.root, "config", "albedo");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify(config));
}

describe("headless -p with MCP servers", () => {
  it("calls MCP tools natively in the live round, replays them as prose in the next run, and keeps the secrets out of every file", async () => {
    await writeConfig(home, {
      permission: "auto",
      mcpServers: {
        everything: everythingStdio(),
        faulty: { ...faultyStdio(), env: { SERVICE_TOKEN: "${MY_TOKEN}" } },
      },
    });
    fake.script(
      {
        toolCalls: [
          { name: "mcp__everything__get-sum", input: { a: 2, b: 3 }, id: "toolu_sum1" },
          { name: "mcp__faulty__env", input: { name: "SERVICE_TOKEN" }, id: "toolu_env1" },
        ],
      },
      { text: "The sum is 5." },
    );
    const r = await runCli(["-p", "add two and three", ...anthropic()], home);
    expect(r.stderr).toContain("▸ mcp__everything__get-sum");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The sum is 5.\n");
    expect(fake.rejections()).toEqual([]);
    const live = fake.requests[1]!.body;
    expect(live.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["read", "mcp__everything__get-sum", "mcp__faulty__env"]));
    const results = live.messages.at(-1).content;
    expect(results.map((c: { type: string; tool_use_id: string }) => [c.type, c.tool_use_id])).toEqual([
      ["tool_result", "toolu_sum1"],
      ["tool_result", "toolu_env1"],
    ]);
    expect(JSON.stringify(results[0].content)).toContain("The sum of 2 and 3 is 5.");
    // the server did get the secret (it works), and what it said of it was cut out
    expect(JSON.stringify(results[1].content)).toContain("value=[redacted key]");

    fake.requests.length = 0;
    fake.script({ text: "Still five." });
    const again = await runCli(["-p", "and again?", "--continue", ...anthropic()], home);
    expect(again.code).toBe(0);
    expect(fake.rejections()).toEqual([]);
    const replay = fake.requests[0]!.body;
    const text = JSON.stringify(replay.messages);
    expect(text).toContain("Tool use: mcp__everything__get-sum({\\\"a\\\":2,\\\"b\\\":3})");
    expect(text).toContain("Result (mcp__everything__get-sum): The sum of 2 and 3 is 5.");
    expect(text).not.toContain('"tool_use"');
    expect(text).not.toContain('"tool_result"');

    // nothing of the secret in the database (with its WAL), the captures, the log or the state
    for (const f of await allFiles(home.root)) {
      if (f.includes(`${path.sep}config${path.sep}`)) continue; // the config names ${MY_TOKEN}, not the value
      const bytes = await fs.readFile(f);
      expect(bytes.includes(Buffer.from(SECRET)), f).toBe(false);
      expect(bytes.includes(Buffer.from(SECRET.slice(0, 16))), f).toBe(false);
    }
  }, T);

  it("never starts an unapproved .mcp.json: no process is spawned, the run says how to approve, and the agent works", async () => {
    const marker = path.join(home.root, "spawned");
    await fs.writeFile(path.join(home.workspace, ".mcp.json"), JSON.stringify({ mcpServers: { proj: faultyStdio("--marker", marker) } }));
    fake.script({ text: "Fine without it." });
    const r = await runCli(["-p", "hello", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Fine without it.\n");
    expect(r.stderr).toContain("not starting proj from");
    expect(r.stderr).toContain("/mcp approve");
    expect(fake.requests[0]!.body.tools.map((t: { name: string }) => t.name).filter((n: string) => n.startsWith("mcp__"))).toEqual([]);
    await expect(fs.stat(marker)).rejects.toThrow(/ENOENT/);
  }, T);

  it("names the project file escaped on stderr and in the log when its path holds control characters (the title sequence is shown, not removed with its text)", async () => {
    const ws = path.join(home.workspace, "ws\x1b]0;x\x07");
    await fs.mkdir(ws);
    await fs.writeFile(path.join(ws, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: "\x1b[8mhidden" } } }));
    fake.script({ text: "Fine without it." });
    const r = await runCli(["-p", "hello", ...anthropic()], { ...home, workspace: ws });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: MCP: not starting proj from ${home.workspace}/ws\\u001b]0;x\\u0007/.mcp.json`);
    expect(r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    const logged = await fs.readFile(path.join(home.root, "state", "albedo", "albedo.log"), "utf8");
    expect(logged).toContain("ws\\u001b]0;x\\u0007/.mcp.json");
    expect(logged).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  }, T);

  it("starts an approved .mcp.json, and asks again once the file changes", async () => {
    const marker = path.join(home.root, "spawned");
    const file = path.join(home.workspace, ".mcp.json");
    const text = JSON.stringify({ mcpServers: { proj: faultyStdio("--marker", marker) } });
    await fs.writeFile(file, text);
    const approvals = path.join(home.root, "state", "albedo", "mcp-approvals.json");
    approve(home.workspace, crypto.createHash("sha256").update(text).digest("hex"), approvals);
    const written = await fs.readFile(approvals, "utf8");
    expect(written).not.toContain("faulty");
    expect((await fs.stat(approvals)).mode & 0o777).toBe(0o600);

    fake.script({ toolCalls: [{ name: "mcp__proj__ok", input: {} }] }, { text: "ok" });
    const r = await runCli(["-p", "use it", "--permission", "auto", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("✓ mcp__proj__ok");
    await fs.stat(marker);

    await fs.rm(marker);
    await fs.writeFile(file, text.replace("proj", "proj2"));
    fake.script({ text: "not started" });
    const changed = await runCli(["-p", "again", ...anthropic()], home);
    expect(changed.code).toBe(0);
    expect(changed.stderr).toContain("not starting proj2");
    await expect(fs.stat(marker)).rejects.toThrow(/ENOENT/);
  }, T);
});
