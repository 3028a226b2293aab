// Against a real MCP server no one here wrote: @modelcontextprotocol/server-everything, over
// stdio and over Streamable HTTP (on loopback). Its echo, get-sum, image and long-running
// tools, its declared input schemas sent as declared, its instructions as a context item;
// then a whole turn in-process where the strict fake provider calls its image tool.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { tempDir } from "../helpers/tmp.js";
import { everythingStdio, managerFor, startEverythingHttp } from "../helpers/mcp-servers.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";
import type { ExtensionManager } from "../../src/extensions/manager.js";
import type { ToolContext, ToolOutput } from "../../src/tools/types.js";
import { outputImages } from "../../src/extensions/results.js";
import { toolSchemas } from "../../src/tools/run.js";

const T = 60_000;
let http: Awaited<ReturnType<typeof startEverythingHttp>>;
const open: ExtensionManager[] = [];
beforeAll(async () => {
  http = await startEverythingHttp();
}, T);
afterAll(async () => {
  await http?.close();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

async function manager(entry: unknown) {
  const dir = await tempDir("albedo-mcp-");
  const configFile = path.join(dir, "config.json");
  await fs.writeFile(configFile, JSON.stringify({ mcpServers: { everything: entry } }));
  const r = managerFor({ workspace: dir, configFile });
  open.push(r.m);
  await r.m.start();
  return r;
}

function ctx(signal = new AbortController().signal): ToolContext {
  return { workspace: "/", signal, policy: "auto", askPermission: async () => "deny" };
}

async function call(m: ExtensionManager, tool: string, input: unknown = {}, signal?: AbortSignal): Promise<ToolOutput> {
  const def = m.tools().find((t) => t.name === `mcp__everything__${tool}`);
  if (!def) throw new Error(`no tool ${tool}`);
  return def.run(input, ctx(signal));
}

describe.each([
  ["stdio", () => everythingStdio()],
  ["Streamable HTTP", () => ({ url: http.url })],
])("server-everything over %s", (_label, entry) => {
  it("starts, lists its tools under mcp__everything__, and gives its instructions as a context item", async () => {
    const { m } = await manager(entry());
    const st = m.status()[0]!;
    expect(st.state).toBe("ready");
    expect(st.tools).toBeGreaterThanOrEqual(10);
    const names = m.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image", "mcp__everything__trigger-long-running-operation"]));
    const [item] = m.context();
    expect(item!.source).toBe("MCP server everything (instructions)");
    expect(item!.text).toContain("Everything Server");
    // the schema goes out as the server declared it
    const sum = toolSchemas(m.tools()).find((t) => t.name === "mcp__everything__get-sum")!;
    expect(sum.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
  }, T);

  it("echo and get-sum answer as text", async () => {
    const { m } = await manager(entry());
    expect(await call(m, "echo", { message: "hello there" })).toEqual({ output: "Echo: hello there", isError: false });
    expect(await call(m, "get-sum", { a: 2, b: 3 })).toEqual({ output: "The sum of 2 and 3 is 5.", isError: false });
    // bad arguments: the server's refusal comes back as an error result
    const bad = await call(m, "get-sum", { a: "two" });
    expect(bad.isError).toBe(true);
  }, T);

  it("get-tiny-image brings an image block, named in the text", async () => {
    const { m } = await manager(entry());
    const out = await call(m, "get-tiny-image");
    const [img] = outputImages(out);
    expect(img).toMatchObject({ type: "image", mediaType: "image/png", width: 20, height: 20 });
    expect(out.output).toContain("[image: image/png,");
    expect(out.output).toContain("Here's the image you requested:");
  }, T);

  it("a long-running operation is cancelled by the turn's signal (Esc), and the server goes on answering", async () => {
    const { m } = await manager(entry());
    const abort = new AbortController();
    const pending = call(m, "trigger-long-running-operation", { duration: 600, steps: 600 }, abort.signal);
    setTimeout(() => abort.abort(), 500);
    const out = await pending;
    expect(out.isError).toBe(true);
    expect(out.output).toContain("interrupted");
    expect((await call(m, "echo", { message: "still here" })).output).toBe("Echo: still here");
  }, T);
});

describe("a turn that calls an MCP tool (in-process, strict fake provider)", () => {
  it("in the OpenAI Responses shape too: function_call_output items, then the image in a user item; nothing refused", async () => {
    const dir = await tempDir("albedo-mcp-responses-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    const { app } = await makeApp(fake, { dir, configFile, provider: "openai", api: "responses" });
    try {
      fake.requests.length = 0;
      fake.script({ toolCalls: [{ name: "mcp__everything__get-tiny-image", input: {} }, { name: "mcp__everything__get-sum", input: { a: 1, b: 2 } }] }, { text: "Seen." });
      expect(await app.runPrompt("look")).toMatchObject({ ok: true, finalText: "Seen." });
      expect(fake.rejections()).toEqual([]);
      const live = fake.requests[1]!;
      expect(live.shape).toBe("responses");
      const items = live.body.input as Array<{ type: string; role?: string; content?: Array<{ type: string }> }>;
      const kinds = items.map((i) => i.type);
      expect(kinds.filter((k) => k === "function_call_output")).toHaveLength(2);
      const last = items.at(-1)!;
      expect(last.role).toBe("user");
      expect(last.content!.map((c) => c.type)).toContain("input_image");
      expect(JSON.stringify(live.body)).toContain("The sum of 1 and 2 is 3.");
    } finally {
      await app.close();
    }
  }, T);

  it("in the OpenAI shape too: the tool messages, then the image in a user message; nothing refused", async () => {
    const dir = await tempDir("albedo-mcp-openai-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    const { app } = await makeApp(fake, { dir, configFile, provider: "openai" });
    try {
      fake.requests.length = 0;
      fake.script({ toolCalls: [{ name: "mcp__everything__get-tiny-image", input: {} }, { name: "mcp__everything__get-sum", input: { a: 1, b: 2 } }] }, { text: "Seen." });
      expect(await app.runPrompt("look")).toMatchObject({ ok: true, finalText: "Seen." });
      expect(fake.rejections()).toEqual([]);
      expect(JSON.stringify(fake.requests[1]!.body)).toContain("The sum of 1 and 2 is 3.");
    } finally {
      await app.close();
    }
  }, T);

  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
  });

  it("stores the image after the results, sends it natively in the live round, and lists the server's tools and instructions", async () => {
    const dir = await tempDir("albedo-mcp-app-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    const { app } = await makeApp(fake, { dir, configFile });
    try {
      fake.requests.length = 0;
      fake.script({ toolCalls: [{ name: "mcp__everything__get-tiny-image", input: {} }] }, { text: "A tiny logo." });
      const outcome = await app.runPrompt("show me the image");
      expect(outcome).toMatchObject({ ok: true, finalText: "A tiny logo." });
      expect(fake.rejections()).toEqual([]);
      const results = app.history()[2]!;
      expect(results.blocks.map((b) => b.type)).toEqual(["tool_result", "image"]);
      const second = fake.requests[1]!.body;
      const last = second.messages.at(-1);
      expect(last.content.map((c: { type: string }) => c.type)).toEqual(["tool_result", "image"]);
      expect(second.tools.map((t: { name: string }) => t.name)).toContain("mcp__everything__get-tiny-image");
      expect(JSON.stringify(second.system)).toContain("Everything Server");
      // the inspector names the server's section
      const view = await app.inspectorView();
      expect(view.state).toBe("current");
      if (view.state === "current") {
        expect(view.sections.map((s) => s.source)).toContain("MCP server everything (instructions)");
        // the tools section holds the server's tools as the adapter encoded them
        const tools = view.sections.find((s) => s.kind === "tools")!;
        let text = "";
        for (let p = 0; p < tools.pages; p++) text += (await app.inspectorPage(tools.index, p))?.text ?? "";
        const sent = JSON.stringify(second.tools.find((t: { name: string }) => t.name === "mcp__everything__get-sum"), null, 2);
        expect(text).toContain(sent);
      }
    } finally {
      await app.close();
    }
  }, T);
});
