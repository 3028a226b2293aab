import fs from "node:fs/promises";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
import { makeContext, removeTempFolders, tempFolder } from "./tools-fixture.js";

const tools = builtinTools();
let ws: string;
const read = (input: unknown) => runTool(tools, "read", input, makeContext(ws).ctx, new PermissionMemory());

beforeEach(async () => {
  ws = await tempFolder();
});
afterAll(removeTempFolders);

const numbered = (n: number) => Array.from({ length: n }, (_, k) => `line ${k + 1}`).join("\n") + "\n";

describe("read", () => {
  it("numbers every line of a small file and adds no note when all is shown", async () => {
    await fs.writeFile(path.join(ws, "a.txt"), "alpha\nbeta\n\ngamma");
    const r = await read({ path: "a.txt" });
    expect(r.isError).toBe(false);
    expect(r.output).toBe("   1│ alpha\n   2│ beta\n   3│ \n   4│ gamma");
  });

  it("shows a line range and says where to continue", async () => {
    await fs.writeFile(path.join(ws, "n.txt"), numbered(10));
    const r = await read({ path: "n.txt", offset: 3, limit: 2 });
    expect(r.output).toBe("   3│ line 3\n   4│ line 4\n[lines 3–4 of 10; continue with offset=5]");
  });

  it("widens the number column for five-digit line numbers", async () => {
    await fs.writeFile(path.join(ws, "n.txt"), numbered(12_345));
    const r = await read({ path: "n.txt", offset: 12_344 });
    expect(r.output).toBe("12344│ line 12344\n12345│ line 12345");
  });

  it("stops at the default limit of 2000 lines", async () => {
    await fs.writeFile(path.join(ws, "n.txt"), numbered(2500));
    const r = await read({ path: "n.txt" });
    const lines = r.output.split("\n");
    expect(lines[1999]).toBe("2000│ line 2000");
    expect(lines[2000]).toBe("[lines 1–2000 of 2500; continue with offset=2001]");
  });

  it("cuts very long lines with a note of how much went", async () => {
    await fs.writeFile(path.join(ws, "long.txt"), "x".repeat(5000) + "\nshort\n");
    const r = await read({ path: "long.txt" });
    const [first, second] = r.output.split("\n");
    expect(first).toBe(`   1│ ${"x".repeat(2000)}… [line cut: 3,000 more chars]`);
    expect(second).toBe("   2│ short");
  });

  it("reports an offset past the end", async () => {
    await fs.writeFile(path.join(ws, "n.txt"), numbered(3));
    const r = await read({ path: "n.txt", offset: 9 });
    expect(r).toEqual({ output: "offset 9 is past the end of n.txt (3 lines)", isError: true });
  });

  it("shows CRLF files without \\r and says so", async () => {
    await fs.writeFile(path.join(ws, "w.txt"), "one\r\ntwo\r\n");
    const r = await read({ path: "w.txt" });
    expect(r.output).toBe("   1│ one\n   2│ two\n[the file uses CRLF line endings; shown without \\r]");
  });

  it("says an empty file is empty", async () => {
    await fs.writeFile(path.join(ws, "e.txt"), "");
    expect(await read({ path: "e.txt" })).toEqual({ output: "e.txt is empty (0 bytes)", isError: false });
  });

  it("refuses a directory, pointing at ls", async () => {
    await fs.mkdir(path.join(ws, "src"));
    expect(await read({ path: "src" })).toEqual({ output: "src is a directory; use ls", isError: true });
  });

  it("refuses a missing file", async () => {
    const r = await read({ path: "nope.txt" });
    expect(r).toEqual({ output: "no such file or directory: nope.txt", isError: true });
  });

  it("refuses a binary file with its size", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48]);
    await fs.writeFile(path.join(ws, "img.png"), bytes);
    expect(await read({ path: "img.png" })).toEqual({ output: "img.png: binary file, 14 bytes; not shown", isError: true });
  });

  it("refuses a FIFO without opening it for a blocking read", async () => {
    execFileSync("mkfifo", [path.join(ws, "pipe")]);
    const r = await read({ path: "pipe" });
    expect(r).toEqual({ output: "pipe is not a regular file (a FIFO)", isError: true });
  });

  it("refuses a character device", async () => {
    const r = await read({ path: "/dev/null" });
    expect(r).toEqual({ output: "/dev/null is not a regular file (a character device)", isError: true });
  });

  describe("a 50 MB file", () => {
    let big: string;
    beforeEach(async () => {
      big = path.join(ws, "big.log");
      // real text all the way through, written in 1 MB pieces
      const lineLen = 64;
      const piece = Array.from({ length: (1024 * 1024) / lineLen }, () => "y".repeat(lineLen - 1)).join("\n") + "\n";
      const fh = await fs.open(big, "w");
      await fh.write(numbered(2000));
      for (let k = 0; k < 50; k++) await fh.write(piece);
      await fh.close();
    });

    it("is refused without a line range", async () => {
      const r = await read({ path: "big.log" });
      expect(r.isError).toBe(true);
      expect(r.output).toMatch(/^big\.log is 50\.0 MB, over the 10\.0 MB limit for a whole read; give offset and limit/);
    });

    it("is read by range, stopping early instead of counting every line", async () => {
      const r = await read({ path: "big.log", offset: 1500, limit: 3 });
      expect(r.isError).toBe(false);
      // "the file continues" instead of "of N": the reader never walked to the end
      expect(r.output).toBe(
        "1500│ line 1500\n1501│ line 1501\n1502│ line 1502\n[lines 1500–1502 shown; the file continues; continue with offset=1503]",
      );
    });
  });

  it("reads a 50 MB single line by range with bounded memory (the line is cut, not held)", async () => {
    const p = path.join(ws, "oneline.txt");
    const fh = await fs.open(p, "w");
    const chunk = "z".repeat(1024 * 1024);
    for (let k = 0; k < 50; k++) await fh.write(chunk);
    await fh.close();
    const r = await read({ path: "oneline.txt", limit: 1 });
    expect(r.output).toBe(`   1│ ${"z".repeat(2000)}… [line cut: ${(50 * 1024 * 1024 - 2000).toLocaleString("en-US")} more chars]`);
  });
});

describe("read of files that report size 0", () => {
  it("still reads /proc files, whose size is 0 but whose content is not", async () => {
    const ws2 = await tempFolder();
    const r = await runTool(tools, "read", { path: "/proc/self/status", limit: 1 }, makeContext(ws2).ctx, new PermissionMemory());
    expect(r.isError).toBe(false);
    expect(r.output).toMatch(/^ {3}1│ Name:\t/);
  });
});
