// Provider faults through the real CLI: each one must reach the person as a readable sentence
// on stderr, leave a history that loads, and leave the next turn working against the strict
// fake (which refuses any request a real provider would refuse).
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider, type Step } from "../helpers/fake-provider.js";
import { makeHome, runCli, type CliResult, type Home } from "../helpers/cli.js";
import { anthropicArgs, openaiArgs, readRecord, removeHomes, secretHits, Tally, writeConfig, writeFigures } from "./lib.js";

const KEY = "sk-ant-reliability-FAULTS-7f3a9c";
const homes: Home[] = [];
const fakes: FakeProvider[] = [];
const tally = new Tally();
let secretsFound = 0;

afterAll(async () => {
  const hits = await secretHits(
    homes.map((h) => h.root),
    [KEY],
  );
  secretsFound = hits.length;
  await Promise.all(fakes.map((f) => f.close()));
  await writeFigures("faults", { ...tally.figures(), secretsFound });
  await removeHomes(homes);
  expect(hits).toEqual([]);
});

type Shape = "anthropic" | "openai";

/** Each case has its own fake (the script queue is per fake) and home, so cases run side by side. */
interface Ctx {
  fake: FakeProvider;
  h: Home;
  args(shape?: Shape): string[];
  /** One faulty turn; returns what the person saw. */
  faultyTurn(steps: Step[], shape?: Shape): Promise<CliResult>;
  /** The history loads without a bad row and the next turn goes through, accepted by the strict fake. */
  nextTurnWorks(shape?: Shape): Promise<void>;
}

async function context(): Promise<Ctx> {
  const fake = await startFakeProvider({ key: KEY });
  fakes.push(fake);
  const h = await makeHome({ ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY });
  homes.push(h);
  const args = (shape: Shape = "anthropic"): string[] => (shape === "anthropic" ? anthropicArgs(fake) : openaiArgs(fake));
  return {
    fake,
    h,
    args,
    faultyTurn: (steps, shape = "anthropic") => {
      fake.script(...steps);
      return runCli(["-p", "please answer", ...args(shape)], h);
    },
    nextTurnWorks: (shape = "anthropic") => nextTurnWorks(fake, h, args(shape)),
  };
}

async function nextTurnWorks(fake: FakeProvider, h: Home, args: string[]): Promise<void> {
  const before = await readRecord(h.db);
  expect(before.bad).toEqual([]);
  const rejected = fake.rejections().length;
  fake.script({ text: "The next turn works." });
  const r = await runCli(["-p", "and now?", "--continue", ...args], h);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("The next turn works.\n");
  expect(fake.rejections().length).toBe(rejected);
  const after = await readRecord(h.db);
  expect(after.bad).toEqual([]);
  expect(after.session.id).toBe(before.session.id);
  // nothing stored before was lost or changed by the next turn
  expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
  expect(after.messages.slice(-2).map((m) => [m.role, m.status])).toEqual([
    ["user", "complete"],
    ["assistant", "complete"],
  ]);
}

function fault(name: string, fn: (c: Ctx) => Promise<void>, timeout = 45_000): void {
  tally.it(name, async () => fn(await context()), timeout);
}

describe.concurrent("provider faults", () => {
  fault("429 with retry-after: waits as asked, says so, then succeeds", async ({ faultyTurn, nextTurnWorks }) => {
    const r = await faultyTurn([
      { status: 429, headers: { "retry-after": "1" }, body: { type: "error", error: { type: "rate_limit_error", message: "Rate limited, slow down" } } },
      { text: "Answered after waiting." },
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Answered after waiting.\n");
    expect(r.stderr).toMatch(/warning: HTTP 429 rate_limit_error: Rate limited, slow down; retrying in 1\.0 s \(attempt 1\)/);
    await nextTurnWorks();
  });

  fault("429 asking for a wait longer than a minute: a clear error instead of a silent stall", async ({ faultyTurn, nextTurnWorks }) => {
    const r = await faultyTurn([{ status: 429, headers: { "retry-after": "3600" } }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: .*is rate-limiting requests \(HTTP 429\).*the server asks to wait 3600 s before retrying/);
    await nextTurnWorks();
  });

  for (const status of [500, 502, 503, 529]) {
    fault(`${status} then success: retried with backoff, the answer arrives`, async ({ faultyTurn, nextTurnWorks }) => {
      const r = await faultyTurn([{ status }, { text: `Answered after a ${status}.` }]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`Answered after a ${status}.\n`);
      expect(r.stderr).toMatch(new RegExp(`warning: HTTP ${status} \\w+: .+; retrying in \\d+\\.\\d s \\(attempt 1\\)`));
      await nextTurnWorks();
    });
  }

  fault("500 on every attempt: gives up after the retries with a sentence that says so", async ({ faultyTurn, nextTurnWorks }) => {
    const r = await faultyTurn([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: .*had a server error \(HTTP 500\): Internal server error \(gave up after 3 retries\)/);
    await nextTurnWorks();
  });

  fault("connection reset before the first byte: retried, then the answer", async ({ faultyTurn, nextTurnWorks }) => {
    const r = await faultyTurn([{ fault: "reset_before" }, { text: "Answered after a reset." }]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Answered after a reset.\n");
    expect(r.stderr).toMatch(/warning: (connection reset \(ECONNRESET\)|the server closed the connection \(UND_ERR_SOCKET\)); retrying/);
    await nextTurnWorks();
  });

  for (const shape of ["anthropic", "openai"] as const) {
    fault(`reset mid-stream (${shape}): no retry, the partial answer kept as interrupted`, async ({ h, faultyTurn, nextTurnWorks }) => {
      const r = await faultyTurn([{ fault: "reset_mid", text: "The first half of the answer" }], shape);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/albedo-tui: the connection to .+ broke mid-answer \(.+\); the partial answer was kept/);
      const rec = await readRecord(h.db);
      expect(rec.messages.map((m) => [m.role, m.status])).toEqual([
        ["user", "complete"],
        ["assistant", "interrupted"],
      ]);
      expect(JSON.stringify(rec.messages[1]!.blocks)).toContain("The first half");
      await nextTurnWorks(shape);
    });
  }

  fault("a stream that stops without its final event: a clear error, partial kept", async ({ h, faultyTurn, nextTurnWorks }) => {
    const r = await faultyTurn([{ fault: "no_final", text: "An answer that never finishes" }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: the stream ended before the provider finished \(.+ closed the connection mid-answer\)/);
    const rec = await readRecord(h.db);
    expect(rec.messages[1]!.status).toBe("interrupted");
    expect(JSON.stringify(rec.messages[1]!.blocks)).toContain("An answer that never");
    await nextTurnWorks();
  });

  for (const shape of ["anthropic", "openai"] as const) {
    fault(`malformed JSON in an event (${shape}): a clear error, not a crash`, async ({ faultyTurn, nextTurnWorks }) => {
      const r = await faultyTurn([{ fault: "malformed_json", text: "Before the garbage arrives" }], shape);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/albedo-tui: .+ sent a malformed stream (event|chunk).*: not valid JSON/);
      expect(r.stderr).not.toMatch(/at .+\.js:\d+/); // no stack trace
      await nextTurnWorks(shape);
    });
  }

  for (const shape of ["anthropic", "openai"] as const) {
    fault(`an event of an unknown type (${shape}): ignored, the answer whole, a warning in albedo.log`, async ({ h, faultyTurn, nextTurnWorks }) => {
      const r = await faultyTurn([{ fault: "unknown_event", text: "The whole answer despite the mystery." }], shape);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("The whole answer despite the mystery.\n");
      expect(r.stderr).toMatch(/warning: ignored an unknown .*(albedo_mystery|chunk)/);
      const log = await fs.readFile(path.join(h.env.XDG_STATE_HOME as string, "albedo", "albedo.log"), "utf8");
      expect(log).toMatch(/warning ignored an unknown .*(albedo_mystery|chunk)/);
      const rec = await readRecord(h.db);
      expect(rec.messages[1]).toMatchObject({ status: "complete", blocks: [{ type: "text", text: "The whole answer despite the mystery." }] });
      await nextTurnWorks(shape);
    });
  }

  fault("one byte a second: the idle timeout (config idleTimeoutSeconds: 2) ends it with a clear error", async ({ h, faultyTurn, nextTurnWorks }) => {
    await writeConfig(h, { idleTimeoutSeconds: 2 });
    const r = await faultyTurn([{ fault: "drip" }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: no data from the provider for 2 s \(.+\); gave up waiting/);
    await nextTurnWorks();
  });

  fault("an error event inside the stream: the provider's words, partial kept", async ({ faultyTurn, nextTurnWorks }) => {
    const r = await faultyTurn([{ fault: "error_event", text: "Working on it" }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: .*Overloaded/);
    await nextTurnWorks();
  });

  fault("401: the key was refused, names what to set, shows no key, no retry", async ({ fake, h, nextTurnWorks }) => {
    const wrong = "sk-ant-WRONG-key-0123456789";
    const n = fake.requests.length;
    // the fake refuses the key itself (as the real API would), so no step is scripted
    const r = await runCli(["-p", "hi", ...anthropicArgs(fake)], h, { ANTHROPIC_API_KEY: wrong });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: the key was refused by .+ \(HTTP 401\): invalid x-api-key\. Check ANTHROPIC_API_KEY or the config file\./);
    expect(r.stderr + r.stdout).not.toContain(wrong);
    expect(fake.requests.length - n).toBe(1);
    await nextTurnWorks();
    expect((await secretHits([h.root], [wrong])).length).toBe(0);
  });

  fault("400 context too long with nothing to summarise: names the window and /compact", async ({ faultyTurn, nextTurnWorks }) => {
    const r = await faultyTurn([
      { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 215000 tokens > 200000 maximum" } } },
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /albedo-tui: the conversation is too long for claude-sonnet-4-5's context window of 200,000 tokens: prompt is too long: 215000 tokens > 200000 maximum\. Run \/compact to shrink it, or start a new session\./,
    );
    await nextTurnWorks();
  });

  fault(
    "400 context too long with history: one summary compaction, then the retried turn succeeds",
    async ({ fake, h, nextTurnWorks }) => {
      // three long turns (≈20k tokens each by chars/4) so that an older prefix exists to summarise
      for (let i = 0; i < 3; i++) {
        fake.script({ text: `Noted part ${i}.` });
        const big = `part ${i}: ` + `lorem ipsum dolor sit amet ${i} `.repeat(2800);
        const r = await runCli(["-p", big, ...(i > 0 ? ["--continue"] : []), ...anthropicArgs(fake)], h);
        expect(r.code).toBe(0);
      }
      const start = fake.requests.length;
      fake.script(
        { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 215000 tokens > 200000 maximum" } } },
        { text: "SUMMARY: three long parts were noted." },
        { text: "Answered after compaction." },
      );
      const r = await runCli(["-p", "what did I send?", "--continue", ...anthropicArgs(fake)], h);
      expect(r.stderr).toMatch(/warning: The provider said the context is too long; summarised messages 1–\d+\. Retrying once\./);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Answered after compaction.\n");
      const sent = fake.requests.slice(start);
      expect(sent.map((q) => q.rejected)).toEqual([undefined, undefined, undefined]);
      // the retried request carries the summary in place of the older prefix
      expect(sent[2]!.rawBody).toContain("SUMMARY: three long parts were noted.");
      expect(sent[2]!.rawBody.length).toBeLessThan(sent[0]!.rawBody.length);
      await nextTurnWorks();
    },
    60_000,
  );
});
