// A server that crashes or hangs leaves the agent working, at every moment of its life: at
// start (it exits at once, exits with a background job left, is given a folder that does not
// exist, cannot be found, is an HTTP server that is down or redirects elsewhere, has a user
// and password in its URL), while it lists its tools (at start, and again after it said they
// changed), during a call, during /reload, and while the agent exits. Each case: the failure
// is named (state, last error, a notice), never as "internal error", nothing is thrown or
// left unhandled, and a healthy server beside it still answers. Then the same through the
// built CLI headless (-p), where the failure is on stderr, the turn runs and the run exits
// 0, also when the failing server's approval is on file (every later start as well).
// Against test/helpers/mcp-faulty-server.ts and the reference servers in node_modules.
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { tempDir } from "../helpers/tmp.js";
import { makeHome, runCli, waitUntil, type Home } from "../helpers/cli.js";
import { FILESYSTEM, faultyStdio, managerFor } from "../helpers/mcp-servers.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import type { ExtensionManager } from "../../src/extensions/manager.js";
import type { ToolOutput } from "../../src/tools/types.js";
import { approve } from "../../src/extensions/approvals.js";
import { anthropicArgs, removeHomes, Tally, writeConfig, writeFigures } from "./lib.js";

const T = 60_000;
const KEY = "sk-ant-mcpfail-0123456789";
type Moment = "start" | "list" | "call" | "reload" | "exit";
const moments: Record<Moment, number> = { start: 0, list: 0, call: 0, reload: 0, exit: 0 };
let agentCrashes = 0;
const tally = new Tally();
const open: ExtensionManager[] = [];
const homes: Home[] = [];
let fake: FakeProvider;
let redirector: http.Server;
let redirectUrl = "";

/** what escaped the agent's handling while a case ran: each one is a crash */
const escaped: unknown[] = [];
const onEscape = (e: unknown): void => {
  escaped.push(e);
};

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  // answers every request with a 307 to another origin
  redirector = http.createServer((_req, res) => {
    res.writeHead(307, { Location: "http://127.0.0.1:9/elsewhere" });
    res.end();
  });
  await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", () => r()));
  redirectUrl = `http://127.0.0.1:${(redirector.address() as net.AddressInfo).port}/mcp`;
  process.on("uncaughtException", onEscape);
  process.on("unhandledRejection", onEscape);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});
afterAll(async () => {
  process.off("uncaughtException", onEscape);
  process.off("unhandledRejection", onEscape);
  await fake.close();
  await new Promise((r) => redirector.close(r));
  await removeHomes(homes);
  await writeFigures("mcp-failures", { ...tally.figures(), moments, momentsTried: Object.values(moments).reduce((a, b) => a + b, 0), agentCrashes });
});

/** a loopback port nothing listens on */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A case at a moment of a server's life: counted, and a crash when anything escaped. */
function moment(at: Moment, name: string, fn: () => Promise<void>): void {
  moments[at]++;
  tally.it(
    `${at}: ${name}`,
    async () => {
      escaped.length = 0;
      try {
        await fn();
      } catch (e) {
        // a throw out of the manager is the agent failing, not an assertion
        if (!(e instanceof Error && e.name === "AssertionError")) agentCrashes++;
        throw e;
      }
      // a late rejection or exception (a hook firing after the start) counts too
      await new Promise((r) => setTimeout(r, 100));
      if (escaped.length > 0) agentCrashes++;
      expect(escaped.map(String)).toEqual([]);
    },
    T,
  );
}

/** the servers given, beside a healthy one ("ok"), under a manager that has started them */
async function started(servers: Record<string, unknown>): Promise<{ m: ExtensionManager; notices: string[]; configFile: string; dir: string }> {
  const dir = await tempDir("albedo-mcp-fail-");
  const configFile = path.join(dir, "config.json");
  await fs.writeFile(configFile, JSON.stringify({ mcpServers: { ok: faultyStdio(), ...servers } }));
  const r = managerFor({ workspace: dir, configFile });
  open.push(r.m);
  await r.m.start();
  return { m: r.m, notices: r.notices, configFile, dir };
}

async function call(m: ExtensionManager, name: string, input: unknown = {}): Promise<ToolOutput> {
  const tool = m.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}; have ${m.tools().map((t) => t.name).join(", ")}`);
  return tool.run(input, { workspace: "/", signal: new AbortController().signal, policy: "auto", askPermission: async () => "deny" });
}

/** the failing server is named with why, the healthy one still answers, and nothing says "internal error" */
async function agentWorks(m: ExtensionManager, notices: string[], server: string, why: RegExp): Promise<void> {
  const st = m.status().find((s) => s.name === server)!;
  expect(["failed", "invalid"]).toContain(st.state);
  expect(st.lastError).toMatch(why);
  expect(m.describe()).toMatch(new RegExp(`${server} \\((stdio|http|none)\\): (failed|invalid)`));
  expect(notices.join("\n")).toContain(`MCP`);
  expect(notices.join("\n")).not.toMatch(/internal error|ReferenceError|before initialization/i);
  expect(m.status().find((s) => s.name === "ok")!.state).toBe("ready");
  expect((await call(m, "mcp__ok__ok")).output).toBe("ok from ok");
}

describe("an MCP server failing at each moment of its life leaves the agent working", () => {
  moment("start", 'a command that exits at once ({"command": "false"})', async () => {
    const { m, notices } = await started({ f: { command: "false" } });
    await agentWorks(m, notices, "f", /^initialize failed: the server exited \(exit code 1\)$/);
    expect(notices.join("\n")).toContain("MCP server f could not start: initialize failed: the server exited (exit code 1)");
  });

  moment("start", "a server that exits at start saying why on stderr", async () => {
    const { m, notices } = await started({ f: faultyStdio("--exit-at-start", "7") });
    await agentWorks(m, notices, "f", /the server exited \(exit code 7\); its last words on stderr: exiting at start, on purpose/);
  });

  moment("start", "server-filesystem given a folder that does not exist", async () => {
    const { m, notices } = await started({ fs: { command: process.execPath, args: [FILESYSTEM, "/nonexistent/albedo-folder"] } });
    await agentWorks(m, notices, "fs", /the server exited \(exit code 1\); its last words on stderr: .*nonexistent\/albedo-folder/);
  });

  moment("start", 'a background job that outlives its shell (sh -c "sleep 100 &")', async () => {
    const { m, notices } = await started({ bg: { command: "sh", args: ["-c", "sleep 100 &"] } });
    await agentWorks(m, notices, "bg", /^initialize failed: the server exited \(exit code 0\)(; a process it left running kept its output open, and was stopped)?$/);
  });

  moment("start", "a folder (cwd) that does not exist", async () => {
    const { m, notices } = await started({ c: { command: "node", cwd: "/nonexistent/albedo-cwd" } });
    await agentWorks(m, notices, "c", /cannot start node: its folder \(cwd\) \/nonexistent\/albedo-cwd does not exist/);
  });

  moment("start", "a program that does not exist", async () => {
    const { m, notices } = await started({ n: { command: "albedo-no-such-program-0" } });
    await agentWorks(m, notices, "n", /cannot start albedo-no-such-program-0: no such program/);
  });

  moment("start", "an HTTP server that is down", async () => {
    const port = await closedPort();
    const { m, notices } = await started({ down: { url: `http://127.0.0.1:${port}/mcp` } });
    await agentWorks(m, notices, "down", new RegExp(`initialize failed: fetch failed \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)`));
  });

  moment("start", "an HTTP server answering 307 to another origin", async () => {
    const { m, notices } = await started({ away: { url: redirectUrl } });
    await agentWorks(m, notices, "away", /initialize failed: .*Redirect to http:\/\/127\.0\.0\.1:9\/elsewhere not followed/);
  });

  moment("start", "a URL with user:password@", async () => {
    const { m, notices } = await started({ pw: { url: "http://someone:hunter2-password@127.0.0.1:9/mcp" } });
    await agentWorks(m, notices, "pw", /"url" holds a user name or password \(user:password@\): give credentials in "headers"/);
    // the password is not repeated in what is said about it
    expect(notices.join("\n")).not.toContain("hunter2");
    expect(m.status().find((s) => s.name === "pw")!.lastError).not.toContain("hunter2");
  });

  moment("list", "exits when asked for its tools at start", async () => {
    const { m, notices } = await started({ l: faultyStdio("--exit-on-list") });
    await agentWorks(m, notices, "l", /^tools\/list failed: the server exited \(exit code 4\)$/);
  });

  moment("list", "says its tools changed, then exits when they are listed again", async () => {
    const { m, notices } = await started({ r: faultyStdio("--exit-on-relist") });
    expect(m.status().find((s) => s.name === "r")!.state).toBe("ready");
    expect((await call(m, "mcp__r__ok")).output).toBe("ok from ok");
    await waitUntil(() => m.status().find((s) => s.name === "r")!.state === "failed", 20_000, "the server marked failed");
    await agentWorks(m, notices, "r", /the server exited \(exit code 5\)/);
    expect(notices.join("\n")).toContain("MCP server r stopped: the server exited (exit code 5)");
    expect(m.tools().some((t) => t.name.startsWith("mcp__r__"))).toBe(false);
  });

  moment("call", "exits in the middle of a call", async () => {
    const { m, notices } = await started({ f: faultyStdio() });
    const out = await call(m, "mcp__f__crash");
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/^crash on MCP server f failed: /);
    await waitUntil(() => m.status().find((s) => s.name === "f")!.state === "failed", 20_000, "the server marked failed");
    await agentWorks(m, notices, "f", /the server exited \(exit code 3\)/);
  });

  moment("call", "a call to a server that has gone", async () => {
    const { m, notices } = await started({ f: faultyStdio() });
    const tool = m.tools().find((t) => t.name === "mcp__f__ok")!;
    await call(m, "mcp__f__crash");
    await waitUntil(() => m.status().find((s) => s.name === "f")!.state === "failed", 20_000, "the server marked failed");
    // a call the model made from the list it had: an error result naming the state
    const out = await tool.run({}, { workspace: "/", signal: new AbortController().signal, policy: "auto", askPermission: async () => "deny" });
    expect(out).toEqual({ output: expect.stringMatching(/^MCP server f is failed: the server exited \(exit code 3\)/), isError: true });
    await agentWorks(m, notices, "f", /exit code 3/);
  });

  moment("reload", "/reload to an entry that exits at start", async () => {
    const { m, notices, configFile } = await started({ f: faultyStdio() });
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { ok: faultyStdio(), f: faultyStdio("--exit-at-start", "9") } }));
    const said = await m.reload();
    expect(said).toContain("f restarted");
    expect(said).toMatch(/now: ok ready, f failed: initialize failed: the server exited \(exit code 9\)/);
    await agentWorks(m, notices, "f", /exit code 9/);
  });

  moment("reload", "/reload while a start hangs, to an entry that exits while it lists its tools", async () => {
    const { m, notices, configFile } = await started({});
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { ok: faultyStdio(), f: { ...faultyStdio("--hang-initialize"), startupTimeoutSeconds: 3600 } } }));
    const first = m.reload();
    await waitUntil(() => m.status().find((s) => s.name === "f")?.state === "starting", 20_000, "the hung start");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { ok: faultyStdio(), f: faultyStdio("--exit-on-list") } }));
    const second = await m.reload();
    expect(await first).toContain("f added");
    expect(second).toContain("f restarted");
    await agentWorks(m, notices, "f", /tools\/list failed: the server exited \(exit code 4\)/);
  });

  moment("exit", "the agent exits while a server is dying mid-call", async () => {
    const { m, notices } = await started({ f: faultyStdio() });
    const pending = call(m, "mcp__f__crash");
    await new Promise((r) => setTimeout(r, 10));
    await m.close();
    const out = await pending;
    expect(out.isError).toBe(true);
    expect(notices.join("\n")).not.toMatch(/internal error|ReferenceError/i);
  });

  moment("exit", "the agent exits while servers start and fail", async () => {
    const dir = await tempDir("albedo-mcp-fail-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { a: { command: "false" }, b: faultyStdio("--exit-on-list"), c: { ...faultyStdio("--hang-initialize"), startupTimeoutSeconds: 3600 } } }));
    const { m, notices } = managerFor({ workspace: dir, configFile });
    // as the screen does: started, never awaited, and the agent quits meanwhile
    void m.start();
    await new Promise((r) => setTimeout(r, 300));
    await m.close();
    expect(m.status().map((s) => s.state).every((s) => s === "failed" || s === "stopped")).toBe(true);
    expect(notices.join("\n")).not.toMatch(/internal error|ReferenceError/i);
  });
});

describe("through the built CLI headless: the failure is on stderr, the turn runs, the run exits 0", () => {
  /** a -p run in `h`; a crash is a code other than 0, a stack or an unhandled rejection */
  async function headless(h: Home, answer: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    fake.script({ text: answer });
    const r = await runCli(["-p", "hello", ...anthropicArgs(fake)], h);
    if (r.code !== 0 || /ReferenceError|Unhandled|internal error|    at /.test(r.stderr)) agentCrashes++;
    expect(r.stderr).not.toMatch(/ReferenceError|Unhandled|internal error|    at /);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${answer}\n`);
    return r;
  }

  moment("start", "an approved .mcp.json whose server exits at start: this run and every later one work", async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
    homes.push(h);
    const text = JSON.stringify({ mcpServers: { proj: { command: "false" } } });
    await fs.writeFile(path.join(h.workspace, ".mcp.json"), text);
    approve(h.workspace, crypto.createHash("sha256").update(text).digest("hex"), path.join(h.root, "state", "albedo", "mcp-approvals.json"));
    for (const answer of ["First answer.", "Second answer."]) {
      const r = await headless(h, answer);
      // on stderr, not only in the log, and the run still answers
      expect(r.stderr).toContain("warning: MCP server proj could not start: initialize failed: the server exited (exit code 1) (this run goes on without its tools)");
    }
  });

  moment("start", "configured servers that are down, exit while listing, or carry a password in the URL", async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
    homes.push(h);
    const port = await closedPort();
    await writeConfig(h, {
      mcpServers: {
        down: { url: `http://127.0.0.1:${port}/mcp` },
        away: { url: redirectUrl },
        lister: faultyStdio("--exit-on-list"),
        pw: { url: "http://u:hunter2-password@127.0.0.1:9/mcp" },
        bg: { command: "sh", args: ["-c", "sleep 100 &"] },
      },
    });
    const r = await headless(h, "Fine without them.");
    expect(r.stderr).toContain("MCP server down could not start: initialize failed: fetch failed (connect ECONNREFUSED");
    expect(r.stderr).toContain("MCP server away could not start");
    expect(r.stderr).toContain("MCP server lister could not start: tools/list failed: the server exited (exit code 4)");
    expect(r.stderr).toContain("MCP server bg could not start: initialize failed: the server exited (exit code 0)");
    expect(r.stderr).toContain('mcpServers.pw: "url" holds a user name or password');
    expect(r.stderr).not.toContain("hunter2");
    // the request went out without their tools
    expect(fake.requests.at(-1)!.body.tools.some((t: { name: string }) => t.name.startsWith("mcp__"))).toBe(false);
  });

  moment("call", "a server that exits during the turn's call: the turn ends with an answer", async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
    homes.push(h);
    await writeConfig(h, { permission: "auto", mcpServers: { f: faultyStdio() } });
    fake.script({ toolCalls: [{ name: "mcp__f__crash", input: {} }] }, { text: "It crashed; I carried on." });
    const r = await runCli(["-p", "use it", ...anthropicArgs(fake)], h);
    if (r.code !== 0 || /ReferenceError|Unhandled|internal error/.test(r.stderr)) agentCrashes++;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("It crashed; I carried on.\n");
    expect(r.stderr).toContain("✗ mcp__f__crash");
    expect(r.stderr).not.toMatch(/ReferenceError|Unhandled|internal error/);
  });
});
