// The Responses API's event stream → the neutral stream events and the answer's blocks: one
// accumulator per output item; a reasoning item's encrypted body is kept (within the budget)
// when the item after it will be sent again.
import type { z } from "zod";
import { assertNever, type Block, type TextPhase } from "../../record/types.js";
import { StreamFault } from "../failures.js";
import type { Json } from "../json.js";
import { AnswerParser, askingForCalls } from "../parser.js";
import type { SseFrame } from "../sse.js";
import { parseToolInput } from "../tool-input.js";
import type { StopReason, Usage } from "../types.js";
import { splitPrompt, tokenCount } from "../usage.js";
import { OPAQUE_OPENAI_REASONING } from "./encode.js";
import {
  errorKind,
  eventSchemas,
  fastResponsesDelta,
  functionCallItem,
  incompleteReason,
  isEventType,
  messageItem,
  summaryItem,
  type EventType,
  type responseSchema,
  type usageSchema,
} from "./events.js";

type Acc =
  | { kind: "message"; text: string; phase?: TextPhase }
  | { kind: "call"; ordinal: number; id: string; name: string; args: string; done: boolean }
  | { kind: "reasoning"; text: string; part: number; opaque?: string }
  | { kind: "ignored" };

export class ResponsesStreamHandler extends AnswerParser {
  private readonly byIndex = new Map<number, Acc>();
  private readonly order: Acc[] = [];
  private calls = 0;
  private stop: StopReason | undefined;
  /** the reason a response.incomplete gave */
  private incompleteSaid: string | undefined;

  override onFrame(frame: SseFrame): "more" | "done" {
    const raw = this.typedEvent(frame);
    const type = raw.type;
    if (!isEventType(type)) {
      this.emit({ type: "warning", message: `ignored an unknown stream event "${type}" from ${this.label}` });
      return "more";
    }
    const hot = fastResponsesDelta(type, raw);
    if (hot) return this.handle(type, hot);
    const parsed = eventSchemas[type].safeParse(raw);
    if (!parsed.success) throw this.malformed(`"${type}" stream event`, "event", parsed.error);
    return this.handle(type, parsed.data as Json);
  }

  private handle(type: EventType, ev: Json): "more" | "done" {
    switch (type) {
      case "response.output_item.added":
        this.added(ev["output_index"] as number, ev["item"] as Json);
        return "more";
      case "response.output_item.done":
        this.itemDone(ev["output_index"] as number, ev["item"] as Json);
        return "more";
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.text(ev["output_index"] as number, ev["delta"] as string);
        return "more";
      case "response.function_call_arguments.delta":
        this.args(ev["output_index"] as number, ev["delta"] as string);
        return "more";
      case "response.function_call_arguments.done": {
        const acc = this.byIndex.get(ev["output_index"] as number);
        // the whole arguments, for a server that sent no deltas
        if (acc?.kind === "call" && acc.args === "") this.args(ev["output_index"] as number, ev["arguments"] as string);
        return "more";
      }
      case "response.reasoning_summary_part.added": {
        const acc = this.reasoningAt(ev["output_index"] as number);
        const part = ev["summary_index"] as number;
        // summary parts are paragraphs: a blank line between them
        if (acc && part !== acc.part && acc.text.length > 0) this.reason(acc, "\n\n");
        if (acc) acc.part = part;
        return "more";
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const acc = this.reasoningAt(ev["output_index"] as number);
        if (acc) this.reason(acc, ev["delta"] as string);
        return "more";
      }
      case "response.completed":
      case "response.incomplete": {
        const r = ev["response"] as z.infer<typeof responseSchema>;
        if (r.usage) this.setUsage(r.usage);
        this.stop = type === "response.completed" ? "end" : incompleteReason(r.incomplete_details?.reason ?? undefined);
        if (type === "response.incomplete") this.incompleteSaid = r.incomplete_details?.reason ?? "no reason given";
        return "done";
      }
      case "response.failed": {
        const e = (ev["response"] as z.infer<typeof responseSchema>).error;
        throw this.failure(e?.code ?? undefined, e?.message ?? undefined);
      }
      case "error":
        throw this.failure((ev["code"] as string | null | undefined) ?? undefined, (ev["message"] as string | null | undefined) ?? undefined);
      case "response.created":
      case "response.in_progress":
      case "response.queued":
      case "response.content_part.added":
      case "response.content_part.done":
      case "response.output_text.done":
      case "response.output_text.annotation.added":
      case "response.refusal.done":
      case "response.reasoning_summary_part.done":
      case "response.reasoning_summary_text.done":
      case "response.reasoning_text.done":
        return "more";
      default:
        return assertNever(type, "Responses event");
    }
  }

  private added(i: number, it: Json): void {
    if (this.byIndex.has(i)) throw new StreamFault(`${this.label} started output item ${i} twice`, "stream");
    // every item costs a little, ignored ones too: endless empty items reach the bound
    this.budget.block();
    this.budget.check();
    let acc: Acc;
    switch (it["type"]) {
      case "message": {
        const phase = phaseOf(it);
        acc = phase ? { kind: "message", text: "", phase } : { kind: "message", text: "" };
        break;
      }
      case "function_call": {
        const parsed = functionCallItem.safeParse(it);
        if (!parsed.success) throw new StreamFault(`${this.label} started a function_call item without a call_id or name`, "stream");
        // a call whose id and name do not fit is not started at all
        this.budget.take(parsed.data.call_id + parsed.data.name);
        this.budget.check("the tool call it was starting is not run");
        acc = { kind: "call", ordinal: this.calls++, id: parsed.data.call_id, name: parsed.data.name, args: "", done: false };
        this.output({ type: "tool_call_start", index: acc.ordinal, id: acc.id, name: acc.name });
        break;
      }
      case "reasoning":
        acc = { kind: "reasoning", text: "", part: 0 };
        break;
      default:
        // web search, file search and other hosted tools: nothing we asked for or can store
        this.emit({ type: "warning", message: `ignored an output item of unknown type "${String(it["type"])}" from ${this.label}` });
        acc = { kind: "ignored" };
    }
    this.byIndex.set(i, acc);
    this.order.push(acc);
  }

  private accAt(i: number, what: string): Acc {
    const acc = this.byIndex.get(i);
    if (!acc) throw new StreamFault(`${this.label} sent ${what} for output item ${i}, which never started`, "stream");
    return acc;
  }

  private reasoningAt(i: number): Extract<Acc, { kind: "reasoning" }> | undefined {
    const acc = this.accAt(i, "reasoning");
    if (acc.kind === "ignored") return undefined;
    if (acc.kind !== "reasoning") throw new StreamFault(`${this.label} sent reasoning for a ${acc.kind} item (output ${i})`, "stream");
    return acc;
  }

  private text(i: number, delta: string): void {
    const acc = this.accAt(i, "text");
    if (acc.kind === "ignored") return;
    if (acc.kind !== "message") throw new StreamFault(`${this.label} sent text for a ${acc.kind} item (output ${i})`, "stream");
    const text = this.budget.take(delta);
    if (text) {
      acc.text += text;
      this.output({ type: "text_delta", text });
    }
    this.budget.check();
  }

  private reason(acc: Extract<Acc, { kind: "reasoning" }>, delta: string): void {
    const text = this.budget.take(delta);
    if (text) {
      acc.text += text;
      this.output({ type: "reasoning_delta", text });
    }
    this.budget.check();
  }

  private args(i: number, delta: string): void {
    const acc = this.accAt(i, "arguments");
    if (acc.kind === "ignored") return;
    if (acc.kind !== "call") throw new StreamFault(`${this.label} sent call arguments for a ${acc.kind} item (output ${i})`, "stream");
    const piece = this.budget.take(delta);
    if (piece) {
      acc.args += piece;
      this.emit({ type: "tool_call_delta", index: acc.ordinal, partialJson: piece });
    }
    // an unfinished call is neither kept nor run
    this.budget.check(`the input of the tool call "${acc.name}" was cut off there, and the call is not run`);
  }

  /** The complete item: what the deltas did not bring, and a reasoning item's opaque body. */
  private itemDone(i: number, it: Json): void {
    const acc = this.accAt(i, "the end");
    switch (acc.kind) {
      case "message": {
        const phase = phaseOf(it);
        if (phase) acc.phase = phase;
        const m = messageItem.safeParse(it);
        if (acc.text === "" && m.success) {
          const whole = (m.data.content ?? []).map((c) => c.text ?? c.refusal ?? "").join("");
          if (whole) this.text(i, whole);
        }
        return;
      }
      case "call": {
        const c = functionCallItem.safeParse(it);
        if (acc.args === "" && c.success && c.data.arguments) this.args(i, c.data.arguments);
        acc.done = true;
        return;
      }
      case "reasoning": {
        const s = summaryItem.safeParse(it);
        if (acc.text === "" && s.success) {
          const whole = (s.data.summary ?? []).map((p) => p.text ?? "").filter((t) => t.length > 0).join("\n\n");
          if (whole) this.reason(acc, whole);
        }
        const encrypted = it["encrypted_content"];
        if (typeof encrypted === "string" && encrypted.length > 0) {
          const body = JSON.stringify(it);
          const kept = this.budget.take(body);
          // an opaque body cut short is worthless: the text is kept without it
          if (!this.budget.exceeded && kept === body) acc.opaque = body;
          this.keep();
          this.budget.check();
        }
        return;
      }
      case "ignored":
        return;
      default:
        return assertNever(acc, "accumulator");
    }
  }

  private setUsage(u: z.infer<typeof usageSchema>): void {
    // input_tokens includes cached tokens; Usage keeps them apart, as Anthropic reports them
    const reported = u.input_tokens_details?.cached_tokens;
    const { uncached, cached } = splitPrompt(u.input_tokens, reported ?? 0);
    const usage: Usage = { inputTokens: uncached, outputTokens: tokenCount(u.output_tokens) };
    // a reported 0 is a miss the status line shows ("cache 0%"); no field, no figure
    if (typeof reported === "number") usage.cacheReadTokens = cached;
    this.report(usage);
  }

  /** An error the server reported in the stream (an error event, or response.failed). */
  private failure(code: string | undefined, message: string | undefined): StreamFault {
    return this.reportedError(message, code, errorKind(code));
  }

  protected override stopSaid(): string | undefined {
    return this.incompleteSaid;
  }

  protected override stopReason(blocks: readonly Block[]): StopReason {
    // the Responses API has no "tool_calls" status
    return askingForCalls(this.stop ?? "other", blocks);
  }

  protected override blocks(final: boolean): Block[] {
    const out: Block[] = [];
    for (const [i, acc] of this.order.entries()) {
      switch (acc.kind) {
        case "message":
          if (acc.text.length > 0) out.push(acc.phase ? { type: "text", text: acc.text, phase: acc.phase } : { type: "text", text: acc.text });
          break;
        case "call":
          // a call whose arguments were cut off cannot be run: only finished calls are kept
          if (acc.done || final) out.push({ type: "tool_use", id: acc.id, name: acc.name, input: this.parseArgs(acc, final) });
          break;
        case "reasoning":
          if (acc.opaque && precedesKept(this.order[i + 1])) out.push({ type: "reasoning", text: acc.text, opaque: { kind: OPAQUE_OPENAI_REASONING, body: acc.opaque } });
          else if (acc.text.length > 0) out.push({ type: "reasoning", text: acc.text });
          break;
        case "ignored":
          break;
        default:
          assertNever(acc, "accumulator");
      }
    }
    return out;
  }

  private parseArgs(acc: Extract<Acc, { kind: "call" }>, warn: boolean): unknown {
    const { input, valid } = parseToolInput(acc.args);
    if (!valid && warn) {
      this.emit({ type: "warning", message: `the arguments ${this.label} sent for tool "${acc.name}" are not valid JSON; kept as _raw` });
    }
    return input;
  }
}

/**
 * Whether the item after a reasoning item will be sent again as its own item: the reasoning
 * item goes back only right before the item it preceded (the API refuses it elsewhere). A
 * message of blank text is dropped when the round is replayed (src/replay/replay.ts,
 * dropBlankText: providers refuse blank text), an ignored item never was a block, and nothing
 * follows the last item; before any of these the reasoning keeps its text and loses its
 * encrypted item, so it crosses as prose.
 */
function precedesKept(next: Acc | undefined): boolean {
  if (next === undefined) return false;
  switch (next.kind) {
    case "call":
      return true;
    case "message":
      return /\S/.test(next.text);
    case "reasoning":
    case "ignored":
      return false;
    default:
      return assertNever(next, "accumulator");
  }
}

/** A message item's phase, when it is one the API names (the SDK's ResponseOutputMessage). */
function phaseOf(it: Json): TextPhase | undefined {
  const p = it["phase"];
  return p === "commentary" || p === "final_answer" ? p : undefined;
}
