// Exact counts from count_tokens, against the strict fake, which counts by a rule of its own
// (fakeCountTokens): each section's figure is the fake's count of the body less its count
// without that section, labelled with its method and the time asked; nothing is counted
// unasked; a server that answers badly gives a sentence, not a number.
import http from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fakeCountTokens, startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli } from "../helpers/cli.js";
import { ANTHROPIC_CASES } from "../helpers/wire-cases.js";
import { encodeAnthropicBody } from "../../src/provider/anthropic/encode.js";
import { COUNT_METHOD, CountError, countBody, countSections, countTokens } from "../../src/provider/anthropic/count-tokens.js";

const KEY = "sk-test-count-SECRET-3131";
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.counts.length = 0;
});

const words = (s: string): number => s.split(/\s+/).filter(Boolean).length;

describe("count_tokens", () => {
  it("the figures per section are the fake's own counts, labelled with the method and the time asked", async () => {
    const req = ANTHROPIC_CASES["adaptive_live_round"]!;
    const body = encodeAnthropicBody(req);
    const at = new Date("2026-12-07T15:00:00.000Z");
    const counts = await countSections(body, req.context.map((c) => c.source), { baseUrl: fake.anthropicBase, apiKey: KEY }, () => at);
    expect(fake.counts.map((c) => c.rejected)).toEqual(fake.counts.map(() => undefined));
    expect(counts.method).toBe(COUNT_METHOD);
    expect(counts.askedAt).toBe("2026-12-07T15:00:00.000Z");
    expect(counts.total).toBe(fakeCountTokens(countBody(body)));
    // each system block's figure is its words, by the fake's rule
    expect(counts.sections.map((s) => s.source)).toEqual(["system", "AGENTS.md", "history", "tools"]);
    expect(counts.sections[0]!.tokens).toBe(words(req.system));
    expect(counts.sections[1]!.tokens).toBe(words(req.context[0]!.text));
    // history: the body's messages less the one "." message the count is asked with
    const messages = body["messages"] as unknown[];
    expect(counts.sections[2]!.tokens).toBe(fakeCountTokens({ messages }) - fakeCountTokens({ messages: [{ role: "user", content: "." }] }));
    expect(counts.sections[3]!.tokens).toBe(fakeCountTokens({ tools: body["tools"] }) - 3);
    // what was sent: count_tokens' own fields, with the API version and who asks
    for (const c of fake.counts) {
      expect(c.body.max_tokens).toBeUndefined();
      expect(c.body.stream).toBeUndefined();
      expect(c.headers["anthropic-version"]).toBe("2023-06-01");
      expect(c.headers["user-agent"]).toMatch(/^albedo-tui\//);
    }
    expect(fake.counts).toHaveLength(1 + counts.sections.length);
    // counting sends no Messages request
    expect(fake.requests).toEqual([]);
  });

  it("nothing is counted unasked: a turn sends no count_tokens", async () => {
    const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
    fake.script({ text: "hello" });
    const r = await runCli(["-p", "say hello", "--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", fake.anthropicBase], home);
    expect(r.code).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(fake.counts).toEqual([]);
  });

  it("a hostile server: a wrong key, garbage, a huge answer and silence each give a sentence", async () => {
    const body = encodeAnthropicBody(ANTHROPIC_CASES["history_only"]!);
    await expect(countTokens(body, { baseUrl: fake.anthropicBase, apiKey: "wrong" })).rejects.toThrow(/status 401/);
    const answers: Array<(res: http.ServerResponse) => void> = [
      (res) => res.end("not json"),
      (res) => res.end(JSON.stringify({ input_tokens: -4 })),
      (res) => res.end(JSON.stringify({ input_tokens: 1, pad: "x".repeat(200_000) })),
      () => undefined,
    ];
    const server = http.createServer((_req, res) => answers.shift()?.(res));
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const o = { baseUrl: base, apiKey: KEY, timeoutMs: 1500 };
      await expect(countTokens(body, o)).rejects.toThrow(/not JSON/);
      await expect(countTokens(body, o)).rejects.toThrow(/not in Anthropic's shape/);
      await expect(countTokens(body, o)).rejects.toThrow(/larger than 64 kB/);
      await expect(countTokens(body, o)).rejects.toThrow(/within 1\.5 s/);
      await expect(countTokens(body, o)).rejects.toBeInstanceOf(CountError);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });
});
