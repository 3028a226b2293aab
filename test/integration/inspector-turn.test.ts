// The inspector against real turns: what it recorded equals what the provider received,
// and it is pending exactly when it should be.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { MARKER_RE } from "../../src/context/capture.js";
import { normalizeMarkers, readBody } from "../helpers/wire-reader.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const utf8 = (s: string): number => Buffer.byteLength(s, "utf8");
// a 2×2 PNG
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAGklEQVR4AWNkYGD4z8jOy8DCxCfFwMjOywAAEGsBWVgv2RsAAAAASUVORK5CYII=",
  "base64",
);

type App = Awaited<ReturnType<typeof makeApp>>["app"];

async function pageText(app: App, section: number, pages: number): Promise<string> {
  let all = "";
  for (let p = 0; p < pages; p++) all += (await app.inspectorPage(section, p))!.text;
  return all;
}

/** The stored capture, section by section, equals what the reader finds in the body received. */
async function expectCaptureIsBody(app: App, shape: "anthropic" | "openai", body: any, context = ["AGENTS.md", "workspace facts"]): Promise<void> {
  const view = await app.inspectorView();
  if (view.state !== "current") throw new Error("expected a capture");
  const read = readBody(shape, body, context);
  expect(view.sections.map((s) => s.source)).toEqual(read.map((r) => r.source));
  for (const [i, s] of view.sections.entries()) {
    const r = read[i]!;
    expect({ items: s.items, bytes: s.bytes }, s.source).toEqual({ items: r.items, bytes: r.bytes });
    const shown = normalizeMarkers(await pageText(app, i, s.pages));
    expect(shown.text, s.source).toBe(r.text);
    expect(shown.markers, s.source).toBe(r.bodies.length);
  }
  expect(view.meta.totalBytes).toBe(read.reduce((n, r) => n + r.bytes, 0));
}

describe("capture equals the request the provider received", () => {
  for (const shape of ["anthropic", "openai"] as const) {
    it(`sections, bytes and pages match the received body (${shape})`, async () => {
      const { app, workspace } = await makeApp(fake, { provider: shape });
      await fs.writeFile(path.join(workspace, "AGENTS.md"), "# Rules\nUse tabs. ✓ 日本語\n");
      await fs.writeFile(path.join(workspace, "pic.png"), PNG);
      await app.reload();
      await fs.writeFile(path.join(workspace, "f.txt"), "file body é\n");
      fake.script(
        // a blank text and blank unsigned reasoning beside parallel calls, one of which fails
        {
          text: "  \n  ",
          reasoning: "  \n  ",
          signature: "",
          toolCalls: [{ name: "read", input: { path: "f.txt" } }, { name: "bash", input: { command: "exit 3" } }],
        },
        { text: "done 🎉" },
      );
      const image = await app.loadImage("pic.png");
      await app.submit("look at this 🖼", [image]);
      expect(fake.rejections()).toEqual([]);
      expect(fake.requests).toHaveLength(2);
      const view = await app.inspectorView();
      expect(view.state).toBe("current");
      if (view.state !== "current") return;
      expect(view.sections.map((s) => s.kind)).toEqual(["system", "context", "context", "history", "tools"]);
      expect(view.meta.iteration).toBe(2);
      expect(view.meta.provider).toBe(shape);
      await expectCaptureIsBody(app, shape, fake.requests[1]!.body);
      // OpenAI sends one tool message per call: four items on the wire for three stored messages
      const hist = view.sections.find((s) => s.kind === "history")!;
      expect(hist.items).toBe(shape === "openai" ? 4 : 3);
      // provider usage of the previous response is labelled separately from estimates
      expect(view.meta.providerUsage).toBeDefined();
      for (const s of view.sections) expect(s.estimate.method).toMatch(/tokenizer|chars\/4/);

      // the history page shows a marker for the image, never its base64, and the live round's
      // calls as native calls with their ids
      const all = await pageText(app, hist.index, hist.pages);
      expect(all).not.toContain(image.data.slice(0, 40));
      expect(all.match(MARKER_RE)?.some((m) => m.startsWith("[image omitted: image/png"))).toBe(true);
      expect(all).toContain("2×2");
      expect(all).toMatch(shape === "anthropic" ? /tool_use id=\S+ name=bash input=/ : /tool_call id=\S+ name=bash arguments=/);
      expect(all).toMatch(shape === "anthropic" ? /tool_result for id=\S+ is_error: / : /tool_result for id=\S+: Error: /);
      expect(all).not.toMatch(/Tool use: |Result \(|Error \(/);
      await app.close();
    });
  }

  it("shows signed thinking of the live round with its marker, and the next turn replays it as prose", async () => {
    const { app } = await makeApp(fake, { provider: "anthropic" });
    fake.script(
      { reasoning: "plan it", signature: "c2lnbmF0dXJlLWJvZHk=", toolCalls: [{ name: "ls", input: {} }] },
      { text: "listed" },
      { text: "again" },
    );
    await app.submit("list");
    await expectCaptureIsBody(app, "anthropic", fake.requests[1]!.body, ["workspace facts"]);
    let view = await app.inspectorView();
    if (view.state !== "current") throw new Error("expected a capture");
    let hist = view.sections.find((s) => s.kind === "history")!;
    let page = await pageText(app, hist.index, hist.pages);
    expect(page).toContain("thinking: plan it [thinking signature omitted: 20 bytes]");

    await app.submit("once more");
    await expectCaptureIsBody(app, "anthropic", fake.requests[2]!.body, ["workspace facts"]);
    view = await app.inspectorView();
    if (view.state !== "current") throw new Error("expected a capture");
    hist = view.sections.find((s) => s.kind === "history")!;
    page = await pageText(app, hist.index, hist.pages);
    expect(page).toContain("[Reasoning]: plan it");
    expect(page).toMatch(/Tool use: ls\(\{\}\)/);
    expect(page).not.toContain("omitted");
    await app.close();
  });
});

async function dbChecksum(dbPath: string): Promise<string> {
  const h = crypto.createHash("sha256");
  for (const f of [dbPath, `${dbPath}-wal`]) {
    try {
      h.update(await fs.readFile(f));
    } catch {
      h.update("absent");
    }
  }
  return h.digest("hex");
}

describe("pending state", () => {
  it("is pending for a new session, after /model and after /reload, until the next request", async () => {
    const { app, dbPath } = await makeApp(fake);
    let view = await app.inspectorView();
    expect(view).toMatchObject({ state: "pending" });
    if (view.state === "pending") expect(view.reason).toMatch(/no request/);

    fake.script({ text: "one" });
    await app.submit("first");
    expect((await app.inspectorView()).state).toBe("current");

    await app.setModel("claude-haiku-4-5");
    view = await app.inspectorView();
    expect(view.state).toBe("pending");
    if (view.state === "pending") expect(view.reason).toMatch(/model switched to anthropic:claude-haiku-4-5/);

    // paging while pending is an error that changes nothing
    const before = await dbChecksum(dbPath);
    expect(await app.inspectorPage(0, 0)).toBeUndefined();
    expect(await app.inspectorPage(3, 0)).toBeUndefined();
    expect(await dbChecksum(dbPath)).toBe(before);
    expect(fake.requests).toHaveLength(1);

    fake.script({ text: "two" });
    await app.submit("second");
    view = await app.inspectorView();
    expect(view.state).toBe("current");
    if (view.state === "current") expect(view.meta.model).toBe("claude-haiku-4-5");

    await app.reload();
    view = await app.inspectorView();
    expect(view.state).toBe("pending");
    if (view.state === "pending") expect(view.reason).toMatch(/reload/);
    // opening the inspector contacted nobody
    expect(fake.requests).toHaveLength(2);
    await app.close();
  });

  it("shows the change in bytes of each section since the previous capture", async () => {
    const { app } = await makeApp(fake);
    fake.script({ text: "a".repeat(100) }, { text: "b" });
    await app.submit("first");
    await app.submit("second");
    const view = await app.inspectorView();
    if (view.state !== "current") throw new Error("expected a capture");
    const hist = view.sections.find((s) => s.kind === "history")!;
    expect(hist.deltaBytes).toBe(100 + utf8("second"));
    expect(view.sections.find((s) => s.kind === "system")!.deltaBytes).toBe(0);
    await app.close();
  });
});
