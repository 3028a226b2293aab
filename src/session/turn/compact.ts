// Compaction inside a turn: prepare the prior history for a request (the strategy in force,
// src/compaction/policy.ts), and summarise an older prefix with the model when it is due,
// when /compact asks, or when the provider refused the request as too long.
import type { Block } from "../../record/types.js";
import type { Request, Usage } from "../../provider/types.js";
import { prepareHistory, type PrepareResult } from "../../compaction/prepare.js";
import { planSummaryInput, summaryRequestParts } from "../../compaction/summary.js";
import { fixedTokens, strategyInForce, summarisesAutomatically, summaryKeepRecentTokens } from "../../compaction/policy.js";
import { cutToFit, fitLimit, overWindow, summaryTooLarge } from "../../compaction/window.js";
import { summaryRequest } from "../../replay/request.js";
import { toolSchemas } from "../../tools/run.js";
import { noRedaction } from "../../config/secrets.js";
import { messageOf } from "../../record/errors.js";
import { redactRequest } from "./redact.js";
import type { TurnEnv } from "./env.js";
import { recordCapture } from "./record.js";

/** The compaction note of a captured summary request (it carries no project context). */
export const SUMMARY_REQUEST_NOTE = "summary request";

function reserve(env: TurnEnv): number {
  return fixedTokens(env.system, env.context, toolSchemas(env.tools));
}

/** The prior history (before `turnStart`) as the next request will replay it. */
export async function prepare(env: TurnEnv, turnStart: number): Promise<PrepareResult> {
  const summaries = await env.store.loadSummaries(env.sessionId);
  const configured = env.compaction.strategy;
  const result = prepareHistory(env.history.slice(0, turnStart), {
    strategy: strategyInForce(configured, summaries.length > 0),
    summaries,
    keepRounds: env.compaction.keepRounds,
    ...(env.compaction.step !== undefined ? { step: env.compaction.step } : {}),
    threshold: env.compaction.threshold,
    method: env.tokenMethod,
    vision: env.vision.sees,
    // the other sections of the request take room in the window too
    reserveTokens: reserve(env),
    ...(env.contextWindow !== undefined ? { contextWindow: env.contextWindow } : {}),
  });
  if (!summarisesAutomatically(configured)) result.needsSummary = false;
  return result;
}

interface Summarised {
  /** a line for the person, or undefined when there was nothing to summarise */
  said: string | undefined;
  usage?: Usage;
}

/** Summarises an older prefix of the stored history with the model and stores the summary. */
export async function summarize(
  env: TurnEnv,
  uptoIndex: number,
  signal: AbortSignal,
  opts: { iteration?: number; force?: boolean; providerUsage?: Usage } = {},
): Promise<Summarised> {
  const summaries = await env.store.loadSummaries(env.sessionId);
  const keepRecentTokens = summaryKeepRecentTokens({
    force: opts.force ?? false,
    threshold: env.compaction.threshold,
    fixedTokens: reserve(env),
    ...(env.contextWindow !== undefined ? { contextWindow: env.contextWindow } : {}),
  });
  const input = planSummaryInput(env.history.slice(0, uptoIndex), summaries, { keepRecentTokens, method: env.tokenMethod });
  if (!input) return { said: undefined };
  const redact = env.redact ?? noRedaction;
  const parts = summaryRequestParts(input.prefix, input.previous?.text);
  const build = (prefix: Parameters<typeof summaryRequest>[0]): Request =>
    redactRequest(summaryRequest(prefix, parts, { provider: env.providerName, model: env.model, maxOutputTokens: env.maxOutputTokens, ...(env.api ? { api: env.api } : {}) }), redact);
  let req = build(input.prefix);
  // The summary request obeys the window rule like any other: a prefix that holds more than
  // the window (one huge paste, a session resumed on a smaller model) has its largest parts
  // left out, with markers the note's writer reads, rather than be sent and refused.
  const rule = { contextWindow: env.contextWindow, method: env.tokenMethod };
  let over = overWindow(req, rule);
  if (over && env.contextWindow !== undefined) {
    const excess = over.tokens - fitLimit(env.contextWindow, env.compaction.threshold);
    req = build(cutToFit(input.prefix, { excess, method: env.tokenMethod, vision: false }).messages);
    over = overWindow(req, rule);
    if (over) throw new Error(summaryTooLarge(over, env.model));
  }
  env.events.emit({ type: "state", state: "compacting" });
  await (await recordCapture(env, req, { iteration: opts.iteration ?? 0, note: SUMMARY_REQUEST_NOTE, providerUsage: opts.providerUsage, side: true })).written;
  const result = await env.provider.stream(req, { signal });
  const text = redact(
    result.blocks
      .filter((b): b is Extract<Block, { type: "text" }> => b.type === "text")
      .map((b) => b.text)
      .join("\n")
      .trim(),
  );
  if (!text) throw new Error("the model returned an empty summary");
  // the new note folds in the earlier one and replaces it
  await env.store.saveSummary({ sessionId: env.sessionId, fromSeq: input.fromSeq, toSeq: input.toSeq, text, model: env.model });
  return { said: `summarised messages ${input.fromSeq}–${input.toSeq}`, ...(result.usage ? { usage: result.usage } : {}) };
}

/**
 * The prior history for the next request, summarised first when the strategy says one is
 * due. A failed automatic summary is a warning: the history goes as it is.
 *
 * An automatic summary is asked for only at the turn's first request: the prior history does
 * not change within a turn, so one asked later would only follow a failure, and applying it
 * mid-turn would break the prefix the turn's earlier requests cached. A stored summary is
 * applied at every request after it, unchanged (its note depends only on the record).
 */
export async function compactIfDue(
  env: TurnEnv,
  turnStart: number,
  signal: AbortSignal,
  o: { iteration: number; providerUsage?: Usage },
): Promise<{ prepared: PrepareResult; usage?: Usage } | { interrupted: true }> {
  const prepared = await prepare(env, turnStart);
  if (!prepared.needsSummary || o.iteration > 1) return { prepared };
  try {
    const s = await summarize(env, turnStart, signal, { iteration: o.iteration, ...(o.providerUsage ? { providerUsage: o.providerUsage } : {}) });
    if (!s.said) return { prepared };
    env.events.emit({ type: "notice", level: "info", text: `Compaction: ${s.said}.` });
    return { prepared: await prepare(env, turnStart), ...(s.usage ? { usage: s.usage } : {}) };
  } catch (e) {
    if (signal.aborted) return { interrupted: true };
    env.events.emit({ type: "notice", level: "warning", text: `Automatic summary failed (${messageOf(e)}); sending the history as it is.` });
    return { prepared };
  }
}
