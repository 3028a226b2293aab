// Start → session loaded: the screen shows the session before the providers'
// adapters, the tools and the turn are compiled (src/session/controller/parts.ts, imported lazily and
// loaded by App.ready() after the session's frame). What must hold: they are really out of
// what loads with the controller; a prompt sent before they are in waits for them and runs;
// the status line's figure shows nothing until it can be built as a turn builds it, and then
// the same figure as an app that had them from the start. The project context (AGENTS.md,
// CLAUDE.md, two git runs) is read with them.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import type { App } from "../../src/session/controller/controller.js";
import { bundleGraph, closure, moduleAt } from "../helpers/bundle-graph.js";

/** what the turn needs and the session's frame does not */
const TURN_PARTS = [
  "src/provider/adapter.ts",
  "src/provider/anthropic/adapter.ts",
  "src/provider/anthropic/stream.ts",
  "src/provider/openai.ts",
  "src/provider/chat/stream.ts",
  "src/provider/responses/adapter.ts",
  "src/provider/responses/stream.ts",
  "src/provider/http.ts",
  "src/tools/run.ts",
  "src/tools/bash.ts",
  "src/session/turn/turn.ts",
  "src/context/capture.ts",
];

describe("the built controller", () => {
  it("runs without the adapters, the tools and the turn; the parts it imports lazily have them", () => {
    const g = bundleGraph();
    const controller = moduleAt(g, "src/session/controller/controller.ts");
    const withController = closure(g, [controller.init]).paths;
    for (const src of TURN_PARTS) expect(withController.has(src), `${src} runs with the controller`).toBe(false);
    const parts = moduleAt(g, "src/session/controller/parts.ts");
    // a lazy import() in the controller: an expression inside a function, not a statement of its body
    expect(controller.body).toContain(`(${parts.init}(), parts_exports)`);
    expect(controller.imports).not.toContain(parts.init);
    const withParts = closure(g, [parts.init]).paths;
    for (const src of TURN_PARTS) expect(withParts.has(src), `${src} is not in the parts`).toBe(true);
  });
});

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

/** resolves once the status line has a figure (it says so with an "info" event) */
function figureShown(app: App): Promise<void> {
  return new Promise((resolve) => {
    const off = app.subscribe((e) => {
      if (e.type === "info" && app.contextStatus().figure) {
        off();
        resolve();
      }
    });
    if (app.contextStatus().figure) {
      off();
      resolve();
    }
  });
}

describe("a session shown before the turn's parts", () => {
  it("shows no figure until the parts are in, then the figure an app with them from the start shows", async () => {
    const eager = await makeApp(fake, { headless: false });
    await figureShown(eager.app);
    const want = eager.app.contextStatus();
    await eager.app.close();

    const { app } = await makeApp(fake, { headless: false, partsAfterFrame: true });
    // the session is there; nothing is guessed for the next request before its tools are known
    expect(app.info().model).toBe("claude-sonnet-4-5");
    expect(app.contextStatus().figure).toBeUndefined();
    expect(app.contextStatus().estimate).toBe("");
    const shown = figureShown(app);
    await app.ready();
    await shown;
    expect(app.contextStatus().figure).toEqual(want.figure);
    expect(app.contextStatus().estimate).toBe(want.estimate);
    expect(want.estimate).toMatch(/next request ≈ [0-9,]+/);
    await app.close();
  });

  it("reads the project context with the parts, not before the session shows (two git runs and the files)", async () => {
    const { app, workspace } = await makeApp(fake, { headless: false, partsAfterFrame: true });
    // written after the session is open: read only once ready() runs
    await fs.promises.writeFile(path.join(workspace, "AGENTS.md"), "AGENTS-MARK-5521: read behind the frame\n");
    await app.ready();
    fake.script({ text: "ok" });
    expect((await app.runPrompt("hi")).ok).toBe(true);
    expect(JSON.stringify(fake.requests[0]!.body)).toContain("AGENTS-MARK-5521");
    await app.close();
  });

  it("a prompt sent before anyone called ready() waits for the parts and is sent, with the tools", async () => {
    const { app } = await makeApp(fake, { headless: false, partsAfterFrame: true });
    fake.script({ text: "held and sent" });
    const outcome = await app.runPrompt("hello before the parts");
    expect(outcome.ok).toBe(true);
    expect(outcome.finalText).toBe("held and sent");
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body as { tools?: { name: string }[] };
    expect(body.tools?.map((t) => t.name)).toContain("bash");
    expect(app.history().map((m) => m.role)).toEqual(["user", "assistant"]);
    await app.close();
  });

  // The screen asks busy() before it clears the editor: a prompt waiting for the parts must
  // count as running from the moment it is sent, or a second Enter (typed ahead during
  // start-up) clears its text and is then refused, and /new or a session switch made
  // meanwhile sends the first prompt into the other session.
  it("a prompt waiting for the parts makes the app busy at once: a second prompt, /new and /compact are refused", async () => {
    const { app } = await makeApp(fake, { headless: false, partsAfterFrame: true });
    const first = app.session().id;
    fake.script({ text: "the one answer" });
    const one = app.runPrompt("first, before the parts");
    expect(app.busy()).toBe(true);
    await expect(app.newSession()).rejects.toThrow(/a turn is running/);
    expect(await app.compact()).toMatch(/A turn is running/);
    const two = await app.runPrompt("second, meanwhile");
    expect(two.ok).toBe(false);
    expect(two.error).toMatch(/A turn is already running/);
    expect((await one).ok).toBe(true);
    expect(app.session().id).toBe(first);
    expect(fake.requests).toHaveLength(1);
    expect(app.history().map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(app.busy()).toBe(false);
    await app.close();
  });

  it("Esc while a prompt waits for the parts takes it back at once: nothing stored or sent, and the next prompt runs", async () => {
    const { app } = await makeApp(fake, { headless: false, partsAfterFrame: true });
    // parts that take their time, as on a loaded machine; Esc must not wait for them
    const real = app.ready.bind(app);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    app.ready = () => held.then(real);
    const notices: string[] = [];
    app.subscribe((e) => {
      if (e.type === "notice") notices.push(e.text);
    });
    const sent = app.submit("typed ahead, then taken back");
    expect(app.busy()).toBe(true);
    app.interrupt();
    expect(await sent).toEqual({ sent: false });
    expect(app.busy()).toBe(false);
    expect(notices).toContain("Interrupted before it was sent: nothing was stored or sent.");
    expect(fake.requests).toHaveLength(0);
    expect(app.history()).toEqual([]);
    // not even the session's row: a new session is stored with its first message
    expect((await app.listSessions()).filter((s) => s.id === app.session().id)).toEqual([]);
    release();
    fake.script({ text: "the next one goes" });
    expect(await app.submit("the next prompt")).toEqual({ sent: true });
    expect(fake.requests).toHaveLength(1);
    expect(app.history().map((m) => m.role)).toEqual(["user", "assistant"]);
    await app.close();
  });

  it("a prompt whose parts fail to load says why, does not throw, and leaves the app free for the next try", async () => {
    const { app } = await makeApp(fake, { headless: false, partsAfterFrame: true });
    // the loader failing as a missing chunk would (the real ready() also says so in a notice);
    // the next call is the real one
    const real = app.ready.bind(app);
    let fail = true;
    app.ready = () => (fail ? Promise.reject(new Error("Cannot find module 'parts-X.js'")) : real());
    const out = await app.runPrompt("sent while the parts cannot load");
    expect(out.ok).toBe(false);
    expect(out.error).toMatch(/Could not load what a turn needs: Cannot find module 'parts-X\.js'/);
    expect(app.busy()).toBe(false);
    fail = false;
    fake.script({ text: "second try" });
    expect((await app.runPrompt("again")).ok).toBe(true);
    await app.close();
  });
});
