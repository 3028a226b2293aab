// Compaction in real turns against the strict fake provider: the summary request, its
// storage, a smaller next request that starts with it, reuse after resume, and the
// context-length error path.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { openStore } from "../../src/session/store/store.js";
import { App } from "../../src/session/controller/controller.js";
import { SUMMARY_SYSTEM } from "../../src/compaction/summary.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const words = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
const bodySize = (i: number): number => Buffer.byteLength(JSON.stringify(fake.requests[i]!.body.messages));
const isSummaryRequest = (i: number): boolean => JSON.stringify(fake.requests[i]!.body.system ?? "").includes(SUMMARY_SYSTEM.slice(0, 40));

describe("summary compaction in a session", () => {
  it("crossing the threshold produces a summary request, stores it, and the next request is smaller and starts with it", async () => {
    // a 20,000-token window; three turns of ~6,000 tokens each pass 80% of it
    const { app, dbPath } = await makeApp(fake, { compaction: "summary", contextWindow: 20_000, model: "local-model" });
    const notices: string[] = [];
    app.subscribe((e) => {
      if (e.type === "notice") notices.push(e.text);
    });
    fake.script({ text: words(3000, "a") });
    await app.submit(words(3000, "q"));
    fake.script({ text: words(3000, "b") });
    await app.submit(words(3000, "r"));
    expect(fake.requests.every((_, i) => !isSummaryRequest(i))).toBe(true);
    const before = bodySize(1);

    fake.script({ text: "SUMMARY-NOTE: the user sent q-words and got a-words." }, { text: "third answer" });
    await app.submit("third question");
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests).toHaveLength(4);
    expect(isSummaryRequest(2)).toBe(true);
    expect(fake.requests[2]!.body.tools).toBeUndefined();
    const main = fake.requests[3]!.body;
    expect(JSON.stringify(main.messages[0])).toContain("[Summary of earlier conversation");
    expect(JSON.stringify(main.messages[0])).toContain("SUMMARY-NOTE");
    expect(JSON.stringify(main.messages)).not.toContain("q0 q1");
    expect(bodySize(3)).toBeLessThan(before);
    expect(notices.some((n) => /Compaction: summarised/.test(n))).toBe(true);

    // stored, and the record itself is unchanged: every message still there
    const store = await openStore(dbPath);
    const summaries = await store.loadSummaries(app.session().id);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.text).toContain("SUMMARY-NOTE");
    const { messages } = await store.loadHistory(app.session().id);
    expect(messages).toHaveLength(6);
    expect(JSON.stringify(messages[0]!.blocks)).toContain("q0 q1");
    await store.close();

    // a resumed session reuses the stored summary without a new summary call
    const id = app.session().id;
    await app.close();
    const store2 = await openStore(dbPath);
    const resumed = await App.create({
      store: store2,
      provider: "anthropic",
      model: "local-model",
      baseUrl: fake.anthropicBase,
      credentials: { keys: { anthropic: TEST_KEY }, baseUrls: {} },
      workspace: app.info().workspace,
      permission: "auto",
      compaction: "summary",
      compactionThreshold: 0.8,
      keepToolRounds: 3,
      reasoning: "off",
      contextWindow: 20_000,
      open: { resume: id },
      headless: true,
    });
    fake.requests.length = 0;
    fake.script({ text: "fourth answer" });
    await resumed.submit("fourth question");
    expect(fake.requests).toHaveLength(1);
    expect(isSummaryRequest(0)).toBe(false);
    expect(JSON.stringify(fake.requests[0]!.body.messages[0])).toContain("SUMMARY-NOTE");
    await resumed.close();
  });

  it("/compact forces a summary, and the status names the strategy and what it removed", async () => {
    const { app } = await makeApp(fake, { compaction: "microcompact+summary" });
    fake.script({ text: words(1500, "a") }, { text: words(1500, "b") });
    await app.submit(words(1500, "q"));
    await app.submit(words(1500, "r"));
    fake.script({ text: "FORCED-SUMMARY" });
    const said = await app.compact();
    expect(said).toMatch(/summarised messages 1–2/);
    expect(isSummaryRequest(2)).toBe(true);
    fake.script({ text: "after" });
    await app.submit("next");
    expect(JSON.stringify(fake.requests[3]!.body.messages[0])).toContain("FORCED-SUMMARY");
    expect(app.contextStatus().compaction).toMatch(/summary: 2 messages/);
    await app.close();
  });

  it("when the window is unknown, automatic compaction is off and the status says why", async () => {
    const { app } = await makeApp(fake, { compaction: "summary", model: "mystery-model" });
    expect(app.info().contextWindow).toBeUndefined();
    expect(app.contextStatus().compaction).toMatch(/auto-compaction off: the model's context window is unknown/);
    expect(app.contextStatus().estimate).toMatch(/tokens \(chars\/4/);
    await app.close();
  });
});

describe("a context-length error", () => {
  const tooLong = { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 213462 tokens > 200000 maximum" } } };

  it("triggers one summary compaction and one retry", async () => {
    const { app } = await makeApp(fake);
    fake.script({ text: words(1500, "a") }, { text: words(1500, "b") });
    await app.submit(words(1500, "q"));
    await app.submit(words(1500, "r"));
    const notices: string[] = [];
    app.subscribe((e) => {
      if (e.type === "notice") notices.push(e.text);
    });
    fake.script(tooLong, { text: "CTX-SUMMARY" }, { text: "made it" });
    await app.submit("third");
    expect(notices.some((n) => /context is too long; summarised/.test(n))).toBe(true);
    expect(isSummaryRequest(3)).toBe(true);
    expect(JSON.stringify(fake.requests[4]!.body.messages[0])).toContain("CTX-SUMMARY");
    const last = app.history().at(-1)!;
    expect(last.role).toBe("assistant");
    expect(JSON.stringify(last.blocks)).toContain("made it");
    await app.close();
  });

  it("says so clearly when it happens again after the retry", async () => {
    const { app } = await makeApp(fake);
    fake.script({ text: words(1500, "a") }, { text: words(1500, "b") });
    await app.submit(words(1500, "q"));
    await app.submit(words(1500, "r"));
    const errors: string[] = [];
    app.subscribe((e) => {
      if (e.type === "notice" && e.level === "error") errors.push(e.text);
    });
    fake.script(tooLong, { text: "CTX-SUMMARY" }, tooLong);
    await app.submit("third");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/context window/i);
    expect(errors[0]).toMatch(/\/compact/);
    expect(errors[0]).toMatch(/200,000|200000/);
    await app.close();
  });
});
