// A new session's first prompt (Enter → request): the draft's row is written with
// its title in one statement before the prompt, not a row and then a setTitle (one more
// transaction and commit between Enter and the request). Real SQLite file, real HTTP to the
// fake provider; the store is the real one, its calls listed on the way through.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { openStore, type SqliteStore } from "../../src/session/store/store.js";
import { tempDir } from "../helpers/tmp.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());

/** the real store, each call listed by name (with a session's title when one is given) */
function listed(store: SqliteStore, calls: string[]): SqliteStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        const first = args[0] as { title?: string } | undefined;
        calls.push(prop === "createSession" ? `createSession(${JSON.stringify(first?.title ?? "")})` : String(prop));
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe("a new session's first prompt", () => {
  it("writes the row with its title in one call before the prompt, and no setTitle", async () => {
    const dir = await tempDir("albedo-new-row-");
    const dbPath = path.join(dir, "history.sqlite");
    const calls: string[] = [];
    const store = listed(await openStore(dbPath), calls);
    const { app } = await makeApp(fake, { dir, store });
    calls.length = 0;
    fake.script({ text: "hello back" });
    await app.submit("Hello   there\n world");
    const beforePrompt = calls.slice(0, calls.indexOf("appendMessage"));
    expect(beforePrompt).toEqual(['createSession("Hello there world")']);
    expect(calls).not.toContain("setTitle");
    // the title is stored, and a later prompt leaves it
    fake.script({ text: "again" });
    await app.submit("second prompt");
    expect(calls).not.toContain("setTitle");
    const [s] = await store.listSessions();
    expect(s?.title).toBe("Hello there world");
    expect(s?.messages).toBe(4);
    await app.close();
    await fs.rm(dir, { recursive: true, force: true });
  }, 120_000);
});
