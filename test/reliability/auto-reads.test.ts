// Files read automatically into every request (AGENTS.md, CLAUDE.md) as a hostile repository
// would shape them, through the built CLI against the strict fake provider: nothing from
// outside the workspace may reach a request or the record, and a configured key read from
// inside it (a link to .env) is cut out of the request, the capture and the database.
// Also every other door into the record: the prompt, a tool's output, the model's answer.
// The workspace's .mcp.json, read as automatically, follows the same rule: a link out is
// refused, its target neither started nor quoted (stderr, the log, the record).
import { afterAll, beforeAll, describe, expect } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { anthropicArgs, readRecord, removeHomes, secretHits, Tally, writeConfig, writeFigures } from "./lib.js";

const KEY = "sk-ant-autoread-SECRET-7f6e5d4c3b2a";
/** what lives outside each workspace; none of it may cross */
const OUTSIDE_MARK = "OUTSIDE-WORKSPACE-CONTENT-9d8c";

let fake: FakeProvider;
const homes: Home[] = [];
const tally = new Tally();
let outsideReads = 0;
let formsTried = 0;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
  await writeFigures("auto-reads", { ...tally.figures(), formsTried, outsideReads });
  await removeHomes(homes);
});

interface Form {
  name: string;
  make(h: Home, outside: string): Promise<void>;
  /** what the AGENTS.md/CLAUDE.md section must say */
  expect: RegExp;
}

const link = (target: string, at: string): Promise<void> => fs.symlink(target, at);

const FORMS: Form[] = [
  { name: "absolute link to a file outside", make: (h, o) => link(path.join(o, "secret.txt"), path.join(h.workspace, "AGENTS.md")), expect: /not read: it leads outside/ },
  { name: "relative link climbing out", make: (h) => link("../outside/secret.txt", path.join(h.workspace, "AGENTS.md")), expect: /not read: it leads outside/ },
  { name: "link to /etc/passwd", make: (h) => link("/etc/passwd", path.join(h.workspace, "CLAUDE.md")), expect: /not read: it leads outside/ },
  { name: "link to a .env outside holding the key", make: (h, o) => link(path.join(o, ".env"), path.join(h.workspace, "CLAUDE.md")), expect: /not read: it leads outside/ },
  {
    name: "link through a linked folder",
    make: async (h, o) => {
      await link(o, path.join(h.workspace, "vendor"));
      await link("vendor/secret.txt", path.join(h.workspace, "AGENTS.md"));
    },
    expect: /not read: it leads outside/,
  },
  {
    name: "chain of links ending outside",
    make: async (h, o) => {
      await link(path.join(o, "secret.txt"), path.join(h.workspace, ".b"));
      await link(".b", path.join(h.workspace, ".a"));
      await link(".a", path.join(h.workspace, "AGENTS.md"));
    },
    expect: /not read: it leads outside/,
  },
  { name: "link to /dev/zero", make: (h) => link("/dev/zero", path.join(h.workspace, "AGENTS.md")), expect: /not read: it leads outside/ },
  {
    name: "named pipe",
    make: async (h) => {
      execFileSync("mkfifo", [path.join(h.workspace, "AGENTS.md")]);
    },
    expect: /not read: it is a named pipe/,
  },
  { name: "folder", make: (h) => fs.mkdir(path.join(h.workspace, "AGENTS.md")), expect: /not read: it is a folder/ },
  { name: "dangling link", make: (h) => link("gone.md", path.join(h.workspace, "AGENTS.md")), expect: /not read: it is a link to nothing/ },
  {
    name: "link to a .env inside holding the key",
    make: async (h) => {
      await fs.writeFile(path.join(h.workspace, ".env"), `ANTHROPIC_API_KEY=${KEY}\n`);
      await link(".env", path.join(h.workspace, "AGENTS.md"));
    },
    expect: /ANTHROPIC_API_KEY=\[redacted key\]/,
  },
  {
    name: "a 20 MB file",
    make: (h) => fs.writeFile(path.join(h.workspace, "AGENTS.md"), "y".repeat(20 * 1024 * 1024)),
    expect: /cut at 64 KB of 20971520 bytes\]/,
  },
];

async function hostileHome(form: Form): Promise<Home> {
  const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
  homes.push(h);
  const outside = path.join(h.root, "outside");
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, "secret.txt"), `${OUTSIDE_MARK}\n`);
  await fs.writeFile(path.join(outside, ".env"), `ANTHROPIC_API_KEY=${KEY}\n${OUTSIDE_MARK}\n`);
  await form.make(h, outside);
  return h;
}

describe("automatic reads stay inside the workspace", () => {
  for (const form of FORMS) {
    formsTried++;
    tally.it(
      form.name,
      async () => {
        const h = await hostileHome(form);
        fake.requests.length = 0;
        fake.script({ text: "Read the instructions." });
        const r = await runCli(["-p", "follow the project instructions", "--permission", "read-only", ...anthropicArgs(fake)], h);
        expect(r.code, r.stderr).toBe(0);
        const sent = fake.requests.map((q) => q.rawBody).join("\n");
        const leaked = sent.includes(OUTSIDE_MARK) || sent.includes("root:x:0:0") || sent.includes(KEY);
        // the record: every file of the home, the database and its WAL among them
        const stored = await secretHits([h.root], [OUTSIDE_MARK, KEY], { except: [path.join(h.root, "outside", "secret.txt"), path.join(h.root, "outside", ".env"), path.join(h.workspace, ".env")] });
        if (leaked || stored.length > 0) outsideReads++;
        expect(leaked, `sent: ${sent.slice(0, 300)}`).toBe(false);
        expect(stored).toEqual([]);
        // the section names why, and the inspector shows the same text the provider got
        const system = JSON.stringify(fake.requests[0]!.body.system);
        expect(system).toMatch(form.expect);
        const id = (await readRecord(h.db)).session.id;
        const ctx = await runCli(["context", id, "--json"], h);
        expect(ctx.code, ctx.stderr).toBe(0);
        const view = JSON.parse(ctx.stdout) as { sections: { index: number; kind: string; source: string; pages: number }[] };
        const section = view.sections.find((x) => x.kind === "context" && (x.source === "AGENTS.md" || x.source === "CLAUDE.md"));
        expect(section, ctx.stdout).toBeDefined();
        // the note ends the section: its last page
        // the JSON's numbers count from 0, the flags from 1
        const page = await runCli(["context", id, "--section", String(section!.index + 1), "--page", String(section!.pages), "--json"], h);
        const text = (JSON.parse(page.stdout) as { text: string }).text;
        expect(text).toMatch(form.expect);
        expect(text).not.toContain(OUTSIDE_MARK);
      },
      60_000,
    );
  }

  tally.it(
    "the key typed in a prompt, printed by a tool and echoed by the model reaches neither the record nor a request",
    async () => {
      const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
      homes.push(h);
      await fs.writeFile(path.join(h.workspace, "config.txt"), `token=${KEY}\n`);
      fake.requests.length = 0;
      fake.script(
        { text: `You gave me ${KEY}; let me look.`, toolCalls: [{ name: "read", input: { path: "config.txt" } }] },
        { text: `The file holds ${KEY} too.` },
      );
      const r = await runCli(["-p", `my key is ${KEY}, check config.txt`, "--permission", "read-only", ...anthropicArgs(fake)], h);
      expect(r.code, r.stderr).toBe(0);
      expect(fake.requests.length).toBe(2);
      for (const q of fake.requests) expect(q.rawBody.includes(KEY)).toBe(false);
      expect(await secretHits([h.root], [KEY], { except: [path.join(h.workspace, "config.txt")] })).toEqual([]);
      const rec = await readRecord(h.db);
      expect(rec.session.title).toContain("[redacted key]");
      expect(JSON.stringify(rec.messages)).toContain("[redacted key]");
    },
    60_000,
  );
});

describe("the workspace's .mcp.json stays inside the workspace too", () => {
  const MCP_FORMS: { name: string; make(h: Home, outside: string): Promise<void> }[] = [
    // a parse error would print its first bytes
    { name: ".mcp.json linked to /proc/self/environ", make: (h) => link("/proc/self/environ", path.join(h.workspace, ".mcp.json")) },
    {
      // followed, the user's own servers would become the project's (and run once approved)
      name: ".mcp.json linked to the user's own config",
      make: async (h) => {
        const file = await writeConfig(h, { mcpServers: { mine: { command: "/nonexistent/users-own", env: { TOKEN: OUTSIDE_MARK } } } });
        await link(file, path.join(h.workspace, ".mcp.json"));
      },
    },
    { name: ".mcp.json linked to a file outside", make: (h, o) => link(path.join(o, "secret.txt"), path.join(h.workspace, ".mcp.json")) },
  ];
  for (const form of MCP_FORMS) {
    formsTried++;
    tally.it(
      form.name,
      async () => {
        const h = await hostileHome({ ...form, expect: /./ });
        fake.requests.length = 0;
        fake.script({ text: "No project servers." });
        const r = await runCli(["-p", "hello", "--permission", "read-only", ...anthropicArgs(fake)], h, { ENVIRON_MARK: OUTSIDE_MARK });
        expect(r.code, r.stderr).toBe(0);
        const told = r.stderr;
        // environ's bytes, or the linked file's
        const leaked = told.includes(OUTSIDE_MARK) || told.includes("PATH=") || told.includes("is also in");
        const stored = await secretHits([h.root], [OUTSIDE_MARK, "PATH=/"], { except: [path.join(h.root, "outside", "secret.txt"), path.join(h.root, "outside", ".env"), path.join(h.root, "config", "albedo", "config.json")] });
        if (leaked || stored.length > 0) outsideReads++;
        expect(told).toContain(`the project's MCP file ${path.join(h.workspace, ".mcp.json")} was not read: it leads outside the workspace`);
        expect(leaked, told).toBe(false);
        expect(stored).toEqual([]);
        // the config's own server is the config's, once, and no project server starts
        for (const q of fake.requests) expect(JSON.stringify(q.body.tools ?? [])).not.toContain("mcp__");
      },
      60_000,
    );
  }
});
