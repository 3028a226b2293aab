// An MCP stdio server whose entry says "sandbox": true runs inside bubblewrap through the same
// door as commands: it works, its environment is the allow-list plus its entry's own, and
// where bubblewrap does not work it is not started at all (nothing pretends to sandbox it).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { faultyStdio } from "../helpers/mcp-servers.js";

const KEY = "sk-test-mcp-sandbox-4141";
let fake: FakeProvider;
let home: Home;
const bwrapWorks = fs.existsSync("/usr/bin/bwrap");

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  home = await makeHome({ ANTHROPIC_API_KEY: KEY, USER_SHELL_VAR: "shell-only-value" });
  fake.requests.length = 0;
  const dir = path.join(home.root, "config", "albedo");
  await fsp.mkdir(dir, { recursive: true });
  await fsp.writeFile(
    path.join(dir, "config.json"),
    JSON.stringify({ permission: "auto", mcpServers: { boxed: { ...faultyStdio(), env: { GIVEN: "given-value" }, sandbox: true } } }),
  );
});

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];

describe.skipIf(!bwrapWorks)("a sandboxed MCP stdio server", () => {
  it("starts and answers inside the sandbox, with only the allowed variables and its own", async () => {
    fake.script(
      {
        toolCalls: [
          { name: "mcp__boxed__ok", input: {}, id: "toolu_ok" },
          { name: "mcp__boxed__env", input: { name: "GIVEN" }, id: "toolu_given" },
          { name: "mcp__boxed__env", input: { name: "USER_SHELL_VAR" }, id: "toolu_shell" },
          // set only by the sandbox's environment (the test's home sets no TMPDIR)
          { name: "mcp__boxed__env", input: { name: "TMPDIR" }, id: "toolu_tmpdir" },
        ],
      },
      { text: "done" },
    );
    const r = await runCli(["-p", "use the server", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
    expect(results).toContain("ok");
    expect(results).toContain("given-value");
    expect(results).not.toContain("shell-only-value");
    expect(results).toContain(`"tool_use_id":"toolu_tmpdir","content":"value=/tmp"`);
  }, 60_000);

  it("is not started when bubblewrap does not work, and says why", async () => {
    fake.script({ text: "no server" });
    const r = await runCli(["-p", "use the server", ...anthropic()], home, { ALBEDO_BWRAP: "/nonexistent/bwrap" });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('"sandbox": true, and commands cannot be sandboxed here');
    const tools = (fake.requests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).not.toContain("mcp__boxed__ok");
  }, 60_000);
});
