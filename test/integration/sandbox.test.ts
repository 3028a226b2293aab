// The command sandbox for real: the built CLI in -p mode, the strict fake provider scripting
// bash calls, and bubblewrap (/usr/bin/bwrap) around each command. The home and workspace live
// in /var/tmp, not /tmp, so hiding albedo-tui's folders and the credentials is the sandbox's
// doing and not a side effect of the private /tmp.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { runCli, startCli, waitUntil, TEST_CODE_CACHE, type Home } from "../helpers/cli.js";

const KEY = "sk-test-albedo-SANDBOX-7777";
const SHELL_SECRET = "shell-var-secret-5150";
let fake: FakeProvider;
let home: Home;
let outside: string;

const bwrapWorks = fs.existsSync("/usr/bin/bwrap");

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});

/** a home outside /tmp, with the files a command must not see */
async function makeVarHome(): Promise<Home> {
  const root = await fsp.mkdtemp("/var/tmp/albedo-sbx-");
  const workspace = path.join(root, "work");
  await fsp.mkdir(workspace, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    XDG_DATA_HOME: path.join(root, "data"),
    XDG_STATE_HOME: path.join(root, "state"),
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_CACHE_HOME: TEST_CODE_CACHE,
    LANG: "C.UTF-8",
    ANTHROPIC_API_KEY: KEY,
    MY_SHELL_TOKEN: SHELL_SECRET,
  };
  await fsp.mkdir(path.join(root, ".ssh"), { recursive: true });
  await fsp.writeFile(path.join(root, ".ssh", "id_ed25519"), "PRIVATE KEY 0123456789\n");
  await fsp.mkdir(path.join(root, "state", "albedo"), { recursive: true });
  await fsp.writeFile(path.join(root, "state", "albedo", "api-token"), "token-0123456789\n");
  await fsp.mkdir(path.join(root, "config", "albedo"), { recursive: true });
  await fsp.writeFile(path.join(root, "config", "albedo", "config.json"), JSON.stringify({ model: "claude-sonnet-4-5" }));
  await fsp.writeFile(path.join(root, ".netrc"), "machine example.com login me password hunter2\n");
  return { root, workspace, db: path.join(root, "data", "albedo", "history.sqlite"), env };
}

beforeEach(async () => {
  home = await makeVarHome();
  outside = await fsp.mkdtemp("/var/tmp/albedo-outside-");
  fake.requests.length = 0;
});

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];

/** the tool results of the turn's last request, by call id */
function results(): Record<string, string> {
  const out: Record<string, string> = {};
  const body = fake.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
  for (const m of body.messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as { type: string; tool_use_id?: string; content?: unknown }[]) {
      if (b.type !== "tool_result" || !b.tool_use_id) continue;
      out[b.tool_use_id] = typeof b.content === "string" ? b.content : JSON.stringify(b.content);
    }
  }
  return out;
}

function calls(cmds: Record<string, string>) {
  return Object.entries(cmds).map(([id, command]) => ({ name: "bash", id: `toolu_${id}`, input: { command } }));
}

describe.skipIf(!bwrapWorks)("the command sandbox (bubblewrap)", () => {
  it("keeps a command to the workspace, /tmp and reading; hides albedo-tui's files, credentials, its process, the network", async () => {
    const port = new URL(fake.anthropicBase).port;
    const db = home.db;
    await fsp.writeFile(path.join(home.workspace, "package.json"), JSON.stringify({ name: "tiny", version: "1.0.0", scripts: { test: "node test.js" } }));
    await fsp.writeFile(path.join(home.workspace, "test.js"), 'const assert = require("node:assert"); assert.strictEqual(1 + 1, 2); console.log("tiny tests passed");\n');
    const cmds = {
      ws: "echo inside > inside.txt && cat inside.txt",
      tmp: "echo t > /tmp/t.txt && cat /tmp/t.txt",
      read: "head -c 6 /etc/passwd && echo && ls /usr/bin | grep -c . ",
      npm: "npm test",
      outside: `echo x > ${outside}/escaped.txt`,
      home: "echo x > $HOME/escaped.txt",
      db: `cat ${db} 2>/dev/null | wc -c; ls ${path.dirname(db)} 2>/dev/null | wc -l`,
      token: `cat ${home.root}/state/albedo/api-token 2>/dev/null | wc -c`,
      config: `cat ${home.root}/config/albedo/config.json 2>/dev/null | wc -c`,
      ssh: "ls -A ~/.ssh 2>/dev/null | wc -l; cat ~/.ssh/id_ed25519 2>/dev/null | wc -c; cat ~/.netrc 2>/dev/null | wc -c",
      // albedo-tui's pid is written into the workspace once it has started
      proc: "for i in $(seq 200); do [ -s albedo.pid ] && break; sleep 0.05; done; p=$(cat albedo.pid); ls /proc/$p >/dev/null 2>&1 && echo VISIBLE || echo gone; cat /proc/$p/environ 2>/dev/null | wc -c; head -c 64 /proc/$p/mem 2>/dev/null | wc -c",
      net: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED`,
      env: `env | grep -c ${SHELL_SECRET}; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${SHELL_SECRET}; env | grep -c ANTHROPIC`,
      bg: "env -i /usr/bin/setsid /usr/bin/nohup sleep 313.5 >/dev/null 2>&1 & echo started",
    };
    fake.script({ toolCalls: calls(cmds) }, { text: "done" });
    const run = startCli(["-p", "go", "--permission", "ask", ...anthropic()], home, { ...home.env });
    await fsp.writeFile(path.join(home.workspace, "albedo.pid"), String(run.child.pid));
    // RLIMIT_CORE is 0, soft and hard, once the session is ready (before its commands run)
    let limits = "";
    await waitUntil(() => {
      limits = fs.readFileSync(`/proc/${run.child.pid}/limits`, "utf8");
      return /Max core file size\s+0\s+0\s/.test(limits);
    }, 20_000, "albedo-tui's core file limit to be 0");
    const r = await run.done;
    expect(r.stderr).not.toContain("UNSANDBOXED");
    expect(r.code).toBe(0);
    const out = results();
    const o = (id: string) => out[`toolu_${id}`] ?? "";
    // what works: the workspace, a private /tmp, reading the rest, a real toolchain
    expect(o("ws")).toContain("inside\n[exit code 0]");
    expect(fs.readFileSync(path.join(home.workspace, "inside.txt"), "utf8")).toBe("inside\n");
    expect(o("tmp")).toContain("t\n[exit code 0]");
    expect(fs.existsSync("/tmp/t.txt") && fs.readFileSync("/tmp/t.txt", "utf8") === "t\n").toBe(false);
    expect(o("read")).toMatch(/^root:x/);
    expect(o("npm")).toContain("tiny tests passed");
    expect(o("npm")).toContain("[exit code 0]");
    // what does not: writes outside, albedo-tui's own files, credentials
    expect(o("outside")).toContain("Read-only file system");
    expect(fs.existsSync(path.join(outside, "escaped.txt"))).toBe(false);
    expect(o("home")).toContain("Read-only file system");
    expect(fs.existsSync(path.join(home.root, "escaped.txt"))).toBe(false);
    expect(o("db")).toMatch(/^0\n0\n/);
    expect(fs.statSync(db).size).toBeGreaterThan(0);
    expect(o("token")).toMatch(/^0\n/);
    expect(o("config")).toMatch(/^0\n/);
    expect(o("ssh")).toMatch(/^0\n0\n0\n/);
    // albedo-tui's process is in another PID namespace: its environ and memory are out of reach
    expect(o("proc")).toMatch(/^gone\n0\n0\n/);
    // no network: the fake provider on the host's 127.0.0.1 cannot be reached
    expect(o("net")).not.toContain("CONNECTED");
    expect(o("net")).toMatch(/Connection refused|Network is unreachable/);
    // the user's shell variables and the provider keys stay outside
    expect(o("env")).toMatch(/^0\n0\n0\n/);
    // a process that escapes albedo-tui's tracking (cleared environment, own session) dies
    // with the sandbox's PID namespace
    expect(o("bg")).toContain("started");
    await waitUntil(() => !hostHas("sleep 313.5"), 10_000, "the background sleep to be gone");
    // the key never reached a command's output
    expect(JSON.stringify(out)).not.toContain(KEY);
  }, 60_000);

  it("--sandbox read-only: the workspace is read, not written", async () => {
    await fsp.writeFile(path.join(home.workspace, "a.txt"), "A\n");
    fake.script({ toolCalls: calls({ r: "cat a.txt", w: "echo B > a.txt" }) }, { text: "done" });
    const r = await runCli(["-p", "go", "--sandbox", "read-only", ...anthropic()], home);
    expect(r.code).toBe(0);
    const out = results();
    expect(out.toolu_r).toContain("A\n[exit code 0]");
    expect(out.toolu_w).toContain("Read-only file system");
    expect(fs.readFileSync(path.join(home.workspace, "a.txt"), "utf8")).toBe("A\n");
  }, 60_000);

  it("--sandbox off: commands run as before, and ask asks (headless: refused, saying why)", async () => {
    fake.script({ toolCalls: calls({ w: `echo x > ${outside}/made.txt` }) }, { text: "done" });
    const r = await runCli(["-p", "go", "--sandbox", "off", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(results().toolu_w).toContain("denied: albedo-tui runs headless");
    fake.script({ toolCalls: calls({ w: `echo x > ${outside}/made.txt` }) }, { text: "done" });
    const r2 = await runCli(["-p", "go", "--sandbox", "off", "--permission", "auto", ...anthropic()], home);
    expect(r2.code).toBe(0);
    expect(fs.readFileSync(path.join(outside, "made.txt"), "utf8")).toBe("x\n");
  }, 60_000);

  it("a write the sandbox refused says so, and headless never runs it outside", async () => {
    fake.script({ toolCalls: calls({ w: `echo x > ${outside}/no.txt` }) }, { text: "done" });
    const r = await runCli(["-p", "go", ...anthropic()], home);
    expect(r.code).toBe(0);
    expect(results().toolu_w).toContain("the sandbox may have stopped this command (it seems to write outside the workspace); no one can be asked");
    expect(fs.existsSync(path.join(outside, "no.txt"))).toBe(false);
  }, 60_000);
});

describe("without a working bubblewrap", () => {
  for (const [name, bwrap] of [
    ["missing", "/nonexistent/bwrap"],
    ["refusing (no user namespaces)", "REFUSING"],
  ] as const) {
    it(`${name}: -p says once that commands run unsandboxed, and ask asks (refused headless)`, async () => {
      let path_ = bwrap as string;
      if (bwrap === "REFUSING") {
        // a bwrap that fails as it does in a container without user namespaces
        path_ = path.join(home.root, "bwrap");
        await fsp.writeFile(path_, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n", { mode: 0o755 });
      }
      fake.script({ toolCalls: calls({ a: "echo one", b: "echo two" }) }, { text: "done" });
      const r = await runCli(["-p", "go", ...anthropic()], home, { ALBEDO_BWRAP: path_ });
      expect(r.code).toBe(0);
      const said = r.stderr.split("\n").filter((l) => l.includes("Commands run UNSANDBOXED"));
      expect(said).toHaveLength(1);
      if (bwrap === "REFUSING") expect(said[0]).toContain("No permissions to create new namespace");
      else expect(said[0]).toContain("bubblewrap (bwrap) is not installed");
      const out = results();
      expect(out.toolu_a).toContain("denied: albedo-tui runs headless");
      expect(out.toolu_b).toContain("denied: albedo-tui runs headless");
    }, 60_000);
  }
});

function hostHas(cmdline: string): boolean {
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ").includes(cmdline)) return true;
    } catch {
      // gone
    }
  }
  return false;
}
