// `albedo-tui context ID --count-tokens`: the built CLI against the strict fake, which counts
// by a rule of its own (fakeCountTokens). The request's count_tokens body is kept beside its
// capture (the pages cannot give it back), so a later command has exactly what was sent
// counted, labelled as the pane labels it. Where no exact count can be had, the JSON says
// why, holds no figure, and the command exits 1; nothing is counted unasked.
import zlib from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fakeCountTokens, startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { rawAll, rawClose, rawOpen, rawRun } from "../helpers/raw-sqlite.js";
import { countBody } from "../../src/provider/anthropic/count-tokens.js";

const KEY = "sk-test-ctxcount-SECRET-4242";
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

interface Report {
  available: boolean;
  method?: string;
  askedAt?: string;
  of?: string;
  server?: string;
  total?: number;
  sections?: Array<{ source: string; tokens: number }>;
  reason?: string;
}
interface ContextJson {
  state: string;
  meta: { capturedAt: string };
  sections: Array<{ source: string; estimate: { method: string } }>;
  exactCounts?: Report;
}

async function session(home: Home, prompt: string, provider: "anthropic" | "openai" = "anthropic"): Promise<string> {
  fake.script({ text: "an answer of a few words" });
  const args =
    provider === "anthropic"
      ? ["--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", fake.anthropicBase]
      : ["--provider", "openai", "--model", "gpt-5.2", "--base-url", fake.openaiBase];
  const r = await runCli(["-p", prompt, ...args], home);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const list = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as Array<{ id: string }>;
  return list[0]!.id;
}

async function context(home: Home, id: string, ...more: string[]): Promise<{ code: number | null; json: ContextJson; stderr: string; stdout: string }> {
  const r = await runCli(["context", id, "--json", ...more], home, { ANTHROPIC_BASE_URL: fake.anthropicBase });
  return { code: r.code, json: JSON.parse(r.stdout) as ContextJson, stderr: r.stderr, stdout: r.stdout };
}

describe("context --count-tokens", () => {
  it("counts exactly what was sent, per section, with the fake's figures, labelled", async () => {
    const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
    const id = await session(home, "count the words of this prompt please");
    // the turn counted nothing; printing the context counts nothing
    expect(fake.counts).toEqual([]);
    const plain = await context(home, id);
    expect(plain.code).toBe(0);
    expect(plain.json.exactCounts).toBeUndefined();
    expect(fake.counts).toEqual([]);

    const sent = fake.requests.at(-1)!.body as Record<string, unknown>;
    const r = await context(home, id, "--count-tokens");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const x = r.json.exactCounts!;
    expect(x.available).toBe(true);
    expect(x.method).toBe("count_tokens (anthropic)");
    expect(Date.parse(x.askedAt!)).not.toBeNaN();
    expect(x.of).toBe(r.json.meta.capturedAt);
    expect(x.server).toBe(new URL(fake.anthropicBase).origin);
    expect(x.total).toBe(fakeCountTokens(countBody(sent)));
    // the inspector's sections, each the fake's count less its count without it
    expect(x.sections!.map((s) => s.source)).toEqual(r.json.sections.map((s) => s.source));
    const system = sent["system"] as unknown[];
    system.forEach((_, i) => {
      const without = { ...sent, system: system.filter((__, j) => j !== i) };
      expect(x.sections![i]!.tokens).toBe(fakeCountTokens(countBody(sent as never)) - fakeCountTokens(countBody(without as never)));
    });
    // the estimates stay as they were, named by their method
    expect(r.json.sections.every((s) => !s.estimate.method.includes("count_tokens"))).toBe(true);
    expect(fake.counts).toHaveLength(1 + x.sections!.length);
    expect(fake.counts.every((c) => c.rejected === undefined)).toBe(true);

    // text: the same figures on one labelled line
    const text = await runCli(["context", id, "--count-tokens"], home, { ANTHROPIC_BASE_URL: fake.anthropicBase });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`exact, count_tokens (anthropic), asked `);
    expect(text.stdout).toContain(`total ${x.total!.toLocaleString("en-US")} tokens · system `);
  });

  it("the body kept holds no key, even one pasted into the prompt", async () => {
    const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
    const id = await session(home, `my key is ${KEY} do not tell`);
    const db = await rawOpen(home.db);
    try {
      const rows = await rawAll<{ body_gz: Buffer; captured_at: string }>(db, "SELECT body_gz, captured_at FROM capture_bodies WHERE session_id = ?", [id]);
      expect(rows).toHaveLength(1);
      const body = zlib.gunzipSync(rows[0]!.body_gz).toString("utf8");
      expect(body).not.toContain(KEY);
      expect(body).toContain("do not tell");
      // what count_tokens takes, less what it refuses
      const parsed = JSON.parse(body) as Record<string, unknown>;
      expect(parsed["max_tokens"]).toBeUndefined();
      expect(parsed["stream"]).toBeUndefined();
    } finally {
      await rawClose(db);
    }
  });

  it("an OpenAI request: no provider count, said, no figure, exit 1", async () => {
    const home = await makeHome({ OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY });
    const id = await session(home, "hello there", "openai");
    const r = await context(home, id, "--count-tokens");
    expect(r.code).toBe(1);
    expect(r.json.exactCounts).toEqual({ available: false, of: r.json.meta.capturedAt, reason: expect.stringMatching(/openai has no provider count: the sections' estimates \(o200k tokenizer.*\) are the tokenizer's/) });
    expect(r.stderr).toMatch(/no exact counts: openai has no provider count/);
    expect(fake.counts).toEqual([]);
  });

  it("a hostile store and server: a damaged body, an older body, a refused key, a dead server each give a sentence, never a figure", async () => {
    const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
    const id = await session(home, "one two three");
    const db = await rawOpen(home.db);
    const [row] = await rawAll<{ body_gz: Buffer; captured_at: string }>(db, "SELECT body_gz, captured_at FROM capture_bodies WHERE session_id = ?", [id]);
    try {
      // a refused key: the server's status, and the key nowhere in what is printed
      const wrong = await runCli(["context", id, "--json", "--count-tokens"], { ...home, env: { ...home.env, ANTHROPIC_API_KEY: "sk-wrong-key-777" } }, { ANTHROPIC_BASE_URL: fake.anthropicBase });
      expect(wrong.code).toBe(1);
      const w = (JSON.parse(wrong.stdout) as ContextJson).exactCounts!;
      expect(w.available).toBe(false);
      expect(w.reason).toMatch(/status 401/);
      expect(w.total).toBeUndefined();
      expect(wrong.stdout + wrong.stderr).not.toContain("sk-wrong-key-777");
      // nobody listening
      const dead = await runCli(["context", id, "--json", "--count-tokens"], home, { ANTHROPIC_BASE_URL: "http://127.0.0.1:9" });
      expect(dead.code).toBe(1);
      expect((JSON.parse(dead.stdout) as ContextJson).exactCounts!.reason).toMatch(/could not be reached for a token count/);
      // no key at all
      const none = await runCli(["context", id, "--json", "--count-tokens"], { ...home, env: { ...home.env, ANTHROPIC_API_KEY: "" } }, { ANTHROPIC_BASE_URL: fake.anthropicBase });
      expect(none.code).toBe(1);
      expect((JSON.parse(none.stdout) as ContextJson).exactCounts!.reason).toMatch(/no Anthropic key/);
      // garbage where the gzip'd body was
      await rawRun(db, "UPDATE capture_bodies SET body_gz = ? WHERE session_id = ?", [Buffer.from("\u0000not gzip\u001b[31m"), id]);
      const damaged = await context(home, id, "--count-tokens");
      expect(damaged.code).toBe(1);
      expect(damaged.json.exactCounts!.reason).toMatch(/cannot be unpacked/);
      // valid gzip of something that is not a Messages body
      await rawRun(db, "UPDATE capture_bodies SET body_gz = ? WHERE session_id = ?", [zlib.gzipSync('{"model": 5}'), id]);
      expect((await context(home, id, "--count-tokens")).json.exactCounts!.reason).toMatch(/not a Messages body/);
      // the body of another request than the capture shown: never counted as this one
      await rawRun(db, "UPDATE capture_bodies SET body_gz = ?, captured_at = ? WHERE session_id = ?", [row!.body_gz, "2020-01-01T00:00:00.000Z", id]);
      const older = await context(home, id, "--count-tokens");
      expect(older.code).toBe(1);
      expect(older.json.exactCounts!.reason).toMatch(/no request body was kept with this capture/);
      expect(fake.counts.filter((c) => c.rejected === undefined)).toEqual([]);
    } finally {
      await rawClose(db);
    }
  });

  it("a session's next request replaces its body; --section with --count-tokens is refused", async () => {
    const home = await makeHome({ ANTHROPIC_API_KEY: KEY });
    const id = await session(home, "first prompt");
    fake.script({ text: "second answer" });
    const again = await runCli(["-p", "second prompt with more words", "--resume", id, "--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", fake.anthropicBase], home);
    expect(again.code).toBe(0);
    const r = await context(home, id, "--count-tokens");
    expect(r.code).toBe(0);
    expect(r.json.exactCounts!.total).toBe(fakeCountTokens(countBody(fake.requests.at(-1)!.body as never)));
    const db = await rawOpen(home.db);
    try {
      expect(await rawAll(db, "SELECT session_id FROM capture_bodies")).toHaveLength(1);
    } finally {
      await rawClose(db);
    }
    const bad = await runCli(["context", id, "--section", "1", "--count-tokens"], home);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--count-tokens counts the whole request, section by section: leave out --section/);
  });
});
