// Between turns the status line's figure is the next request's estimate, labelled: right
// after a long answer the last request was small, and the next one carries the answer. While
// a turn runs it is the request sent. The real app over real SQLite, the strict fake over
// loopback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/session/controller/controller.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: "sk-test-inprocess-7731" });
});
afterAll(async () => {
  await fake.close();
});

/** resolves with the figure once `ok` holds for it */
function figureWhen(app: App, ok: (basis: string, tokens: number) => boolean): Promise<{ basis: string; tokens: number; estimate: string }> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const s = app.contextStatus();
      if (s.figure && ok(s.figure.basis, s.figure.tokens)) {
        resolve({ basis: s.figure.basis, tokens: s.figure.tokens, estimate: s.estimate });
        return true;
      }
      return false;
    };
    if (check()) return;
    const off = app.subscribe((e) => {
      if (e.type === "info" && check()) off();
    });
  });
}

describe("the idle figure", () => {
  it("after a 20,000-word answer shows the next request's estimate, labelled, not the last request's size", async () => {
    const { app } = await makeApp(fake);
    try {
      const answer = Array.from({ length: 20_000 }, (_, i) => `word${i % 97}`).join(" ");
      fake.script({ text: answer });
      // while the turn runs the figure is the request it sent
      const during = figureWhen(app, (basis) => basis === "last request");
      await app.submit("write a lot");
      const sent = await during;
      const next = await figureWhen(app, (basis, tokens) => basis === "next request" && tokens > sent.tokens + 10_000);
      expect(next.estimate).toMatch(/^next request ≈ /);
      expect(app.contextStatus().figure?.basis).toBe("next request");
      // the pane still shows the last request: what was sent is what the inspector holds
      const view = await app.inspectorView();
      expect(view.state).toBe("current");
    } finally {
      await app.close();
    }
  });
});
