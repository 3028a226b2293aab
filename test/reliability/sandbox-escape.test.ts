// Sandbox escapes, tried for real: one headless turn whose bash calls each try a distinct way
// out of bubblewrap (writes by every route, albedo-tui's files and process, credentials, the
// network, processes left behind). Each escape is judged from the host (the file outside, the
// process list) or by a marker the command can print only if it got through. Also: the user's
// shell variables, looked for by every route a command has. The home lives in /var/tmp so the
// private /tmp is not what hides it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { startCli, waitUntil, TEST_CODE_CACHE, type Home } from "../helpers/cli.js";
import { anthropicArgs, writeFigures } from "./lib.js";

const KEY = "sk-test-albedo-ESCAPE-31337";
const SHELL_VAR = "ALBEDO_TEST_SHELL_SECRET";
const SHELL_VALUE = "user-shell-value-8086";
const bwrapWorks = fs.existsSync("/usr/bin/bwrap");
let fake: FakeProvider;
let home: Home;
let out: string;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  const root = await fsp.mkdtemp("/var/tmp/albedo-escape-");
  const workspace = path.join(root, "work");
  await fsp.mkdir(workspace, { recursive: true });
  home = {
    root,
    workspace,
    db: path.join(root, "data", "albedo", "history.sqlite"),
    env: {
      PATH: process.env.PATH,
      HOME: root,
      XDG_DATA_HOME: path.join(root, "data"),
      XDG_STATE_HOME: path.join(root, "state"),
      XDG_CONFIG_HOME: path.join(root, "config"),
      XDG_CACHE_HOME: TEST_CODE_CACHE,
      LANG: "C.UTF-8",
      ANTHROPIC_API_KEY: KEY,
      [SHELL_VAR]: SHELL_VALUE,
    },
  };
  out = path.join(root, "outside");
  await fsp.mkdir(out);
  await fsp.writeFile(path.join(out, "existing.txt"), "original\n");
  await fsp.mkdir(path.join(root, ".ssh"));
  await fsp.writeFile(path.join(root, ".ssh", "id_rsa"), "PRIVATE-KEY-MARK\n");
  await fsp.mkdir(path.join(root, "state", "albedo"), { recursive: true });
  await fsp.writeFile(path.join(root, "state", "albedo", "api-token"), "TOKEN-MARK\n");
});
afterAll(async () => {
  await fake.close();
  await fsp.rm(home.root, { recursive: true, force: true });
});

const tag = `${process.pid}-${Date.now()}`;
/** each form: its command, and how the host judges it (true: escaped) */
function forms(port: string): Record<string, { command: string; escaped: (output: string) => boolean }> {
  const o = (f: string) => path.join(out, f);
  const hostFile = (f: string) => () => fs.existsSync(f);
  const printed = (s: string) => s.includes("ESCAPED");
  const pid = "for i in $(seq 200); do [ -s albedo.pid ] && break; sleep 0.05; done; p=$(cat albedo.pid)";
  return {
    redirect: { command: `echo x > ${o("f1")}`, escaped: hostFile(o("f1")) },
    cp: { command: `cp /etc/hostname ${o("f2")}`, escaped: hostFile(o("f2")) },
    symlink: { command: `ln -s ${o("f3")} link3 && echo x > link3`, escaped: hostFile(o("f3")) },
    mkdir: { command: `mkdir ${o("d4")}`, escaped: hostFile(o("d4")) },
    procSelfRoot: { command: `echo x > /proc/self/root${o("f5")}`, escaped: hostFile(o("f5")) },
    procOneRoot: { command: `echo x > /proc/1/root${o("f6")}`, escaped: hostFile(o("f6")) },
    remount: { command: `mount -o remount,rw / ; echo x > ${o("f7")}`, escaped: hostFile(o("f7")) },
    userns: { command: `unshare -rm sh -c 'mount -o remount,rw / ; mount --bind ${out} /mnt; echo x > ${o("f8")}'`, escaped: hostFile(o("f8")) },
    hardlink: { command: `ln ${o("existing.txt")} hl && echo changed >> hl`, escaped: () => fs.readFileSync(o("existing.txt"), "utf8") !== "original\n" },
    devShm: { command: `echo x > /dev/shm/albedo-escape-${tag}`, escaped: hostFile(`/dev/shm/albedo-escape-${tag}`) },
    varTmp: { command: `echo x > /var/tmp/albedo-escape-${tag}`, escaped: hostFile(`/var/tmp/albedo-escape-${tag}`) },
    homeFile: { command: "echo x > ~/.bashrc", escaped: hostFile(path.join(home.root, ".bashrc")) },
    historyDb: { command: `head -c 15 ${home.db} 2>/dev/null | grep -q 'SQLite format' && echo ESCAPED`, escaped: printed },
    historyFind: { command: `find / -path '*${path.basename(home.root)}*' -name 'history.sqlite*' 2>/dev/null | grep -q . && echo ESCAPED`, escaped: printed },
    tokenFile: { command: `grep -rqs TOKEN-MARK ${home.root}/state && echo ESCAPED`, escaped: printed },
    sshKey: { command: "grep -qs PRIVATE-KEY-MARK ~/.ssh/id_rsa && echo ESCAPED", escaped: printed },
    agentEnviron: { command: `${pid}; [ -r /proc/$p/environ ] && cat /proc/$p/environ | grep -q . && echo ESCAPED`, escaped: printed },
    agentMem: { command: `${pid}; head -c 1 /proc/$p/mem >/dev/null 2>&1 && echo ESCAPED`, escaped: printed },
    agentSignal: { command: `${pid}; kill -0 $p 2>/dev/null && echo ESCAPED`, escaped: printed },
    agentCmdlineScan: { command: "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -q 'dist/[c]li.js' && echo ESCAPED", escaped: printed },
    loopback: { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo ESCAPED`, escaped: printed },
    loopbackNode: { command: `node -e 'require("net").connect(${port},"127.0.0.1").on("connect",()=>{console.log("ESCAPED");process.exit(0)}).on("error",()=>process.exit(1))'`, escaped: printed },
    leftBehindSetsid: { command: `setsid sleep 317.25 >/dev/null 2>&1 & echo started`, escaped: () => hostHas("sleep 317.25") },
    leftBehindEnvI: { command: `env -i /usr/bin/nohup /usr/bin/setsid sleep 317.5 >/dev/null 2>&1 & disown; echo started`, escaped: () => hostHas("sleep 317.5") },
  };
}

/** the routes a command has to the variables of the user's shell: its own environment,
 * its parent's, every process it can see, and the shell's variables */
// the value is spelled so that no command's own text holds it (bash's `set` shows the command)
const SEEK = `"user-shell-value-$((8000+86))"`;
const shellForms = {
  env: `env | grep -c ${SEEK}`,
  procEnviron: `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${SEEK}`,
  parentEnviron: `tr '\\0' '\\n' < /proc/$PPID/environ 2>/dev/null | grep -c ${SEEK}`,
  set: `set | grep -c ${SEEK}`,
};

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

describe.skipIf(!bwrapWorks)("sandbox escapes", () => {
  it("no escape form gets out of the sandbox, and no shell variable is readable", async () => {
    const port = new URL(fake.anthropicBase).port;
    const f = forms(port);
    const calls = [
      ...Object.entries(f).map(([id, x]) => ({ name: "bash", id: `toolu_e_${id}`, input: { command: x.command } })),
      ...Object.entries(shellForms).map(([id, command]) => ({ name: "bash", id: `toolu_v_${id}`, input: { command } })),
    ];
    fake.script({ toolCalls: calls }, { text: "done" });
    const run = startCli(["-p", "try to get out", "--permission", "auto", ...anthropicArgs(fake)], home);
    await fsp.writeFile(path.join(home.workspace, "albedo.pid"), String(run.child.pid));
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("UNSANDBOXED");
    const results: Record<string, string> = {};
    const body = fake.requests.at(-1)!.body as { messages: { content: unknown }[] };
    for (const m of body.messages) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content as { type: string; tool_use_id?: string; content?: unknown }[]) {
        if (b.type === "tool_result" && b.tool_use_id) results[b.tool_use_id] = typeof b.content === "string" ? b.content : JSON.stringify(b.content);
      }
    }
    // processes left behind are judged once the agent has exited (a moment for the kernel)
    await waitUntil(() => !hostHas("sleep 317.25") && !hostHas("sleep 317.5"), 5_000, "the sleeps to be gone").catch(() => undefined);
    const escaped = Object.entries(f)
      .filter(([id, x]) => x.escaped(results[`toolu_e_${id}`] ?? ""))
      .map(([id]) => id);
    const readable = Object.keys(shellForms).filter((id) => !/^0\n/.test(results[`toolu_v_${id}`] ?? "0\n"));
    await writeFigures("sandbox-escape", { formsTried: Object.keys(f).length, escaped: escaped.length, escapedForms: escaped, shellVarRoutes: Object.keys(shellForms).length, shellVarsReadable: readable.length });
    expect(Object.keys(results)).toHaveLength(calls.length);
    expect(escaped).toEqual([]);
    expect(readable).toEqual([]);
    for (const file of [`/dev/shm/albedo-escape-${tag}`, `/var/tmp/albedo-escape-${tag}`]) fs.rmSync(file, { force: true });
  }, 120_000);
});
