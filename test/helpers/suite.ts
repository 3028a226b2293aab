// The frame most CLI test files share: one strict fake provider for the file, and a fresh
// throw-away home for each test (with the key in its environment), all removed at the end.
import { afterAll, beforeAll, beforeEach } from "vitest";
import fs from "node:fs/promises";
import { startFakeProvider, type FakeProvider } from "./fake-provider.js";
import { makeHome, type Home } from "./cli.js";

export interface Suite {
  fake(): FakeProvider;
  home(): Home;
}

export function fakeProviderAndHomes(key: string, keyEnv: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: key, OPENAI_API_KEY: key }): Suite {
  let fake: FakeProvider | undefined;
  let home: Home | undefined;
  const homes: Home[] = [];
  beforeAll(async () => {
    fake = await startFakeProvider({ key });
  });
  afterAll(async () => {
    await fake?.close();
    await Promise.all(homes.map((h) => fs.rm(h.root, { recursive: true, force: true })));
  });
  beforeEach(async () => {
    home = await makeHome(keyEnv);
    homes.push(home);
    if (fake) fake.requests.length = 0;
  });
  return {
    fake: () => fake ?? raise("the fake provider is not started yet"),
    home: () => home ?? raise("no home outside a test"),
  };
}

function raise(msg: string): never {
  throw new Error(msg);
}
