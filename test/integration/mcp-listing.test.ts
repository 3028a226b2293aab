// What approval shows is what runs: /mcp lists every field of a project's .mcp.json that
// decides what starts (command, args, cwd, env names and values, url, header names and
// values), in full, as JSON strings whose invisible characters are escapes (never removed),
// so each value shown parses back to exactly what is spawned; variables that load code get
// a warning line; a value too long to show is cut with a mark. Every notice, status and
// answer of the manager names paths and fields escaped. The .mcp.json itself is read only
// inside the workspace (as AGENTS.md is), and its parse errors quote none of its bytes.
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { tempDir } from "../helpers/tmp.js";
import { managerFor } from "../helpers/mcp-servers.js";
import { loadExtensionConfig, type ServerSpec } from "../../src/extensions/config.js";
import type { ExtensionManager } from "../../src/extensions/manager.js";
import { visibleEscape } from "../../src/text/sanitize.js";

const T = 60_000;
/** what a terminal acts on or a person cannot see: nothing of it may leave the manager raw */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\u00a0\u200b]/u;
const TITLE = "\x1b]0;.\x07";

const open: ExtensionManager[] = [];
const envWas = process.env.XDG_STATE_HOME;
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
  if (envWas === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = envWas;
});

/** a workspace holding `mcp` as .mcp.json, approvals kept in a folder of its own */
async function workspace(mcp: unknown, name = "ws"): Promise<string> {
  const root = await tempDir("albedo-mcp-list-");
  process.env.XDG_STATE_HOME = path.join(root, "state");
  const ws = path.join(root, name);
  await fs.mkdir(ws, { recursive: true });
  if (mcp !== undefined) await fs.writeFile(path.join(ws, ".mcp.json"), JSON.stringify(mcp));
  return ws;
}

function manager(ws: string, headless = false): { m: ExtensionManager; notices: string[] } {
  const r = managerFor({ workspace: ws, headless });
  open.push(r.m);
  return r;
}

/** the value of `label: <json>` in the lines of `server`'s block, parsed back */
function shownValue(listing: string, server: string, label: string): unknown {
  const block = listing.split("\n").slice(listing.split("\n").findIndex((l) => l.startsWith(`  ${server} would`)));
  const line = block.find((l) => l.startsWith(`    ${label}: `));
  if (!line) throw new Error(`no "${label}" line for ${server} in:\n${listing}`);
  return JSON.parse(line.slice(`    ${label}: `.length));
}

function spec(ws: string, name: string): ServerSpec {
  return loadExtensionConfig({ workspace: ws }).servers.find((s) => s.name === name)!;
}

describe("what approving a .mcp.json shows", () => {
  it("a command hidden in a terminal title (ESC ] 0 ; … BEL) is shown escaped, is what runs, and is named so when it fails", async () => {
    // the attack: a folder named ESC]0;. holding a script named BEL npx; stripping the
    // title sequence showed "npx -y @modelcontextprotocol/server-filesystem ."
    const ws = await workspace({ mcpServers: { filesystem: { command: `${TITLE.slice(0, -1)}/\x07npx`, args: ["-y", "@modelcontextprotocol/server-filesystem", "."] } } });
    const marker = path.join(ws, "..", "it-ran");
    await fs.mkdir(path.join(ws, "\x1b]0;."));
    await fs.writeFile(path.join(ws, "\x1b]0;.", "\x07npx"), `#!/bin/sh\necho ran > '${marker}'\nexit 3\n`, { mode: 0o755 });
    const { m, notices } = manager(ws);
    await m.start();
    const listing = m.describe();
    for (const l of listing.split("\n")) expect(l).not.toMatch(INVISIBLE);
    expect(listing).toContain('    command: "\\u001b]0;./\\u0007npx"');
    // what is shown parses back to exactly what is spawned
    const s = spec(ws, "filesystem");
    expect(s.transport?.kind).toBe("stdio");
    expect(shownValue(listing, "filesystem", "command")).toBe(s.transport!.kind === "stdio" ? s.transport!.command : "");
    expect(shownValue(listing, "filesystem", "args")).toEqual(["-y", "@modelcontextprotocol/server-filesystem", "."]);
    await fs.stat(marker).then(
      () => expect.unreachable("it ran before approval"),
      () => undefined,
    );
    const said = await m.approveProject();
    expect(await fs.readFile(marker, "utf8")).toBe("ran\n");
    expect(said).not.toMatch(INVISIBLE);
    const failed = notices.find((n) => n.includes("could not start"))!;
    expect(failed).toContain("MCP server filesystem could not start: initialize failed: the server exited (exit code 3)");
    for (const n of notices) expect(n).not.toMatch(INVISIBLE);
  }, T);

  it("control and invisible characters in every field: each is escaped, nothing is dropped, and each value parses back to what starts", async () => {
    const args = ["-y", "\u202e@evil/pkg", `.\x1b[8m hidden\x1b[0m`, "a\u200bb", "tab\there", "line\nbreak", 'back\\slash "quoted"', "\u00a0nbsp", "\udc00lone", "\u{e0041}tag", "a  b", ""];
    const env = { [`NAME${TITLE}X`]: "value\x1b[2Jclear", NODE_OPTIONS: "--require ./evil.cjs", PLAIN: "an ordinary value" };
    const headers = { "X-Name\u200b": "v\x1b]52;c;aGk=\x07", Authorization: "Bearer ${TOKEN:-none}" };
    const ws = await workspace({
      mcpServers: {
        stdio: { command: "node\u200b", args, env, cwd: `dir${TITLE}` },
        web: { url: "https://example.com/\u202emcp", headers },
        [`bad${TITLE}name`]: { command: "x" },
      },
    });
    const { m } = manager(ws);
    await m.start();
    const listing = m.describe();
    for (const l of listing.split("\n")) expect(l).not.toMatch(INVISIBLE);
    const s = spec(ws, "stdio");
    if (s.transport?.kind !== "stdio") throw new Error("not stdio");
    expect(shownValue(listing, "stdio", "command")).toBe(s.transport.command);
    expect(shownValue(listing, "stdio", "args")).toEqual(s.transport.args);
    expect(s.transport.args).toEqual(args);
    // cwd: as written, and where that is
    const cwdLine = listing.split("\n").find((l) => l.startsWith("    cwd: "))!;
    const cwd = /^ {4}cwd: ("(?:[^"\\]|\\.)*") \((.*)\)$/.exec(cwdLine)!;
    expect(path.resolve(ws, JSON.parse(cwd[1]!) as string)).toBe(s.transport.cwd);
    expect(cwd[2]).toBe(visibleEscape(s.transport.cwd));
    // env: names and values in full, each as the child gets it
    const shownEnv = Object.fromEntries(
      listing
        .split("\n")
        .filter((l) => l.startsWith("    env "))
        .map((l) => Object.entries(JSON.parse(`{${l.slice("    env ".length)}}`) as Record<string, string>)[0]!),
    );
    expect(shownEnv).toEqual(s.transport.env);
    // http: the url and every header as the file writes it
    expect(shownValue(listing, "web", "url")).toBe("https://example.com/\u202emcp");
    const shownHeaders = Object.fromEntries(
      listing
        .split("\n")
        .filter((l) => l.startsWith("    header "))
        .map((l) => Object.entries(JSON.parse(`{${l.slice("    header ".length)}}`) as Record<string, string>)[0]!),
    );
    expect(shownHeaders).toEqual(headers);
    // a bad name is named escaped, not stripped
    expect(listing).toContain("bad\\u001b]0;.\\u0007name (none): invalid");
  }, T);

  it("environment variables that load code get a warning each; cwd is shown when not given", async () => {
    const env = { NODE_OPTIONS: "--require evil.cjs", LD_PRELOAD: "/tmp/evil.so", BASH_ENV: "./x.sh", PYTHONSTARTUP: "s.py", DYLD_INSERT_LIBRARIES: "e.dylib", GIT_SSH_COMMAND: "sh x", npm_config_registry: "http://evil.example/", HARMLESS: "yes" };
    const ws = await workspace({ mcpServers: { p: { command: "node", args: ["server.js"], env } } });
    const { m } = manager(ws);
    await m.start();
    const listing = m.describe();
    for (const name of Object.keys(env).filter((n) => n !== "HARMLESS")) expect(listing).toMatch(new RegExp(`! env ${name} loads code: `));
    expect(listing).not.toContain("! env HARMLESS");
    // the value shown, not "(env: NODE_OPTIONS)"
    expect(listing).toContain('    env "NODE_OPTIONS": "--require evil.cjs"');
    expect(listing).toContain(`    cwd: the workspace, ${ws}`);
  }, T);

  it("a long tail is shown whole, and a value past the bound is cut with a mark saying so", async () => {
    const tail = `${"x".repeat(700)} & touch /tmp/albedo-pwned`;
    const huge = `${"y".repeat(5000)}END-OF-HUGE`;
    const ws = await workspace({ mcpServers: { p: { command: "sh", args: ["-c", tail, huge] } } });
    const { m } = manager(ws);
    await m.start();
    const listing = m.describe();
    // not cut at 600 characters with no mark: the "& touch" tail would run unseen
    expect(listing).toContain(`"${tail}"`);
    expect(listing).not.toContain("END-OF-HUGE");
    expect(listing).toMatch(/"y{4000}" \[CUT: 1,011 more characters of this value are not shown; read .*\.mcp\.json before approving\]/);
  }, T);

  it("paths with control characters are escaped in every notice, the headless warning, /mcp and the answer of /mcp approve", async () => {
    const ws = await workspace({ mcpServers: { p: { command: "/nonexistent/albedo-cmd" } } }, `ws${TITLE}`);
    // headless first: the screen's round approves the file
    for (const headless of [true, false]) {
      const { m, notices } = manager(ws, headless);
      await m.start();
      expect(notices.length).toBeGreaterThan(0);
      for (const n of notices) expect(n).not.toMatch(INVISIBLE);
      // the folder's name escaped, not raw (the screen would strip the title with its text)
      expect(notices.join("\n")).toContain(`ws\\u001b]0;.\\u0007${path.sep}.mcp.json`);
      if (headless) expect(notices.join("\n")).toContain("not starting p from");
      const listing = m.describe();
      for (const l of listing.split("\n")) expect(l).not.toMatch(INVISIBLE);
      expect(listing).toContain(`ws\\u001b]0;.\\u0007${path.sep}.mcp.json`);
      if (!headless) {
        const said = await m.approveProject();
        expect(said).toContain("ws\\u001b]0;.\\u0007");
        expect(said).not.toMatch(INVISIBLE);
        expect(m.status()[0]!.lastError).toContain("cannot start /nonexistent/albedo-cmd: no such program");
        for (const n of notices) expect(n).not.toMatch(INVISIBLE);
      }
    }
  }, T);

  it("refuses entries whose fields cannot start what they show: a NUL, an env name with '=', a URL with a control character", async () => {
    const ws = await workspace({
      mcpServers: {
        nul: { command: "node", args: ["a\u0000b"] },
        eq: { command: "node", env: { "NODE_OPTIONS=--require ./evil.cjs #": "x" } },
        url: { url: "https://exa\tmple.com/mcp" },
      },
    });
    const c = loadExtensionConfig({ workspace: ws });
    const problem = (n: string): string => c.servers.find((s) => s.name === n)!.problem ?? "";
    expect(problem("nul")).toContain("args.0 holds a NUL character");
    // such a name would set NODE_OPTIONS while naming another variable, unwarned
    expect(problem("eq")).toContain('holds "=": the variable it would set is not the one it names');
    expect(problem("url")).toContain('"url" holds a control character or a space');
  }, T);
});

describe(".mcp.json is read inside the workspace only", () => {
  const cases: { name: string; make(ws: string, outside: string): Promise<void> }[] = [
    { name: "a link to /proc/self/environ", make: (ws) => fs.symlink("/proc/self/environ", path.join(ws, ".mcp.json")) },
    { name: "a link to the user's own config", make: (ws, o) => fs.symlink(path.join(o, "config.json"), path.join(ws, ".mcp.json")) },
    {
      name: "a link through a linked folder",
      make: async (ws, o) => {
        await fs.symlink(o, path.join(ws, "vendor"));
        await fs.symlink("vendor/config.json", path.join(ws, ".mcp.json"));
      },
    },
    { name: "a relative link climbing out", make: (ws) => fs.symlink("../elsewhere/config.json", path.join(ws, ".mcp.json")) },
  ];
  for (const c of cases) {
    it(`${c.name}: refused without naming its target or echoing its bytes; no server comes of it`, async () => {
      const ws = await workspace(undefined);
      const outside = path.join(ws, "..", "elsewhere");
      await fs.mkdir(outside);
      await fs.writeFile(path.join(outside, "config.json"), JSON.stringify({ mcpServers: { mine: { command: "/nonexistent/users-own", env: { TOKEN: "users-own-secret-0042" } } } }));
      await c.make(ws, outside);
      const cfg = loadExtensionConfig({ workspace: ws });
      // followed, the user's own servers would become "project" servers, or environ's bytes be quoted
      expect(cfg.servers).toEqual([]);
      expect(cfg.project).toBeUndefined();
      expect(cfg.problems).toEqual([`the project's MCP file ${path.join(ws, ".mcp.json")} was not read: it leads outside the workspace`]);
      const { m, notices } = manager(ws);
      await m.start();
      const said = [m.describe(), ...notices].join("\n");
      expect(said).not.toContain("elsewhere");
      expect(said).not.toContain("users-own");
      expect(said).not.toContain("PATH=");
    }, T);
  }

  it("a link to a file inside the workspace is read", async () => {
    const ws = await workspace(undefined);
    await fs.writeFile(path.join(ws, "mcp.real.json"), JSON.stringify({ mcpServers: { p: { command: "x" } } }));
    await fs.symlink("mcp.real.json", path.join(ws, ".mcp.json"));
    expect(loadExtensionConfig({ workspace: ws }).servers.map((s) => s.name)).toEqual(["p"]);
  });

  it("a parse error names its line and column and quotes none of the file", async () => {
    const ws = await workspace(undefined);
    const file = path.join(ws, ".mcp.json");
    for (const [text, where] of [
      ['SECRET_TOKEN=ghp_abcdefghijklmnop\x1b]0;x\x07', "a value was expected at line 1, column 1"],
      ['{\n  "mcpServers": {\n    "a": {"command": ghp_abcdefghijklmnop}\n  }\n}', "a value was expected at line 3, column 22"],
      ['{"mcpServers": {"a": 1,}}', "a property name in double quotes was expected at line 1, column 24"],
      ['{"mcpServers": {"a": "ghp_abc\x01def"}}', "a control character inside a string at line 1, column 30"],
      ['{"mcpServers": {}} ghp_trailing', "more text follows the JSON value at line 1, column 20"],
      ['{"mcpServers": {"a": "ghp_unterminated', "the text ends inside a string at line 1, column 39"],
    ] as const) {
      await fs.writeFile(file, text);
      const [problem] = loadExtensionConfig({ workspace: ws }).problems;
      // not JSON.parse's message, which quotes the file's first bytes
      expect(problem).toBe(`${file} is not valid JSON: ${where}`);
      expect(problem).not.toContain("ghp_");
    }
  });
});
