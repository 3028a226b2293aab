// Base URLs come from flags, the config file and the environment; each is checked where it
// enters, so a mistake is named with its source instead of surfacing later as
// "could not reach the server at : UND_ERR_INVALID_ARG" or an internal "Invalid URL".
import { describe, expect, it } from "vitest";
import { resolveSettings, UsageError } from "../../src/config/resolve.js";
import { parseConfig } from "../../src/config/config.js";

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
