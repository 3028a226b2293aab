// MCP tools go through the permission policy built-in tools do, against a real file server no
// one here wrote (@modelcontextprotocol/server-filesystem, rooted at the workspace). Its
// annotations call its read tools read-only; that is a hint from the server, never trust:
// `ask` asks, `read-only` refuses unless the user listed the tool in "allowInReadOnly".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { tempDir } from "../helpers/tmp.js";
import { waitUntil } from "../helpers/cli.js";
import { filesystemStdio } from "../helpers/mcp-servers.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";
import type { AppOptions } from "../../src/session/controller/controller.js";
import type { PermissionRequest } from "../../src/tools/types.js";

const T = 60_000;
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

async function app(policy: AppOptions["permission"], extra: Record<string, unknown> = {}, headless = true) {
  const dir = await tempDir("albedo-mcp-perm-");
  const workspace = path.join(dir, "work");
  await fs.mkdir(workspace, { recursive: true });
  await fs.writeFile(path.join(workspace, "notes.txt"), "the notes");
  const configFile = path.join(dir, "config.json");
  await fs.writeFile(configFile, JSON.stringify({ mcpServers: { fs: filesystemStdio(workspace) }, ...extra }));
  const made = await makeApp(fake, { dir, configFile, permission: policy, headless });
  if (!headless) {
    made.app.mcp.start();
    await waitUntil(() => made.app.mcp.status()[0]?.state === "ready", 30_000, "the file server ready");
  }
  return { ...made, workspace };
}

/** one turn in which the model calls these tools; returns each result's text and error flag */
async function turn(a: Awaited<ReturnType<typeof app>>["app"], calls: { name: string; input: unknown }[]) {
  fake.script({ toolCalls: calls }, { text: "done" });
  const before = a.history().length;
  await a.runPrompt("go");
  expect(fake.rejections()).toEqual([]);
  const results = a.history()[before + 2]!;
  return results.blocks.map((b) => (b.type === "tool_result" ? { output: b.output, isError: b.isError } : b.type));
}

describe("MCP tools under the permission policy (server-filesystem)", () => {
  it("read-only: a tool the server calls read-only is refused, and so is a write; nothing is written", async () => {
    const { app: a, workspace } = await app("read-only");
    try {
      const read = path.join(workspace, "notes.txt");
      const out = await turn(a, [
        { name: "mcp__fs__read_text_file", input: { path: read } },
        { name: "mcp__fs__write_file", input: { path: path.join(workspace, "new.txt"), content: "x" } },
      ]);
      expect(out).toEqual([
        { output: "denied: albedo-tui runs in read-only mode; mcp__fs__read_text_file is not allowed", isError: true },
        { output: "denied: albedo-tui runs in read-only mode; mcp__fs__write_file is not allowed", isError: true },
      ]);
      await expect(fs.stat(path.join(workspace, "new.txt"))).rejects.toThrow(/ENOENT/);
    } finally {
      await a.close();
    }
  }, T);

  it("read-only with allowInReadOnly: the listed tools run (one by name, a server's by mcp__fs__*), others do not", async () => {
    const { app: a, workspace } = await app("read-only", { allowInReadOnly: ["mcp__fs__read_text_file"] });
    try {
      const out = await turn(a, [
        { name: "mcp__fs__read_text_file", input: { path: path.join(workspace, "notes.txt") } },
        { name: "mcp__fs__list_directory", input: { path: workspace } },
      ]);
      expect(out[0]).toEqual({ output: "the notes", isError: false });
      expect(out[1]).toMatchObject({ isError: true, output: expect.stringContaining("read-only mode") });
    } finally {
      await a.close();
    }
    const { app: b, workspace: w2 } = await app("read-only", { allowInReadOnly: ["mcp__fs__*"] });
    try {
      const out = await turn(b, [{ name: "mcp__fs__list_directory", input: { path: w2 } }]);
      expect(out[0]).toEqual({ output: "[FILE] notes.txt", isError: false });
    } finally {
      await b.close();
    }
  }, T);

  it("ask: even the server's read-only tool asks a person; no answers it headless, so it is refused with the reason", async () => {
    const { app: a, workspace } = await app("ask");
    try {
      const out = await turn(a, [{ name: "mcp__fs__read_text_file", input: { path: path.join(workspace, "notes.txt") } }]);
      expect(out[0]).toMatchObject({ isError: true, output: expect.stringContaining("denied: albedo-tui runs headless (-p) with --permission ask") });
    } finally {
      await a.close();
    }
  }, T);

  it("ask with allowInReadOnly: a listed tool still asks (the list is for read-only mode; before, it ran unasked)", async () => {
    const { app: a, workspace } = await app("ask", { allowInReadOnly: ["mcp__fs__*"] });
    try {
      const out = await turn(a, [{ name: "mcp__fs__read_text_file", input: { path: path.join(workspace, "notes.txt") } }]);
      expect(out[0]).toMatchObject({ isError: true, output: expect.stringContaining("denied: albedo-tui runs headless (-p) with --permission ask") });
    } finally {
      await a.close();
    }
  }, T);

  it("ask with a screen: the question names the MCP tool; no means not run, yes runs it", async () => {
    const { app: a, workspace } = await app("ask", {}, false);
    const asked: PermissionRequest[] = [];
    const answers = ["deny", "once"] as const;
    a.subscribe(
      (e) => {
        if (e.type === "permission") {
          asked.push(e.req);
          e.answer(answers[asked.length - 1]!);
        }
      },
      { answersPermissions: true },
    );
    try {
      const target = path.join(workspace, "made.txt");
      const denied = await turn(a, [{ name: "mcp__fs__write_file", input: { path: target, content: "made" } }]);
      expect(denied[0]).toMatchObject({ isError: true, output: expect.stringContaining("denied by the user") });
      await expect(fs.stat(target)).rejects.toThrow(/ENOENT/);
      const ran = await turn(a, [{ name: "mcp__fs__write_file", input: { path: target, content: "made" } }]);
      expect(ran[0]).toMatchObject({ isError: false });
      expect(await fs.readFile(target, "utf8")).toBe("made");
      expect(asked.map((r) => [r.tool, r.kind])).toEqual([
        ["mcp__fs__write_file", "exec"],
        ["mcp__fs__write_file", "exec"],
      ]);
      expect(asked[0]!.summary).toContain("(MCP server fs)");
    } finally {
      await a.close();
    }
  }, T);
});
