// The files read on start (config, keymap, images, the prompt on stdin) through one reader
// that opens without blocking, checks the open handle and reads no further than a limit.
// Real files, a real FIFO, real devices.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { decodeUtf8, jsonSyntaxProblem, readPromptFromStdin, readStartFile, readStartFileSync, readWorkspaceFileSync, StartFileError } from "../../src/config/files.js";
import { loadImage, imageLimit } from "../../src/session/controller/images.js";
import { tempDir } from "../helpers/tmp.js";

let dir: string;
let fifo: string;
beforeAll(async () => {
  dir = await tempDir("albedo-start-files-");
  fifo = path.join(dir, "pipe");
  execFileSync("mkfifo", [fifo]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const lim = { what: "the thing", maxBytes: 1000 };

function error(fn: () => unknown): StartFileError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StartFileError);
    return e as StartFileError;
  }
  throw new Error("no error");
}

async function rejection(p: Promise<unknown>): Promise<StartFileError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(StartFileError);
  return e as StartFileError;
}

describe("readStartFile", () => {
  it("reads a regular file within its limit, both ways", async () => {
    const f = path.join(dir, "ok.txt");
    fs.writeFileSync(f, "x".repeat(1000));
    expect(readStartFileSync(f, lim).length).toBe(1000);
    expect((await readStartFile(f, lim)).length).toBe(1000);
  });

  it("names a FIFO, a device, a folder and a missing file, without blocking or reading them", async () => {
    const cases: [string, string][] = [
      [fifo, `the thing ${fifo} is not a regular file (a FIFO); refusing to read it`],
      ["/dev/zero", "the thing /dev/zero is not a regular file (a character device); refusing to read it"],
      ["/dev/null", "the thing /dev/null is not a regular file (a character device); refusing to read it"],
      [dir, `the thing ${dir} is not a regular file (a folder); refusing to read it`],
      [path.join(dir, "nope"), `cannot read the thing ${path.join(dir, "nope")}: no such file`],
    ];
    for (const [file, message] of cases) {
      expect(error(() => readStartFileSync(file, lim)).message).toBe(message);
      expect((await rejection(readStartFile(file, lim))).message).toBe(message);
    }
  }, 30_000);

  it("refuses a file over the limit by its size", async () => {
    const f = path.join(dir, "big.txt");
    fs.writeFileSync(f, "x".repeat(3 * 1024 * 1024));
    const big = { what: "the thing", maxBytes: 1024 * 1024 };
    expect(error(() => readStartFileSync(f, big)).message).toBe(`the thing ${f} is 3.0 MB, over the limit of 1.0 MB`);
    expect((await rejection(readStartFile(f, big))).code).toBe("too-large");
  });

  it("decodes UTF-8, drops a byte-order mark, names bytes that are not UTF-8", () => {
    expect(decodeUtf8(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), "x")).toBe("{}");
    expect(decodeUtf8(Buffer.from("é ✓"), "x")).toBe("é ✓");
    expect(error(() => decodeUtf8(Buffer.from([0x7b, 0xe9, 0x7d]), "the config file /c.json")).message).toBe("the config file /c.json is not UTF-8 text");
  });
});

describe("readPromptFromStdin", () => {
  it("reads a whole stream (here a real file stream) up to the limit and names one over it", async () => {
    const f = path.join(dir, "prompt.txt");
    fs.writeFileSync(f, "\uFEFFexplain this ✓\n".repeat(100));
    const text = await readPromptFromStdin(fs.createReadStream(f) as unknown as NodeJS.ReadStream);
    expect(text).toBe("explain this ✓\n" + "\uFEFFexplain this ✓\n".repeat(99));
    const e = await rejection(readPromptFromStdin(fs.createReadStream(f) as unknown as NodeJS.ReadStream, 100));
    expect(e.message).toBe("the prompt on stdin is over the limit of 1 kB");
  });
});

describe("loadImage", () => {
  it("names a device, a FIFO and a missing image; an image over the provider's limit keeps its sentence", async () => {
    const msg = async (file: string): Promise<string> =>
      loadImage(file, "anthropic").then(
        () => "loaded",
        (e: unknown) => (e as Error).message,
      );
    expect(await msg("/dev/zero")).toBe("image /dev/zero is not a regular file (a character device); refusing to read it");
    expect(await msg(fifo)).toBe(`image ${fifo} is not a regular file (a FIFO); refusing to read it`);
    expect(await msg(path.join(dir, "missing.png"))).toBe(`image not found: ${path.join(dir, "missing.png")}`);
    const big = path.join(dir, "big.png");
    fs.writeFileSync(big, Buffer.alloc(imageLimit("anthropic").bytes + 1));
    expect(await msg(big)).toBe(`${big} is 3.8 MB; Anthropic accepts images up to 5 MB of base64 (about 3.7 MB of file). Resize it and attach it again.`);
  }, 30_000);
});

describe("readWorkspaceFileSync", () => {
  it("reads a file or a link inside the workspace; refuses a link out, a dangling link, a FIFO and a folder by name", () => {
    const ws = path.join(dir, "ws");
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, "real.json"), "{}");
    fs.writeFileSync(path.join(dir, "outside.json"), "OUTSIDE-BYTES");
    fs.symlinkSync("real.json", path.join(ws, "in.json"));
    fs.symlinkSync(path.join(dir, "outside.json"), path.join(ws, "out.json"));
    fs.symlinkSync("gone.json", path.join(ws, "dangling.json"));
    fs.symlinkSync(fifo, path.join(ws, "fifo-out.json"));
    execFileSync("mkfifo", [path.join(ws, "fifo.json")]);
    fs.mkdirSync(path.join(ws, "dir.json"));
    expect(readWorkspaceFileSync(ws, "real.json", lim).toString()).toBe("{}");
    expect(readWorkspaceFileSync(ws, "in.json", lim).toString()).toBe("{}");
    const at = (name: string): string => path.join(ws, name);
    expect(error(() => readWorkspaceFileSync(ws, "out.json", lim)).message).toBe(`the thing ${at("out.json")} was not read: it leads outside the workspace`);
    expect(error(() => readWorkspaceFileSync(ws, "fifo-out.json", lim)).message).toContain("it leads outside the workspace");
    expect(error(() => readWorkspaceFileSync(ws, "dangling.json", lim)).message).toContain("it is a link to nothing");
    expect(error(() => readWorkspaceFileSync(ws, "fifo.json", lim)).message).toContain("is not a regular file (a FIFO)");
    expect(error(() => readWorkspaceFileSync(ws, "dir.json", lim)).message).toContain("is not a regular file (a folder)");
    expect(error(() => readWorkspaceFileSync(ws, "absent.json", lim)).code).toBe("ENOENT");
  });
});

describe("jsonSyntaxProblem", () => {
  it("names where and why without quoting the text, also for input JSON.parse quotes", () => {
    expect(jsonSyntaxProblem("TOKEN=abc")).toBe("not valid JSON: a value was expected at line 1, column 1");
    expect(jsonSyntaxProblem('{"a": [1, 2,]}')).toBe("not valid JSON: a value was expected at line 1, column 13");
    expect(jsonSyntaxProblem('{"a" 1}')).toBe('not valid JSON: ":" was expected after a property name at line 1, column 6');
    expect(jsonSyntaxProblem('{"a": 1\n "b": 2}')).toBe('not valid JSON: "," or "}" was expected at line 2, column 2');
    expect(jsonSyntaxProblem('["\\x"]')).toBe("not valid JSON: a bad escape inside a string at line 1, column 3");
    expect(jsonSyntaxProblem("")).toBe("not valid JSON: the text ends where a value should be at line 1, column 1");
    expect(jsonSyntaxProblem("[1, {}")).toBe("not valid JSON: the text ends inside a list at line 1, column 7");
    // a million brackets: no stack overflow
    expect(jsonSyntaxProblem("[".repeat(1_000_000))).toBe("not valid JSON: the text ends where a value should be at line 1, column 1000001");
    // text JSON.parse accepts is not called broken
    for (const ok of ['{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"]}', " 7 ", '""']) {
      expect(() => JSON.parse(ok)).not.toThrow();
      expect(jsonSyntaxProblem(ok)).toBe("not valid JSON");
    }
  });
});
