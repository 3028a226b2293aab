// The files read on start (config, keymap, images, the prompt on stdin) through one reader
// that opens without blocking, checks the open handle and reads no further than a limit.
// Real files, a real FIFO, real devices.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { decodeUtf8, readPromptFromStdin, readStartFile, readStartFileSync, StartFileError } from "../../src/config/files.js";
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
