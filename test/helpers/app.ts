// Builds the real app in-process (real SQLite file, real HTTP to the fake provider) for
// integration tests that need to look at its state between turns.
import path from "node:path";
import fs from "node:fs/promises";
import { App, type AppOptions } from "../../src/session/controller/controller.js";
import { openStore } from "../../src/session/store/store.js";
import type { FakeProvider } from "./fake-provider.js";
import { tempDir } from "./tmp.js";

export const TEST_KEY = "sk-test-inprocess-7731";

export async function makeApp(
  fake: FakeProvider,
  over: Partial<AppOptions> & { dir?: string } = {},
): Promise<{ app: App; dir: string; workspace: string; dbPath: string }> {
  const dir = over.dir ?? (await tempDir("albedo-app-"));
  const workspace = path.join(dir, "work");
  await fs.mkdir(workspace, { recursive: true });
  const dbPath = path.join(dir, "history.sqlite");
  const store = await openStore(dbPath);
  const app = await App.create({ store, ...appDefaults(fake, workspace, over.provider), open: { fresh: true }, ...over });
  return { app, dir, workspace, dbPath };
}

/** What makeApp gives App.create but the store and how it opens, for a test that opens its
 * own store: the provider's model and the fake's address, the fake's key, auto permission,
 * no compaction, headless. */
export function appDefaults(
  fake: FakeProvider,
  workspace: string,
  provider: AppOptions["provider"] = "anthropic",
): Omit<AppOptions, "store" | "open"> {
  return {
    provider,
    model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o",
    baseUrl: provider === "anthropic" ? fake.anthropicBase : fake.openaiBase,
    credentials: { keys: { anthropic: fake.key ?? TEST_KEY, openai: fake.key ?? TEST_KEY }, baseUrls: {} },
    workspace,
    permission: "auto",
    compaction: "none",
    compactionThreshold: 0.8,
    keepToolRounds: 3,
    reasoning: "off",
    headless: true,
  };
}
