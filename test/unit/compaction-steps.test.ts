// Microcompact in steps: between steps the prepared history of each turn's
// requests is byte-identical to the previous turn's, so a provider's cached prefix holds; a
// step changes it from its first newly blurred output on; the boundary is a pure function of
// the record, so a resumed session (the record loaded afresh) prepares the same bytes.
import { describe, expect, it } from "vitest";
import type { Block, StoredMessage } from "../../src/record/types.js";
import type { StoredSummary } from "../../src/compaction/types.js";
import { blurredRounds, countRounds, DEFAULT_MICROCOMPACT_STEP, isRoundStart } from "../../src/compaction/microcompact.js";
import { prepareHistory, type PrepareOptions } from "../../src/compaction/prepare.js";
import { prng } from "../helpers/prng.js";

/** A scripted session: per turn a prompt, 0–3 tool rounds with outputs of mixed sizes, an answer. */
function session(seed: number, turns: number): { msgs: StoredMessage[]; turnStarts: number[] } {
  const rnd = prng(seed);
  const msgs: StoredMessage[] = [];
  const turnStarts: number[] = [];
  let seq = 0;
  let call = 0;
  const add = (role: "user" | "assistant", blocks: Block[]): void => {
    seq++;
    msgs.push({
      id: 500 + seq,
      sessionId: "s-steps",
      seq,
      role,
      blocks,
      status: "complete",
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      ...(role === "assistant" ? { model: "claude-sonnet-4-5" } : {}),
    });
  };
  const tools = ["bash", "read", "edit", "grep"];
  for (let t = 0; t < turns; t++) {
    turnStarts.push(msgs.length);
    add("user", [{ type: "text", text: `turn ${t}: please continue with step ${t}` }]);
    const rounds = Math.floor(rnd() * 4);
    for (let r = 0; r < rounds; r++) {
      const n = 1 + Math.floor(rnd() * 2);
      const uses: Block[] = [];
      const results: Block[] = [];
      for (let c = 0; c < n; c++) {
        const id = `call_${++call}`;
        const name = tools[Math.floor(rnd() * tools.length)]!;
        uses.push({ type: "tool_use", id, name, input: { arg: `${name}-${call}` } });
        // mixed sizes: some shorter than their marker (never blurred), some large
        const size = rnd() < 0.2 ? 20 : 200 + Math.floor(rnd() * 6000);
        results.push({ type: "tool_result", toolUseId: id, name, output: `${name} output ${call} `.padEnd(size, "x"), isError: rnd() < 0.1 });
      }
      add("assistant", [{ type: "text", text: `round ${r}` }, ...uses]);
      add("user", results);
    }
    add("assistant", [{ type: "text", text: `done with turn ${t}` }]);
  }
  return { msgs, turnStarts };
}

const opts = (o: Partial<PrepareOptions>): PrepareOptions => ({ strategy: "microcompact", summaries: [], keepRounds: 3, method: "chars/4", contextWindow: 10_000_000, ...o });

/** The prepared history as the bytes of its messages, one string per message. */
function items(history: readonly StoredMessage[], o: PrepareOptions): string[] {
  return prepareHistory(history, o).messages.map((m) => JSON.stringify(m));
}

function firstDifference(a: readonly string[], b: readonly string[]): number | undefined {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return undefined;
}

/** Index of round n's first message (0-based rounds). */
function roundStart(msgs: readonly StoredMessage[], n: number): number {
  let seen = 0;
  for (let i = 0; i < msgs.length; i++) {
    if (!isRoundStart(msgs[i]!)) continue;
    if (seen === n) return i;
    seen++;
  }
  return msgs.length;
}

describe("blurredRounds", () => {
  it("step 1 is the moving boundary: everything but the last K rounds", () => {
    for (let r = 0; r < 30; r++) expect(blurredRounds(r, 3, 1)).toBe(Math.max(0, r - 3));
  });

  it("leaves between K and K + step − 1 rounds whole, and moves only by whole steps", () => {
    for (const k of [0, 1, 3, 5]) {
      for (const s of [1, 2, 5, 8]) {
        let last = 0;
        for (let r = 0; r < 80; r++) {
          const b = blurredRounds(r, k, s);
          if (r <= k) expect(b).toBe(0);
          else {
            expect(r - b).toBeGreaterThanOrEqual(k);
            expect(r - b).toBeLessThanOrEqual(k + s - 1);
          }
          expect(b % s).toBe(0);
          expect(b === last || b === last + s).toBe(true);
          last = b;
        }
      }
    }
  });

  it("an infinite K blurs nothing; a fractional or silly step counts as whole rounds, at least 1", () => {
    expect(blurredRounds(100, Number.POSITIVE_INFINITY, 4)).toBe(0);
    expect(blurredRounds(10, 3, 0)).toBe(7);
    expect(blurredRounds(10, 3, 2.7)).toBe(6);
    expect(blurredRounds(10, 3, Number.NaN)).toBe(7);
  });
});

describe("microcompact in steps over a long session", () => {
  const { msgs, turnStarts } = session(17, 60);
  const priorAt = (t: number): StoredMessage[] => msgs.slice(0, turnStarts[t]);

  for (const [k, step] of [
    [3, DEFAULT_MICROCOMPACT_STEP],
    [3, 4],
    [1, 3],
    [0, 5],
  ] as const) {
    it(`K ${k}, step ${step}: each turn's prepared history extends the previous one byte for byte, except at a step`, () => {
      let breaks = 0;
      let steps = 0;
      for (let t = 1; t < turnStarts.length; t++) {
        const before = priorAt(t - 1);
        const now = priorAt(t);
        const a = items(before, opts({ keepRounds: k, step }));
        const b = items(now, opts({ keepRounds: k, step }));
        const bPrev = blurredRounds(countRounds(before), k, step);
        const bNow = blurredRounds(countRounds(now), k, step);
        const diff = firstDifference(a, b);
        if (bNow === bPrev) {
          // between steps: the previous prepared history is a prefix of this one, byte for byte
          expect(diff, `turn ${t}`).toBeUndefined();
        } else {
          steps++;
          expect(bNow - bPrev).toBe(step);
          // the prefix holds up to the first newly blurred round
          if (diff !== undefined) {
            breaks++;
            expect(diff).toBeGreaterThan(roundStart(now, bPrev));
            expect(diff).toBeLessThanOrEqual(roundStart(now, bNow));
          }
        }
      }
      expect(steps).toBeGreaterThan(0);
      expect(breaks).toBeLessThanOrEqual(steps);
      expect(steps).toBeLessThanOrEqual(Math.ceil(countRounds(msgs) / step));
    });
  }

  it("with step 1 (the behaviour before steps) the prefix breaks on most turns that ran tools", () => {
    let breaks = 0;
    let toolTurns = 0;
    for (let t = 4; t < turnStarts.length; t++) {
      const before = priorAt(t - 1);
      const now = priorAt(t);
      if (countRounds(now) > countRounds(before)) toolTurns++;
      if (firstDifference(items(before, opts({ step: 1 })), items(now, opts({ step: 1 }))) !== undefined) breaks++;
    }
    expect(toolTurns).toBeGreaterThan(20);
    expect(breaks).toBeGreaterThan(toolTurns * 0.8);
    // and in default steps, at most one break per step of rounds
    let stepped = 0;
    for (let t = 4; t < turnStarts.length; t++) {
      if (firstDifference(items(priorAt(t - 1), opts({})), items(priorAt(t), opts({}))) !== undefined) stepped++;
    }
    expect(stepped).toBeLessThanOrEqual(Math.ceil(countRounds(msgs) / DEFAULT_MICROCOMPACT_STEP));
  });

  it("a resumed session (the record loaded afresh from stored JSON) prepares the same bytes", () => {
    for (const t of [5, 23, 41, 59]) {
      const fresh = JSON.parse(JSON.stringify(priorAt(t))) as StoredMessage[];
      for (const strategy of ["microcompact", "microcompact+summary"] as const) {
        expect(items(fresh, opts({ strategy }))).toEqual(items(priorAt(t), opts({ strategy })));
      }
    }
  });

  it("a stored summary does not move the step boundary: later outputs are blurred exactly as without it", () => {
    const prior = priorAt(50);
    const cut = turnStarts[20]!;
    const s: StoredSummary = {
      id: 1,
      sessionId: "s-steps",
      fromSeq: 1,
      toSeq: prior[cut - 1]!.seq,
      text: "the first twenty turns",
      model: "claude-sonnet-4-5",
      createdAt: "2026-01-01T01:00:00.000Z",
    };
    const plain = prepareHistory(prior, opts({ strategy: "microcompact" })).messages;
    const withSummary = prepareHistory(prior, opts({ strategy: "microcompact+summary", summaries: [s] }));
    expect(withSummary.summary?.id).toBe(1);
    // the note, then exactly what microcompact alone prepared after the cut
    expect(withSummary.messages.slice(1).map((m) => JSON.stringify(m))).toEqual(plain.slice(cut).map((m) => JSON.stringify(m)));

    // and the summarised history is stable from turn to turn between steps, note included
    let holds = 0;
    for (let t = 31; t < 60; t++) {
      const o = opts({ strategy: "microcompact+summary", summaries: [s] });
      const before = priorAt(t - 1);
      const now = priorAt(t);
      const same = blurredRounds(countRounds(before), 3, DEFAULT_MICROCOMPACT_STEP) === blurredRounds(countRounds(now), 3, DEFAULT_MICROCOMPACT_STEP);
      if (!same) continue;
      expect(firstDifference(items(before, o), items(now, o)), `turn ${t}`).toBeUndefined();
      holds++;
    }
    expect(holds).toBeGreaterThan(10);
  });
});
