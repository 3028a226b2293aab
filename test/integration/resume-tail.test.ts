// A screen resuming a long session draws the newest messages first and reads the rest right
// behind; a turn never starts on the partial record.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { TEST_KEY } from "../helpers/app.js";
import { tempDir } from "../helpers/tmp.js";
import { nextEvent } from "../../src/session/turn/events.js";
import { openStore } from "../../src/session/store/store.js";
import { App } from "../../src/session/controller/controller.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());

describe("resuming a long session on a screen", () => {
  it("shows the newest messages first, then the whole record, and the next turn sends all of it", async () => {
    const dir = await tempDir("albedo-tail-");
    const db = path.join(dir, "history.sqlite");
    const seed = await openStore(db);
    const s = await seed.createSession({ workspace: dir });
    for (let i = 0; i < 400; i++) {
      await seed.appendMessage(s.id, { role: i % 2 ? "assistant" : "user", blocks: [{ type: "text", text: `message-${i}` }], status: "complete" });
    }
    await seed.close();

    const app = await App.create({
      store: await openStore(db),
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseUrl: fake.anthropicBase,
      credentials: { keys: { anthropic: TEST_KEY }, baseUrls: {} },
      workspace: dir,
      permission: "auto",
      compaction: "none",
      compactionThreshold: 0.8,
      keepToolRounds: 3,
      reasoning: "off",
      open: { resume: s.id },
      headless: false,
    });
    const whole = nextEvent(app, "session");
    // the first frame has the newest part, in order
    const first = app.history();
    expect(first.length).toBeLessThan(400);
    expect(first.at(-1)!.blocks[0]).toEqual({ type: "text", text: "message-399" });
    expect(first.map((m) => m.seq)).toEqual([...first.map((m) => m.seq)].sort((a, b) => a - b));

    // a prompt sent at once waits for the whole record
    fake.script({ text: "answered" });
    const sent = app.submit("and now?");
    await whole;
    await sent;
    expect(app.history()).toHaveLength(402);
    const body = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(body).toContain("message-0");
    expect(body).toContain("message-399");
    expect(fake.rejections()).toEqual([]);
    await app.close();
  });
});
