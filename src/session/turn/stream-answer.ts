// One answer of the model: stream it, tell the front ends as it arrives (under its own
// AnswerId, named before the first delta), checkpoint it, and store its final form.
import { assertNever, type Block } from "../../record/types.js";
import type { EncodedRequest, Request, StopReason, Usage } from "../../provider/types.js";
import { ProviderError } from "../../provider/types.js";
import { stopCause } from "../../provider/stop.js";
import { Checkpointer } from "./checkpointer.js";
import { clean } from "./record.js";
import type { TurnEnv } from "./env.js";

type AnswerOutcome =
  /** stored complete; `blocks` are as stored (redacted), so its tools run with that input */
  | { kind: "complete"; blocks: Block[]; stopReason: StopReason; stopSaid?: string; usage?: Usage }
  /** what arrived is stored as interrupted (when anything did); `partial` is that */
  | { kind: "failed"; error: unknown; partial: Block[]; streamedText: string };

/** `recapture` stores the capture again when the provider re-sends the request changed;
 * `captured` is the capture's write, running alongside the call (recordCapture): nothing of the
 * answer is stored before it is, and when it fails the call is stopped and the turn fails with
 * its error, the answer unstored. */
export async function streamAnswer(
  env: TurnEnv,
  req: Request,
  signal: AbortSignal,
  recapture?: (enc: EncodedRequest) => Promise<void>,
  captured: Promise<void> = Promise.resolve(),
): Promise<AnswerOutcome> {
  env.events.emit({ type: "state", state: "streaming" });
  const answer = env.events.newAnswer();
  env.events.emit({ type: "answer_start", answer });
  const checkpoints = new Checkpointer(env, answer, undefined, captured);
  const toolInputs = new Map<number, { name: string; bytes: number }>();
  // the call stops with the person's Esc, or when the capture cannot be stored
  const ac = new AbortController();
  const stop = (): void => ac.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  let captureFailed = false;
  captured.catch(() => {
    captureFailed = true;
    ac.abort();
  });
  let result;
  try {
    result = await env.provider.stream(req, {
      signal: ac.signal,
      ...(recapture ? { onResend: recapture } : {}),
      onEvent: (e) => {
        switch (e.type) {
          case "text_delta":
            env.events.emit({ type: "text_delta", answer, text: e.text });
            checkpoints.addText(e.text);
            break;
          case "reasoning_delta":
            env.events.emit({ type: "reasoning_delta", answer, text: e.text });
            checkpoints.addReasoning(e.text);
            break;
          case "retry":
            env.events.emit({ type: "retry", attempt: e.attempt, delayMs: e.delayMs, reason: e.reason });
            env.events.emit({ type: "notice", level: "warning", text: `${e.reason}; retrying in ${(e.delayMs / 1000).toFixed(1)} s (attempt ${e.attempt})` });
            break;
          case "usage":
            env.events.emit({ type: "usage", usage: e.usage });
            break;
          case "warning":
            env.events.emit({ type: "notice", level: "warning", text: e.message });
            break;
          case "tool_call_start":
            toolInputs.set(e.index, { name: e.name, bytes: 0 });
            env.events.emit({ type: "tool_input", answer, index: e.index, name: e.name, bytes: 0 });
            break;
          case "tool_call_delta": {
            // a long tool input (a whole file for write) takes a while: show it arriving
            const t = toolInputs.get(e.index);
            if (!t) break;
            t.bytes += Buffer.byteLength(e.partialJson);
            env.events.emit({ type: "tool_input", answer, index: e.index, name: t.name, bytes: t.bytes });
            break;
          }
          default:
            assertNever(e, "stream event");
        }
      },
    });
  } catch (error) {
    // the capture's own error, not the abort it caused; nothing of the answer is stored
    if (captureFailed) await captured;
    const partial = error instanceof ProviderError && error.partial.length > 0 ? error.partial : checkpoints.partial();
    // keep what arrived, marked interrupted
    if (partial.length > 0 || checkpoints.started()) await checkpoints.finish(partial, "interrupted");
    return { kind: "failed", error, partial, streamedText: checkpoints.streamedText() };
  } finally {
    signal.removeEventListener("abort", stop);
  }
  // the complete answer replaces the checkpoint in place; its tools run with the input as
  // stored (redacted), so what runs is what the record and the next request show
  const blocks = clean(env, result.blocks);
  await checkpoints.finish(blocks, "complete", result.usage);
  return {
    kind: "complete",
    blocks,
    stopReason: result.stopReason,
    ...(result.stopSaid !== undefined ? { stopSaid: result.stopSaid } : {}),
    ...(result.usage ? { usage: result.usage } : {}),
  };
}

/** The sentence for a complete answer that was cut short (stop.ts), or undefined. */
export function cutShort(env: TurnEnv, answer: { stopReason: StopReason; stopSaid?: string }): string | undefined {
  const who = env.provider.label ?? (env.providerName === "anthropic" ? "Anthropic" : "OpenAI");
  return stopCause(answer, { who, maxOutputTokens: env.maxOutputTokens });
}

export function textOf(blocks: readonly Block[]): string {
  return blocks
    .filter((b): b is Extract<Block, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("");
}
