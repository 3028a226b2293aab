// The servers people run with `--provider openai --base-url`, each as the
// strict fake configured to behave like it (test/helpers/fake-local-servers.ts), driven by the
// built CLI in headless mode with no key anywhere: one test per quirk.
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeOptions, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type CliResult, type Home } from "../helpers/cli.js";
import { readOpenAIBody } from "../helpers/wire-reader.js";
import { openStore } from "../../src/session/store/store.js";

const TIMEOUT = 60_000;
let fake: FakeProvider | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function server(opts: FakeOptions): Promise<FakeProvider> {
  fake = await startFakeProvider(opts);
  return fake;
}

/** A home with no key in its environment: local servers need none. */
async function home(): Promise<Home> {
  const h = await makeHome();
  await fs.writeFile(path.join(h.workspace, "notes.txt"), "the secret word is pelican\n");
  return h;
}

function cli(f: FakeProvider, h: Home, model: string, prompt: string, extra: string[] = []): Promise<CliResult> {
  return runCli(["-p", prompt, "--provider", "openai", "--base-url", f.openaiBase, "--model", model, "--permission", "auto", ...extra], h);
}

async function record(h: Home) {
  const store = await openStore(h.db);
  try {
    const [s] = await store.listSessions();
    return { session: s!, ...(await store.loadHistory(s!.id)), view: await store.inspectorView(s!.id) };
  } finally {
    await store.close();
  }
}

const READ = { name: "read", input: { path: "notes.txt" } };
const LS = { name: "ls", input: { path: "." } };

describe("Ollama", () => {
  it("no key: no Authorization header, and the run needs none", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: "ollama" });
    f.script({ text: "Hello from llama." });
    const h = await home();
    const r = await cli(f, h, "llama3.1:8b", "hi");
    expect(r.stderr).not.toMatch(/No API key/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Hello from llama.\n");
    expect(f.requests[0]!.headers["authorization"]).toBeUndefined();
  });

  it("parallel tool calls arriving whole in one delta, ending with finish_reason stop, still run", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: "ollama" });
    f.script({ toolCalls: [READ, LS] }, { text: "The word is pelican." });
    const h = await home();
    const r = await cli(f, h, "qwen2.5-coder:7b", "what is the word?");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The word is pelican.\n");
    expect(f.rejections()).toEqual([]);
    const second = f.requests[1]!.body.messages as { role: string; content?: unknown }[];
    expect(second.filter((m) => m.role === "tool")).toHaveLength(2);
    expect(JSON.stringify(second)).toContain("pelican");
  });

  it("no usage in the stream (stream_options ignored): the answer stands, with no provider usage stored", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: "ollama" });
    f.script({ text: "No usage from me." });
    const h = await home();
    const r = await cli(f, h, "llama3.1:8b", "hi");
    expect(r.code).toBe(0);
    expect(f.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    const rec = await record(h);
    expect(rec.messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
    expect(rec.messages[1]!.usage).toBeUndefined();
  });

  it("reasoning streamed as `reasoning` is kept and sent back on the live round", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: "ollama" });
    f.script({ reasoning: "The notes file will say.", toolCalls: [READ] }, { text: "pelican" });
    const h = await home();
    const r = await cli(f, h, "qwen3:8b", "what is the word?", ["--reasoning", "high"]);
    expect(r.code).toBe(0);
    expect(f.requests[0]!.body.reasoning_effort).toBe("high");
    const rec = await record(h);
    expect(rec.messages[1]!.blocks[0]).toEqual({ type: "reasoning", text: "The notes file will say." });
    const assistant = (f.requests[1]!.body.messages as { role: string; reasoning_content?: string }[]).find((m) => m.role === "assistant");
    expect(assistant?.reasoning_content).toBe("The notes file will say.");
  });
});

describe("LM Studio", () => {
  it("refuses prompt_cache_key: the request goes again without it, the turn says so, and its next request never carries it", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: { server: "lmstudio", refuse: ["prompt_cache_key"] } });
    f.script({ toolCalls: [READ] }, { text: "pelican" });
    const h = await home();
    const r = await cli(f, h, "qwen2.5-coder-7b-instruct", "what is the word?");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("pelican\n");
    expect(r.stderr).toContain(`refused "prompt_cache_key" (HTTP 400: Unrecognized key(s) in object: 'prompt_cache_key')`);
    const rec = await record(h);
    // the first request carried the session's id as its cache key; the two after it did not
    expect(f.requests.map((q) => [q.body.prompt_cache_key, q.rejected])).toEqual([
      [rec.session.id, "lmstudio refused prompt_cache_key"],
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it("reasoning streamed as `reasoning_content` is read", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: "lmstudio" });
    f.script({ reasoning: "Short thought.", text: "Answer." });
    const h = await home();
    const r = await cli(f, h, "deepseek-r1-distill-qwen-7b", "hi");
    expect(r.code).toBe(0);
    const rec = await record(h);
    expect(rec.messages[1]!.blocks).toEqual([
      { type: "reasoning", text: "Short thought." },
      { type: "text", text: "Answer." },
    ]);
  });
});

describe("vLLM (a build that forbids fields it does not know)", () => {
  it("refuses reasoning_content on the live round: sent again without it, and the capture is the body that went", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: "vllm" });
    f.script({ reasoning: "Read it first.", toolCalls: [READ] }, { reasoning: "Now the folder.", toolCalls: [LS] }, { text: "pelican" });
    const h = await home();
    const r = await cli(f, h, "Qwen/Qwen3-8B", "what is the word?");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("pelican\n");
    // its first request: prompt_cache_key refused (extra_forbidden); the first tool round's:
    // reasoning_content too; the second tool round's goes without either at once
    expect(f.requests.map((q) => q.rejected)).toEqual([
      "vllm refused prompt_cache_key",
      undefined,
      "vllm refused reasoning_content",
      undefined,
      undefined,
    ]);
    expect(r.stderr).toContain(`refused "reasoning_content"`);
    const last = f.requests[4]!.body;
    expect(JSON.stringify(last)).not.toContain("Read it first.");
    expect(JSON.stringify(last)).not.toContain("Now the folder.");
    // the inspector's record equals the body the server took, section by section
    const { view } = await record(h);
    if (view.state !== "current") throw new Error("expected a capture");
    const context = view.sections.filter((s) => s.kind === "context").map((s) => s.source);
    const read = readOpenAIBody(last, context);
    expect(view.sections.map((s) => [s.source, s.items, s.bytes])).toEqual(read.map((s) => [s.source, s.items, s.bytes]));
  });
});

describe("llama.cpp's server", () => {
  it("no usage in the stream and reasoning as `reasoning_content`", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: "llamacpp" });
    f.script({ reasoning: "Hmm.", text: "Done." });
    const h = await home();
    const r = await cli(f, h, "gemma-3-4b-it", "hi");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Done.\n");
    const rec = await record(h);
    expect(rec.messages[1]!.blocks).toEqual([
      { type: "reasoning", text: "Hmm." },
      { type: "text", text: "Done." },
    ]);
    expect(rec.messages[1]!.usage).toBeUndefined();
  });

  it("finish_reason length: the answer is kept and the run says it stopped at the output limit", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: { server: "llamacpp", finish: "length" } });
    f.script({ text: "This answer was cut" });
    const h = await home();
    const r = await cli(f, h, "gemma-3-4b-it", "write a lot");
    // a cut answer is no success: exit 1, the answer printed and kept
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("This answer was cut\n");
    expect(r.stderr).toContain("The answer was cut at the output limit of 8,192 tokens (maxOutputTokens); what arrived is kept.");
    const rec = await record(h);
    expect(rec.messages[1]).toMatchObject({ status: "complete", blocks: [{ type: "text", text: "This answer was cut" }] });
  });

  it("finish_reason missing (the stream still ends with [DONE]): answers and tool rounds complete", { timeout: TIMEOUT }, async () => {
    const f = await server({ local: { server: "llamacpp", finish: "missing" } });
    f.script({ toolCalls: [READ] }, { text: "pelican" });
    const h = await home();
    const r = await cli(f, h, "gemma-3-4b-it", "what is the word?");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("pelican\n");
    const rec = await record(h);
    expect(rec.messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
    expect(rec.messages[2]!.blocks[0]).toMatchObject({ type: "tool_result", name: "read", isError: false });
  });
});
