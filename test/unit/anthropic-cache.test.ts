// Where the Anthropic adapter puts its cache breakpoints: after the tool
// schemas, after the system and context blocks, on the previous turn's last message and on
// the newest one; never more than 4; none where the prefix is below the model's minimum; the
// TTL field only for the hour. And the capture's marker: in the page, not in the bytes.
import { describe, expect, it } from "vitest";
import { estimatePrefixTokens, MAX_CACHE_BREAKPOINTS } from "../../src/provider/anthropic/cache.js";
import { encodeAnthropic } from "../../src/provider/anthropic/encode.js";
import { minCacheableTokens } from "../../src/provider/catalog.js";
import { captureRequest, paginate } from "../../src/context/capture.js";
import { summaryRequest, turnRequest, type RequestSettings } from "../../src/replay/request.js";
import type { Block, MessageStatus } from "../../src/record/types.js";
import type { Request } from "../../src/provider/types.js";
import { FakeCache } from "../helpers/fake-cache.js";

type Obj = Record<string, any>;
type Msg = { role: "user" | "assistant"; blocks: Block[]; status: MessageStatus };

const LONG = "All work and no play makes Jack a dull boy. ".repeat(200); // ~8,800 chars: ~2,200 tokens

function settings(over: Partial<RequestSettings> = {}): RequestSettings {
  return {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    system: "You are albedo.",
    context: [{ source: "AGENTS.md", text: "Keep it tidy." }],
    tools: [{ name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
    maxOutputTokens: 4096,
    reasoning: "off",
    vision: true,
    cache: { key: "session-1", ttl: "5m" },
    ...over,
  } as RequestSettings;
}

/** settings without a cache key: a request that asks for no caching */
function uncached(over: Partial<RequestSettings> = {}): RequestSettings {
  const s = settings(over);
  delete s.cache;
  return s;
}

const longTool = { name: "read", description: LONG, inputSchema: { type: "object", properties: { path: { type: "string" } } } };
const user = (text: string): Msg => ({ role: "user", blocks: [{ type: "text", text }], status: "complete" });
const assistant = (text: string): Msg => ({ role: "assistant", blocks: [{ type: "text", text }], status: "complete" });

/** Where the body's cache_control marks are: "tools.N", "system.N", "messages.N.content.M". */
function marks(body: Obj): { at: string; control: Obj }[] {
  const out: { at: string; control: Obj }[] = [];
  (body["tools"] ?? []).forEach((t: Obj, i: number) => t["cache_control"] && out.push({ at: `tools.${i}`, control: t["cache_control"] }));
  (body["system"] ?? []).forEach((b: Obj, i: number) => b["cache_control"] && out.push({ at: `system.${i}`, control: b["cache_control"] }));
  (body["messages"] as Obj[]).forEach((m, i) =>
    (m["content"] as Obj[]).forEach((b, j) => b["cache_control"] && out.push({ at: `messages.${i}.content.${j}`, control: b["cache_control"] })),
  );
  return out;
}

function body(req: Request): Obj {
  return encodeAnthropic(req).body;
}

describe("Anthropic cache breakpoints", () => {
  it("places four: last tool, last system block, the previous turn's last message, the newest message", () => {
    const prior = [user(LONG), assistant("Done, the parser is fixed.")];
    const live: Msg[] = [
      user("Now the tests."),
      { role: "assistant", blocks: [{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.ts" } }], status: "complete" },
      { role: "user", blocks: [{ type: "tool_result", toolUseId: "toolu_1", name: "read", output: "export {}", isError: false }], status: "complete" },
    ];
    // tools and system long enough on their own
    const req = turnRequest(prior, live, settings({ system: LONG, tools: [longTool] }));
    const b = body(req);
    expect(marks(b)).toEqual([
      { at: "tools.0", control: { type: "ephemeral" } },
      { at: "system.1", control: { type: "ephemeral" } },
      { at: "messages.1.content.0", control: { type: "ephemeral" } },
      { at: "messages.4.content.0", control: { type: "ephemeral" } },
    ]);
    expect(MAX_CACHE_BREAKPOINTS).toBe(4);
    // the mark does not change the content it sits on
    expect(b["messages"][4]["content"][0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1", content: "export {}" });
  });

  it("asks for the hour only when configured; 5 minutes is the API's default and sends no ttl", () => {
    const req = turnRequest([user(LONG), assistant("ok")], [user("next")], settings({ cache: { key: "s", ttl: "1h" } }));
    const m = marks(body(req));
    expect(m.length).toBeGreaterThan(0);
    for (const x of m) expect(x.control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("puts none below the model's minimum cacheable prefix, and the minimum depends on the model", () => {
    // ~2,200 tokens of history: above Sonnet 4.5's 1,024, below Haiku 4.5's 4,096
    const prior = [user(LONG), assistant("ok")];
    const sonnet = marks(body(turnRequest(prior, [user("next")], settings())));
    const haiku = marks(body(turnRequest(prior, [user("next")], settings({ model: "claude-haiku-4-5" }))));
    expect(sonnet.map((x) => x.at)).toEqual(["messages.1.content.0", "messages.2.content.0"]);
    expect(haiku).toEqual([]);
    expect(minCacheableTokens("claude-sonnet-4-5")).toBe(1024);
    expect(minCacheableTokens("claude-haiku-4-5-20251001")).toBe(4096);
    expect(minCacheableTokens("anthropic/claude-opus-4.6")).toBe(4096);
    expect(minCacheableTokens("claude-sonnet-4-6")).toBe(2048);
    expect(minCacheableTokens("claude-3-5-haiku-latest")).toBe(2048);
    // a short session: nothing at all
    expect(marks(body(turnRequest([], [user("hi")], settings())))).toEqual([]);
    // the estimate it decides by is chars/4
    expect(estimatePrefixTokens(4096)).toBe(1024);
  });

  it("sends none when the request asks for no caching, and none in the summary request", () => {
    const req = turnRequest([user(LONG), assistant("ok")], [user("next")], uncached());
    expect(JSON.stringify(body(req))).not.toContain("cache_control");
    // the summary's prefix (its own system prompt, no tools) is shared with nothing and sent
    // once: a write would never be read
    const summary = summaryRequest([user(LONG), assistant(LONG), user(LONG)], { system: "Summarise.", prompt: "Write the note." }, { provider: "anthropic", model: "claude-sonnet-4-5", maxOutputTokens: 4096 });
    expect(JSON.stringify(body(summary))).not.toContain("cache_control");
  });

  it("never more than four, whatever the shape of the request", () => {
    for (let history = 0; history <= 6; history++) {
      for (let live = 1; live <= 5; live += 2) {
        const prior = Array.from({ length: history }, (_, i) => (i % 2 === 0 ? user(LONG) : assistant(LONG)));
        const liveMsgs = Array.from({ length: live }, (_, i) => (i % 2 === 0 ? user(LONG) : assistant(LONG)));
        const n = marks(body(turnRequest(prior, liveMsgs, settings({ system: LONG, context: [{ source: "a", text: LONG }] })))).length;
        expect(n).toBeLessThanOrEqual(4);
      }
    }
  });

  it("the capture shows each mark as a marker in the page, and counts no bytes for it", () => {
    const prior = [user(LONG), assistant("ok")];
    const cached = turnRequest(prior, [user("next")], settings({ system: LONG, tools: [longTool], cache: { key: "s", ttl: "1h" } }));
    const plain = turnRequest(prior, [user("next")], uncached({ system: LONG, tools: [longTool] }));
    const a = captureRequest(cached, { iteration: 1, capturedAt: "t" });
    const b = captureRequest(plain, { iteration: 1, capturedAt: "t" });
    expect(a.sections.map((s) => [s.items, s.bytes])).toEqual(b.sections.map((s) => [s.items, s.bytes]));
    expect(a.meta.totalBytes).toBe(b.meta.totalBytes);
    const history = a.sections.find((s) => s.kind === "history")!;
    const page = a.pages[history.index]!.join("");
    expect(page).toContain("── 2 · assistant ──\nok\n[cache breakpoint: 1h]");
    expect(page).toContain("── 3 · user ──\nnext\n[cache breakpoint: 1h]");
    const context = a.sections.find((s) => s.kind === "context")!;
    expect(a.pages[context.index]!.join("")).toBe("Keep it tidy.\n[cache breakpoint: 1h]");
    const tools = a.sections.find((s) => s.kind === "tools")!;
    expect(a.pages[tools.index]!.join("").endsWith("}\n[cache breakpoint: 1h]")).toBe(true);
  });

  it("no page boundary cuts a breakpoint marker", () => {
    const marker = "\n[cache breakpoint: 1h]";
    for (let at = 80; at <= 100; at++) {
      const text = "x".repeat(at) + marker + "y".repeat(50);
      const pages = paginate(text, 100);
      expect(pages.join("")).toBe(text);
      expect(pages.some((p) => p.includes("[cache breakpoint: 1h]"))).toBe(true);
    }
  });

  // The API finds a cached prefix only at a mark or up to ~20 blocks before one. A turn's
  // prose or one round's blocks can be longer than that; the previous request's prefix must
  // still be read, not the whole history written again.
  describe("each request reads the previous request's prefix, however far back it ends", () => {
    const toolRound = (k: number, calls: number, size = 40): Msg[] => [
      {
        role: "assistant",
        blocks: [
          { type: "text", text: `Round ${k}.` },
          ...Array.from({ length: calls }, (_, c): Block => ({ type: "tool_use", id: `toolu_${k}_${c}`, name: "read", input: { path: `f${k}_${c}.ts` } })),
        ],
        status: "complete",
      },
      {
        role: "user",
        blocks: Array.from({ length: calls }, (_, c): Block => ({
          type: "tool_result",
          toolUseId: `toolu_${k}_${c}`,
          name: "read",
          output: `contents of f${k}_${c}.ts `.repeat(size),
          isError: false,
        })),
        status: "complete",
      },
    ];
    /** One turn's requests against the cache: the prompt, then each round, then the answer. */
    function runTurn(cache: FakeCache, prior: Msg[], prompt: string, rounds: Msg[][], s: RequestSettings): Msg[] {
      const live: Msg[] = [user(prompt)];
      cache.anthropic(body(turnRequest(prior, live, s)));
      for (const r of rounds) {
        live.push(...r);
        const res = cache.anthropic(body(turnRequest(prior, live, s)));
        expect("usage" in res, JSON.stringify(res)).toBe(true);
      }
      live.push(assistant(`Done with ${prompt}`));
      return [...prior, ...live];
    }
    const s = settings({ system: LONG, tools: [longTool] });

    for (const rounds of [2, 8, 14]) {
      it(`the turn after one of ${rounds} tool rounds reads everything up to that turn's prompt`, () => {
        const cache = new FakeCache();
        const first = runTurn(cache, [], "First task.", [], s);
        const second = runTurn(cache, first, "Second task.", Array.from({ length: rounds }, (_, k) => toolRound(k, 1)), s);
        // the second turn's first request wrote the prefix up to its prompt
        const promptEnd = Math.max(...cache.log.at(-rounds - 1)!.breakpoints.map((b) => b.tokens));
        cache.anthropic(body(turnRequest(second, [user("Third task.")], s)));
        const third = cache.log.at(-1)!;
        expect(third.breakpoints.length).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
        expect(third.readTokens, JSON.stringify(third.breakpoints)).toBe(promptEnd);
      });
    }

    it("a round of many parallel calls: the next request reads the whole previous request", () => {
      const cache = new FakeCache();
      const first = runTurn(cache, [], "First task.", [toolRound(0, 1)], s);
      const live: Msg[] = [user("Read them all."), ...toolRound(1, 2)];
      cache.anthropic(body(turnRequest(first, live, s)));
      const before = cache.log.at(-1)!;
      const wrote = Math.max(...before.breakpoints.map((b) => b.tokens));
      // 12 calls and their 12 results: 26 blocks past the previous request's end
      live.push(...toolRound(2, 12, 10));
      const req = turnRequest(first, live, s);
      expect(marks(body(req)).length).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      cache.anthropic(body(req));
      expect(cache.log.at(-1)!.readTokens).toBe(wrote);
    });
  });
});

