// The inspector's capture is made before the call and written alongside it: the
// request does not wait for the capture's transaction, nothing of the answer is stored before
// the capture is, and a capture that cannot be written stops the call and fails the turn with
// the answer unstored. Real SQLite file, real HTTP to the strict fake provider; the store's
// saveCapture is the real one, only held back (or made to fail) to show the order.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { tempDir } from "../helpers/tmp.js";
import { openStore } from "../../src/session/store/store.js";
import type { HistoryStore } from "../../src/session/store/types.js";
import { EventHub, type SessionEvent } from "../../src/session/turn/events.js";
import { createProvider } from "../../src/provider/create.js";
import { builtinTools, PermissionMemory } from "../../src/tools/run.js";
import type { TurnEnv } from "../../src/session/turn/env.js";
import { runTurn } from "../../src/session/turn/turn.js";
import { imageTarget } from "../../src/replay/replay.js";

const KEY = "sk-test-capture-alongside-123456";
let fake: FakeProvider;
let arrivals: (() => void)[] = [];
let store: HistoryStore;
let env: TurnEnv;
let seen: SessionEvent[];

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY, onRequest: () => arrivals.splice(0).forEach((f) => f()) });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  arrivals = [];
  const dir = await tempDir("albedo-capture-alongside-");
  const workspace = path.join(dir, "work");
  await fs.mkdir(workspace);
  store = await openStore(path.join(dir, "history.sqlite"));
  const session = await store.createSession({ workspace });
  const events = new EventHub();
  seen = [];
  events.subscribe((e) => seen.push(e));
  env = {
    store,
    sessionId: session.id,
    history: [],
    provider: createProvider({ provider: "anthropic", baseUrl: fake.anthropicBase, apiKey: KEY }),
    providerName: "anthropic",
    model: "claude-sonnet-4-5",
    vision: imageTarget("anthropic", true),
    contextWindow: 200_000,
    maxOutputTokens: 1024,
    reasoning: "off",
    system: "You are a test.",
    context: [],
    tools: builtinTools(),
    toolCtx: { workspace, policy: "auto", askPermission: async () => "deny" },
    memory: new PermissionMemory(),
    compaction: { strategy: "none", threshold: 0.8, keepRounds: 3 },
    tokenMethod: "chars/4",
    events,
    checkpointMs: 20,
  };
});

const user = (text: string) => [{ type: "text" as const, text }];

describe("the capture is written alongside the request", () => {
  it("the request reaches the provider while the capture's write is still held back; the capture still precedes the answer", async () => {
    const real = store.saveCapture.bind(store);
    let captureWritten = false;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // the write is held until the request arrives (or, on a build that waits for the write
    // before sending, until a fallback lets the turn go on so the assertion below can fail)
    arrivals.push(release);
    const fallback = setTimeout(release, 3000);
    store.saveCapture = async (id, capture) => {
      await held;
      await real(id, capture);
      captureWritten = true;
    };
    let writtenWhenArrived: boolean | undefined;
    arrivals.push(() => (writtenWhenArrived = captureWritten));
    fake.script({ text: "Hello there, a few words to checkpoint." });
    const out = await runTurn(env, user("hi"), new AbortController().signal);
    clearTimeout(fallback);
    expect(out.ok).toBe(true);
    expect(writtenWhenArrived).toBe(false);
    // the record: the capture is the request that was sent, and it was stored before any
    // message of the answer (its "capture" event comes before the answer's first "message")
    const view = await store.inspectorView(env.sessionId);
    expect(view.state).toBe("current");
    const order = seen.filter((e) => e.type === "capture" || (e.type === "message" && e.msg.role === "assistant")).map((e) => e.type);
    expect(order[0]).toBe("capture");
    expect(order.filter((t) => t === "message").length).toBeGreaterThan(0);
    const rows = (await store.loadHistory(env.sessionId)).messages;
    expect(rows.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
  });

  it("so are the reads the capture is compared with (the previous request's sizes and print)", async () => {
    // a first turn, so there is a previous capture to read
    fake.script({ text: "first answer" });
    expect((await runTurn(env, user("one"), new AbortController().signal)).ok).toBe(true);
    const reads = { bytes: store.lastSectionBytes.bind(store), print: store.lastRequestPrint.bind(store) };
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    arrivals.push(release);
    const fallback = setTimeout(release, 3000);
    let readsDone = false;
    store.lastSectionBytes = async (id) => {
      await held;
      return reads.bytes(id);
    };
    store.lastRequestPrint = async (id) => {
      await held;
      const p = await reads.print(id);
      readsDone = true;
      return p;
    };
    let doneWhenArrived: boolean | undefined;
    arrivals.push(() => (doneWhenArrived = readsDone));
    fake.script({ text: "second answer" });
    const out = await runTurn(env, user("two"), new AbortController().signal);
    clearTimeout(fallback);
    expect(out.ok).toBe(true);
    expect(doneWhenArrived).toBe(false);
    // and the capture still compares with the first request: its sections carry deltas
    const view = await store.inspectorView(env.sessionId);
    expect(view.state === "current" && view.sections.some((s) => s.deltaBytes !== null)).toBe(true);
  });

  it("a capture that cannot be written stops the call and fails the turn with its error; nothing of the answer is stored", async () => {
    store.saveCapture = async () => {
      throw new Error("cannot write to the database /x/history.sqlite: the disk is full (0 bytes free)");
    };
    // a long answer, so the call is still streaming when the write fails
    fake.script({ text: "word ".repeat(5000), delayMs: 1 });
    await expect(runTurn(env, user("hi"), new AbortController().signal)).rejects.toThrow(/the disk is full/);
    const rows = (await store.loadHistory(env.sessionId)).messages;
    expect(rows.map((m) => m.role)).toEqual(["user"]);
    expect(seen.some((e) => e.type === "capture")).toBe(false);
  });
});
