// Base URLs come from flags, the config file and the environment; each is checked where it
// enters, so a mistake is named with its source instead of surfacing later as
// "could not reach the server at : UND_ERR_INVALID_ARG" or an internal "Invalid URL".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { resolveSettings, UsageError } from "../../src/config/resolve.js";
import { ConfigError, loadConfig, MAX_CONFIG_BYTES, parseConfig } from "../../src/config/config.js";
import { tempDir } from "../helpers/tmp.js";

describe("base URLs are checked where they enter", () => {
  it("names an environment variable that is not an http(s) URL", () => {
    for (const [name, value] of [
      ["ANTHROPIC_BASE_URL", "localhost:8080"],
      ["OPENAI_BASE_URL", "not a url"],
    ] as const) {
      const run = (): unknown => resolveSettings({}, {}, { [name]: value });
      expect(run).toThrow(UsageError);
      expect(run).toThrow(new RegExp(`${name} must be an http\\(s\\) URL.*"${value}"`));
    }
  });

  it("names the flag and the config field too", () => {
    expect(() => resolveSettings({ baseUrl: "localhost:11434/v1" }, {})).toThrow(/--base-url must be an http\(s\) URL/);
    const config = parseConfig(JSON.stringify({ openaiBaseUrl: "ftp://files.example/v1" }), "config.json");
    expect(() => resolveSettings({}, config, {})).toThrow(/"openaiBaseUrl" in the config file must be an http\(s\) URL/);
  });

  it("keeps good URLs as they are", () => {
    const s = resolveSettings(
      { provider: "openai", baseUrl: "http://localhost:11434/v1" },
      {},
      { ANTHROPIC_BASE_URL: "https://proxy.example/anthropic" },
    );
    expect(s.baseUrl).toBe("http://localhost:11434/v1");
    expect(s.credentials.baseUrls.anthropic).toBe("https://proxy.example/anthropic");
  });
});

describe("the config file as it is found on disk", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("albedo-config-");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, data: string | Buffer, mode = 0o644): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, data);
    fs.chmodSync(p, mode);
    return p;
  };
  const refused = (file: string): string => {
    try {
      loadConfig(file);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error(`${file} was read`);
  };

  it("accepts a UTF-8 byte-order mark (editors on Windows write one)", () => {
    const file = write("bom.json", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ provider: "openai", model: "gpt-4o" }))]));
    expect(loadConfig(file).config).toEqual({ provider: "openai", model: "gpt-4o" });
  });

  it("refuses a device, a FIFO and a folder by name instead of reading them (/dev/zero never ends, a FIFO blocks)", () => {
    expect(refused("/dev/zero")).toBe("the config file /dev/zero is not a regular file (a character device); refusing to read it");
    const fifo = path.join(dir, "config.fifo");
    execFileSync("mkfifo", [fifo]);
    expect(refused(fifo)).toBe(`the config file ${fifo} is not a regular file (a FIFO); refusing to read it`);
    const folder = path.join(dir, "folder.json");
    fs.mkdirSync(folder);
    expect(refused(folder)).toBe(`the config file ${folder} is not a regular file (a folder); refusing to read it`);
  }, 30_000);

  it("refuses a config over 1 MB, and bytes that are not UTF-8, naming the file", () => {
    const big = write("big.json", JSON.stringify({ model: "m".repeat(2 * MAX_CONFIG_BYTES) }));
    expect(refused(big)).toBe(`the config file ${big} is 2.0 MB, over the limit of 1.0 MB`);
    const latin1 = write("latin1.json", Buffer.from('{"model":"caf\xe9"}', "latin1"));
    expect(refused(latin1)).toBe(`the config file ${latin1} is not UTF-8 text`);
  });

  it("a config holding an API key is made 0600 when others could read it; one without a key is left alone", () => {
    const keyed = write("keyed.json", JSON.stringify({ anthropicApiKey: "sk-ant-config-mode-test-123" }), 0o644);
    loadConfig(keyed);
    expect(fs.statSync(keyed).mode & 0o777).toBe(0o600);
    const plain = write("plain.json", JSON.stringify({ provider: "openai" }), 0o644);
    loadConfig(plain);
    expect(fs.statSync(plain).mode & 0o777).toBe(0o644);
  });
});
