// Prompt caching end to end: the built CLI, headless, against the
// caching fake over loopback HTTP, one process per turn, so every turn after the first starts
// after a restart. Each request reads what the one before it wrote; the first request after
// a restart reads the prefix the previous process wrote (the same bytes: prose replay is
// stable); the usage the provider reported is stored with each answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { FakeCache, type CacheLogEntry } from "../helpers/fake-cache.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";

const KEY = "sk-test-cache-7731";
let fake: FakeProvider;
let home: Home;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY, cache: new FakeCache() });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  // a file big enough that the live round's prefix is worth a breakpoint of its own
  await fs.writeFile(path.join(home.workspace, "notes.md"), "A line of the project's notes, long enough to count.\n".repeat(300));
});
afterAll(async () => {
  await fake.close();
  await fs.rm(home.root, { recursive: true, force: true });
});

const args = ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", () => fake.anthropicBase, "--permission", "auto"];
const cli = (prompt: string, ...more: string[]): Promise<Awaited<ReturnType<typeof runCli>>> =>
  runCli(["-p", prompt, ...args.map((a) => (typeof a === "function" ? a() : a)), ...more], home);

/** The tokens of a request's longest breakpoint prefix: what it leaves in the cache. */
const newest = (e: CacheLogEntry): number => Math.max(0, ...e.breakpoints.map((b) => b.tokens));

describe("prompt caching over a multi-turn session with restarts", () => {
  it("reads the previous request's prefix on every request, across restarts, and stores the usage", async () => {
    const log = fake.cache!.log;
    // process A: a tool round, then the answer
    fake.script({ toolCalls: [{ name: "read", input: { path: "notes.md" } }] }, { text: "Read them." });
    const a = await cli("Read notes.md please.");
    expect(a.code, a.stderr).toBe(0);
    // process B, C: one answer each, the session continued
    fake.script({ text: "Second answer." });
    const b = await cli("And a second question.", "--continue");
    expect(b.code, b.stderr).toBe(0);
    fake.script({ text: "Third answer." });
    const c = await cli("And a third.", "--continue");
    expect(c.code, c.stderr).toBe(0);

    expect(fake.rejections()).toEqual([]);
    expect(log).toHaveLength(4);
    const [a1, a2, b1, c1] = log as [CacheLogEntry, CacheLogEntry, CacheLogEntry, CacheLogEntry];
    // never more than four marks, each at or above the model's minimum
    for (const e of log) {
      expect(e.breakpoints.length).toBeGreaterThan(0);
      expect(e.breakpoints.length).toBeLessThanOrEqual(4);
      for (const bp of e.breakpoints) expect(bp.outcome).not.toBe("too_short");
    }
    // a cold start writes and reads nothing
    expect(a1.readTokens).toBe(0);
    expect(a1.writtenTokens).toBe(newest(a1));
    // within the turn: the whole of the previous request is read, the new round written
    expect(a2.readTokens).toBe(newest(a1));
    expect(a2.writtenTokens).toBeGreaterThan(0);
    // after a restart: the prefix process A wrote up to its prompt is read back (tools,
    // system, context and the prompt the same bytes as then)
    expect(b1.readTokens).toBeGreaterThanOrEqual(newest(a1));
    // and after another: process B's prefix, which holds turn 1 replayed as prose by B, is
    // read by C, which replays it again: the history crosses the same way every time
    expect(c1.readTokens).toBe(newest(b1));
    // the first request of a turn writes the turn before it, once
    expect(b1.writtenTokens).toBeGreaterThan(0);

    // the provider's report is stored with each answer, as it reported it
    const store = await openStore(home.db);
    try {
      const [s] = await store.listSessions();
      const { messages } = await store.loadHistory(s!.id);
      const answers = messages.filter((m) => m.role === "assistant");
      expect(answers).toHaveLength(4);
      expect(answers.map((m) => m.usage && [m.usage.inputTokens, m.usage.cacheReadTokens, m.usage.cacheWriteTokens])).toEqual(
        log.map((e) => [e.uncachedTokens, e.readTokens, e.writtenTokens]),
      );
      // and read back after a restart: process C's request shows B's answer's usage as the
      // previous response's
      const view = await store.inspectorView(s!.id);
      expect(view.state === "current" && view.meta.providerUsage).toEqual(answers[2]!.usage);
    } finally {
      await store.close();
    }
  });

  it("asks for the hour when cacheTtl says so, and the config file refuses any other value by name", async () => {
    const config = path.join(home.root, "config", "albedo", "config.json");
    await fs.mkdir(path.dirname(config), { recursive: true });
    await fs.writeFile(config, JSON.stringify({ cacheTtl: "1h" }));
    const before = fake.requests.length;
    fake.script({ text: "ok" });
    const r = await cli("Hour-long cache, please.", "--continue");
    expect(r.code, r.stderr).toBe(0);
    const body = fake.requests[before]!.body as { system: { cache_control?: unknown }[] };
    expect(JSON.stringify(body)).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
    expect(JSON.stringify(body)).not.toContain('"cache_control":{"type":"ephemeral"}');
    expect(fake.cache!.log.at(-1)!.breakpoints.every((b) => b.ttl === "1h")).toBe(true);

    await fs.writeFile(config, JSON.stringify({ cacheTtl: "10m" }));
    const bad = await cli("Ten minutes?", "--continue");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("cacheTtl");
    await fs.rm(config);
  });

  // the API looks back only about 20 blocks from a mark, and a turn of a
  // dozen tool rounds replays as more prose than that
  it("after a turn of 12 tool rounds, the next process's first request reads everything up to that turn's prompt", { timeout: 120_000 }, async () => {
    const log = fake.cache!.log;
    const from = log.length;
    fake.script(
      ...Array.from({ length: 12 }, (_, k) => ({ toolCalls: [{ name: "read", input: { path: "notes.md" }, id: `toolu_long_${k}` }] })),
      { text: "Read them twelve times." },
    );
    const a = await cli("Read notes.md twelve times, please.");
    expect(a.code, a.stderr).toBe(0);
    fake.script({ text: "And the next answer." });
    const b = await cli("What did they say?", "--continue");
    expect(b.code, b.stderr).toBe(0);
    expect(fake.rejections()).toEqual([]);
    const turn = log.slice(from);
    expect(turn).toHaveLength(14);
    const next = turn[13]!;
    expect(next.breakpoints.length).toBeLessThanOrEqual(4);
    // what the long turn's first request wrote (through its prompt) is read back, not
    // written again with the whole history after the tools and system
    expect(next.readTokens, JSON.stringify(next.breakpoints)).toBe(newest(turn[0]!));
  });
});

