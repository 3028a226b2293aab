// MCP configuration: entries normalized with `${VAR}` expansion, bad entries named (the rest
// still start), secrets collected and never listed; /reload restarts what changed and makes
// the inspector pending ("extensions changed") when the tools or instructions differ; the
// instructions come after the project's context items, in the server's own section.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { tempDir } from "../helpers/tmp.js";
import { waitUntil } from "../helpers/cli.js";
import { faultyStdio, managerFor } from "../helpers/mcp-servers.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";
import { expandVars, loadExtensionConfig } from "../../src/extensions/config.js";
import { readApprovals } from "../../src/extensions/approvals.js";

const T = 60_000;

describe("MCP configuration", () => {
  it("expands ${VAR} and ${VAR:-default}, and names a variable that is not set", () => {
    expect(expandVars("Bearer ${TOK}", { TOK: "abc" }, "x")).toBe("Bearer abc");
    expect(expandVars("${NOPE:-fallback}", {}, "x")).toBe("fallback");
    expect(() => expandVars("${NOPE}", {}, 'field "env.A"')).toThrow('field "env.A" names ${NOPE}, which is not set in the environment');
  });

  it("names what is wrong with each bad entry, keeps the good ones, and keeps env and header values as secrets only", async () => {
    const dir = await tempDir("albedo-mcp-cfg-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(
      configFile,
      JSON.stringify({
        mcpServers: {
          both: { command: "x", url: "http://127.0.0.1:1/mcp" },
          neither: { args: ["a"] },
          old: { type: "sse", url: "http://127.0.0.1:1/sse" },
          "bad name!": { command: "x" },
          unset: { command: "x", env: { T: "${NOT_SET_ANYWHERE}" } },
          ftp: { url: "ftp://example.invalid/" },
          good: { command: "x", env: { API_TOKEN: "${GOOD_TOKEN}" } },
          web: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${WEB_TOKEN}" } },
        },
      }),
    );
    const c = loadExtensionConfig({ configFile, workspace: dir, env: { GOOD_TOKEN: "tok-good-0123456789", WEB_TOKEN: "tok-web-0123456789" } });
    const problem = (n: string) => c.servers.find((s) => s.name === n)?.problem ?? "";
    expect(problem("both")).toContain('give "command" (a stdio server) or "url" (Streamable HTTP), not both');
    expect(problem("neither")).toContain('needs "command" (a stdio server) or "url" (Streamable HTTP)');
    expect(problem("old")).toContain("is not supported; use the server's Streamable HTTP endpoint");
    expect(problem("bad name!")).toContain("a server's name must be 1 to 40 of");
    expect(problem("unset")).toContain('field "env.T" names ${NOT_SET_ANYWHERE}, which is not set');
    expect(problem("ftp")).toContain('"url" must be http(s)');
    expect(problem("good")).toBe("");
    expect(problem("web")).toBe("");
    // a header's token alone (its scheme is an ordinary word)
    expect(c.secrets.sort()).toEqual(["tok-good-0123456789", "tok-web-0123456789"]);
    const { m } = managerFor({ workspace: dir, configFile, env: { GOOD_TOKEN: "tok-good-0123456789", WEB_TOKEN: "tok-web-0123456789" } });
    const listing = m.describe();
    expect(listing).toContain("both (none): invalid");
    expect(listing).not.toContain("tok-good");
    expect(m.status().find((s) => s.name === "good")!.envNames).toEqual(["API_TOKEN"]);
  });

  it("a config file with a bad server entry is refused at start, naming the entry and the field", async () => {
    const dir = await tempDir("albedo-mcp-cfg-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { typo: { command: "x", argz: [] } } }));
    expect(() => loadExtensionConfig({ configFile, workspace: dir })).toThrow(`${configFile}: field "mcpServers.typo": unknown field "argz"`);
    // in a project's file the same entry is that server's problem; the others start
    await fs.writeFile(configFile, "{}");
    await fs.writeFile(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { typo: { command: "x", argz: [] }, ok: { command: "x" } } }));
    const c = loadExtensionConfig({ configFile, workspace: dir });
    expect(c.servers.map((s) => [s.name, s.problem ?? "fine"])).toEqual([
      ["typo", expect.stringContaining('mcpServers.typo: unknown field "argz"')],
      ["ok", "fine"],
    ]);
  });

  it("a timeout past what a timer can hold is refused by name (accepted, the timer would fire at once)", async () => {
    const dir = await tempDir("albedo-mcp-cfg-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { slow: { command: "x", startupTimeoutSeconds: 3_000_000 } } }));
    expect(() => loadExtensionConfig({ configFile, workspace: dir })).toThrow('field "mcpServers.slow.startupTimeoutSeconds"');
    await fs.writeFile(configFile, "{}");
    await fs.writeFile(
      path.join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { calls: { command: "x", toolTimeoutSeconds: 1e9 }, day: { command: "x", startupTimeoutSeconds: 86_400, toolTimeoutSeconds: 86_400 } } }),
    );
    const c = loadExtensionConfig({ configFile, workspace: dir });
    expect(c.servers.map((s) => [s.name, s.problem ?? "fine"])).toEqual([
      ["calls", expect.stringContaining('field "toolTimeoutSeconds": at most 86400 seconds (a day)')],
      ["day", "fine"],
    ]);
  });

  it("an allowInReadOnly entry that can never match an MCP tool is refused by name (accepted, it would silently allow nothing)", async () => {
    const dir = await tempDir("albedo-mcp-cfg-");
    const configFile = path.join(dir, "config.json");
    for (const bad of ["mcp__my.server__*", "fs/read_file", "mcp__*", "mcp__fs__read*"]) {
      await fs.writeFile(configFile, JSON.stringify({ allowInReadOnly: ["mcp__fs__*", bad] }));
      expect(() => loadExtensionConfig({ configFile, workspace: dir }), bad).toThrow(/field "allowInReadOnly\.1": .*mcp__<server>__<tool>/);
    }
    await fs.writeFile(configFile, JSON.stringify({ allowInReadOnly: ["mcp__fs__*", "mcp__my_server__read-file", "mcp__a__b__c"] }));
    expect(loadExtensionConfig({ configFile, workspace: dir }).allowInReadOnly).toHaveLength(3);
  });

  it("a project .mcp.json that is not JSON, or not the shape, is a problem named by its file; a name the config has is the config's", async () => {
    const dir = await tempDir("albedo-mcp-proj-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { same: { command: "x" } } }));
    await fs.writeFile(path.join(dir, ".mcp.json"), "{ not json");
    expect(loadExtensionConfig({ configFile, workspace: dir }).problems[0]).toMatch(/\.mcp\.json is not valid JSON/);
    await fs.writeFile(path.join(dir, ".mcp.json"), JSON.stringify({ servers: {} }));
    expect(loadExtensionConfig({ configFile, workspace: dir }).problems[0]).toContain('field "mcpServers"');
    await fs.writeFile(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { same: { command: "y" } } }));
    const c = loadExtensionConfig({ configFile, workspace: dir });
    expect(c.problems[0]).toContain('server "same" is also in');
    expect(c.servers.map((s) => [s.name, s.origin])).toEqual([["same", "config"]]);
  });

  it("an unapproved .mcp.json shows what it would run, and its values are no secrets until approved", async () => {
    const dir = await tempDir("albedo-mcp-unappr-");
    const state = await tempDir("albedo-mcp-state-");
    const was = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = state;
    try {
      const configFile = path.join(dir, "config.json");
      await fs.writeFile(configFile, JSON.stringify({ mcpServers: { mine: { command: "/nonexistent/mine", env: { SERVICE_TOKEN: "config-secret-value-0001" } } } }));
      await fs.writeFile(
        path.join(dir, ".mcp.json"),
        JSON.stringify({ mcpServers: { proj: { command: "/nonexistent/proj", args: ["--token", "${PROJ_TOKEN}"], env: { WORDS: "ordinary words a file could pick" } } } }),
      );
      const { m } = managerFor({ workspace: dir, configFile, headless: false, env: { PROJ_TOKEN: "expanded-token-value-0002" } });
      // only the approved file's values are secrets, not every value of the unapproved one
      expect(m.secrets()).toEqual(["config-secret-value-0001"]);
      const listing = m.describe();
      // the whole entry is shown to be approved, not only the server's name
      expect(listing).toContain('    command: "/nonexistent/proj"\n    args: ["--token", "${PROJ_TOKEN}"]');
      expect(listing).toContain('    env "WORDS": "ordinary words a file could pick"');
      expect(listing).not.toContain("expanded-token-value-0002");
      expect(await m.approveProject()).toContain("Approved");
      // the expanded argument is a secret; the file's own words are none
      expect(m.secrets()).toEqual(["config-secret-value-0001", "expanded-token-value-0002"]);
      expect(m.describe()).not.toContain("proj would run");
      await m.close();
    } finally {
      if (was === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = was;
    }
  });

  it("a damaged approvals file is named, and approves nothing", async () => {
    const dir = await tempDir("albedo-mcp-appr-");
    const file = path.join(dir, "mcp-approvals.json");
    await fs.writeFile(file, "[1,2");
    expect(readApprovals(file)).toEqual({ approvals: [], problem: expect.stringContaining(`the MCP approvals file ${file} is not valid JSON`) });
    await fs.writeFile(file, JSON.stringify({ version: 1, approvals: [{ workspace: "/w", sha256: "nothex" }] }));
    expect(readApprovals(file).problem).toContain("is not in the expected shape");
  });
});

describe("/reload and the inspector", () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
  });

  it("a server's env secret in the project context never reaches the request (the request is redacted whole)", async () => {
    const dir = await tempDir("albedo-mcp-ctx-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { f: { ...faultyStdio(), env: { TOKEN: "mcp-env-secret-in-agents-0003" } } } }));
    await fs.mkdir(path.join(dir, "work"), { recursive: true });
    await fs.writeFile(path.join(dir, "work", "AGENTS.md"), "Rules. The token is mcp-env-secret-in-agents-0003 here.");
    const { app } = await makeApp(fake, { dir, configFile });
    try {
      fake.requests.length = 0;
      fake.script({ text: "one" });
      await app.runPrompt("hi");
      const body = JSON.stringify(fake.requests[0]!.body);
      expect(body).toContain("Rules. The token is");
      expect(body).not.toContain("mcp-env-secret-in-agents-0003");
    } finally {
      await app.close();
    }
  }, T);

  it("restarts a changed server; new instructions make the view pending, and the next request carries them after the project's items", async () => {
    const dir = await tempDir("albedo-mcp-reload-");
    const configFile = path.join(dir, "config.json");
    const config = (instructions: string) => JSON.stringify({ mcpServers: { f: faultyStdio("--instructions", instructions) } });
    await fs.writeFile(configFile, config("First instructions."));
    const { app, workspace } = await makeApp(fake, { dir, configFile });
    try {
      await fs.writeFile(path.join(workspace, "AGENTS.md"), "Project rules.");
      fake.script({ text: "one" });
      await app.runPrompt("hi");
      expect((await app.inspectorView()).state).toBe("current");

      // nothing changed: the servers stay, the view stays current as far as MCP goes
      const same = await app.reload();
      expect(same).toContain("MCP: no server changed");

      await fs.writeFile(configFile, config("Second instructions."));
      const said = await app.reload();
      expect(said).toContain("MCP: f restarted");
      const view = await app.inspectorView();
      expect(view.state).toBe("pending");
      if (view.state === "pending") expect(view.reason).toContain("extensions changed");

      fake.requests.length = 0;
      fake.script({ text: "two" });
      await app.runPrompt("again");
      expect(fake.rejections()).toEqual([]);
      const system = JSON.stringify(fake.requests[0]!.body.system);
      expect(system).toContain("Second instructions.");
      expect(system).not.toContain("First instructions.");
      expect(system.indexOf("Project rules.")).toBeLessThan(system.indexOf("Second instructions."));
      const now = await app.inspectorView();
      expect(now.state).toBe("current");
      if (now.state === "current") {
        const sources = now.sections.map((s) => s.source);
        const mcp = sources.indexOf("MCP server f (instructions)");
        expect(mcp).toBeGreaterThan(sources.findIndex((s) => s?.includes("AGENTS.md")));
        expect(mcp).toBeLessThan(sources.length - 1);
      }

      // a config that cannot be read is said, and the running servers stay
      await fs.writeFile(configFile, "{ broken");
      expect(await app.reload()).toContain("MCP: not reloaded:");
      expect(app.mcp.status()[0]!.state).toBe("ready");
    } finally {
      await app.close();
    }
  }, T);
});

describe("a server that finishes its start after the first request (the screen does not wait)", () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
  });

  it("makes the view pending, and the next request has its tools", async () => {
    const dir = await tempDir("albedo-mcp-late-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { f: faultyStdio("--instructions", "Late instructions.") } }));
    const { app } = await makeApp(fake, { dir, configFile, headless: false });
    try {
      fake.requests.length = 0;
      fake.script({ text: "before the servers" });
      await app.runPrompt("hi");
      const names = (i: number): string[] => fake.requests[i]!.body.tools.map((t: { name: string }) => t.name);
      expect(names(0).some((n) => n.startsWith("mcp__"))).toBe(false);
      expect((await app.inspectorView()).state).toBe("current");
      app.mcp.start();
      await waitUntil(async () => (await app.inspectorView()).state === "pending", 30_000, "the view pending");
      const view = await app.inspectorView();
      if (view.state === "pending") expect(view.reason).toBe("extensions changed: f started");
      fake.script({ text: "with them" });
      await app.runPrompt("again");
      expect(names(1)).toContain("mcp__f__ok");
      expect(JSON.stringify(fake.requests[1]!.body.system)).toContain("Late instructions.");
    } finally {
      await app.close();
    }
  }, T);
});
