// One user turn: store the prompt, then repeat { compact if due → build the request →
// capture it → stream one answer → run its tools → store their results } until the model
// stops. Stored history crosses as prose (src/replay/); the rounds of THIS turn cross
// natively with their call ids, so the provider's pairing rules hold inside the turn and
// never across it. Each step lives in its own module of this folder.
import type { Block, ToolUseBlock } from "../../record/types.js";
import type { Request, Usage } from "../../provider/types.js";
import { ProviderError } from "../../provider/types.js";
import type { PrepareResult } from "../../compaction/prepare.js";
import { turnRequest } from "../../replay/request.js";
import { toolSchemas } from "../../tools/run.js";
import { noRedaction } from "../../config/secrets.js";
import { messageOf } from "../../record/errors.js";
import { redactRequest } from "./redact.js";
import type { TurnEnv, TurnOutcome } from "./env.js";
import { append, recordCapture } from "./record.js";
import { compactIfDue, summarize } from "./compact.js";
import { streamAnswer, textOf } from "./stream-answer.js";
import { resultsMessage } from "./run-tools.js";

export type { TurnEnv, TurnOutcome } from "./env.js";

/** The request for one iteration, through the redactor: the one redacted request is both
 * captured and sent. */
function buildRequest(env: TurnEnv, prepared: PrepareResult, turnStart: number): Request {
  const req = turnRequest(prepared.messages, env.history.slice(turnStart), {
    provider: env.providerName,
    model: env.model,
    system: env.system,
    context: env.context,
    tools: toolSchemas(env.tools),
    maxOutputTokens: env.maxOutputTokens,
    reasoning: env.reasoning,
    vision: env.vision,
    ...(env.cache ? { cache: env.cache } : {}),
    ...(env.api ? { api: env.api } : {}),
  });
  return redactRequest(req, env.redact ?? noRedaction);
}

export async function runTurn(env: TurnEnv, userBlocks: Block[], signal: AbortSignal): Promise<TurnOutcome> {
  const turnStart = env.history.length;
  await append(env, "user", userBlocks, "complete");
  let finalText = "";
  let usage: Usage | undefined = env.previousUsage;
  let prepared: PrepareResult | undefined;
  let contextRetryUsed = false;
  const maxIterations = env.maxIterations ?? 100;
  // what the turn learnt goes back with every way it ends
  const end = (o: Omit<TurnOutcome, "usage" | "prepared">): TurnOutcome => ({
    ...o,
    ...(usage && usage !== env.previousUsage ? { usage } : {}),
    ...(prepared ? { prepared } : {}),
  });

  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    if (signal.aborted) return end({ ok: false, interrupted: true, finalText });
    const due = await compactIfDue(env, turnStart, signal, { iteration, ...(usage ? { providerUsage: usage } : {}) });
    if ("interrupted" in due) return end({ ok: false, interrupted: true, finalText });
    prepared = due.prepared;
    if (due.usage) usage = due.usage;
    const req = buildRequest(env, prepared, turnStart);
    const { written, resave } = await recordCapture(env, req, { iteration, note: prepared.note, providerUsage: usage });

    const answer = await streamAnswer(env, req, signal, resave, written);
    if (answer.kind === "failed") {
      const e = answer.error;
      if (signal.aborted || (e instanceof ProviderError && e.kind === "aborted")) {
        env.events.emit({ type: "notice", level: "info", text: "Interrupted; what arrived is kept." });
        return end({ ok: false, interrupted: true, finalText: answer.streamedText });
      }
      // the provider said the request is too long: summarise (keeping only the last turn)
      // and try once more, when nothing of the answer had arrived
      if (e instanceof ProviderError && e.kind === "context_length" && !contextRetryUsed && answer.partial.length === 0) {
        contextRetryUsed = true;
        try {
          const s = await summarize(env, turnStart, signal, { iteration, force: true, ...(usage ? { providerUsage: usage } : {}) });
          if (s.usage) usage = s.usage;
          if (s.said) {
            env.events.emit({ type: "notice", level: "warning", text: `The provider said the context is too long; ${s.said}. Retrying once.` });
            iteration--;
            continue;
          }
        } catch (se) {
          // Esc during the summary is an interrupt, not a second failure
          if (signal.aborted) {
            env.events.emit({ type: "notice", level: "info", text: "Interrupted; what arrived is kept." });
            return end({ ok: false, interrupted: true, finalText });
          }
          env.events.emit({ type: "notice", level: "error", text: `${messageOf(e)} (a summary to make room failed too: ${messageOf(se)})` });
          return end({ ok: false, error: messageOf(e), finalText });
        }
      }
      const msg = messageOf(e);
      env.events.emit({ type: "notice", level: "error", text: msg });
      return end({ ok: false, error: msg, finalText });
    }
    if (answer.usage) usage = answer.usage;
    const text = textOf(answer.blocks);
    if (text) finalText = text;

    const calls = answer.blocks.filter((b): b is ToolUseBlock => b.type === "tool_use");
    if (calls.length === 0) {
      if (answer.stopReason === "max_tokens") {
        env.events.emit({ type: "notice", level: "warning", text: "The answer stopped at the output token limit." });
      }
      return end({ ok: true, finalText });
    }
    // all the results of one answer are stored as ONE user message
    await append(env, "user", await resultsMessage(env, calls, signal), "complete");
    if (signal.aborted) {
      env.events.emit({ type: "notice", level: "info", text: "Interrupted; tool results so far are kept." });
      return end({ ok: false, interrupted: true, finalText });
    }
  }
  const msg = `Stopped after ${maxIterations} model calls in one turn; send another message to continue.`;
  env.events.emit({ type: "notice", level: "warning", text: msg });
  return end({ ok: false, error: msg, finalText });
}
