// A server that misbehaves leaves the agent working: every failure ends the call as an error
// result with a sentence, the server's state says what happened, and nothing it started
// outlives it. Against test/helpers/mcp-faulty-server.ts (built with the SDK), over stdio.
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { tempDir } from "../helpers/tmp.js";
import { waitUntil } from "../helpers/cli.js";
import { pidsWithArg } from "../helpers/procs.js";
import { alive, faultyStdio, managerFor, startFaultyHttp } from "../helpers/mcp-servers.js";
import type { ExtensionManager } from "../../src/extensions/manager.js";
import type { ToolContext, ToolOutput } from "../../src/tools/types.js";
import { outputImages } from "../../src/extensions/results.js";
import { MAX_TOOL_OUTPUT } from "../../src/tools/cap.js";
import { MAX_TOOL_DESCRIPTION, MAX_TOOLS_BYTES } from "../../src/extensions/client.js";
import { NOTIFICATIONS_PER_SECOND, REFETCH_INTERVAL_MS } from "../../src/extensions/notifications.js";
import { z } from "zod";
import { startFakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";

const T = 60_000;
const open: ExtensionManager[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

async function setup(servers: Record<string, unknown>) {
  const dir = await tempDir("albedo-mcp-");
  const configFile = path.join(dir, "config.json");
  await fs.writeFile(configFile, JSON.stringify({ mcpServers: servers }));
  const r = managerFor({ workspace: dir, configFile });
  open.push(r.m);
  await r.m.start();
  return { ...r, dir };
}

function ctx(signal = new AbortController().signal): ToolContext {
  return { workspace: "/", signal, policy: "auto", askPermission: async () => "deny" };
}

async function call(m: ExtensionManager, name: string, input: unknown = {}, signal?: AbortSignal): Promise<ToolOutput> {
  const tool = m.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}; have ${m.tools().map((t) => t.name).join(", ")}`);
  return tool.run(input, ctx(signal));
}

describe("a faulty MCP server", () => {
  it("crashes mid-call: the call is an error result, the server is marked failed with its exit, /reload brings it back", async () => {
    const { m, notices, changes } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__crash");
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/closed the connection|Connection closed/);
    await waitUntil(() => m.status()[0]!.state === "failed", 20_000, "the server marked failed");
    expect(m.status()[0]!.lastError).toContain("exit code 3");
    expect(notices.join("\n")).toContain("MCP server f stopped");
    // its tools leave the request, and that is a change the inspector must show
    expect(m.tools()).toEqual([]);
    expect(changes.at(-1)).toContain("extensions changed: f stopped");
    expect(await m.reload()).toContain("f restarted");
    expect(m.status()[0]!.state).toBe("ready");
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
  }, T);

  it("hangs at initialize: the start fails within its timeout, saying so, and the process is gone", async () => {
    const dir = await tempDir("albedo-mcp-marker-");
    const marker = path.join(dir, "pid");
    const { m, notices } = await setup({ h: { ...faultyStdio("--hang-initialize", "--marker", marker), startupTimeoutSeconds: 2 }, ok: faultyStdio() });
    const [h, ok] = m.status();
    expect(h!.state).toBe("failed");
    expect(h!.lastError).toContain("initialize got no answer within 2 s");
    expect(notices.join("\n")).toContain("MCP server h could not start");
    // the other server is not held up by it
    expect(ok!.state).toBe("ready");
    // on a loaded machine the start can time out before the server got to write its pid: then
    // what must hold is that no process still carries the marker's path
    const pid = Number(await fs.readFile(marker, "utf8").catch(() => "0"));
    if (pid > 0) await waitUntil(() => !alive(pid), 10_000, "the hung server's process gone");
    await waitUntil(() => pidsWithArg(marker).length === 0, 10_000, "no process of the hung server left");
  }, T);

  it("hangs at initialize with a long startup timeout: close() does not wait for it, and the process is gone", async () => {
    const dir = await tempDir("albedo-mcp-close-");
    const marker = path.join(dir, "pid");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { h: { ...faultyStdio("--hang-initialize", "--marker", marker), startupTimeoutSeconds: 3600 } } }));
    const { m, notices } = managerFor({ workspace: dir, configFile });
    // as the screen does: started, never awaited
    void m.start();
    await waitUntil(async () => (await fs.readFile(marker, "utf8").catch(() => "")) !== "", 20_000, "the hung server started");
    const pid = Number(await fs.readFile(marker, "utf8"));
    // close() ends the hour-long start instead of waiting it out
    await m.close();
    await waitUntil(() => !alive(pid), 10_000, "the hung server's process gone");
    expect(m.status()[0]!.state).toBe("stopped");
    // stopping it is no failure to report
    expect(notices.join("\n")).not.toContain("could not start");
  }, T);

  it("hangs at initialize: /reload that changes it ends the old start at once and starts the new entry", async () => {
    const dir = await tempDir("albedo-mcp-reload-");
    const marker = path.join(dir, "pid");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { h: { ...faultyStdio("--hang-initialize", "--marker", marker), startupTimeoutSeconds: 3600 } } }));
    const { m } = managerFor({ workspace: dir, configFile });
    open.push(m);
    void m.start();
    await waitUntil(async () => (await fs.readFile(marker, "utf8").catch(() => "")) !== "", 20_000, "the hung server started");
    const pid = Number(await fs.readFile(marker, "utf8"));
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { h: faultyStdio() } }));
    expect(await m.reload()).toContain("h restarted");
    expect(m.status()[0]!.state).toBe("ready");
    // the old process goes now, not when its hour is up
    await waitUntil(() => !alive(pid), 10_000, "the old hung process gone");
  }, T);

  it("pages its tool list forever with huge descriptions: the tools offered are bounded, and it says what was left out", async () => {
    const { m, notices } = await setup({ f: faultyStdio("--endless-tools") });
    expect(m.status()[0]!.state).toBe("ready");
    const tools = m.tools();
    const bytes = tools.reduce((n, t) => n + Buffer.byteLength(t.name + t.description + JSON.stringify(z.toJSONSchema(t.input))), 0);
    // not 500 tools of 20 kB each (10 MB in every request)
    expect(bytes).toBeLessThanOrEqual(MAX_TOOLS_BYTES);
    for (const t of tools) expect(t.description.length).toBeLessThanOrEqual(MAX_TOOL_DESCRIPTION + 60);
    expect(tools.find((t) => t.name === "mcp__f__t1")!.description).toMatch(/\[… description cut at 10000 characters\]$/);
    expect(notices.join("\n")).toMatch(/MCP server f: \d+ of its tools not offered: a server's tools are limited to 500 and 1 MB/);
    expect(m.describe()).toContain("more pages of its tool list were not read");
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
  }, T);

  it("pages an empty tool list forever: the start ends at its timeout, saying so", async () => {
    const { m } = await setup({ f: { ...faultyStdio("--empty-pages"), startupTimeoutSeconds: 2 } });
    // the timeout covers the whole start, not each page, so it ends
    expect(m.status()[0]!.state).toBe("failed");
    expect(m.status()[0]!.lastError).toContain("tools/list got no answer within 2 s");
  }, T);

  it("hangs mid-call: the call ends at its timeout as an error result, and the server keeps working", async () => {
    const { m } = await setup({ f: { ...faultyStdio(), toolTimeoutSeconds: 1 } });
    const out = await call(m, "mcp__f__hang");
    expect(out).toEqual({ output: "hang on MCP server f got no answer within 1 s", isError: true });
    expect(m.status()[0]!.state).toBe("ready");
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
  }, T);

  it("Esc (the turn's signal) ends a hung call at once as interrupted, and the server is told to cancel it", async () => {
    const { m, dir } = await setup({ f: faultyStdio() });
    const cancelled = path.join(dir, "cancelled");
    const abort = new AbortController();
    const pending = call(m, "mcp__f__hang", { cancelled }, abort.signal);
    setTimeout(() => abort.abort(), 200);
    const out = await pending;
    expect(out.isError).toBe(true);
    expect(out.output).toContain("interrupted");
    // notifications/cancelled reached the server (the SDK's cancellation)
    await waitUntil(async () => (await fs.readFile(cancelled, "utf8").catch(() => "")) === "cancelled", 10_000, "the server to see the cancellation");
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
  }, T);

  it("answers with something that is not a tool result: an error result that says so", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__invalid");
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/^invalid on MCP server f failed: /);
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
  }, T);

  it("floods: 3 MB of output is capped like a built-in tool's, head and tail kept", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__huge", { bytes: 3_000_000 });
    expect(out.isError).toBe(false);
    expect(out.output.length).toBeLessThanOrEqual(MAX_TOOL_OUTPUT);
    expect(out.output.startsWith("head-of-output")).toBe(true);
    expect(out.output.endsWith("tail-of-output")).toBe(true);
    expect(out.output).toMatch(/\[… [\d,]+ bytes cut …\]/);
  }, T);

  it("answers with a 15 MB message: it arrives whole (then capped like any output), and the server keeps working", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__huge", { bytes: 15 * 1024 * 1024 });
    expect(out.isError).toBe(false);
    expect(out.output.startsWith("head-of-output")).toBe(true);
    expect(out.output.endsWith("tail-of-output")).toBe(true);
    expect(m.status()[0]!.state).toBe("ready");
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
  }, T);

  it("floods past the bound of one stdio message (16 MB): the call fails naming the bound, the server is disconnected and says why, the rest work", async () => {
    const { m, notices } = await setup({ f: faultyStdio(), g: faultyStdio() });
    const out = await call(m, "mcp__f__huge", { bytes: 17 * 1024 * 1024 });
    // says why, not only "failed: the server closed the connection"
    expect(out).toEqual({ output: "huge on MCP server f failed: it sent a message over 16 MB and was disconnected", isError: true });
    await waitUntil(() => m.status()[0]!.state === "failed", 20_000, "the server marked failed");
    expect(m.status()[0]!.lastError).toContain("it sent a message over 16 MB and was disconnected");
    expect(notices.join("\n")).toContain("MCP server f stopped: it sent a message over 16 MB and was disconnected");
    // the agent goes on: the other server answers, and /reload brings this one back
    expect((await call(m, "mcp__g__ok")).output).toBe("ok from ok");
    expect(await m.reload()).toContain("f restarted");
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
  }, T);

  it("answers initialize past the bound of one stdio message: the start fails naming the bound", async () => {
    const { m } = await setup({ f: faultyStdio("--instructions-bytes", String(17 * 1024 * 1024)), g: faultyStdio() });
    expect(m.status()[0]!.state).toBe("failed");
    // says why, not only "initialize failed: the server closed the connection"
    expect(m.status()[0]!.lastError).toMatch(/^initialize failed: it sent a message over 16 MB and was disconnected/);
    expect(m.status()[1]!.state).toBe("ready");
  }, T);

  it("announces a change of its tools: the new list is fetched once and offered", async () => {
    const { m, changes } = await setup({ f: faultyStdio("--notify") });
    const listed = async (): Promise<number> => (JSON.parse((await call(m, "mcp__f__stats")).output) as { listed: number }).listed;
    const before = await listed();
    expect(await call(m, "mcp__f__flood", { count: 0 })).toMatchObject({ isError: false });
    await waitUntil(() => m.tools().some((t) => t.name === "mcp__f__late1"), 20_000, "the new tool offered");
    expect(changes.at(-1)).toBe("extensions changed: f changed its tools");
    expect((await call(m, "mcp__f__late1")).output).toBe("no tool late1");
    expect((await listed()) - before).toBe(1);
  }, T);

  it("floods notifications: past the limit they are dropped, the server is named once, its tool list is fetched a bounded number of times, and it keeps answering", async () => {
    const { m, notices } = await setup({ f: faultyStdio("--notify"), g: faultyStdio() });
    const listed = async (): Promise<number> => (JSON.parse((await call(m, "mcp__f__stats")).output) as { listed: number }).listed;
    const before = await listed();
    // 100,000 at once, as fast as the pipe takes them (40,000 of them tools/list_changed),
    // while the other server is called: both answer
    const [flood, other] = await Promise.all([call(m, "mcp__f__flood", { count: 100_000 }), call(m, "mcp__g__ok")]);
    expect(flood.output).toMatch(/^flooded 100000 in \d+ ms$/);
    expect(other.output).toBe("ok from ok");
    await waitUntil(() => m.tools().some((t) => t.name === "mcp__f__late1"), 20_000, "the tool announced last offered");
    const burstMs = Number(/in (\d+) ms/.exec(flood.output)![1]);
    expect((await listed()) - before).toBeLessThanOrEqual(3 + Math.ceil(burstMs / REFETCH_INTERVAL_MS));
    // then 12 bursts 400 ms apart, each past the limit: the pauses outlast the SDK's 300 ms
    // debounce, which fetched the list again after every burst
    const pulses = 12;
    const mid = await listed();
    const out = await call(m, "mcp__f__flood", { count: 2400, pulses, gapMs: 400 });
    expect(out.output).toMatch(/^flooded 2400 in \d+ ms$/);
    const floodMs = Number(/in (\d+) ms/.exec(out.output)![1]);
    // the change announced after them is fetched all the same
    await waitUntil(() => m.tools().some((t) => t.name === "mcp__f__late2"), 20_000, "the tool announced after the bursts offered");
    const refetches = (await listed()) - mid;
    // one start a second at most over the bursts, and one after them
    expect(refetches).toBeLessThanOrEqual(3 + Math.ceil(floodMs / REFETCH_INTERVAL_MS));
    expect(refetches).toBeLessThan(pulses);
    const said = notices.filter((n) => n.includes("notifications a second"));
    expect(said).toEqual([`warning: MCP server f sent more than ${NOTIFICATIONS_PER_SECOND} notifications a second; the rest are dropped`]);
    expect(m.describe()).toContain(`f (stdio): ready, 20 tools · config · last error: sent more than ${NOTIFICATIONS_PER_SECOND} notifications a second; the rest are dropped`);
    // it and the other server answer, and the other was never named
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
    expect((await call(m, "mcp__g__ok")).output).toBe("ok from ok");
    expect(m.status()[1]!.lastError).toBeUndefined();
  }, T);

  it("floods notifications over Streamable HTTP: the same limit, named once, and the change announced last is fetched", async () => {
    const web = await startFaultyHttp("--notify");
    try {
      const { m, notices } = await setup({ w: { url: web.url } });
      // 3,000 notifications on the call's own event stream, before its answer
      const out = await call(m, "mcp__w__flood", { count: 3000 });
      expect(out.output).toMatch(/^flooded 3000 in \d+ ms$/);
      await waitUntil(() => m.tools().some((t) => t.name === "mcp__w__late1"), 20_000, "the tool announced last offered");
      expect(notices.filter((n) => n.includes("notifications a second"))).toEqual([
        `warning: MCP server w sent more than ${NOTIFICATIONS_PER_SECOND} notifications a second; the rest are dropped`,
      ]);
      expect(m.status()[0]!.lastError).toBe(`sent more than ${NOTIFICATIONS_PER_SECOND} notifications a second; the rest are dropped`);
      expect((await call(m, "mcp__w__ok")).output).toBe("ok from ok");
    } finally {
      await web.close();
    }
  }, T);

  it("floods requests of its own (pings, each asking for an answer): the same limit, named once, answered within it", async () => {
    const { m, notices } = await setup({ f: faultyStdio("--notify"), g: faultyStdio() });
    const started = Date.now();
    const out = await call(m, "mcp__f__ping-flood", { count: 20_000 });
    expect(out.output).toMatch(/^flooded 20000 pings in \d+ ms$/);
    const stats = JSON.parse((await call(m, "mcp__f__stats")).output) as { pingsAnswered: number };
    // a burst, then the steady rate over the seconds the flood and the calls took: before,
    // every ping was answered (20,000 writes, each waiting on the full pipe with a listener
    // of its own, a minute of CPU for 100,000)
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(stats.pingsAnswered).toBeLessThanOrEqual(NOTIFICATIONS_PER_SECOND * (1 + seconds));
    expect(notices.filter((n) => n.includes("requests a second"))).toEqual([`warning: MCP server f sent more than ${NOTIFICATIONS_PER_SECOND} requests a second; the rest are dropped`]);
    expect(m.status()[0]!.lastError).toBe(`sent more than ${NOTIFICATIONS_PER_SECOND} requests a second; the rest are dropped`);
    expect((await call(m, "mcp__f__ok")).output).toBe("ok from ok");
    expect((await call(m, "mcp__g__ok")).output).toBe("ok from ok");
  }, T);

  it("stops reading its stdin: calls behind the full pipe wait (one wait, no listener each) and end when it is stopped", async () => {
    const { m } = await setup({ f: faultyStdio("--notify"), g: faultyStdio() });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(`${w.name}: ${w.message}`);
    };
    process.on("warning", onWarning);
    try {
      expect((await call(m, "mcp__f__stop-reading")).output).toBe("reading no more");
      await new Promise((r) => setTimeout(r, 100));
      // 40 calls of 256 KB each: the pipe and the stream's buffer fill after the first few
      const big = "x".repeat(256 * 1024);
      const pending = Array.from({ length: 40 }, () => call(m, "mcp__f__huge", { bytes: 1, pad: big }));
      await new Promise((r) => setTimeout(r, 300));
      // not a close and a drain listener per waiting write, which brings node's
      // MaxListenersExceededWarning on stderr (over the screen) past ten of them
      expect(warnings).toEqual([]);
      expect((await call(m, "mcp__g__ok")).output).toBe("ok from ok");
      await m.close();
      for (const out of await Promise.all(pending)) expect(out.isError).toBe(true);
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  }, T);

  it("writes escape sequences: none reaches the record, the text does", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__escapes");
    expect(out.output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(out.output).toContain("before");
    expect(out.output).toContain("red");
    expect(out.output).toContain("after");
    expect(out.output).not.toContain("cGF3bmVk");
  }, T);

  it("maps every kind of content: resource text under its URI, a link, audio and a bad image named, no image kept", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__mixed");
    expect(out.isError).toBe(false);
    expect(out.output).toContain("the text part");
    expect(out.output).toContain("Resource <file:///tmp/notes.txt> (text/plain):\nresource body");
    expect(out.output).toContain("[resource link: doc <https://example.invalid/doc>]");
    expect(out.output).toContain("[audio not kept: audio/wav");
    expect(out.output).toContain("[image not kept: declared image/png, but its bytes are not a PNG, JPEG, GIF or WebP image]");
    expect(outputImages(out)).toEqual([]);
    expect(await call(m, "mcp__f__fail")).toEqual({ output: "it went wrong on purpose", isError: true });
  }, T);

  it("decodes each image of a result: a truncated PNG, a 0×0 GIF and a corrupt JPEG are named and not kept, the whole one is", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__broken-images");
    expect(out.output).toContain("[image not kept: declared image/png, but it is not a usable image: the PNG does not decode (its data ends early)");
    expect(out.output).toContain("[image not kept: declared image/gif, but it is not a usable image: its GIF header says 0×0 px");
    expect(out.output).toContain("[image not kept: declared image/jpeg, but it is not a usable image: the JPEG does not decode");
    expect(out.output).toContain("[image: image/png,");
    expect(outputImages(out).map((i) => [i.mediaType, i.width, i.height])).toEqual([["image/png", 4, 4]]);
  }, T);

  it("text with lone surrogates arrives with U+FFFD in their place", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const out = await call(m, "mcp__f__lone-surrogate");
    expect(out.output).toBe("before \ufffd middle \ufffd after");
  }, T);

  it("an image whose base64 is wrapped in lines is kept as plain base64, so the provider takes it (OpenAI refuses wrapped base64, and then every later request)", async () => {
    const fake = await startFakeProvider();
    const dir = await tempDir("albedo-mcp-wrapped-");
    const configFile = path.join(dir, "config.json");
    await fs.writeFile(configFile, JSON.stringify({ mcpServers: { f: faultyStdio() } }));
    const { app } = await makeApp(fake, { dir, configFile, provider: "openai" });
    try {
      fake.script({ toolCalls: [{ name: "mcp__f__wrapped-image", input: {} }] }, { text: "Seen." });
      expect(await app.runPrompt("look")).toMatchObject({ ok: true, finalText: "Seen." });
      expect(fake.rejections()).toEqual([]);
      const img = app.history().flatMap((m) => m.blocks).find((b) => b.type === "image");
      expect(img).toMatchObject({ type: "image", mediaType: "image/png", width: 1, height: 1, bytes: 70 });
      if (img?.type === "image") expect(img.data).toMatch(/^[A-Za-z0-9+/]+=*$/);
    } finally {
      await app.close();
      await fake.close();
    }
  }, T);

  it("names: characters providers refuse are replaced, and two tools that end up alike are refused by name", async () => {
    const { m, notices } = await setup({ "x.y": faultyStdio(), x_y: faultyStdio() });
    const names = m.tools().map((t) => t.name);
    expect(names).toContain("mcp__x_y__weird_name_with_dots");
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    // the second server's tools all collide with the first's
    expect(names.filter((n) => n === "mcp__x_y__ok")).toHaveLength(1);
    expect(notices.join("\n")).toContain('tool "ok" of server "x_y" is not offered: its name mcp__x_y__ok is already taken by tool "ok" of server "x.y"');
    expect(m.describe()).toContain("refused: tool");
    // each server's count is of its own tools: the second offers none
    expect(m.status().map((st) => [st.name, st.tools])).toEqual([
      ["x.y", 14],
      ["x_y", 0],
    ]);
    expect((await call(m, "mcp__x_y__weird_name_with_dots")).output).toBe("ok from weird name/with.dots");
  }, T);

  it("what a server started ends with it: its process group is stopped on close", async () => {
    const { m } = await setup({ f: faultyStdio() });
    const serverPid = m.status()[0]!.pid!;
    const child = Number((await call(m, "mcp__f__spawn-child")).output);
    expect(alive(child)).toBe(true);
    await m.close();
    await waitUntil(() => !alive(child) && !alive(serverPid), 10_000, "the server and its child gone");
  }, T);

  it("a command that does not exist fails to start with the reason, and the rest work", async () => {
    const { m } = await setup({ nope: { command: "/nonexistent/mcp-server" }, f: faultyStdio() });
    const [nope, f] = m.status();
    expect(nope!.state).toBe("failed");
    expect(nope!.lastError).toContain("cannot start /nonexistent/mcp-server: no such program");
    expect(f!.state).toBe("ready");
  }, T);

  it("over Streamable HTTP, one answer past 16 MB is cut off as an error, and smaller floods are capped", async () => {
    const web = await startFaultyHttp();
    try {
      const { m } = await setup({ w: { url: web.url } });
      expect(m.status()[0]!.state).toBe("ready");
      const flood = await call(m, "mcp__w__huge", { bytes: 20_000_000 });
      expect(flood.isError).toBe(true);
      expect(flood.output).toContain("the server sent more than 16 MB in one response");
      const big = await call(m, "mcp__w__huge", { bytes: 3_000_000 });
      expect(big.isError).toBe(false);
      expect(big.output.length).toBeLessThanOrEqual(MAX_TOOL_OUTPUT);
      expect((await call(m, "mcp__w__ok")).output).toBe("ok from ok");
    } finally {
      await web.close();
    }
  }, T);
});
