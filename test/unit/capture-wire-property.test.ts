// The inspector shows the wire, exactly. Seeded random sessions of every block
// kind, replayed and sent by the real adapters over real HTTP to the strict fake provider;
// for every request, each section's items and bytes as the inspector records them equal what
// an independent reader (test/helpers/wire-reader.ts) computes from the body the server
// received, and the pages re-joined equal that content with one marker per omitted body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { prng } from "../helpers/prng.js";
import { countBreakpoints, normalizeMarkers, readBody } from "../helpers/wire-reader.js";
import { readResponsesBody } from "../helpers/wire-reader-responses.js";
import { sealReasoning } from "../helpers/fake-responses.js";
import { OPAQUE_OPENAI_REASONING } from "../../src/provider/responses/encode.js";
import { FakeCache } from "../helpers/fake-cache.js";
import { createProvider } from "../../src/provider/create.js";
import { captureRequest } from "../../src/context/capture.js";
import { summaryRequest, turnRequest, type RequestSettings } from "../../src/replay/request.js";
import { BLIND, imageTarget } from "../../src/replay/replay.js";
import { paddedPng } from "../helpers/images.js";
import { summaryText } from "../../src/compaction/summary.js";
import type { Block, MessageStatus } from "../../src/record/types.js";
import type { ProviderName, ReasoningLevel, Request, ToolSchema } from "../../src/provider/types.js";

const KEY = "sk-test-wire-property";
let fake: FakeProvider;
beforeAll(async () => {
  // with the cache simulation: it refuses what the API refuses of cache_control (a fifth mark)
  fake = await startFakeProvider({ key: KEY, cache: new FakeCache() });
});
afterAll(() => fake.close());

type Msg = { role: "user" | "assistant"; blocks: Block[]; status: MessageStatus };

const TOOLS: ToolSchema[] = [
  { name: "read", description: "Read a file — ünïcödé", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
  { name: "bash", description: "Run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
];

/** Sends a request as the turn does (captured, then streamed by the real adapter) and checks
 * the capture against the body the server received. */
async function checkRequest(req: Request): Promise<number> {
  const capture = captureRequest(req, { iteration: 1, capturedAt: "2026-01-01T00:00:00.000Z" });
  const provider = createProvider({
    provider: req.provider,
    baseUrl: req.provider === "anthropic" ? fake.anthropicBase : fake.openaiBase,
    apiKey: KEY,
    retry: { maxRetries: 0 },
  });
  const before = fake.requests.length;
  await provider.stream(req);
  expect(fake.requests.length).toBe(before + 1);
  const got = fake.requests[before]!;
  expect(got.rejected, "the strict fake refused the request").toBeUndefined();

  const read = req.api === "responses" ? readResponsesBody(got.body, sourcesOf(req)) : readBody(req.provider, got.body, sourcesOf(req));
  expect(capture.sections.map((s) => s.source)).toEqual(read.map((s) => s.source));
  for (const [i, s] of capture.sections.entries()) {
    const r = read[i]!;
    const where = `${req.provider} ${s.source}`;
    expect({ items: s.items, bytes: s.bytes }, where).toEqual({ items: r.items, bytes: r.bytes });
    const pages = capture.pages[i]!;
    expect(s.pages, where).toBe(pages.length);
    const joined = pages.join("");
    expect(s.chars, where).toBe(joined.length);
    const shown = normalizeMarkers(joined);
    expect(shown.text, where).toBe(r.text);
    // one marker per omitted body, and no piece of any body on any page
    expect(shown.markers, where).toBe(r.bodies.length);
    for (const body of r.bodies) if (body.length >= 16) expect(joined.includes(body.slice(0, 16)), where).toBe(false);
  }
  expect(capture.meta.totalBytes).toBe(read.reduce((n, s) => n + s.bytes, 0));
  // every cache breakpoint in the body is one marker in the pages, and there are at most 4
  const marks = req.provider === "anthropic" ? countBreakpoints(got.body) : 0;
  expect(capture.pages.flat().join("").match(/\[cache breakpoint: (5m|1h)\]/g)?.length ?? 0).toBe(marks);
  expect(marks).toBeLessThanOrEqual(4);
  return marks;
}

function sourcesOf(req: Request): string[] {
  const seen = new Map<string, number>();
  return req.context.map((c) => {
    const n = (seen.get(c.source) ?? 0) + 1;
    seen.set(c.source, n);
    return n === 1 ? c.source : `${c.source} (${n})`;
  });
}

function settings(provider: ProviderName, over: Partial<RequestSettings> = {}): RequestSettings {
  return {
    provider,
    model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o",
    system: "You are albedo. 日本語 😀",
    context: [
      { source: "AGENTS.md", text: "# Rules\nKeep it tidy. ✓" },
      { source: "workspace facts", text: "cwd: /home/u/proj" },
    ],
    tools: TOOLS,
    maxOutputTokens: 16_000,
    reasoning: "off",
    vision: imageTarget("anthropic", true),
    ...over,
  };
}

// ------------------------------------------------------------------ the three cases of the issue

describe("the three cases the independent check found", () => {
  it("Anthropic, live round: a blank text block and blank unsigned reasoning are not counted or shown; the filler of an emptied message is", async () => {
    const live: Msg[] = [
      { role: "user", blocks: [{ type: "text", text: "go" }], status: "complete" },
      {
        role: "assistant",
        blocks: [
          { type: "reasoning", text: "  \n  " },
          { type: "text", text: "  \n  " },
          { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } },
        ],
        status: "complete",
      },
      { role: "user", blocks: [{ type: "tool_result", toolUseId: "toolu_1", name: "read", output: "A", isError: false }], status: "complete" },
      // an answer of blank reasoning alone crosses as the filler text
      { role: "assistant", blocks: [{ type: "reasoning", text: " \n " }, { type: "tool_use", id: "toolu_2", name: "read", input: { path: "b" } }], status: "complete" },
      { role: "user", blocks: [{ type: "tool_result", toolUseId: "toolu_2", name: "read", output: "B", isError: false }], status: "complete" },
      { role: "assistant", blocks: [{ type: "reasoning", text: "\t" }], status: "complete" },
      { role: "user", blocks: [{ type: "text", text: "and?" }], status: "complete" },
    ];
    await checkRequest(turnRequest([], live, settings("anthropic")));
  });

  it("OpenAI: an assistant message of several parts is sent joined by a blank line, and counted and shown so", async () => {
    const prior: Msg[] = [
      { role: "user", blocks: [{ type: "text", text: "fix it" }], status: "complete" },
      {
        role: "assistant",
        blocks: [
          { type: "reasoning", text: "look first" },
          { type: "text", text: "Reading two files." },
          { type: "tool_use", id: "call_1", name: "read", input: { path: "a" } },
          { type: "tool_use", id: "call_2", name: "read", input: { path: "b" } },
        ],
        status: "complete",
      },
      {
        role: "user",
        blocks: [
          { type: "tool_result", toolUseId: "call_1", name: "read", output: "A", isError: false },
          { type: "tool_result", toolUseId: "call_2", name: "read", output: "no such file", isError: true },
        ],
        status: "complete",
      },
      { role: "assistant", blocks: [{ type: "text", text: "Done." }], status: "complete" },
    ];
    const live: Msg[] = [{ role: "user", blocks: [{ type: "text", text: "thanks" }], status: "complete" }];
    await checkRequest(turnRequest(prior, live, settings("openai")));
  });

  it("OpenAI, live round: one tool message per call is one item; a failure is shown as sent; native calls show their ids", async () => {
    const live: Msg[] = [
      { role: "user", blocks: [{ type: "text", text: "go" }], status: "complete" },
      {
        role: "assistant",
        blocks: [
          { type: "text", text: "Two at once." },
          { type: "tool_use", id: "call_a", name: "read", input: { path: "a" } },
          { type: "tool_use", id: "call_b", name: "bash", input: { command: "false" } },
        ],
        status: "complete",
      },
      {
        role: "user",
        blocks: [
          { type: "tool_result", toolUseId: "call_a", name: "read", output: "A", isError: false },
          { type: "tool_result", toolUseId: "call_b", name: "bash", output: "exit 1", isError: true },
        ],
        status: "complete",
      },
    ];
    const req = turnRequest([], live, settings("openai"));
    await checkRequest(req);
    const c = captureRequest(req, { iteration: 2, capturedAt: "t" });
    const h = c.sections.find((s) => s.kind === "history")!;
    expect(h.items).toBe(4);
    const page = c.pages[h.index]!.join("");
    expect(page).toContain("tool_call id=call_b name=bash arguments=");
    expect(page).toContain("tool_result for id=call_b: Error: exit 1");
    expect(page).not.toContain("Error (bash)");
  });
});

// ------------------------------------------------------------------ the property

class Gen {
  private n = 0;
  constructor(readonly r: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  id(prefix: string): string {
    return `${prefix}${++this.n}`;
  }

  text(): string {
    return this.pick([
      () => "",
      () => "   ",
      () => " \n\t ",
      () => "Plain words.",
      () => "Multi\nline 😀 naïve — 日本語",
      () => `Some code:\n\`\`\`ts\nconst x = ${this.int(0, 999)};\n\`\`\``,
      () => "Looks like [brackets] and ── lines ──",
      () => "x".repeat(this.int(1, 3000)),
    ])();
  }

  image(): Block {
    // a whole PNG of a random size: the fakes decode images as the real APIs do, and refuse
    // bytes that are not one
    const png = paddedPng(this.int(100, 2000), this.int(1, 40), this.int(1, 40));
    const img: Block = { type: "image", mediaType: "image/png", data: png.toString("base64"), bytes: png.length };
    if (this.chance(0.5)) Object.assign(img, { width: this.int(1, 4000), height: this.int(1, 4000) });
    return img;
  }

  reasoning(): Block {
    return this.pick<() => Block>([
      () => ({ type: "reasoning", text: this.text() }),
      () => ({ type: "reasoning", text: this.text(), opaque: { kind: "thinking_signature", body: randomBytes(this.int(8, 600)).toString("base64") } }),
      () => ({ type: "reasoning", text: "", opaque: { kind: "redacted_thinking", body: randomBytes(this.int(8, 600)).toString("base64") } }),
      () => ({ type: "reasoning", text: this.text(), opaque: { kind: "openai_encrypted", body: randomBytes(40).toString("base64") } }),
    ])();
  }

  input(): unknown {
    return this.pick<() => unknown>([
      () => ({ path: `src/${this.int(1, 9)}.ts` }),
      () => ({ command: "ls -la ü", nested: { a: [1, 2, null], b: "é" } }),
      () => ({}),
      () => ({ _raw: '{"path": "cut' }),
      () => "bare string",
      () => 42,
      () => null,
    ])();
  }

  output(): string {
    return this.pick([() => "", () => "  ", () => "ok", () => this.text(), () => "line\n".repeat(this.int(1, 50))])();
  }

  /** Any stored message of an earlier turn: every block kind, either status, any order. */
  stored(): Msg {
    const role = this.chance(0.5) ? "user" : "assistant";
    const blocks: Block[] = [];
    for (let i = this.int(0, 4); i > 0; i--) {
      blocks.push(
        this.pick<() => Block>([
          () => ({ type: "text", text: this.text() }),
          () => ({ type: "text", text: this.text() }),
          () => this.image(),
          () => ({ type: "tool_use", id: this.id("toolu_"), name: this.pick(["read", "bash"]), input: this.input() }),
          () => ({ type: "tool_result", toolUseId: this.id("toolu_"), name: "read", output: this.output(), isError: this.chance(0.3) }),
          () => this.reasoning(),
        ])(),
      );
    }
    return { role, blocks, status: this.chance(0.8) ? "complete" : "interrupted" };
  }

  /** The turn in progress as the turn stores it: the prompt, then answers with parallel calls
   * each followed by one user message holding every call's result. */
  live(provider: ProviderName): Msg[][] {
    const prompt: Block[] = [{ type: "text", text: this.chance(0.9) ? "Please look. 😀" : "  " }];
    for (let i = this.int(0, 2); i > 0; i--) prompt.push(this.image());
    const msgs: Msg[] = [{ role: "user", blocks: prompt, status: "complete" }];
    const requests: Msg[][] = [[...msgs]];
    const idPrefix = provider === "anthropic" ? "toolu_" : "call_";
    for (let round = this.int(0, 3); round > 0; round--) {
      const answer: Block[] = [];
      for (let i = this.int(0, 2); i > 0; i--) answer.push(this.reasoning());
      for (let i = this.int(0, 2); i > 0; i--) answer.push({ type: "text", text: this.text() });
      const calls = Array.from({ length: this.int(1, 3) }, () => ({
        type: "tool_use" as const,
        id: this.id(idPrefix),
        name: this.pick(["read", "bash"]),
        input: this.input(),
      }));
      answer.push(...calls);
      msgs.push({ role: "assistant", blocks: answer, status: "complete" });
      msgs.push({
        role: "user",
        blocks: calls.map((c) => ({ type: "tool_result", toolUseId: c.id, name: c.name, output: this.output(), isError: this.chance(0.3) })),
        status: "complete",
      });
      requests.push([...msgs]);
    }
    return requests;
  }
}

/** The Responses shape's live round as the adapter stored it: a reasoning item with encrypted
 * content (the generator's "openai_encrypted" stand-in) is the complete item, sealed as the
 * fake's stream would have sealed it, naming the item that followed it in the answer. */
function sealLive(msgs: Msg[], seed: number): Msg[] {
  return msgs.map((m, mi) => {
    if (m.role !== "assistant" || m.status !== "complete") return m;
    // what the stream would have brought: blank texts are not sent back, so they are not "next"
    const shown = m.blocks.filter((b) => b.type !== "text" || b.text.trim() !== "");
    const blocks = m.blocks.map((b, bi): Block => {
      if (b.type !== "reasoning" || b.opaque?.kind !== "openai_encrypted") return b;
      const next = shown[shown.indexOf(b) + 1];
      const id = `rs_prop_${seed}_${mi}_${bi}`;
      const follows = next?.type === "tool_use" ? { type: "function_call" as const, call_id: next.id } : { type: "message" as const };
      const item = { id, type: "reasoning", summary: b.text ? [{ type: "summary_text", text: b.text }] : [], encrypted_content: sealReasoning({ id, summary: b.text, follows }) };
      return { type: "reasoning", text: b.text, opaque: { kind: OPAQUE_OPENAI_REASONING, body: JSON.stringify(item) } };
    });
    return { ...m, blocks };
  });
}

describe("property: every request's capture equals the body the server received", () => {
  for (const shape of ["anthropic", "openai", "responses"] as const) {
    const provider = shape === "responses" ? "openai" : shape;
    it(`seeded random sessions (${shape})`, async () => {
      const sentBefore = fake.requests.length;
      let requests = 0;
      let marks = 0;
      for (let seed = 1; seed <= 30; seed++) {
        const g = new Gen(prng(seed * 7919 + (shape === "anthropic" ? 1 : shape === "openai" ? 2 : 3)));
        const prior: Msg[] = [];
        if (g.chance(0.3)) {
          prior.push({ role: "user", blocks: [{ type: "text", text: summaryText({ text: "Earlier: we fixed the parser.", model: "claude-sonnet-4-5" }, g.int(1, 40)) }], status: "complete" });
        }
        for (let i = g.int(0, 12); i > 0; i--) prior.push(g.stored());
        const over: Partial<RequestSettings> = {
          vision: g.chance(0.6) ? imageTarget("anthropic", true) : BLIND,
          reasoning: g.pick<ReasoningLevel>(["off", "low", "high"]),
          ...(provider === "openai" && g.chance(0.3) ? { model: "llama3.1:8b" } : {}),
          ...(shape === "responses" ? { api: "responses" as const, ...(g.chance(0.5) ? { model: "gpt-5" } : {}) } : {}),
          ...(g.chance(0.2) ? { tools: [] } : {}),
          ...(g.chance(0.7) ? { cache: { key: `session-${seed}`, ttl: g.pick(["5m", "1h"] as const) } } : {}),
          // a long project context: the system prefix is long enough to cache
          ...(g.chance(0.5) ? { context: [{ source: "AGENTS.md", text: "Rules. ".repeat(g.int(100, 900)) }] } : {}),
        };
        const s = settings(provider, over);
        const why = `seed ${seed}`;
        try {
          for (const live of g.live(provider)) {
            marks += await checkRequest(turnRequest(prior, shape === "responses" ? sealLive(live, seed) : live, s));
            requests++;
          }
          if (prior.length > 0 && g.chance(0.3)) {
            // the summary request compaction sends: the prefix as prose, then the prompt
            await checkRequest(summaryRequest(prior, { system: "Summarise.", prompt: "Write the note." }, { provider, model: s.model, maxOutputTokens: 4096 }));
            requests++;
          }
        } catch (e) {
          throw new Error(`${why}: ${(e as Error).message}`, { cause: e });
        }
      }
      expect(requests).toBeGreaterThan(60);
      // the seeds do replay encrypted reasoning items natively in their live rounds
      const items = fake.requests.slice(sentBefore).flatMap((r) => (r.shape === "responses" ? (r.body.input as { type: string }[]) : []));
      if (shape === "responses") expect(items.filter((i) => i.type === "reasoning").length).toBeGreaterThan(5);
      // the seeds do place breakpoints (Anthropic), so the property covers them
      if (provider === "anthropic") expect(marks).toBeGreaterThan(20);
    });
  }
});
