// A key in the config file that the environment's key shadows is still a live secret: it is
// cut out of what is stored and sent like the key in use.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { resolveSettings } from "../../src/config/resolve.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";

const IN_USE = "sk-ant-env-INUSE-0123456789abcdef";
const SHADOWED = "sk-ant-config-SHADOWED-fedcba9876543210";
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: IN_USE });
});
afterAll(async () => {
  await fake.close();
});

describe("a shadowed config key", () => {
  it("is among the run's secrets", () => {
    const s = resolveSettings({}, { anthropicApiKey: SHADOWED }, { ANTHROPIC_API_KEY: IN_USE });
    expect(s.credentials.keys.anthropic).toBe(IN_USE);
    expect(s.credentials.secrets).toEqual(expect.arrayContaining([IN_USE, SHADOWED]));
  });

  it("read by a tool, it reaches neither the record nor the request", async () => {
    const { app, workspace } = await makeApp(fake, { credentials: { keys: { anthropic: IN_USE }, baseUrls: {}, secrets: [IN_USE, SHADOWED] } });
    await fs.writeFile(path.join(workspace, "config.json"), JSON.stringify({ anthropicApiKey: SHADOWED }));
    fake.script({ toolCalls: [{ name: "read", input: { path: "config.json" } }] }, { text: "read it" });
    await app.submit("what is in config.json?");
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests.at(-1)!.rawBody).not.toContain(SHADOWED);
    expect(JSON.stringify(app.history())).not.toContain(SHADOWED);
    expect(JSON.stringify(app.history())).toContain("[redacted key]");
    await app.close();
  });
});
