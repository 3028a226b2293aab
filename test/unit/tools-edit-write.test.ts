import fs from "node:fs/promises";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
import { makeContext, removeTempFolders, tempFolder } from "./tools-fixture.js";

const tools = builtinTools();
let ws: string;
const call = (name: string, input: unknown) => runTool(tools, name, input, makeContext(ws).ctx, new PermissionMemory());
const content = (rel: string) => fs.readFile(path.join(ws, rel), "utf8");

beforeEach(async () => {
  ws = await tempFolder();
});
afterAll(removeTempFolders);

describe("write", () => {
  it("creates a file and its missing parent folders, with a diff from nothing", async () => {
    const r = await call("write", { path: "deep/er/new.txt", content: "hello\nworld\n" });
    expect(r.isError).toBe(false);
    expect(r.output).toBe("created deep/er/new.txt (2 lines, 12 bytes)");
    expect(await content("deep/er/new.txt")).toBe("hello\nworld\n");
    expect(r.diff).toBe("--- deep/er/new.txt\n+++ deep/er/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n");
  });

  it("replaces a file and diffs against the old content", async () => {
    await fs.writeFile(path.join(ws, "a.txt"), "one\ntwo\nthree\n");
    const r = await call("write", { path: "a.txt", content: "one\n2\nthree\n" });
    expect(r.output).toBe("wrote a.txt (3 lines, 12 bytes; +1 −1)");
    expect(r.diff).toContain("@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
    expect(await content("a.txt")).toBe("one\n2\nthree\n");
  });

  it("says so when nothing changes", async () => {
    await fs.writeFile(path.join(ws, "a.txt"), "same\n");
    const r = await call("write", { path: "a.txt", content: "same\n" });
    expect(r).toEqual({ output: "a.txt already has this content; nothing changed", isError: false });
  });

  it("refuses to write over a directory", async () => {
    await fs.mkdir(path.join(ws, "d"));
    expect(await call("write", { path: "d", content: "x" })).toEqual({ output: "d is a directory; use ls", isError: true });
  });

  it("refuses to write into a FIFO (which would block)", async () => {
    execFileSync("mkfifo", [path.join(ws, "p")]);
    expect(await call("write", { path: "p", content: "x" })).toEqual({ output: "p is not a regular file (a FIFO)", isError: true });
  });

  it("overwrites a binary file without a diff, saying why", async () => {
    await fs.writeFile(path.join(ws, "b.bin"), Buffer.from([1, 0, 2, 0]));
    const r = await call("write", { path: "b.bin", content: "text now\n" });
    expect(r.output).toBe("wrote b.bin (1 line, 9 bytes; the old content was not text, no diff)");
    expect(r.diff).toBeUndefined();
    expect(await content("b.bin")).toBe("text now\n");
  });
});

describe("edit", () => {
  beforeEach(async () => {
    await fs.writeFile(path.join(ws, "f.ts"), "const a = 1;\nconst b = 1;\nlog(a);\n");
  });

  it("replaces a unique string and returns a diff", async () => {
    const r = await call("edit", { path: "f.ts", old_string: "const b = 1;", new_string: "const b = 2;" });
    expect(r.isError).toBe(false);
    expect(r.output).toBe("edited f.ts: replaced 1 occurrence (+1 −1 lines)");
    expect(await content("f.ts")).toBe("const a = 1;\nconst b = 2;\nlog(a);\n");
    expect(r.diff).toContain("-const b = 1;\n+const b = 2;\n");
  });

  it("fails clearly when the string is absent, leaving the file alone", async () => {
    const r = await call("edit", { path: "f.ts", old_string: "const c", new_string: "x" });
    expect(r).toEqual({ output: "old_string not found in f.ts", isError: true });
    expect(await content("f.ts")).toBe("const a = 1;\nconst b = 1;\nlog(a);\n");
  });

  it("fails clearly when the string is not unique", async () => {
    const r = await call("edit", { path: "f.ts", old_string: " = 1;", new_string: " = 9;" });
    expect(r).toEqual({ output: "old_string appears 2 times in f.ts; give more context or set replace_all", isError: true });
    expect(await content("f.ts")).toBe("const a = 1;\nconst b = 1;\nlog(a);\n");
  });

  it("replaces every occurrence with replace_all", async () => {
    const r = await call("edit", { path: "f.ts", old_string: " = 1;", new_string: " = 9;", replace_all: true });
    expect(r.output).toBe("edited f.ts: replaced 2 occurrences (+2 −2 lines)");
    expect(await content("f.ts")).toBe("const a = 9;\nconst b = 9;\nlog(a);\n");
  });

  it("inserts $-patterns literally", async () => {
    await call("edit", { path: "f.ts", old_string: "log(a);", new_string: "log(`$& $1 $$`);" });
    expect(await content("f.ts")).toBe("const a = 1;\nconst b = 1;\nlog(`$& $1 $$`);\n");
  });

  it("matches a multi-line string copied from read in a CRLF file, keeping CRLF", async () => {
    await fs.writeFile(path.join(ws, "w.txt"), "one\r\ntwo\r\nthree\r\n");
    const r = await call("edit", { path: "w.txt", old_string: "one\ntwo", new_string: "uno\ndos" });
    expect(r.isError).toBe(false);
    expect(await content("w.txt")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("refuses empty and no-op edits and missing files", async () => {
    expect((await call("edit", { path: "f.ts", old_string: "", new_string: "x" })).output).toBe(
      "old_string is empty; to create or replace a whole file use write",
    );
    expect((await call("edit", { path: "f.ts", old_string: "a", new_string: "a" })).output).toBe(
      "old_string and new_string are the same; nothing would change",
    );
    expect(await call("edit", { path: "gone.ts", old_string: "a", new_string: "b" })).toEqual({
      output: "no such file or directory: gone.ts",
      isError: true,
    });
  });

  it("refuses a binary file", async () => {
    await fs.writeFile(path.join(ws, "b.bin"), Buffer.from([0x61, 0, 0x62]));
    const r = await call("edit", { path: "b.bin", old_string: "a", new_string: "c" });
    expect(r).toEqual({ output: "b.bin: binary file, 3 bytes; not shown", isError: true });
  });
});
