// What /model, /reload and /export do in the real controller: a real SQLite
// file, real HTTP to the fake provider on 127.0.0.1, real files written in the workspace.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import type { AppOptions } from "../../src/session/controller/controller.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

/** both providers reachable on the fake, so a switch can be followed by a real request */
const bothOnFake = (): Partial<AppOptions> => ({
  credentials: { keys: { anthropic: TEST_KEY, openai: TEST_KEY }, baseUrls: { anthropic: fake.anthropicBase, openai: fake.openaiBase } },
});

describe("/model chooses the provider from the catalog", () => {
  it("/model gpt-4o on Anthropic switches to OpenAI, says so, and the next request goes to the OpenAI endpoint", async () => {
    const { app } = await makeApp(fake, bothOnFake());
    const said = await app.setModel("gpt-4o");
    // not "Model: anthropic:gpt-4o": Anthropic's API refuses that name
    expect(said).toMatch(/^Model: openai:gpt-4o \(context window 128,000 tokens\)\./);
    expect(said).toContain("Provider switched from anthropic to openai: the catalog lists gpt-4o as OpenAI's.");
    expect(app.info().provider).toBe("openai");
    fake.script({ text: "hello from openai" });
    await app.submit("hi");
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests.map((r) => [r.shape, r.body.model])).toEqual([["openai", "gpt-4o"]]);
    // and back by the same rule
    expect(await app.setModel("claude-haiku-4-5")).toMatch(/^Model: anthropic:claude-haiku-4-5 .*Provider switched from openai to anthropic/);
    await app.close();
  });

  it("refuses a pair the provider's own API cannot serve, naming the pair that works, and keeps the model", async () => {
    // OpenAI on the fake; Anthropic at its own API (nothing is sent there: the pair is refused)
    const { app } = await makeApp(fake, { provider: "openai" });
    await expect(app.setModel("anthropic:gpt-4o")).rejects.toThrow(
      "anthropic:gpt-4o cannot work: gpt-4o is OpenAI's model (by the catalog), and Anthropic's API at https://api.anthropic.com does not serve it. The model stays openai:gpt-4o; use /model openai:gpt-4o.",
    );
    expect(app.info()).toMatchObject({ provider: "openai", model: "gpt-4o" });
    await app.close();
  });

  it("through a gateway (any other base URL) the named pair is kept, with a note", async () => {
    // Anthropic on the fake's URL: not api.anthropic.com, so it may be a gateway
    const { app } = await makeApp(fake);
    const said = await app.setModel("anthropic:gpt-4o");
    expect(said).toContain("Model: anthropic:gpt-4o");
    expect(said).toContain(`The catalog lists gpt-4o as OpenAI's; it is sent in the anthropic API shape to ${fake.anthropicBase}`);
    expect(app.info().provider).toBe("anthropic");
    await app.close();
  });

  it("a model the catalog does not know stays with the current provider (local servers name their own); a gateway id too", async () => {
    const { app } = await makeApp(fake, { provider: "openai" });
    expect(await app.setModel("llama3.2:3b")).toMatch(/^Model: openai:llama3\.2:3b \(context window unknown; unknown to the provider's model list and the catalog, assumed: no window \(automatic compaction off\), at most 8,192 output tokens, no images\)\.$/);
    expect(await app.setModel("anthropic/claude-sonnet-4.5")).toMatch(/^Model: openai:anthropic\/claude-sonnet-4\.5 /);
    expect(app.info().provider).toBe("openai");
    await app.close();
  });

  it("a provider's name alone picks its default model", async () => {
    const { app } = await makeApp(fake, bothOnFake());
    expect(await app.setModel("openai")).toMatch(/^Model: openai:gpt-5 /);
    expect(await app.setModel("Anthropic")).toMatch(/^Model: anthropic:claude-sonnet-4-6 /);
    await app.close();
  });
});

describe("/reload names everything it re-read", () => {
  it("names the context items, the settings, the keys and base URLs, and what changed", async () => {
    let fresh: Awaited<ReturnType<NonNullable<AppOptions["reloadConfig"]>>> = {
      permission: "auto",
      compaction: "none",
      reasoning: "off",
      credentials: { keys: { anthropic: TEST_KEY }, baseUrls: {} },
    };
    const { app } = await makeApp(fake, { configFile: "/etc/albedo-test/config.json", reloadConfig: async () => fresh });
    const same = await app.reload();
    // keys and URLs are re-read too, so the sentence names them
    expect(same).toBe(
      "Reloaded the project context: workspace facts (unchanged). Reloaded from the config (/etc/albedo-test/config.json) and the environment: permission, compaction, reasoning, API keys and per-provider base URLs (changed: openai key removed). The model and --base-url stay as they are; /model switches.",
    );
    fresh = { permission: "ask", compaction: "none", reasoning: "high", credentials: { keys: { anthropic: "sk-other-key-42" }, baseUrls: { openai: "http://127.0.0.1:9/v1" } } };
    const changed = await app.reload();
    expect(changed).toContain("(changed: permission auto → ask, reasoning off → high, anthropic key changed, openai base URL now http://127.0.0.1:9/v1)");
    expect(changed).not.toContain("sk-other-key-42");
    expect(await app.reload()).toContain("(nothing changed)");
    await app.close();
  });

  it("says which context file changed", async () => {
    const { app, workspace } = await makeApp(fake);
    await fs.writeFile(path.join(workspace, "AGENTS.md"), "Use tabs.\n");
    expect(await app.reload()).toBe("Reloaded the project context: AGENTS.md, workspace facts (AGENTS.md changed).");
    await app.close();
  });
});

describe("/export", () => {
  it("writes Updated: as the stored session's last change, not its creation time", async () => {
    const { app, workspace } = await makeApp(fake);
    fake.script({ text: "first answer" });
    await app.submit("first question");
    const file = await app.exportSession("md");
    expect(path.dirname(file)).toBe(workspace);
    const md = await fs.readFile(file, "utf8");
    const created = /^- Created: (.+)$/m.exec(md)?.[1];
    const updated = /^- Updated: (.+)$/m.exec(md)?.[1];
    const { openStore } = await import("../../src/session/store/store.js");
    const store = await openStore(path.join(path.dirname(workspace), "history.sqlite"), { readOnlyFallback: true });
    const row = await store.getSession(app.session().id);
    await store.close();
    expect(created).toBe(row!.createdAt);
    // the row's last change, not a copy of Created (the session as it was when opened)
    expect(updated).toBe(row!.updatedAt);
    expect(updated! > created!).toBe(true);
    const json = JSON.parse(await fs.readFile(await app.exportSession("json"), "utf8")) as { session: { updatedAt: string } };
    expect(json.session.updatedAt).toBe(row!.updatedAt);
    await app.close();
  });
});
