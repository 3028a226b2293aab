// Cache-aware compaction in real turns, against the fake provider
// over loopback with a real SQLite file and real tool runs:
// - microcompact in steps: the wire body of each turn's first request repeats the previous
//   request's messages byte for byte up to the previous turn's own rounds (which now replay as
//   prose), except at a step, where it differs from the first newly blurred output;
// - the inspector's change line names that place and why;
// - a session closed and resumed (a new store connection and controller) sends the same bytes
//   as the same session run without the restart, and so does each turn run as a new headless
//   process (the built CLI with --continue);
// - an automatic summary is asked for only at a turn's first request.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";
import { tempDir } from "../helpers/tmp.js";
import { makeHome, runCli } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";
import { App, type AppOptions } from "../../src/session/controller/controller.js";
import { SUMMARY_SYSTEM } from "../../src/compaction/summary.js";
import type { CaptureMeta } from "../../src/context/types.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

/** The messages of a body as the cache sees them: cache_control marks left out. */
function messagesOf(raw: string): string[] {
  const body = JSON.parse(raw) as { messages: unknown[] };
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => k !== "cache_control").map(([k, x]) => [k, strip(x)]));
    return v;
  };
  return body.messages.map((m) => JSON.stringify(strip(m)));
}

function firstDifference(a: readonly string[], b: readonly string[]): number | undefined {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return undefined;
}

const K = 1;
const STEP = 3;
const TURNS = 9;
const options: Partial<AppOptions> = { compaction: "microcompact", keepToolRounds: K, microcompactStep: STEP };

/** Files of mixed sizes for the turns to read (each a little over its marker at least). */
async function seed(workspace: string): Promise<void> {
  for (let t = 0; t < TURNS + 2; t++) await fs.writeFile(path.join(workspace, `f${t}.txt`), `file ${t}\n`.repeat(20 + ((t * 37) % 90)));
}

/** Turn t: one tool round reading f<t>.txt, then an answer. Call ids fixed so two runs match. */
function script(t: number): void {
  fake.script({ toolCalls: [{ name: "read", input: { path: `f${t}.txt` }, id: `toolu_t${t}` }], text: `Reading f${t}.` }, { text: `Done with turn ${t}.` });
}

interface Turned {
  /** raw bodies of every request, in order */
  bodies: string[];
  /** per turn: the change line of its first request's capture */
  changes: (string | undefined)[];
}

/** Runs turns [from, to) on an app, collecting bodies and the first capture's change line. */
async function runTurns(app: App, from: number, to: number, out: Turned): Promise<void> {
  for (let t = from; t < to; t++) {
    const metas: Promise<CaptureMeta | undefined>[] = [];
    // read when told: the store's one queue serves this read before any later write
    const off = app.subscribe((e) => {
      if (e.type === "capture") metas.push(app.inspectorView().then((v) => (v.state === "current" ? v.meta : undefined)));
    });
    const start = fake.requests.length;
    script(t);
    await app.submit(`Please read f${t}.txt`);
    off();
    expect(fake.rejections()).toEqual([]);
    expect(fake.requests.length - start).toBe(2);
    out.bodies.push(...fake.requests.slice(start).map((r) => r.rawBody));
    out.changes.push((await metas[0])?.change);
  }
}

describe("microcompact in steps, on the wire", () => {
  it("each turn's first request repeats the previous request's bytes up to the previous turn, except at a step; the change line says where and why; a restart sends the same bytes", async () => {
    const dir = await tempDir("albedo-cache-");
    // the whole session without a restart
    const first = await makeApp(fake, { ...options, dir });
    await seed(first.workspace);
    const straight: Turned = { bodies: [], changes: [] };
    await runTurns(first.app, 0, TURNS, straight);
    await first.app.close();

    let steps = 0;
    for (let t = 1; t < TURNS; t++) {
      const prev = messagesOf(straight.bodies[2 * t - 1]!); // turn t−1's last request
      const now = messagesOf(straight.bodies[2 * t]!); // turn t's first request
      const diff = firstDifference(prev, now);
      expect(diff, `turn ${t}`).toBeDefined();
      // the previous turn's prompt is the (t−1)·4th message: its answer with the call is next
      const previousTurnAnswer = (t - 1) * 4 + 1;
      // rounds in the prior history at turn t: t; blurred ones: by whole steps
      const blurredBefore = Math.max(0, Math.floor((t - 1 - K) / STEP) * STEP);
      const blurredNow = Math.max(0, Math.floor((t - K) / STEP) * STEP);
      if (blurredNow === blurredBefore) {
        expect(diff, `turn ${t}: the prefix holds up to the previous turn`).toBe(previousTurnAnswer);
        expect(straight.changes[t]).toBe(`history changed from item ${previousTurnAnswer + 1}: the previous turn now replays as prose`);
      } else {
        steps++;
        // turn b's tool result is message 4b + 2: the first newly blurred output
        expect(diff, `turn ${t}: a step`).toBe(4 * blurredBefore + 2);
        expect(straight.changes[t]).toBe(`history changed from item ${4 * blurredBefore + 3}: microcompact blurred ${blurredNow - blurredBefore} outputs`);
      }
      // within a turn, the second request extends the first byte for byte
      expect(firstDifference(now, messagesOf(straight.bodies[2 * t + 1]!))).toBeUndefined();
    }
    expect(steps).toBe(Math.floor((TURNS - 1 - K) / STEP));

    // the same session again in the same workspace, closed and resumed halfway
    for (const f of await fs.readdir(dir)) if (f.startsWith("history.sqlite")) await fs.rm(path.join(dir, f), { recursive: true, force: true });
    const again = await makeApp(fake, { ...options, dir });
    const restarted: Turned = { bodies: [], changes: [] };
    const half = 5;
    await runTurns(again.app, 0, half, restarted);
    const id = again.app.session().id;
    await again.app.close();
    const store = await openStore(again.dbPath);
    const resumed = await App.create({
      store,
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseUrl: fake.anthropicBase,
      credentials: { keys: { anthropic: TEST_KEY }, baseUrls: {} },
      workspace: again.workspace,
      permission: "auto",
      compactionThreshold: 0.8,
      reasoning: "off",
      open: { resume: id },
      headless: true,
      ...options,
    } as AppOptions);
    await runTurns(resumed, half, TURNS, restarted);
    await resumed.close();
    expect(restarted.bodies).toHaveLength(straight.bodies.length);
    restarted.bodies.forEach((b, i) => expect(messagesOf(b), `request ${i + 1}`).toEqual(messagesOf(straight.bodies[i]!)));
    // the change line is read from the stored print, so it holds across the restart too
    expect(restarted.changes).toEqual(straight.changes);
  });
});

describe("microcompact in steps across processes", () => {
  it("each turn a new headless process (--continue): the first request repeats the previous process's last request up to the previous turn, except at a step", async () => {
    const home = await makeHome({ ANTHROPIC_API_KEY: TEST_KEY });
    await fs.mkdir(path.join(home.root, "config", "albedo"), { recursive: true });
    await fs.writeFile(path.join(home.root, "config", "albedo", "config.json"), JSON.stringify({ compaction: "microcompact", keepToolRounds: K, microcompactStep: STEP }));
    await seed(home.workspace);
    const turns = 6;
    const bodies: string[] = [];
    for (let t = 0; t < turns; t++) {
      const start = fake.requests.length;
      script(t);
      const r = await runCli(
        ["-p", `Please read f${t}.txt`, ...(t > 0 ? ["--continue"] : []), "--permission", "auto", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase],
        home,
      );
      // headless mode shows its tool lines on stderr
      expect(r.code, r.stderr).toBe(0);
      expect(fake.requests.length - start).toBe(2);
      bodies.push(...fake.requests.slice(start).map((x) => x.rawBody));
    }
    let steps = 0;
    for (let t = 1; t < turns; t++) {
      const diff = firstDifference(messagesOf(bodies[2 * t - 1]!), messagesOf(bodies[2 * t]!));
      const blurredBefore = Math.max(0, Math.floor((t - 1 - K) / STEP) * STEP);
      const blurredNow = Math.max(0, Math.floor((t - K) / STEP) * STEP);
      if (blurredNow === blurredBefore) expect(diff, `turn ${t}`).toBe((t - 1) * 4 + 1);
      else {
        steps++;
        expect(diff, `turn ${t}: a step`).toBe(4 * blurredBefore + 2);
      }
    }
    expect(steps).toBe(1);
  });
});

describe("summaries at a turn boundary", () => {
  const isSummaryRequest = (i: number): boolean => JSON.stringify(fake.requests[i]!.body.system ?? "").includes(SUMMARY_SYSTEM.slice(0, 40));
  const words = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

  it("a failed automatic summary is not asked for again within the turn, so the turn's prefix stays as it started", async () => {
    const { app, workspace } = await makeApp(fake, { compaction: "summary", contextWindow: 20_000, model: "local-model" });
    await fs.writeFile(path.join(workspace, "a.txt"), "alpha\n");
    fake.script({ text: words(3000, "a") });
    await app.submit(words(3000, "q"));
    fake.script({ text: words(3000, "b") });
    await app.submit(words(3000, "r"));
    const notices: string[] = [];
    app.subscribe((e) => {
      if (e.type === "notice") notices.push(e.text);
    });
    const start = fake.requests.length;
    fake.script(
      { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "summary refused for the test" } } },
      { toolCalls: [{ name: "read", input: { path: "a.txt" }, id: "toolu_a" }] },
      { toolCalls: [{ name: "read", input: { path: "a.txt" }, id: "toolu_b" }] },
      { text: "finished" },
    );
    await app.submit("third question");
    const sent = fake.requests.slice(start).map((_, i) => isSummaryRequest(start + i));
    // one summary request (refused), then the turn's three requests, none of them summaries
    expect(sent).toEqual([true, false, false, false]);
    expect(notices.filter((n) => /Automatic summary failed/.test(n))).toHaveLength(1);
    const bodies = fake.requests.slice(start + 1).map((r) => messagesOf(r.rawBody));
    expect(firstDifference(bodies[0]!, bodies[1]!)).toBeUndefined();
    expect(firstDifference(bodies[1]!, bodies[2]!)).toBeUndefined();
    await app.close();
  });
});
