import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
import type { PermissionAnswer, PermissionPolicy } from "../../src/tools/types.js";
import { makeContext, removeTempFolders, tempFolder, type TestContext } from "./tools-fixture.js";

const tools = builtinTools();
let ws: string;
let outside: string;
let secret: string;

beforeEach(async () => {
  ws = await tempFolder("albedo-ws-");
  outside = await tempFolder("albedo-outside-");
  secret = path.join(outside, "secret.txt");
  await fs.writeFile(secret, "top secret\n");
  await fs.writeFile(path.join(ws, "a.txt"), "old\n");
});
afterAll(removeTempFolders);

function setup(policy: PermissionPolicy, answers: PermissionAnswer[] = []): TestContext & { memory: PermissionMemory } {
  return { ...makeContext(ws, policy, answers), memory: new PermissionMemory() };
}
const run = (s: TestContext & { memory: PermissionMemory }, name: string, input: unknown) =>
  runTool(tools, name, input, s.ctx, s.memory);
const content = (p: string) => fs.readFile(p, "utf8");

describe("runTool: calls the model gets wrong", () => {
  it("names an unknown tool and lists the real ones", async () => {
    const r = await run(setup("auto"), "delete_everything", {});
    expect(r).toEqual({
      output: 'unknown tool "delete_everything"; the tools are: read, write, edit, bash, bash_output, bash_stop, ls, glob, grep',
      isError: true,
    });
  });

  it("names the missing field", async () => {
    const r = await run(setup("auto"), "edit", { path: "a.txt", new_string: "x" });
    expect(r).toEqual({ output: "invalid input for edit: old_string: missing (expected string)", isError: true });
  });

  it("names a field with the wrong type or range", async () => {
    const r = await run(setup("auto"), "read", { path: "a.txt", offset: 0 });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^invalid input for read: offset: /);
  });

  it("names a misspelt field and the real ones", async () => {
    const r = await run(setup("auto"), "read", { file_path: "a.txt" });
    expect(r.output).toBe(
      "invalid input for read: path: missing (expected string); unknown field(s) file_path; the fields are path, offset, limit",
    );
  });

  it("accepts arguments sent as a JSON string, and none at all for ls", async () => {
    expect((await run(setup("auto"), "read", '{"path":"a.txt"}')).output).toBe("   1│ old");
    expect((await run(setup("auto"), "ls", undefined)).output).toBe("a.txt");
  });
});

describe("policy auto", () => {
  it("allows everything, outside the workspace included, without asking", async () => {
    const s = setup("auto");
    expect((await run(s, "read", { path: secret })).output).toBe("   1│ top secret");
    expect((await run(s, "write", { path: path.join(outside, "new.txt"), content: "x\n" })).isError).toBe(false);
    expect((await run(s, "bash", { command: "echo ok" })).output).toBe("ok\n[exit code 0]");
    expect(s.asked).toEqual([]);
  });
});

describe("policy read-only", () => {
  it("allows looking inside the workspace", async () => {
    const s = setup("read-only");
    expect((await run(s, "read", { path: "a.txt" })).isError).toBe(false);
    expect((await run(s, "ls", {})).isError).toBe(false);
    expect((await run(s, "glob", { pattern: "*.txt" })).output).toBe("a.txt");
    expect((await run(s, "grep", { pattern: "old" })).output).toBe("a.txt:1: old");
    expect(s.asked).toEqual([]);
  });

  it("denies write, edit and bash with a message the model can read", async () => {
    const s = setup("read-only");
    for (const [name, input] of [
      ["write", { path: "a.txt", content: "new\n" }],
      ["edit", { path: "a.txt", old_string: "old", new_string: "new" }],
      ["bash", { command: "echo pwned > a.txt" }],
    ] as const) {
      expect(await run(s, name, input)).toEqual({
        output: `denied: albedo-tui runs in read-only mode; ${name} is not allowed`,
        isError: true,
      });
    }
    expect(await content(path.join(ws, "a.txt"))).toBe("old\n");
    expect(s.asked).toEqual([]);
  });

  it("denies reads outside the workspace", async () => {
    const s = setup("read-only");
    const r = await run(s, "read", { path: secret });
    expect(r).toEqual({
      output: `denied: albedo-tui runs in read-only mode; ${secret} is outside the workspace ${ws}`,
      isError: true,
    });
    expect((await run(s, "ls", { path: "../" })).isError).toBe(true);
    expect((await run(s, "grep", { pattern: "secret", path: outside })).isError).toBe(true);
  });

  it("treats a symlink inside the workspace that points outside as outside", async () => {
    await fs.symlink(outside, path.join(ws, "innocent"));
    await fs.symlink(secret, path.join(ws, "notes.txt"));
    const s = setup("read-only");
    const viaDir = await run(s, "read", { path: "innocent/secret.txt" });
    expect(viaDir.isError).toBe(true);
    expect(viaDir.output).toContain(`${secret} is outside the workspace`);
    const viaFile = await run(s, "read", { path: "notes.txt" });
    expect(viaFile.output).toContain(`${secret} is outside the workspace`);
    expect((await run(s, "ls", { path: "innocent" })).isError).toBe(true);
  });
});

describe("policy ask", () => {
  it("runs reads inside the workspace without asking", async () => {
    const s = setup("ask");
    expect((await run(s, "read", { path: "a.txt" })).isError).toBe(false);
    expect((await run(s, "grep", { pattern: "x" })).isError).toBe(false);
    expect(s.asked).toEqual([]);
  });

  it("asks before an edit, showing the diff while the file is still unchanged", async () => {
    let fileDuringQuestion = "";
    const s = { ...makeContext(ws, "ask", ["once"], async () => {
      fileDuringQuestion = await content(path.join(ws, "a.txt"));
    }), memory: new PermissionMemory() };
    const r = await run(s, "edit", { path: "a.txt", old_string: "old", new_string: "new" });
    expect(r.isError).toBe(false);
    expect(fileDuringQuestion).toBe("old\n");
    expect(await content(path.join(ws, "a.txt"))).toBe("new\n");
    expect(s.asked).toHaveLength(1);
    const req = s.asked[0]!;
    expect(req.tool).toBe("edit");
    expect(req.kind).toBe("write");
    expect(req.summary).toBe("edit a.txt");
    expect(req.diff).toBe("--- a.txt\n+++ a.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n");
    expect(req.outsideWorkspace).toBeUndefined();
  });

  it("asks before write with the diff against the old content", async () => {
    const s = setup("ask", ["once"]);
    await run(s, "write", { path: "a.txt", content: "brand new\n" });
    expect(s.asked[0]!.summary).toBe("write a.txt (1 line)");
    expect(s.asked[0]!.diff).toContain("-old\n+brand new\n");
  });

  it("'once' asks again next time; 'session' does not", async () => {
    const s = setup("ask", ["once", "session"]);
    await run(s, "bash", { command: "echo 1" });
    await run(s, "bash", { command: "echo 2" });
    const third = await run(s, "bash", { command: "echo 3" });
    expect(third.output).toBe("3\n[exit code 0]");
    expect(s.asked.map((q) => q.summary)).toEqual(["bash: echo 1", "bash: echo 2"]);
    // remembering bash says nothing about write
    const w = await run(s, "write", { path: "b.txt", content: "x" });
    expect(w.output).toMatch(/^denied by the user/);
    expect(s.asked.map((q) => q.tool)).toEqual(["bash", "bash", "write"]);
  });

  it("'deny' stops the call and says the user denied it", async () => {
    const s = setup("ask", ["deny"]);
    const r = await run(s, "write", { path: "a.txt", content: "pwned\n" });
    expect(r).toEqual({ output: "denied by the user (write a.txt (1 line))", isError: true });
    expect(await content(path.join(ws, "a.txt"))).toBe("old\n");
  });

  it("reports an edit that would fail without asking anyone", async () => {
    const s = setup("ask");
    const r = await run(s, "edit", { path: "a.txt", old_string: "absent", new_string: "x" });
    expect(r).toEqual({ output: "old_string not found in a.txt", isError: true });
    expect(s.asked).toEqual([]);
  });

  it("asks to read outside the workspace, and 'session' remembers only that path", async () => {
    const other = path.join(outside, "other.txt");
    await fs.writeFile(other, "other\n");
    const s = setup("ask", ["session", "deny"]);
    expect((await run(s, "read", { path: secret })).output).toBe("   1│ top secret");
    expect((await run(s, "read", { path: secret, offset: 1 })).output).toBe("   1│ top secret");
    expect((await run(s, "read", { path: other })).output).toMatch(/^denied by the user/);
    expect(s.asked).toHaveLength(2);
    expect(s.asked[0]!.outsideWorkspace).toBe(secret);
    expect(s.asked[0]!.summary).toBe(`read ${secret} (outside the workspace: ${secret})`);
    expect(s.asked[1]!.outsideWorkspace).toBe(other);
    // the path grant was for read only
    expect((await run(s, "write", { path: secret, content: "x" })).isError).toBe(true);
  });

  it("asks for a path through a symlink that leaves the workspace, naming the real target", async () => {
    await fs.symlink(outside, path.join(ws, "innocent"));
    const s = setup("ask", ["deny"]);
    const r = await run(s, "read", { path: "innocent/secret.txt" });
    expect(r.output).toMatch(/^denied by the user/);
    expect(s.asked[0]!.outsideWorkspace).toBe(secret);
  });

  it("checks the target of a dangling symlink a write would create", async () => {
    const target = path.join(outside, "created-through-link.txt");
    await fs.symlink(target, path.join(ws, "dangling"));
    const s = setup("ask", ["deny"]);
    await run(s, "write", { path: "dangling", content: "x" });
    expect(s.asked[0]!.outsideWorkspace).toBe(target);
    await expect(fs.access(target)).rejects.toThrow();
  });

  it("answers 'interrupted' when the turn is aborted while waiting for a person", async () => {
    const t = makeContext(ws, "ask", [], () => new Promise<void>(() => {}));
    const pending = runTool(tools, "bash", { command: "echo never" }, t.ctx, new PermissionMemory());
    await new Promise((r) => setImmediate(r));
    t.controller.abort();
    expect(await pending).toEqual({ output: "interrupted", isError: true });
    expect(t.asked).toHaveLength(1);
  });
});

describe("abort", () => {
  it("does not start a tool once the turn is interrupted", async () => {
    const s = setup("auto");
    s.controller.abort();
    expect(await run(s, "write", { path: "a.txt", content: "late\n" })).toEqual({ output: "interrupted", isError: true });
    expect(await content(path.join(ws, "a.txt"))).toBe("old\n");
  });
});
