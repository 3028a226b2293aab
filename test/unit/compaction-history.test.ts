import { describe, expect, it } from "vitest";
import type { Block, StoredMessage } from "../../src/record/types.js";
import type { StoredSummary } from "../../src/session/store/types.js";
import type { CompactionStrategy } from "../../src/session/controller/types.js";
import { estimateMessage, estimateMessages } from "../../src/compaction/estimate.js";
import { clearedOutputMarker, microcompact } from "../../src/compaction/microcompact.js";
import {
  applySummary,
  isPlainPrompt,
  planSummary,
  planSummaryInput,
  summaryRequestParts,
} from "../../src/compaction/summary.js";
import { AUTO_COMPACTION_OFF, autoCompactionOff, prepareHistory } from "../../src/compaction/prepare.js";
import { imageTarget, replayMessages } from "../../src/replay/replay.js";
import { prng as rng } from "../helpers/prng.js";

// ---- building histories as plain data -------------------------------------------------------

interface Call {
  name: string;
  input: unknown;
  output?: string; // absent: the round was killed before its result landed
  isError?: boolean;
}

class History {
  readonly msgs: StoredMessage[] = [];
  private seq = 0;
  private call = 0;
  constructor(readonly sessionId = "s1") {}

  private add(role: "user" | "assistant", blocks: Block[]): this {
    this.seq++;
    this.msgs.push({
      id: 1000 + this.seq,
      sessionId: this.sessionId,
      seq: this.seq,
      role,
      blocks,
      status: "complete",
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, this.seq)).toISOString(),
      ...(role === "assistant" ? { model: "claude-sonnet-4-5" } : {}),
    });
    return this;
  }
  prompt(text: string, extra: Block[] = []): this {
    return this.add("user", [{ type: "text", text }, ...extra]);
  }
  say(text: string, extra: Block[] = []): this {
    return this.add("assistant", [...extra, { type: "text", text }]);
  }
  /** one tool round: an assistant message calling tools, then one user message of results */
  round(calls: Call[], text = "Let me check."): this {
    const uses: Block[] = calls.map((c) => ({ type: "tool_use", id: `call_${++this.call}`, name: c.name, input: c.input }));
    this.add("assistant", [{ type: "reasoning", text: "thinking", opaque: { kind: "signature", body: "sig" } }, { type: "text", text }, ...uses]);
    const results: Block[] = [];
    calls.forEach((c, i) => {
      if (c.output === undefined) return;
      const use = uses[i] as Block & { type: "tool_use" };
      results.push({ type: "tool_result", toolUseId: use.id, name: c.name, output: c.output, isError: c.isError ?? false });
    });
    if (results.length > 0) this.add("user", results);
    return this;
  }
}

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const image: Block = { type: "image", mediaType: "image/png", data: PNG, bytes: 70, width: 640, height: 480 };

// multi-byte text so byte sizes and string lengths differ
const big = (tag: string, n: number): string => `${tag}: ` + "données façade ✓ ".repeat(n);

function fiveRounds(): History {
  return new History()
    .prompt("Fix the failing build.", [image])
    .round([{ name: "bash", input: { command: "npm test" }, output: big("r1 bash", 200), isError: true }])
    .round([
      { name: "read", input: { path: "src/a.ts" }, output: big("r2 read", 100) },
      { name: "grep", input: { pattern: "foo" }, output: big("r2 grep", 50) },
    ])
    .round([{ name: "edit", input: { path: "src/a.ts", old: "a", new: "b" }, output: big("r3 edit", 30) }])
    .round([{ name: "bash", input: { command: "npm test" }, output: big("r4 bash", 80), isError: true }])
    .round([{ name: "read", input: { path: "src/b.ts" }, output: big("r5 read", 60) }])
    .say("Done: the build passes.");
}



function randomHistory(seed: number): History {
  const r = rng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const h = new History();
  const turns = int(1, 8);
  for (let t = 0; t < turns; t++) {
    h.prompt(`request ${t} ` + "word ".repeat(int(1, 200)), r() < 0.15 ? [image] : []);
    const rounds = int(0, 5);
    for (let k = 0; k < rounds; k++) {
      const calls: Call[] = [];
      const n = int(1, 3);
      for (let c = 0; c < n; c++) {
        // occasionally a killed round whose results never landed
        const killed = r() < 0.07;
        const call: Call = { name: ["bash", "read", "grep", "edit"][int(0, 3)]!, input: { arg: "x".repeat(int(1, 40)) } };
        if (!killed) {
          call.output = "line of output\n".repeat(int(0, 300));
          call.isError = r() < 0.2;
        }
        calls.push(call);
      }
      h.round(calls);
    }
    if (r() < 0.8) h.say("answer " + "text ".repeat(int(1, 150)));
  }
  return h;
}

const clone = <T>(x: T): T => structuredClone(x);

// ---- microcompact ---------------------------------------------------------------------------

describe("microcompact", () => {
  it("keeps the last K rounds whole and blurs older outputs with name, error flag and byte size", () => {
    const h = fiveRounds();
    const { messages, removed } = microcompact(h.msgs, { keepRounds: 3 });
    expect(messages).toHaveLength(h.msgs.length);

    const resultsOf = (i: number) => h.msgs[i]!.blocks.filter((b) => b.type === "tool_result") as Array<Block & { type: "tool_result" }>;
    // message layout: 0 prompt, 1-2 round 1, 3-4 round 2, 5-6 round 3, 7-8 round 4, 9-10 round 5, 11 answer
    const blurredIdx = [2, 4];
    const keptIdx = [6, 8, 10];
    let bytes = 0;
    let outputs = 0;
    for (const i of blurredIdx) {
      const before = resultsOf(i);
      const after = messages[i]!.blocks as Array<Block & { type: "tool_result" }>;
      expect(after).toHaveLength(before.length);
      before.forEach((b, j) => {
        const n = Buffer.byteLength(b.output);
        expect(n).toBeGreaterThan(b.output.length); // the fixture is multi-byte on purpose
        expect(after[j]).toEqual({ type: "tool_result", toolUseId: b.toolUseId, name: b.name, isError: b.isError, output: clearedOutputMarker(b.name, b.isError, n) });
        bytes += n;
        outputs++;
      });
    }
    expect(messages[2]!.blocks[0]).toMatchObject({ output: `[error output of bash cleared: ${Buffer.byteLength(resultsOf(2)[0]!.output).toLocaleString("en-US")} bytes]` });
    expect((messages[4]!.blocks[1] as { output: string }).output).toMatch(/^\[output of grep cleared: [\d,]+ bytes\]$/);
    for (const i of keptIdx) expect(messages[i]!.blocks).toEqual(h.msgs[i]!.blocks);
    expect(removed).toEqual({ outputs, bytes });
    expect(outputs).toBe(3);
  });

  it("leaves tool inputs, prose, reasoning and images alone", () => {
    const h = fiveRounds();
    const { messages } = microcompact(h.msgs, { keepRounds: 1 });
    h.msgs.forEach((m, i) => {
      const kept = m.blocks.filter((b) => b.type !== "tool_result");
      const after = messages[i]!.blocks.filter((b) => b.type !== "tool_result");
      expect(after).toEqual(kept);
      expect(messages[i]!.role).toBe(m.role);
    });
  });

  it("K = 0 blurs every output; K at or above the number of rounds blurs none", () => {
    const h = fiveRounds();
    expect(microcompact(h.msgs, { keepRounds: 0 }).removed.outputs).toBe(6);
    expect(microcompact(h.msgs, { keepRounds: 5 }).removed).toEqual({ outputs: 0, bytes: 0 });
    expect(microcompact(h.msgs, { keepRounds: 50 }).messages.map((m) => m.blocks)).toEqual(h.msgs.map((m) => m.blocks));
  });

  it("keeps outputs shorter than their marker, and blurring twice changes nothing more", () => {
    const h = new History()
      .prompt("go")
      .round([{ name: "bash", input: { command: "true" }, output: "ok" }])
      .round([{ name: "bash", input: { command: "cat big" }, output: "y".repeat(5000) }])
      .round([{ name: "bash", input: { command: "ls" }, output: "a b c" }]);
    const once = microcompact(h.msgs, { keepRounds: 1 });
    expect(once.removed).toEqual({ outputs: 1, bytes: 5000 });
    expect((once.messages[2]!.blocks[0] as { output: string }).output).toBe("ok");
    const twice = microcompact(once.messages, { keepRounds: 1 });
    expect(twice.removed.outputs).toBe(0);
    expect(twice.messages).toEqual(once.messages);
  });

  it("the record is byte-for-byte unchanged", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const h = randomHistory(seed);
      const before = JSON.stringify(h.msgs);
      const copy = clone(h.msgs);
      microcompact(h.msgs, { keepRounds: seed % 4 });
      expect(JSON.stringify(h.msgs)).toBe(before);
      expect(h.msgs).toEqual(copy);
    }
  });

  it("blurred history still replays as prose with the marker", () => {
    const { messages } = microcompact(fiveRounds().msgs, { keepRounds: 3 });
    const wire = replayMessages(messages, { vision: imageTarget("anthropic", true) });
    const part = wire[2]!.content[0] as { type: "text"; text: string };
    expect(part.text).toMatch(/^Error \(bash\): \[error output of bash cleared: [\d,]+ bytes\]$/);
  });
});

// ---- planSummary ----------------------------------------------------------------------------

describe("planSummary", () => {
  it("cuts only right before a plain user prompt, keeps enough after the cut, and takes the latest such cut", () => {
    let planned = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const h = randomHistory(seed);
      const msgs = h.msgs;
      const sizes = msgs.map((m) => estimateMessage(m, "chars/4"));
      const total = sizes.reduce((a, b) => a + b, 0);
      const keepRecentTokens = Math.floor(total * rng(seed * 7)() * 0.9);
      const plan = planSummary(msgs, { keepRecentTokens, method: "chars/4", minPrefixTokens: 0 });
      const suffixFrom = (i: number) => sizes.slice(i).reduce((a, b) => a + b, 0);
      const validCuts = msgs.map((_, i) => i).filter((i) => i >= 1 && isPlainPrompt(msgs[i]!) && suffixFrom(i) >= keepRecentTokens);
      if (!plan) {
        expect(validCuts).toEqual([]);
        continue;
      }
      planned++;
      const cut = msgs.findIndex((m) => m.seq === plan.upToSeq) + 1;
      expect(cut).toBeGreaterThan(0);
      expect(cut).toBeLessThan(msgs.length);
      expect(isPlainPrompt(msgs[cut]!)).toBe(true);
      expect(suffixFrom(cut)).toBeGreaterThanOrEqual(keepRecentTokens);
      expect(cut).toBe(Math.max(...validCuts));
      // never half a tool round: no result after the cut answers a call before it
      const callsBefore = new Set(msgs.slice(0, cut).flatMap((m) => m.blocks.flatMap((b) => (b.type === "tool_use" ? [b.id] : []))));
      const resultsAfter = msgs.slice(cut).flatMap((m) => m.blocks.flatMap((b) => (b.type === "tool_result" ? [b.toolUseId] : [])));
      for (const id of resultsAfter) expect(callsBefore.has(id)).toBe(false);
      // the last turn always stays
      const lastPrompt = msgs.map((m, i) => (isPlainPrompt(m) ? i : -1)).reduce((a, b) => Math.max(a, b), -1);
      expect(cut).toBeLessThanOrEqual(lastPrompt);
    }
    expect(planned).toBeGreaterThan(50);
  });

  it("returns undefined with a single turn, or when everything fits in what is kept", () => {
    const one = new History().prompt("hi").round([{ name: "bash", input: {}, output: "x".repeat(9000) }]).say("done");
    expect(planSummary(one.msgs, { keepRecentTokens: 0, method: "chars/4", minPrefixTokens: 0 })).toBeUndefined();
    const h = fiveRounds().prompt("next").say("ok");
    const total = estimateMessages(h.msgs, "chars/4").tokens;
    expect(planSummary(h.msgs, { keepRecentTokens: total + 1, method: "chars/4", minPrefixTokens: 0 })).toBeUndefined();
  });

  it("does not summarise a prefix too small to be worth it", () => {
    const h = new History().prompt("hi").say("hello").prompt("now the real work").round([{ name: "bash", input: {}, output: "z".repeat(20_000) }]);
    expect(planSummary(h.msgs, { keepRecentTokens: 100, method: "chars/4" })).toBeUndefined();
    expect(planSummary(h.msgs, { keepRecentTokens: 100, method: "chars/4", minPrefixTokens: 0 })).toEqual({ upToSeq: 2 });
  });

  it("goes past an existing summary or not at all", () => {
    const h = new History();
    for (let t = 0; t < 6; t++) h.prompt(`turn ${t}`).round([{ name: "read", input: { t }, output: "q".repeat(4000) }]).say("ok");
    // each turn is 4 messages; summary already covers turns 0-3 (seq 1..16)
    const plan = planSummary(h.msgs, { keepRecentTokens: 1000, method: "chars/4", minPrefixTokens: 0, afterSeq: 16 });
    expect(plan).toEqual({ upToSeq: 20 });
    expect(planSummary(h.msgs, { keepRecentTokens: 1000, method: "chars/4", minPrefixTokens: 0, afterSeq: 20 })).toBeUndefined();
  });
});

// ---- summaries: request and application -----------------------------------------------------

function summary(over: Partial<StoredSummary> & Pick<StoredSummary, "toSeq">): StoredSummary {
  return { id: 1, sessionId: "s1", fromSeq: 1, text: "note", model: "claude-sonnet-4-5", createdAt: "2026-01-02T00:00:00.000Z", ...over };
}

describe("summaries", () => {
  it("asks for goal, decisions, files, commands, errors and next steps, folding in an earlier note", () => {
    const h = fiveRounds();
    const first = summaryRequestParts(h.msgs);
    for (const section of ["## Goal", "## Decisions", "## Files", "## Commands", "## Errors and open problems", "## Next steps"]) {
      expect(first.prompt).toContain(section);
    }
    expect(first.prompt).toContain(`(${h.msgs.length} messages)`);
    expect(first.system.length).toBeGreaterThan(0);
    expect(first.prompt).not.toContain("<earlier-note>");
    const second = summaryRequestParts(h.msgs.slice(0, 1), "Goal: fix the build.");
    expect(second.prompt).toContain("(1 message)");
    expect(second.prompt).toContain("<earlier-note>\nGoal: fix the build.\n</earlier-note>");
  });

  it("replaces the covered prefix by one user message naming the range and the model", () => {
    const h = fiveRounds().prompt("and now the docs").say("on it");
    const out = applySummary(h.msgs, summary({ toSeq: 12, text: "We fixed the build." }));
    expect(out).toHaveLength(h.msgs.length - 12 + 1);
    expect(out[0]).toEqual({
      role: "user",
      blocks: [{ type: "text", text: "[Summary of earlier conversation (messages 1–12), written by claude-sonnet-4-5]\nWe fixed the build." }],
    });
    expect(out.slice(1).map((m) => m.blocks)).toEqual(h.msgs.slice(12).map((m) => m.blocks));
  });

  it("picks the newest summary that covers a prefix; others are ignored", () => {
    const h = fiveRounds().prompt("more").say("ok").prompt("again").say("ok");
    const older = summary({ id: 1, toSeq: 12, text: "old", createdAt: "2026-01-02T00:00:00.000Z" });
    const newer = summary({ id: 2, toSeq: 14, text: "new", createdAt: "2026-01-03T00:00:00.000Z" });
    const otherSession = summary({ id: 3, sessionId: "s2", toSeq: 14, text: "other", createdAt: "2026-01-04T00:00:00.000Z" });
    const beyond = summary({ id: 4, toSeq: 999, text: "beyond", createdAt: "2026-01-05T00:00:00.000Z" });
    for (const list of [[older, newer, otherSession, beyond], [beyond, otherSession, newer, older]]) {
      const out = applySummary(h.msgs, list);
      expect((out[0]!.blocks[0] as { text: string }).text).toMatch(/messages 1–14\), written by claude-sonnet-4-5\]\nnew$/);
      expect(out).toHaveLength(h.msgs.length - 14 + 1);
    }
    expect(applySummary(h.msgs, [otherSession, beyond]).map((m) => m.blocks)).toEqual(h.msgs.map((m) => m.blocks));
  });

  it("plans the next summary after the newest one, spanning both", () => {
    const h = new History();
    for (let t = 0; t < 6; t++) h.prompt(`turn ${t}`).round([{ name: "read", input: { t }, output: "q".repeat(4000) }]).say("ok");
    const prev = summary({ toSeq: 8, text: "turns 0 and 1" });
    const input = planSummaryInput(h.msgs, [prev], { keepRecentTokens: 1000, method: "chars/4", minPrefixTokens: 0 });
    expect(input).toBeDefined();
    expect(input!.previous).toBe(prev);
    expect(input!.fromSeq).toBe(1);
    expect(input!.toSeq).toBe(20);
    expect(input!.prefix.map((m) => m.seq)).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(isPlainPrompt(input!.prefix[0]!)).toBe(true);
  });
});

// ---- prepareHistory -------------------------------------------------------------------------

const strategies: CompactionStrategy[] = ["none", "microcompact", "summary", "microcompact+summary"];

describe("prepareHistory", () => {
  it("leaves the record byte-for-byte unchanged under every strategy", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const h = randomHistory(seed);
      const summaries = [summary({ toSeq: Math.max(1, Math.floor(h.msgs.length / 2)) })];
      const before = JSON.stringify(h.msgs);
      const beforeSummaries = JSON.stringify(summaries);
      const copy = clone(h.msgs);
      for (const strategy of strategies) {
        const r = prepareHistory(h.msgs, { strategy, summaries, keepRounds: 1, contextWindow: 1000, method: "chars/4" });
        // and mutating the prepared copy's arrays does not reach the record either
        r.messages.push({ role: "user", blocks: [] });
        expect(JSON.stringify(h.msgs)).toBe(before);
        expect(JSON.stringify(summaries)).toBe(beforeSummaries);
        expect(h.msgs).toEqual(copy);
      }
    }
  });

  it("none returns the history as it is", () => {
    const h = fiveRounds();
    const r = prepareHistory(h.msgs, { strategy: "none", summaries: [summary({ toSeq: 4 })], method: "chars/4", contextWindow: 200_000 });
    expect(r.messages).toEqual(h.msgs.map((m) => ({ role: m.role, blocks: m.blocks, status: m.status })));
    expect(r.note).toBe("none");
    expect(r.removed).toEqual({ outputs: 0, bytes: 0, summarizedMessages: 0 });
    expect(r.estimate).toEqual(estimateMessages(h.msgs, "chars/4"));
    expect(r.needsSummary).toBe(false);
  });

  it("microcompact blurs beyond K rounds and says so in its note", () => {
    const h = fiveRounds();
    // step 1: the boundary moves with every round (steps are tested in compaction-steps.test.ts)
    const r = prepareHistory(h.msgs, { strategy: "microcompact", summaries: [], keepRounds: 3, step: 1, method: "chars/4", contextWindow: 200_000 });
    expect(r.removed.outputs).toBe(3);
    expect(r.note).toMatch(/^microcompact: 3 outputs, [\d.]+ (kB|bytes|MB)$/);
    expect(r.estimate.tokens).toBeLessThan(estimateMessages(h.msgs, "chars/4").tokens);
    expect(r.needsSummary).toBe(false);
  });

  it("summary applies the stored summary and asks for a new one when pressure passes the threshold", () => {
    const h = new History();
    for (let t = 0; t < 8; t++) h.prompt(`turn ${t}`).round([{ name: "read", input: { t }, output: "w".repeat(8000) }]).say("ok");
    const total = estimateMessages(h.msgs, "chars/4").tokens;
    const over = prepareHistory(h.msgs, { strategy: "summary", summaries: [], method: "chars/4", contextWindow: Math.floor(total / 0.8) - 100 });
    expect(over.overThreshold).toBe(true);
    expect(over.needsSummary).toBe(true);
    const under = prepareHistory(h.msgs, { strategy: "summary", summaries: [], method: "chars/4", contextWindow: total * 2 });
    expect(under.needsSummary).toBe(false);

    const applied = prepareHistory(h.msgs, { strategy: "summary", summaries: [summary({ toSeq: 16, text: "first half" })], method: "chars/4", contextWindow: total * 2 });
    expect(applied.removed.summarizedMessages).toBe(16);
    expect(applied.note).toBe("summary: 16 messages");
    expect(applied.messages).toHaveLength(h.msgs.length - 16 + 1);
    expect(applied.estimate.tokens).toBeLessThan(total);
  });

  it("reserved tokens count toward the threshold", () => {
    const h = fiveRounds().prompt("again").say("ok");
    const total = estimateMessages(h.msgs, "chars/4").tokens;
    const window = Math.ceil((total + 10) / 0.8);
    expect(prepareHistory(h.msgs, { strategy: "summary", summaries: [], method: "chars/4", contextWindow: window }).overThreshold).toBe(false);
    expect(prepareHistory(h.msgs, { strategy: "summary", summaries: [], method: "chars/4", contextWindow: window, reserveTokens: 50 }).overThreshold).toBe(true);
  });

  it("microcompact+summary asks for a summary only when blurring was not enough", () => {
    const h = new History();
    for (let t = 0; t < 8; t++) h.prompt(`turn ${t}`).round([{ name: "read", input: { t }, output: "w".repeat(8000) }]).say("ok");
    const total = estimateMessages(h.msgs, "chars/4").tokens;
    const window = Math.floor(total / 0.8) - 100;
    const summaryOnly = prepareHistory(h.msgs, { strategy: "summary", summaries: [], method: "chars/4", contextWindow: window });
    const both = prepareHistory(h.msgs, { strategy: "microcompact+summary", summaries: [], keepRounds: 3, step: 1, method: "chars/4", contextWindow: window });
    expect(summaryOnly.needsSummary).toBe(true);
    expect(both.removed.outputs).toBe(5);
    expect(both.overThreshold).toBe(false);
    expect(both.needsSummary).toBe(false);
    // with a window so small that blurring cannot save it, it still asks
    const tiny = prepareHistory(h.msgs, { strategy: "microcompact+summary", summaries: [], keepRounds: 3, step: 1, method: "chars/4", contextWindow: 2000 });
    expect(tiny.needsSummary).toBe(true);
    expect(tiny.note).toMatch(/^microcompact: 5 outputs/);
  });

  it("does not ask for a summary when the history is one turn that cannot be cut", () => {
    const h = new History().prompt("one long task").round([{ name: "bash", input: {}, output: "v".repeat(50_000) }]).say("done");
    const r = prepareHistory(h.msgs, { strategy: "summary", summaries: [], method: "chars/4", contextWindow: 1000 });
    expect(r.overThreshold).toBe(true);
    expect(r.needsSummary).toBe(false);
  });

  it("with an unknown window, automatic compaction is off and says so", () => {
    const h = new History();
    for (let t = 0; t < 8; t++) h.prompt(`turn ${t}`).round([{ name: "read", input: { t }, output: "w".repeat(8000) }]).say("ok");
    for (const strategy of strategies) {
      const r = prepareHistory(h.msgs, { strategy, summaries: [], method: "chars/4" });
      expect(r.needsSummary).toBe(false);
      expect(r.overThreshold).toBe(false);
      expect(r.autoOff).toBe("auto-compaction off: the model's context window is unknown");
      expect(r.budget).toBeUndefined();
    }
    expect(autoCompactionOff(undefined)).toBe(AUTO_COMPACTION_OFF);
    expect(autoCompactionOff(0)).toBe(AUTO_COMPACTION_OFF);
    expect(autoCompactionOff(200_000)).toBeUndefined();
    expect(prepareHistory(h.msgs, { strategy: "summary", summaries: [], method: "chars/4", contextWindow: 200_000 }).autoOff).toBeUndefined();
  });

  it("labels its estimate with the method used", () => {
    const h = fiveRounds();
    expect(prepareHistory(h.msgs, { strategy: "none", summaries: [], method: "o200k tokenizer" }).estimate.method).toBe("o200k tokenizer + images by size");
    expect(prepareHistory(h.msgs, { strategy: "none", summaries: [], method: "chars/4", vision: false }).estimate.method).toBe("chars/4");
  });
});
