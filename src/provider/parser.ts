// A shape's stream parser, as the transport sees it (FrameHandler: one per attempt, fed the
// SSE frames), and what the three shapes' parsers share (AnswerParser): the answer's budget
// and events, whether output has started, the usage last reported, the result, and the words
// for a stream that is not what its shape says it is.
import type { z } from "zod";
import type { Block } from "../record/types.js";
import type { AnswerBudget } from "./budget.js";
import { clip, StreamFault } from "./failures.js";
import type { SseFrame } from "./sse.js";
import { wellFormedReviver } from "../text/well-formed.js";
import type { ProviderErrorKind, StopReason, StreamEvent, StreamResult, Usage } from "./types.js";

/** What a parser gets for one attempt. */
export interface AnswerContext {
  /** hands an event to the caller (a warning raised again is dropped, and there are at most
   * MAX_WARNINGS of them: http.ts, warningCap) */
  emit(e: StreamEvent): void;
  /** what the answer may still bring; every piece of content passes through it */
  budget: AnswerBudget;
}

/** Per-attempt parser state of one adapter. */
export interface FrameHandler {
  /** "done" once the provider's final event (message_stop, [DONE]) arrived */
  onFrame(frame: SseFrame): "more" | "done";
  /** true when a body that ends without the final event is still a whole answer */
  completeWithoutFinal?(): boolean;
  /** true while a tool call's input is open and the provider may rightly send only pings
   * for a while (Anthropic gathers each key of the input before it sends it) */
  toolInputOpen?(): boolean;
  result(): StreamResult;
  /** what arrived so far, as blocks worth keeping */
  partial(): Block[];
  /** true once any content has been handed to onEvent */
  readonly outputStarted: boolean;
}

/** An event of a stream whose events name their type (Anthropic, Responses). */
type TypedEvent = Record<string, unknown> & { type: string };

/** a JSON escape of half a surrogate pair (\\uD800-\\uDFFF) */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

export abstract class AnswerParser implements FrameHandler {
  protected readonly emit: (e: StreamEvent) => void;
  /** every piece of content passes through it: what one answer may bring is bounded */
  protected readonly budget: AnswerBudget;
  private started = false;
  private usage: Usage | undefined;
  /** a lone surrogate was replaced in this answer: its signed or encrypted reasoning no longer
   * matches its text, so it crosses as prose (as a body the redactor changes does) */
  private altered = false;
  private readonly reviver = (key: string, value: unknown): unknown => {
    const v = wellFormedReviver(key, value);
    if (v !== value) this.altered = true;
    return v;
  };

  constructor(
    ctx: AnswerContext,
    /** who sent the stream, in the sentences: "Anthropic", "the server at …" */
    protected readonly label: string,
  ) {
    this.emit = ctx.emit;
    this.budget = ctx.budget;
  }

  abstract onFrame(frame: SseFrame): "more" | "done";

  /** The answer's blocks so far; `final`: the stream ended whole. */
  protected abstract blocks(final: boolean): Block[];

  /** Why the answer ended, given its final blocks. */
  protected abstract stopReason(blocks: readonly Block[]): StopReason;

  /** The provider's own word for the stop, when the union says less (Responses' incomplete reason). */
  protected stopSaid(): string | undefined {
    return undefined;
  }

  get outputStarted(): boolean {
    return this.started;
  }

  result(): StreamResult {
    const blocks = this.unsealed(this.blocks(true));
    const r: StreamResult = { blocks, stopReason: this.stopReason(blocks) };
    const said = this.stopSaid();
    if (said !== undefined) r.stopSaid = said;
    if (this.usage) r.usage = { ...this.usage };
    return r;
  }

  partial(): Block[] {
    return this.unsealed(this.blocks(false));
  }

  /** The blocks with their opaque bodies dropped when text of the answer was replaced. */
  private unsealed(blocks: Block[]): Block[] {
    if (!this.altered) return blocks;
    return blocks.map((b) => (b.type === "reasoning" && b.opaque ? { type: "reasoning", text: b.text } : b));
  }

  /** Content for the person: output has started. */
  protected output(e: StreamEvent): void {
    this.started = true;
    this.emit(e);
  }

  /** Something worth keeping arrived that is not shown (an opaque body): output has started. */
  protected keep(): void {
    this.started = true;
  }

  /** The usage the provider reports so far (its figures are cumulative), passed on as a copy. */
  protected report(usage: Usage): void {
    this.usage = usage;
    this.emit({ type: "usage", usage: { ...usage } });
  }

  protected get reported(): Usage | undefined {
    return this.usage;
  }

  /** A frame's event, when it is JSON with a string "type"; otherwise a fault saying which it is not. */
  protected typedEvent(frame: SseFrame): TypedEvent {
    let raw: unknown;
    try {
      // lone surrogates become U+FFFD here, where text enters. Decoded UTF-8 holds none, so
      // only an escaped surrogate can make one: without such an escape, a reviver (a call per
      // value, twice JSON.parse's time) has nothing to do.
      raw = SURROGATE_ESCAPE.test(frame.data) ? JSON.parse(frame.data, this.reviver) : JSON.parse(frame.data);
    } catch {
      throw new StreamFault(
        `${this.label} sent a malformed stream event${frame.event ? ` (${frame.event})` : ""}: not valid JSON: ${clip(frame.data)}`,
        "stream",
      );
    }
    const type = typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
    if (typeof type !== "string") {
      throw new StreamFault(`${this.label} sent a malformed stream event: no "type" field: ${clip(frame.data)}`, "stream");
    }
    return raw as TypedEvent;
  }

  /** The first thing zod found wrong with `what` ("stream chunk", `"ping" stream event`);
   * `whole` names it when the fault is not in one field. */
  protected malformed(what: string, whole: string, error: z.ZodError): StreamFault {
    const issue = error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join(".") : whole;
    return new StreamFault(`${this.label} sent a malformed ${what}: ${where}: ${issue?.message ?? "invalid"}`, "stream");
  }

  /** An error the provider reported inside the stream, as the shape classifies its code. */
  protected reportedError(message: string | undefined, code: string | undefined, [kind, retryable]: [ProviderErrorKind, boolean]): StreamFault {
    return new StreamFault(`${this.label} reported an error mid-stream: ${message || "no message"}${code ? ` (${code})` : ""}`, kind, retryable);
  }
}

/** A finished answer that holds tool calls asks for them, whatever the shape said (the
 * Responses API has no such status; some Chat servers say "stop"). */
export function askingForCalls(stop: StopReason, blocks: readonly Block[]): StopReason {
  return stop === "end" && blocks.some((b) => b.type === "tool_use") ? "tool_use" : stop;
}
