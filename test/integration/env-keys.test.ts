// A provider key given in the environment must not be readable by the
// tools, by any route: not in their environment, and not in the agent's own
// /proc/<pid>/environ (which shows the environment the process started with, whatever
// process.env says later). Real CLI, real bash tool, real /proc.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, startCli, waitUntil, type Home } from "../helpers/cli.js";

const ANT = "sk-ant-envkeys-3f9a1c77d2e04b8f";
const OAI = "sk-openai-envkeys-77aa0b1c2d3e4f50";
let fake: FakeProvider;
const homes: Home[] = [];

beforeAll(async () => {
  fake = await startFakeProvider({ key: ANT });
});
afterAll(async () => {
  await fake.close();
  await Promise.all(homes.map((h) => fs.rm(h.root, { recursive: true, force: true })));
});

async function home(): Promise<Home> {
  const h = await makeHome({ ANTHROPIC_API_KEY: ANT, OPENAI_API_KEY: OAI, ALBEDO_KEEP_ME: "still-here" });
  homes.push(h);
  return h;
}

// the unsandboxed path: a sandboxed command cannot see the agent at all (test/integration/sandbox.test.ts)
const args = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase, "--permission", "auto", "--sandbox", "off"];

describe("provider keys leave the environment at start", () => {
  it.runIf(process.platform === "linux")(
    "a tool reading /proc/$PPID/environ (the agent's own block) and its own env finds no key; the key still reaches the provider",
    async () => {
      const h = await home();
      // the tool writes what it read to files: files are not tool output, so redaction cannot hide a leak
      const command =
        'tr "\\0" "\\n" < /proc/$PPID/environ > agent-environ.txt; env > tool-env.txt; echo "agent pid $PPID"';
      fake.script({ toolCalls: [{ name: "bash", input: { command } }] }, { text: "looked" });
      const n = fake.requests.length;
      const r = await runCli(["-p", "read the environment", ...args()], h);
      expect(r.code, r.stderr).toBe(0);
      const agentEnv = await fs.readFile(path.join(h.workspace, "agent-environ.txt"), "utf8");
      const toolEnv = await fs.readFile(path.join(h.workspace, "tool-env.txt"), "utf8");
      // the read was real: the agent's block holds the rest of its environment
      expect(agentEnv).toContain("ALBEDO_KEEP_ME=still-here");
      expect(agentEnv).toContain(`HOME=${h.root}`);
      for (const k of [ANT, OAI]) {
        expect(agentEnv).not.toContain(k);
        expect(toolEnv).not.toContain(k);
      }
      expect(agentEnv).not.toMatch(/ANTHROPIC_API_KEY|OPENAI_API_KEY/);
      expect(toolEnv).toContain("ALBEDO_KEEP_ME=still-here");
      // the key was still used: every request carried it
      expect(fake.requests.slice(n).map((q) => q.headers["x-api-key"])).toEqual([ANT, ANT]);
    },
    60_000,
  );

  it.runIf(process.platform === "linux")("the running agent's /proc/<pid>/environ, read from outside while a turn waits, holds no key", async () => {
    const h = await home();
    fake.script({ fault: "hang_after_text", text: "partial" });
    const n = fake.requests.length;
    const run = startCli(["-p", "wait-for-me-7d1e", ...args()], h);
    try {
      // the request arrived: the agent is past start-up and waiting on the stream
      await waitUntil(() => fake.requests.length > n || run.child.exitCode !== null, 30_000, "the request");
      expect(JSON.stringify(fake.requests[n]?.body)).toContain("wait-for-me-7d1e");
      const environ = await fs.readFile(`/proc/${run.child.pid}/environ`);
      expect(environ.includes(Buffer.from("ALBEDO_KEEP_ME=still-here"))).toBe(true);
      expect(environ.includes(Buffer.from(ANT))).toBe(false);
      expect(environ.includes(Buffer.from(OAI))).toBe(false);
      expect(environ.includes(Buffer.from("ANTHROPIC_API_KEY="))).toBe(false);
    } finally {
      run.child.kill("SIGKILL");
      await run.done;
    }
  }, 60_000);

  it("settings resolved again later (the /reload path) still see the keys taken at start", async () => {
    const h = await home();
    // a real process: taking the keys changes its environment, which the test runner must keep
    const script = `
      const { takeEnvKeys } = await import(${JSON.stringify(path.resolve(path.dirname(CLI), "config/env-keys.js"))});
      const { resolveSettings } = await import(${JSON.stringify(path.resolve(path.dirname(CLI), "config/resolve.js"))});
      takeEnvKeys();
      const first = resolveSettings({}, {});
      const again = resolveSettings({ provider: "openai" }, {});
      console.log(JSON.stringify({ first: first.credentials.keys, again: again.credentials.keys, env: [process.env.ANTHROPIC_API_KEY ?? null, process.env.OPENAI_API_KEY ?? null] }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { env: h.env, cwd: h.workspace }).toString();
    const r = JSON.parse(out) as { first: Record<string, string>; again: Record<string, string>; env: (string | null)[] };
    expect(r.first).toEqual({ anthropic: ANT, openai: OAI });
    expect(r.again).toEqual({ anthropic: ANT, openai: OAI });
    expect(r.env).toEqual([null, null]);
  });

  it("keys from the environment work for a whole headless run and nothing else of the environment is lost", async () => {
    const h = await home();
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo $ALBEDO_KEEP_ME" } }] }, { text: "done" });
    const n = fake.requests.length;
    const r = await runCli(["-p", "echo", ...args()], h);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(fake.requests[n + 1]!.body.messages.at(-1))).toContain("still-here");
  }, 60_000);
});
