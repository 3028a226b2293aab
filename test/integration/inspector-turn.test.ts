// The inspector against real turns: what it recorded equals what the provider received,
// and it is pending exactly when it should be.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { MARKER_RE } from "../../src/inspector/capture.js";

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
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP8z8Dwn4GBgYGJAQoAAB8AAf9j2ZkAAAAASUVORK5CYII=",
  "base64",
);

/** Sums the content bytes of an Anthropic body's messages the way the inspector defines them. */
function anthropicHistoryBytes(messages: any[]): number {
  let n = 0;
  for (const m of messages) {
    if (typeof m.content === "string") {
      n += utf8(m.content);
      continue;
    }
    for (const b of m.content) {
      if (b.type === "text") n += utf8(b.text);
      else if (b.type === "image") n += utf8(b.source.data);
      else if (b.type === "tool_use") n += utf8(JSON.stringify(b.input));
      else if (b.type === "tool_result") n += utf8(typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text).join(""));
      else if (b.type === "thinking") n += utf8(b.thinking) + utf8(b.signature);
      else throw new Error(`unexpected block ${b.type}`);
    }
  }
  return n;
}

function openaiHistoryBytes(messages: any[]): number {
  let n = 0;
  for (const m of messages) {
    if (m.role === "system") continue;
    if (typeof m.content === "string") n += utf8(m.content);
    else if (Array.isArray(m.content)) {
      for (const p of m.content) {
        if (p.type === "text") n += utf8(p.text);
        else if (p.type === "image_url") n += utf8(p.image_url.url.replace(/^data:[^,]+,/, ""));
        else throw new Error(`unexpected part ${p.type}`);
      }
    }
    for (const c of m.tool_calls ?? []) n += utf8(c.function.arguments);
    if (m.reasoning_content) n += utf8(m.reasoning_content);
  }
  return n;
}

describe("capture equals the request the provider received", () => {
  for (const shape of ["anthropic", "openai"] as const) {
    it(`section bytes match the received body (${shape})`, async () => {
      const { app, workspace } = await makeApp(fake, { provider: shape });
      await fs.writeFile(path.join(workspace, "AGENTS.md"), "# Rules\nUse tabs. ✓ 日本語\n");
      await fs.writeFile(path.join(workspace, "pic.png"), PNG);
      await app.reload();
      await fs.writeFile(path.join(workspace, "f.txt"), "file body é\n");
      fake.script(
        { toolCalls: [{ name: "read", input: { path: "f.txt" } }, { name: "bash", input: { command: "exit 3" } }] },
        { text: "done 🎉" },
      );
      const image = await app.loadImage("pic.png");
      await app.submit("look at this 🖼", [image]);
      expect(fake.rejections()).toEqual([]);
      expect(fake.requests).toHaveLength(2);
      const body = fake.requests[1]!.body;
      const view = await app.inspectorView();
      expect(view.state).toBe("current");
      if (view.state !== "current") return;
      const bySource = Object.fromEntries(view.sections.map((s) => [s.source, s]));
      expect(view.sections.map((s) => s.kind)).toEqual(["system", "context", "context", "history", "tools"]);
      expect(view.meta.iteration).toBe(2);
      expect(view.meta.provider).toBe(shape);

      if (shape === "anthropic") {
        expect(bySource["system"]!.bytes).toBe(utf8(body.system[0].text));
        expect(bySource["AGENTS.md"]!.bytes).toBe(utf8(body.system[1].text));
        expect(bySource["workspace facts"]!.bytes).toBe(utf8(body.system[2].text));
        expect(bySource["history"]!.bytes).toBe(anthropicHistoryBytes(body.messages));
        expect(bySource["history"]!.items).toBe(body.messages.length);
      } else {
        const sys = body.messages.filter((m: any) => m.role === "system");
        expect(bySource["system"]!.bytes).toBe(utf8(sys[0].content));
        expect(bySource["AGENTS.md"]!.bytes).toBe(utf8(sys[1].content));
        expect(bySource["workspace facts"]!.bytes).toBe(utf8(sys[2].content));
        expect(bySource["history"]!.bytes).toBe(openaiHistoryBytes(body.messages));
      }
      const toolBytes = (body.tools as unknown[]).reduce((n: number, t) => n + utf8(JSON.stringify(t)), 0);
      expect(bySource["tools"]!.bytes).toBe(toolBytes);
      expect(bySource["tools"]!.items).toBe(body.tools.length);
      expect(view.meta.totalBytes).toBe(view.sections.reduce((n, s) => n + s.bytes, 0));
      // provider usage of the previous response is labelled separately from estimates
      expect(view.meta.providerUsage).toBeDefined();
      for (const s of view.sections) expect(s.estimate.method).toMatch(/tokenizer|chars\/4/);

      // the history page shows a marker for the image, never its base64
      const hist = view.sections.findIndex((s) => s.kind === "history");
      let all = "";
      for (let p = 0; p < view.sections[hist]!.pages; p++) all += (await app.inspectorPage(hist, p))!.text;
      expect(all).not.toContain(image.data.slice(0, 40));
      expect(all.match(MARKER_RE)?.some((m) => m.startsWith("[image omitted: image/png"))).toBe(true);
      expect(all).toContain("2×2");
      await app.close();
    });
  }
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
