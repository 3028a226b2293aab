// Benchmark 4: what a turn does to the stored history before each provider call — replay it
// as prose, encode the provider's body, and capture the request for the inspector — against
// JSON.stringify of the same body, the work that has to be done to send it anyway.
// Then the same at 10× and 100× the size: the cost per byte must stay flat.
// Times are CPU time of this process (the work is pure computation), in batches; see paired().
import { turnRequest } from "../src/replay/request.js";
import { imageTarget } from "../src/replay/replay.js";
import { encodeAnthropicBody } from "../src/provider/anthropic/encode.js";
import { encodeOpenAIBody } from "../src/provider/chat/encode.js";
import { captureRequest } from "../src/context/capture.js";
import { printEncoded, type RequestPrint } from "../src/context/change.js";
import { encodeRequest } from "../src/provider/encode.js";
import { builtinTools, toolSchemas } from "../src/tools/run.js";
import { SYSTEM_PROMPT } from "../src/session/controller/project-context.js";
import type { ProviderName, Request, ToolSchema } from "../src/provider/types.js";
import { makeHistory, historyBytes, type HistoryMessage } from "./history.js";
import { fmtBytes, fmtMs, paired, type Row } from "./lib.js";

/** 200,000 tokens at chars/4. */
export const BASE_BYTES = 800_000;

interface Case {
  provider: ProviderName;
  model: string;
}

const CASES: Record<string, Case> = {
  anthropic: { provider: "anthropic", model: "claude-sonnet-4-5" },
  // OpenAI's own models are counted with the real o200k tokenizer, the costly path
  openai: { provider: "openai", model: "gpt-4o" },
};

// the request as the turn builds it: the whole history replayed, before the turn's first call
function requestOf(c: Case, history: readonly HistoryMessage[], tools: ToolSchema[]): Request {
  return turnRequest(history, [], {
    provider: c.provider,
    model: c.model,
    system: SYSTEM_PROMPT,
    context: [
      { source: "AGENTS.md", text: "# Project rules\n\nRun npm test before every commit. Keep functions small.\n" },
      { source: "workspace facts", text: "Workspace: /home/me/project\nGit: branch main, clean\nNode: v20.20.2\n" },
    ],
    tools,
    maxOutputTokens: 16_000,
    reasoning: "off",
    vision: imageTarget(c.provider, true),
  });
}

function encode(req: Request): Record<string, unknown> {
  return req.provider === "anthropic" ? encodeAnthropicBody(req) : encodeOpenAIBody(req);
}

let asked = 0;

/** One pass of the product's work: replay → body → capture (as turn.ts does it). Each pass
 * ends with a prompt of its own, as each turn does: a text never counted before goes through
 * the tokenizer (OpenAI models) on every call, as it does for a user, not from the count cache. */
function productPass(
  c: Case,
  history: readonly HistoryMessage[],
  tools: ToolSchema[],
  previous: Map<string, number>,
  previousPrint?: RequestPrint,
): unknown {
  const prompt: HistoryMessage = { role: "user", blocks: [{ type: "text", text: `Now run the tests again (${++asked}).` }], status: "complete" };
  const req = requestOf(c, [...history.slice(0, -1), prompt], tools);
  const body = encode(req);
  const capture = captureRequest(req, {
    iteration: 1,
    capturedAt: new Date().toISOString(),
    previousBytes: previous,
    // the print rows: the request's print, compared with the previous request's, as
    // session/turn/record.ts captures every request of a turn
    ...(previousPrint ? { print: { previous: previousPrint } } : {}),
  });
  return [body, capture];
}

/** Repeats a base history k times (with a closing prompt), so every size has the same mix. */
function scaled(base: readonly HistoryMessage[], k: number): HistoryMessage[] {
  const out: HistoryMessage[] = [];
  for (let i = 0; i < k; i++) out.push(...base);
  if (out.at(-1)?.role === "user") out.push({ role: "assistant", blocks: [{ type: "text", text: "Done." }], status: "complete" });
  out.push({ role: "user", blocks: [{ type: "text", text: "Now run the tests again." }], status: "complete" });
  return out;
}

export async function benchReplay(quick: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  const tools = toolSchemas(builtinTools());
  const baseBytes = quick ? BASE_BYTES / 10 : BASE_BYTES;
  const base = makeHistory({ targetBytes: baseBytes, images: 3, seed: 11 });
  if (base.at(-1)?.role === "user") base.pop(); // scaled() closes each size with one prompt
  const previous = new Map<string, number>([["history:history", 1000]]);

  // `print`: the capture as a turn makes it, with the print that names what changed since the
  // previous request (the rows without it are the figures earlier runs have)
  const plan: { caseName: string; k: number; runs: number; print?: boolean }[] = quick
    ? [
        { caseName: "anthropic", k: 1, runs: 3 },
        { caseName: "anthropic", k: 1, runs: 3, print: true },
        { caseName: "anthropic", k: 10, runs: 2 },
        { caseName: "anthropic", k: 100, runs: 1 },
        { caseName: "openai", k: 1, runs: 2 },
      ]
    : [
        { caseName: "anthropic", k: 1, runs: 15 },
        { caseName: "anthropic", k: 1, runs: 15, print: true },
        { caseName: "anthropic", k: 10, runs: 7 },
        { caseName: "anthropic", k: 100, runs: 5 },
        { caseName: "openai", k: 1, runs: 7 },
        { caseName: "openai", k: 1, runs: 7, print: true },
        { caseName: "openai", k: 10, runs: 3 },
      ];

  const perByte = new Map<string, { k: number; ms: number; floorMs: number }[]>();
  for (const { caseName, k, runs, print } of plan) {
    const c = CASES[caseName]!;
    const history = scaled(base, k);
    const size = historyBytes(history);
    const req = requestOf(c, history, tools);
    const body = encode(req);
    // the previous request: this history without the pass's own prompt
    const previousPrint = print ? printEncoded(req, encodeRequest(req)) : undefined;
    const r = await paired(
      runs,
      () => productPass(c, history, tools, previous, previousPrint),
      () => JSON.stringify(body),
      // two warm-up rounds, batches sized on the second: the first call loads the o200k
      // tokenizer (~0.5 s, once per process), and sized on it every batch was one call timed
      // alone after a full collection (all noise at 2 ms); what each call costs is still all
      // measured, the tokenizer's new text and the first call after a collection included
      { clock: "cpu", warmup: 2 },
    );
    if (!print) {
      const list = perByte.get(caseName) ?? [];
      list.push({ k, ms: r.albedo, floorMs: r.floor });
      perByte.set(caseName, list);
    }
    rows.push({
      benchmark: `replay+encode+capture${print ? "+print" : ""} ${fmtBytes(size)} (${c.provider} ${c.model})`,
      albedo: fmtMs(r.albedo),
      floor: `${fmtMs(r.floor)} JSON.stringify`,
      ratio: r.ratio,
      target: "≤ 1.0×",
      met: r.ratio <= 1.0,
      raw: { historyBytes: size, messages: history.length, runs, batch: r.batch, albedoMs: r.albedoRuns, floorMs: r.floorRuns },
    });
  }

  // Growth: time at k× over time at 1×, divided by k; 1.0 is perfectly linear.
  for (const [caseName, list] of perByte) {
    const one = list.find((x) => x.k === 1);
    const top = list.filter((x) => x.k > 1).sort((a, b) => b.k - a.k)[0];
    if (!one || !top) continue;
    const growth = top.ms / one.ms;
    const floorGrowth = top.floorMs / one.floorMs;
    const limit = top.k * 1.1;
    rows.push({
      benchmark: `replay+capture growth ${top.k}× size (${caseName})`,
      albedo: `${growth.toFixed(1)}× time`,
      floor: `${floorGrowth.toFixed(1)}× JSON.stringify`,
      ratio: growth / top.k,
      target: `≤ ${limit.toFixed(0)}× time (≤ 1.1 per unit)`,
      met: growth <= limit,
      raw: { k: top.k, oneMs: one.ms, topMs: top.ms, floorGrowth },
      // when the floor itself grows faster than the size, the excess is the machine (caches,
      // collecting a heap that holds the large history), which no linear algorithm escapes
      ...(floorGrowth > limit
        ? { note: `JSON.stringify of the same bodies grows ${floorGrowth.toFixed(0)}× for ${top.k}× the size; albedo-tui's work grows ${((growth / floorGrowth) * 100).toFixed(0)}% as fast as that floor's` }
        : {}),
    });
  }
  return rows;
}
