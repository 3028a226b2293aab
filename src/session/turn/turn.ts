// One user turn: store the prompt, then repeat { compact if due → build the request (made
// to fit the model's window; one that cannot fit is not sent) → capture it → stream one
// answer → run its tools → store their results } until the model stops. Stored history
// crosses as prose (src/replay/); the rounds of THIS turn cross natively with their call
// ids, so the provider's pairing rules hold inside the turn and never across it. Each step
// lives in its own module of this folder.
import type { Block, ToolUseBlock } from "../../record/types.js";
import type { Usage } from "../../provider/types.js";
import { ProviderError } from "../../provider/types.js";
import type { PrepareResult } from "../../compaction/prepare.js";
import { promptTooLarge } from "../../compaction/window.js";
import { messageOf } from "../../record/errors.js";
import type { TurnEnv, TurnOutcome } from "./env.js";
import { append, recordCapture } from "./record.js";
import { compactIfDue, summarize } from "./compact.js";
import { cutShort, streamAnswer, textOf } from "./stream-answer.js";
import { resultsMessage } from "./run-tools.js";
import { markRefusedImages } from "./refused-images.js";
import { fitRequest, promptOverWindow, type FitState } from "./window.js";
import { takeSteered } from "./steer.js";

export type { TurnEnv, TurnOutcome } from "./env.js";

export async function runTurn(env: TurnEnv, userBlocks: Block[], signal: AbortSignal): Promise<TurnOutcome> {
  const turnStart = env.history.length;
  // a prompt no request can carry is refused before it is stored: stored, it would go with
  // every later request and be refused with each
  const tooLarge = promptOverWindow(env, userBlocks);
  if (tooLarge) {
    const said = promptTooLarge(tooLarge, env.model);
    env.events.emit({ type: "notice", level: "error", text: said });
    return { ok: false, unsent: true, error: said, finalText: "" };
  }
  await append(env, "user", userBlocks, "complete");
  let finalText = "";
  let usage: Usage | undefined = env.previousUsage;
  let prepared: PrepareResult | undefined;
  let contextRetryUsed = false;
  let imageRetryUsed = false;
  const fit: FitState = { summarised: false };
  const maxIterations = env.maxIterations ?? 100;
  // what the turn learnt goes back with every way it ends
  const end = (o: Omit<TurnOutcome, "usage" | "prepared">): TurnOutcome => ({
    ...o,
    ...(usage && usage !== env.previousUsage ? { usage } : {}),
    ...(prepared ? { prepared } : {}),
  });

  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    if (signal.aborted) return end({ ok: false, interrupted: true, finalText });
    // what was sent into the turn since its last call joins it here
    await takeSteered(env);
    const due = await compactIfDue(env, turnStart, signal, { iteration, ...(usage ? { providerUsage: usage } : {}) });
    if ("interrupted" in due) return end({ ok: false, interrupted: true, finalText });
    if (due.usage) usage = due.usage;
    // the request as it is sent, made to fit the window; one that cannot is not sent
    const fitted = await fitRequest(env, due.prepared, turnStart, signal, fit, { iteration, ...(usage ? { providerUsage: usage } : {}) });
    if (fitted.kind === "interrupted") return end({ ok: false, interrupted: true, finalText });
    if (fitted.kind === "over") {
      env.events.emit({ type: "notice", level: "error", text: fitted.said });
      return end({ ok: false, error: fitted.said, finalText });
    }
    prepared = fitted.prepared;
    if (fitted.usage) usage = fitted.usage;
    const req = fitted.req;
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
      // an image the provider refused is marked in the record, and the request goes once more
      if (!imageRetryUsed && answer.partial.length === 0 && (await markRefusedImages(env, req, e))) {
        imageRetryUsed = true;
        iteration--;
        continue;
      }
      const msg = messageOf(e);
      env.events.emit({ type: "notice", level: "error", text: msg });
      return end({ ok: false, error: msg, finalText });
    }
    if (answer.usage) usage = answer.usage;
    const text = textOf(answer.blocks);
    if (text) finalText = text;

    // an answer cut short is named, and its calls (their input may be cut too) are not run
    const cut = cutShort(env, answer);
    if (cut) {
      env.events.emit({ type: "notice", level: "error", text: cut });
      return end({ ok: false, error: cut, cut: true, finalText });
    }
    const calls = answer.blocks.filter((b): b is ToolUseBlock => b.type === "tool_use");
    // a message steered in while the answer streamed gets its call: the turn goes on
    if (calls.length === 0 && env.steer?.pending() && !signal.aborted) continue;
    if (calls.length === 0) return end({ ok: true, finalText });
    // all the results of one answer are stored as ONE user message
    await append(env, "user", await resultsMessage(env, calls, signal), "complete");
    if (signal.aborted) {
      env.events.emit({ type: "notice", level: "info", text: "Interrupted; tool results so far are kept." });
      return end({ ok: false, interrupted: true, finalText });
    }
    if (env.hookStop !== undefined) {
      env.events.emit({ type: "notice", level: "warning", text: `A hook stopped the turn: ${env.hookStop}` });
      return end({ ok: true, finalText });
    }
  }
  const msg = `Stopped after ${maxIterations} model calls in one turn; send another message to continue.`;
  env.events.emit({ type: "notice", level: "warning", text: msg });
  return end({ ok: false, error: msg, finalText });
}
