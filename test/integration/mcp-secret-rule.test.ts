// What counts as a secret, end to end (src/config/secrets.ts): the built CLI headless, the
// faulty MCP server telling its env values back, the strict fake provider, a real SQLite
// file. A server given the workspace path as PROJECT_ROOT, and an approved .mcp.json naming
// a word API_KEY, blank nothing: the path and the word stay in the prompt, the tool output,
// the request, the record and the answer. A real token given as ${MY_TOKEN} is cut out of all
// of them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { allFiles, makeHome, runCli } from "../helpers/cli.js";
import { faultyStdio, managerFor } from "../helpers/mcp-servers.js";
import { approve } from "../../src/extensions/approvals.js";
import { REDACTED } from "../../src/config/secrets.js";
import { readRecord, writeConfig } from "../reliability/lib.js";

const KEY = "sk-test-albedo-RULE-5521";
const TOKEN = "ghp_R3alL00kingT0ken9a8B7c6D5e4F3g2H1";
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});

describe("what counts as a secret", () => {
  it("the workspace path given as PROJECT_ROOT and a word an approved .mcp.json calls API_KEY are not blanked; a real token is", async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY, MY_TOKEN: TOKEN });
    const ws = h.workspace;
    await writeConfig(h, { permission: "auto", mcpServers: { mine: { ...faultyStdio(), env: { PROJECT_ROOT: ws, SERVICE_TOKEN: "${MY_TOKEN}" } } } });
    const project = JSON.stringify({ mcpServers: { proj: { ...faultyStdio(), env: { API_KEY: "implementation" } } } });
    await fs.writeFile(path.join(ws, ".mcp.json"), project);
    approve(ws, crypto.createHash("sha256").update(project).digest("hex"), path.join(h.env.XDG_STATE_HOME as string, "albedo", "mcp-approvals.json"));

    const answer = `The workspace is ${ws}; the implementation is fine.`;
    fake.script(
      {
        toolCalls: [
          { name: "bash", input: { command: "pwd" } },
          { name: "mcp__mine__env", input: { name: "PROJECT_ROOT" } },
          { name: "mcp__mine__env", input: { name: "SERVICE_TOKEN" } },
          { name: "mcp__proj__env", input: { name: "API_KEY" } },
        ],
      },
      { text: answer },
    );
    const r = await runCli(["-p", `look at ${ws} and the implementation`, "--base-url", fake.anthropicBase, "--provider", "anthropic", "--model", "claude-sonnet-4-5"], h);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${answer}\n`);
    expect(fake.rejections()).toEqual([]);

    // what the provider was sent: the path and the word as they are, the token cut
    const sent = fake.requests.at(-1)!.rawBody;
    expect(sent).toContain(`look at ${ws} and the implementation`);
    expect(sent).toContain(`value=${ws}`);
    expect(sent).toContain("value=implementation");
    expect(sent).toContain(`value=${REDACTED}`);
    expect(sent).not.toContain(TOKEN);
    const results = JSON.stringify(fake.requests.at(-1)!.body.messages.at(-1));
    expect(results).toContain(ws); // pwd's output
    // before any tool ran, nothing at all was cut (system prompt, context, prompt, tools)
    expect(fake.requests[0]!.rawBody).toContain(ws);
    expect(fake.requests[0]!.rawBody).not.toContain(REDACTED);

    // the record: prompt, tool output and answer as they were
    const { messages } = await readRecord(h.db);
    const stored = JSON.stringify(messages.map((m) => m.blocks));
    expect(stored).toContain(`look at ${ws} and the implementation`);
    expect(stored).toContain(`value=${ws}`);
    expect(stored).toContain("value=implementation");
    expect(stored).toContain(answer);
    expect(stored).toContain(`value=${REDACTED}`);
    for (const f of await allFiles(h.root)) expect((await fs.readFile(f)).includes(TOKEN), f).toBe(false);
  }, 90_000);

  it("a credential in a URL an entry cannot use is not repeated by the sentence refusing it: not on stderr, in the log, the record or /mcp", async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
    // a URL's credential-named query values are secrets; these URLs are refused (no http(s)
    // scheme, no URL at all) before they are used
    const creds = ["sk_live_9f8e7d6c5b4a3z2y1x0Qw", "tok_8e7d6c5b4a3z2y1x0wVu9"];
    const mcpServers = {
      scheme: { url: `localhost:3001/mcp?api_key=${creds[0]}` },
      broken: { url: `http//127.0.0.1:3001/mcp?token=${creds[1]}` },
    };
    const configFile = await writeConfig(h, { mcpServers });
    fake.script({ text: "Fine." });
    const r = await runCli(["-p", "hello", "--base-url", fake.anthropicBase, "--provider", "anthropic", "--model", "claude-sonnet-4-5"], h);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('mcpServers.scheme: "url" must be http(s)');
    expect(r.stderr).toContain('mcpServers.broken: "url" is not a URL');
    const { m } = managerFor({ workspace: h.workspace, configFile });
    await m.start();
    const listing = m.describe();
    expect(listing).toContain("scheme (none): invalid");
    for (const c of creds) {
      // not quoted whole, as the file writes it
      expect(r.stderr).not.toContain(c);
      expect(listing).not.toContain(c);
      // the config file holds them, as the user wrote them; nothing else may
      for (const f of await allFiles(h.root)) if (f !== configFile) expect((await fs.readFile(f)).includes(c), f).toBe(false);
    }
    await m.close();
  }, 90_000);

  it("an approved .mcp.json cannot blank ordinary text that mixes letters and digits, nor an ordinary variable of the environment; a token it is given is cut", async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY, TERM: "xterm-256color", GH_TOKEN: TOKEN });
    const ws = h.workspace;
    const ordinary = ["x86_64-linux-gnu", "localhost:3000", "utf8mb4_unicode_ci", "2024-01-15T10:30:00Z", "xterm-256color"];
    const project = JSON.stringify({
      mcpServers: {
        proj: {
          ...faultyStdio(),
          // named like credentials, literal or from the environment: before, each was cut
          // from everything (prompt, tool output, answer) once the file was approved
          env: { API_KEY: ordinary[0], SESSION_ID: ordinary[1], AUTH: ordinary[2], SECRET: ordinary[3], SHOWN_TERM: "${TERM}", GITHUB_TOKEN: "${GH_TOKEN}" },
        },
      },
    });
    await fs.writeFile(path.join(ws, ".mcp.json"), project);
    approve(ws, crypto.createHash("sha256").update(project).digest("hex"), path.join(h.env.XDG_STATE_HOME as string, "albedo", "mcp-approvals.json"));
    const text = `Built for ${ordinary.join(", ")}.`;
    await writeConfig(h, { permission: "auto" });
    fake.script({ toolCalls: [{ name: "mcp__proj__env", input: { name: "SHOWN_TERM" } }, { name: "mcp__proj__env", input: { name: "GITHUB_TOKEN" } }] }, { text });
    const r = await runCli(["-p", text, "--base-url", fake.anthropicBase, "--provider", "anthropic", "--model", "claude-sonnet-4-5"], h);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${text}\n`);
    const sent = fake.requests.at(-1)!.rawBody;
    expect(sent).toContain(text);
    expect(sent).toContain("value=xterm-256color");
    expect(sent).toContain(`value=${REDACTED}`);
    expect(sent).not.toContain(TOKEN);
    const stored = JSON.stringify((await readRecord(h.db)).messages.map((m) => m.blocks));
    expect(stored.split(text).length).toBe(3); // the prompt and the answer
    expect(stored).toContain("value=xterm-256color");
    expect(stored).not.toContain(TOKEN);
  }, 90_000);
});
