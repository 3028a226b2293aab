// Review findings on the app controller and the turn loop, against the strict fake provider:
// each test failed before its fix.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import sqlite3 from "sqlite3";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { tempDir } from "../helpers/tmp.js";
import { openStore, StoreError } from "../../src/session/store/store.js";
import type { HistoryStore } from "../../src/session/store/types.js";
import type { App } from "../../src/session/controller/controller.js";

// a fresh fake per test: a script left over by one test must not answer the next
let fake: FakeProvider;
beforeEach(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterEach(() => fake.close());

const words = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

function rawRun(file: string, sql: string, params: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (err) => {
      if (err) return reject(err);
      db.run(sql, params, (e: Error | null) => db.close(() => (e ? reject(e) : resolve())));
    });
  });
}

function nextState(app: App, state: string): Promise<void> {
  return new Promise((resolve) => {
    const off = app.subscribe((e) => {
      if (e.type !== "state" || e.state !== state) return;
      off();
      resolve();
    });
  });
}

describe("the first wire message is a user message", () => {
  it("when the session's first stored row cannot be read, the next request still starts with a user message", async () => {
    const first = await makeApp(fake);
    fake.script({ text: "hello back" });
    await first.app.submit("hello");
    const id = first.app.session().id;
    await first.app.close();
    // the prompt row is damaged outside the app: it is skipped on load, the answer stays
    await rawRun(first.dbPath, "UPDATE messages SET blocks_json = ? WHERE session_id = ? AND seq = 1", ["{broken", id]);

    const again = await makeApp(fake, { dir: first.dir, open: { resume: id } });
    expect(again.app.loadProblems()).toHaveLength(1);
    expect(again.app.history()[0]?.role).toBe("assistant");
    fake.requests.length = 0;
    fake.script({ text: "still here" });
    await again.app.submit("are you there?");
    expect(fake.rejections()).toEqual([]);
    const messages = fake.requests[0]!.body.messages as { role: string }[];
    expect(messages[0]!.role).toBe("user");
    await again.app.close();
  });
});

describe("one turn at a time", () => {
  it("a second prompt sent while the first is still storing its title is refused, not run alongside", async () => {
    const { app } = await makeApp(fake);
    fake.script({ text: "one answer" }, { text: "another answer" });
    const a = app.runPrompt("first prompt");
    const b = app.runPrompt("second prompt");
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.ok).toBe(true);
    expect(rb.ok).toBe(false);
    expect(rb.error).toMatch(/already running/);
    expect(app.history().map((m) => m.role)).toEqual(["user", "assistant"]);
    await app.close();
  });

  it("a prompt sent while /compact runs is refused, and the app is busy meanwhile", async () => {
    const { app } = await makeApp(fake);
    fake.script({ text: words(3000, "a") });
    await app.submit(words(3000, "q"));
    fake.script({ text: words(3000, "b") });
    await app.submit(words(3000, "r"));

    fake.script({ text: words(40, "summary"), delayMs: 10, wordsPerEvent: 1 });
    const compacting = nextState(app, "compacting");
    const c = app.compact();
    await compacting;
    expect(app.busy()).toBe(true);
    const out = await app.runPrompt("sneaking in");
    expect(out.ok).toBe(false);
    expect(out.error).toMatch(/running/);
    expect(await c).toMatch(/Compaction: summarised/);
    expect(app.busy()).toBe(false);
    expect(app.history()).toHaveLength(4);
    expect(fake.rejections()).toEqual([]);
    await app.close();
  });
});

describe("permission answers for the session stay with their session", () => {
  it("an 'allow for this session' given in one session does not carry over after /sessions switches", async () => {
    // sandboxed commands run unasked in ask mode: off, each command is a question
    const { app } = await makeApp(fake, { permission: "ask", sandbox: "off", headless: false });
    const asked: string[] = [];
    app.subscribe(
      (e) => {
        if (e.type !== "permission") return;
        asked.push(`${app.session().id}:${e.req.tool}`);
        e.answer("session");
      },
      { answersPermissions: true },
    );
    const a = app.session().id;
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo a" } }] }, { text: "done a" });
    await app.submit("run something in A");
    await app.newSession();
    const b = app.session().id;
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo b" } }] }, { text: "done b" });
    await app.submit("run something in B");
    await app.switchSession(a);
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo a2" } }] }, { text: "done a2" });
    await app.submit("again in A");
    expect(fake.rejections()).toEqual([]);
    // A's earlier grant was made in an earlier visit; after switching, the person is asked again
    expect(asked).toEqual([`${a}:bash`, `${b}:bash`, `${a}:bash`]);
    await app.close();
  });
});

describe("the inspector is pending after a change to request composition", () => {
  it("/reload whose config fails to read still marks the view pending (the project context was re-read)", async () => {
    const { app, workspace } = await makeApp(fake, {
      reloadConfig: () => Promise.reject(new Error('config.json: field "provider": Invalid option')),
    });
    fake.script({ text: "ok" });
    await app.submit("hi");
    expect((await app.inspectorView()).state).toBe("current");
    await fs.writeFile(path.join(workspace, "AGENTS.md"), "Use tabs.\n");
    await expect(app.reload()).rejects.toThrow(/config\.json/);
    const view = await app.inspectorView();
    expect(view.state).toBe("pending");
    await app.close();
  });

  it("/model during a turn leaves the view pending once the turn ends (its later requests used the old model)", async () => {
    const { app } = await makeApp(fake);
    fake.script({ toolCalls: [{ name: "ls", input: {} }] }, { text: "listed" });
    let switched: Promise<string> | undefined;
    app.subscribe((e) => {
      if (e.type === "state" && e.state === "tool" && !switched) switched = app.setModel("claude-haiku-4-5");
    });
    await app.submit("list the folder");
    expect(await switched).toMatch(/claude-haiku-4-5/);
    expect(fake.requests.map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5"]);
    const view = await app.inspectorView();
    expect(view.state).toBe("pending");
    if (view.state === "pending") expect(view.reason).toMatch(/claude-haiku-4-5/);
    await app.close();
  });

  it("switching to a session whose last request used another model shows pending, not that request as current", async () => {
    const { app } = await makeApp(fake);
    fake.script({ text: "answer in A" });
    await app.submit("question in A");
    const a = app.session().id;
    await app.newSession();
    await app.setModel("claude-haiku-4-5");
    await app.switchSession(a);
    const view = await app.inspectorView();
    expect(view.state).toBe("pending");
    if (view.state === "pending") expect(view.reason).toMatch(/claude-haiku-4-5/);
    // the next request is captured and current again
    fake.script({ text: "answer with haiku" });
    await app.submit("next");
    const after = await app.inspectorView();
    expect(after.state).toBe("current");
    if (after.state === "current") expect(after.meta.model).toBe("claude-haiku-4-5");
    await app.close();
  });
});

describe("a failed streaming checkpoint does not lose the answer", () => {
  it("when writing the first checkpoint fails, the complete answer is still stored and the turn succeeds", async () => {
    const dir = await tempDir("albedo-review-");
    const real = await openStore(path.join(dir, "checkpoint.sqlite"));
    let failed = 0;
    const store: HistoryStore = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === "appendMessage") {
          return (sessionId: string, msg: Parameters<HistoryStore["appendMessage"]>[1]) => {
            if (msg.status === "interrupted" && failed === 0) {
              failed++;
              return Promise.reject(new StoreError("busy", "the database is busy (test)"));
            }
            return target.appendMessage(sessionId, msg);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const { app } = await makeApp(fake, { dir, store });
    fake.script({ text: words(30, "w"), delayMs: 5, wordsPerEvent: 1 });
    const out = await app.runPrompt("answer slowly");
    expect(failed).toBe(1);
    expect(out.ok).toBe(true);
    const { messages } = await real.loadHistory(app.session().id);
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
    expect(JSON.stringify(messages[1]!.blocks)).toContain("w29");
    await app.close();
  });
});

describe("a configured key never enters the record through a tool", () => {
  it("a project .env holding the key is read, and the key is in neither the database nor the next request", async () => {
    const { app, workspace, dbPath } = await makeApp(fake);
    await fs.writeFile(path.join(workspace, ".env"), `ANTHROPIC_API_KEY=${TEST_KEY}\nDEBUG=1\n`);
    fake.script(
      { toolCalls: [{ name: "read", input: { path: ".env" } }, { name: "bash", input: { command: "cat .env" } }] },
      { text: "I see the settings." },
    );
    const ended: string[] = [];
    app.subscribe((e) => {
      if (e.type === "tool_end") ended.push(e.output);
    });
    await app.submit("what is in .env?");
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.rawBody).not.toContain(TEST_KEY);
    expect(fake.requests[1]!.rawBody).toContain("DEBUG=1");
    expect(ended.join("\n")).not.toContain(TEST_KEY);
    await app.close();
    for (const f of [dbPath, `${dbPath}-wal`]) {
      const bytes = await fs.readFile(f).catch(() => Buffer.alloc(0));
      expect(bytes.includes(Buffer.from(TEST_KEY)), f).toBe(false);
    }
  });
});

describe("a resumed session whose request composition changed since its last request", () => {
  it("AGENTS.md edited between runs: the view is pending until the next request, not the old one as current", async () => {
    const first = await makeApp(fake);
    fake.script({ text: "noted" });
    await first.app.submit("hello");
    const id = first.app.session().id;
    await first.app.close();
    await fs.writeFile(path.join(first.workspace, "AGENTS.md"), "Always answer in French.\n");

    const again = await makeApp(fake, { dir: first.dir, open: { resume: id } });
    const view = await again.app.inspectorView();
    expect(view.state).toBe("pending");
    if (view.state === "pending") expect(view.reason).toMatch(/AGENTS\.md/);
    fake.script({ text: "d'accord" });
    await again.app.submit("and now?");
    expect((await again.app.inspectorView()).state).toBe("current");
    await again.app.close();
  });

  it("the same composition: the last request stays current on resume", async () => {
    const first = await makeApp(fake);
    fake.script({ text: "noted" });
    await first.app.submit("hello");
    const id = first.app.session().id;
    await first.app.close();
    const again = await makeApp(fake, { dir: first.dir, open: { resume: id } });
    expect((await again.app.inspectorView()).state).toBe("current");
    await again.app.close();
  });
});
