// Why an answer ended, said for the person: an answer that was cut (the output bound, a
// refusal, a filter, the window, a pause, an incomplete response) is named under it, in the
// screen and on stderr, and a headless run that printed it exits 1. A whole answer says nothing.
import { formatInt } from "../record/numbers.js";
import { assertNever } from "../record/types.js";
import type { StopReason } from "./types.js";

/** What a cut answer's sentence needs to know besides the stop. */
export interface StopContext {
  /** who answered, as in every sentence: "Anthropic", "the server at localhost:8080" */
  who: string;
  /** the request's output bound, in tokens */
  maxOutputTokens: number;
}

/** The sentence for an answer cut short, or undefined when the answer is whole. */
export function stopCause(stop: { stopReason: StopReason; stopSaid?: string }, ctx: StopContext): string | undefined {
  const r = stop.stopReason;
  switch (r) {
    case "end":
    case "tool_use":
    case "other":
      return undefined;
    case "max_tokens":
      return `The answer was cut at the output limit of ${formatInt(ctx.maxOutputTokens)} tokens (maxOutputTokens); what arrived is kept. Ask to continue, or raise maxOutputTokens.`;
    case "refusal":
      return `${ctx.who} refused to continue the answer (stop reason: refusal); what arrived is kept.`;
    case "content_filter":
      return `${ctx.who}'s content filter cut the answer (finish reason: content_filter); what arrived is kept.`;
    case "context_window":
      return `The answer was cut: the model's context window is full (model_context_window_exceeded); what arrived is kept. Run /compact, then continue.`;
    case "pause_turn":
      return `${ctx.who} paused the turn (stop reason: pause_turn); the answer is not finished. Send another message to continue.`;
    case "incomplete":
      return `${ctx.who} ended the answer incomplete (reason: ${stop.stopSaid ?? "none given"}); what arrived is kept.`;
    default:
      return assertNever(r, "stop reason");
  }
}
