import fs from "node:fs/promises";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
import { listInside } from "../../src/tools/glob.js";
import { SearchWorker } from "../../src/tools/search-worker.js";
import { makeContext, removeTempFolders, tempFolder } from "./tools-fixture.js";

const tools = builtinTools();
let ws: string;
const call = (name: string, input: unknown) => runTool(tools, name, input, makeContext(ws).ctx, new PermissionMemory());

async function put(rel: string, text: string | Buffer): Promise<void> {
  await fs.mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
  await fs.writeFile(path.join(ws, rel), text);
}

beforeEach(async () => {
  ws = await tempFolder();
  await put("src/main.ts", "export function main() {\n  return helper();\n}\n");
  await put("src/util/helper.ts", "export function helper() {\n  return 42; // TODO tidy\n}\n");
  await put("README.md", "# Demo\nCall Main to start.\n");
  await put(".github/ci.yml", "on: push\n");
  await put("node_modules/dep/index.ts", "export function main() {}\n");
  await put(".git/config", "[core]\n");
});
afterAll(removeTempFolders);

describe("ls", () => {
  it("lists entries sorted, folders with a slash, symlinks with their target", async () => {
    await fs.symlink("README.md", path.join(ws, "link.md"));
    await fs.symlink("src", path.join(ws, "srclink"));
    const r = await call("ls", {});
    expect(r).toEqual({
      output: [".git/", ".github/", "README.md", "link.md -> README.md", "node_modules/", "src/", "srclink/ -> src"].join("\n"),
      isError: false,
    });
  });

  it("lists a subfolder and refuses a file", async () => {
    expect((await call("ls", { path: "src" })).output).toBe("main.ts\nutil/");
    expect(await call("ls", { path: "README.md" })).toEqual({ output: "README.md is not a directory; use read for a file", isError: true });
  });
});

describe("glob", () => {
  it("finds files at any depth, skipping node_modules and .git, dotfolders included", async () => {
    expect((await call("glob", { pattern: "**/*.ts" })).output).toBe("src/main.ts\nsrc/util/helper.ts");
    expect((await call("glob", { pattern: "**/*.yml" })).output).toBe(".github/ci.yml");
    expect((await call("glob", { pattern: "**/config" })).output).toBe("no files match **/config in .");
  });

  it("searches from a given folder but shows workspace-relative paths", async () => {
    expect((await call("glob", { pattern: "*.ts", path: "src/util" })).output).toBe("src/util/helper.ts");
  });

  it("refuses patterns that climb out of their folder", async () => {
    const r = await call("glob", { pattern: "../**/*" });
    expect(r.isError).toBe(true);
    expect(r.output).toBe(`pattern ../**/* climbs out of the searched folder with ".."; patterns are relative to the searched folder; give another folder as path`);
  });

  it("caps the number of results with a note", async () => {
    await Promise.all(Array.from({ length: 520 }, (_, k) => put(`many/f${String(k).padStart(3, "0")}.txt`, "x")));
    const lines = (await call("glob", { pattern: "many/*.txt" })).output.split("\n");
    expect(lines).toHaveLength(501);
    expect(lines[499]).toBe("many/f499.txt");
    expect(lines[500]).toBe("[20 more matches not shown; 520 in all; narrow the pattern]");
  });
});

describe("grep", () => {
  it("prints path:line: text for every match, skipping node_modules and .git", async () => {
    const r = await call("grep", { pattern: "function \\w+\\(" });
    expect(r).toEqual({
      output: "src/main.ts:1: export function main() {\nsrc/util/helper.ts:1: export function helper() {",
      isError: false,
    });
  });

  it("honours ignore_case, a path and a glob that matches at any depth", async () => {
    expect((await call("grep", { pattern: "main", ignore_case: true, glob: "*.md" })).output).toBe("README.md:2: Call Main to start.");
    expect((await call("grep", { pattern: "TODO", path: "src/util" })).output).toBe("src/util/helper.ts:2:   return 42; // TODO tidy");
    expect((await call("grep", { pattern: "return", path: "src/main.ts" })).output).toBe("src/main.ts:2:   return helper();");
  });

  it("skips binary files, FIFOs and files over 2 MB", async () => {
    await put("blob.bin", Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]));
    await put("huge.txt", "needle\n" + "x".repeat(2 * 1024 * 1024));
    execFileSync("mkfifo", [path.join(ws, "fifo")]);
    // searched: the four text files from beforeEach; blob.bin, huge.txt and fifo are not
    const r = await call("grep", { pattern: "needle" });
    expect(r.output).toBe("no matches for /needle/ in 4 file(s)\n[1 file(s) over 2 MB not searched]");
  });

  it("reports an invalid regex so the model can fix it", async () => {
    const r = await call("grep", { pattern: "(unclosed" });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^invalid regular expression: /);
  });

  it("stops at the match limit with a note", async () => {
    await put("many.txt", "hit\n".repeat(300));
    const lines = (await call("grep", { pattern: "^hit$" })).output.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[199]).toBe("many.txt:200: hit");
    expect(lines[200]).toBe("[stopped at 200 matches; narrow the pattern, path or glob]");
  });
});

describe("listInside: the check on every path found, whatever the pattern", () => {
  // Called without patternProblem's early refusal, to show the second line holds alone:
  // a spelling the refusal might miss still lists nothing outside its base.
  it("drops and counts what the engine found outside the base folder", async () => {
    const base = path.join(ws, "src");
    await fs.symlink(path.join(ws, ".github"), path.join(base, "out-link"));
    const worker = new SearchWorker();
    try {
      const opts = { workspaceReal: ws, expandDirectories: false, signal: new AbortController().signal };
      for (const pattern of [".\\./*", "\\.\\./.github/*", "out-link/*", ".\\./.github/ci.yml"]) {
        const r = await listInside(worker, base, pattern, opts);
        expect({ pattern, ...r }).toEqual({ pattern, files: [], outside: r.outside, timedOut: false });
        expect(r.outside).toBeGreaterThan(0);
      }
      const inside = await listInside(worker, base, "**/*.ts", opts);
      inside.files.sort((a, b) => a.shown.localeCompare(b.shown));
      expect(inside).toEqual({
        files: [
          { shown: "src/main.ts", real: path.join(base, "main.ts") },
          { shown: "src/util/helper.ts", real: path.join(base, "util/helper.ts") },
        ],
        outside: 0,
        timedOut: false,
      });
    } finally {
      await worker.close();
    }
  });
});
