// Anthropic's event stream → the neutral stream events and the answer's blocks: one
// accumulator per content block, every piece of content through the answer's budget.
import type { z } from "zod";
import { assertNever, type Block } from "../../record/types.js";
import { StreamFault } from "../failures.js";
import { AnswerParser, type AnswerContext } from "../parser.js";
import type { SseFrame } from "../sse.js";
import { parseToolInput } from "../tool-input.js";
import type { StopReason, Usage } from "../types.js";
import { tokenCount } from "../usage.js";
import {
  contentBlockSchema,
  deltaSchema,
  errorKind,
  eventSchemas,
  fastAnthropicDelta,
  isEventType,
  KNOWN_BLOCKS,
  KNOWN_DELTAS,
  mapAnthropicStopReason,
  type AnthropicEvent,
  type DeltaParsed,
  type usageSchema,
} from "./events.js";
import { OPAQUE_REDACTED_THINKING, OPAQUE_THINKING_SIGNATURE } from "./parts.js";

type Acc =
  | { kind: "text"; text: string }
  | { kind: "tool"; ordinal: number; id: string; name: string; json: string; input?: unknown; done: boolean }
  | { kind: "thinking"; text: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "ignored" };

export class AnthropicStreamHandler extends AnswerParser {
  private readonly byIndex = new Map<number, Acc>();
  private readonly order: Acc[] = [];
  private tools = 0;
  private stop: StopReason = "other";

  constructor(ctx: AnswerContext, label = "Anthropic") {
    super(ctx, label);
  }

  toolInputOpen(): boolean {
    return this.order.some((acc) => acc.kind === "tool" && !acc.done);
  }

  override onFrame(frame: SseFrame): "more" | "done" {
    const raw = this.typedEvent(frame);
    const type = raw.type;
    const hot = fastAnthropicDelta(raw);
    if (hot) {
      this.delta(hot.index, hot.delta, hot.delta);
      return "more";
    }
    if (!isEventType(type)) {
      this.emit({ type: "warning", message: `ignored an unknown Anthropic stream event "${type}"` });
      return "more";
    }
    const parsed = eventSchemas[type].safeParse(raw);
    if (!parsed.success) throw this.malformed(`"${type}" stream event`, "event", parsed.error);
    return this.handle(parsed.data);
  }

  private handle(ev: AnthropicEvent): "more" | "done" {
    switch (ev.type) {
      case "message_start":
        if (ev.message.usage) this.mergeUsage(ev.message.usage);
        return "more";
      case "content_block_start":
        this.start(ev.index, ev.content_block);
        return "more";
      case "content_block_delta":
        this.delta(ev.index, ev.delta);
        return "more";
      case "content_block_stop":
        this.blockStop(ev.index);
        return "more";
      case "message_delta":
        if (ev.delta.stop_reason) this.stop = mapAnthropicStopReason(ev.delta.stop_reason);
        if (ev.usage) this.mergeUsage(ev.usage);
        return "more";
      case "message_stop":
        return "done";
      case "ping":
        return "more";
      case "error":
        throw this.reportedError(ev.error.message, ev.error.type, errorKind(ev.error.type));
      default:
        return assertNever(ev, "Anthropic event");
    }
  }

  private start(i: number, rawBlock: { type: string }): void {
    if (this.byIndex.has(i)) throw new StreamFault(`${this.label} started content block ${i} twice`, "stream");
    // every block costs a little, ignored ones too: endless empty blocks reach the bound
    this.budget.block();
    this.budget.check();
    if (!KNOWN_BLOCKS.has(rawBlock.type)) {
      // server tools, citations and other newer kinds: nothing we can store yet
      this.emit({ type: "warning", message: `ignored an Anthropic content block of unknown type "${rawBlock.type}"` });
      this.byIndex.set(i, { kind: "ignored" });
      return;
    }
    const parsed = contentBlockSchema.safeParse(rawBlock);
    if (!parsed.success) throw this.malformed(`"content_block_start" stream event`, "event", parsed.error);
    const b = parsed.data;
    let acc: Acc;
    switch (b.type) {
      case "text": {
        const text = this.budget.take(b.text);
        acc = { kind: "text", text };
        if (text) this.output({ type: "text_delta", text });
        break;
      }
      case "tool_use": {
        // a call whose id and name do not fit is not started at all
        this.budget.take(b.id + b.name);
        this.budget.check(`the tool call it was starting is not run`);
        // the empty `input: {}` of the start event is a placeholder: the deltas carry the input
        acc = { kind: "tool", ordinal: this.tools++, id: b.id, name: b.name, json: "", done: false };
        this.output({ type: "tool_call_start", index: acc.ordinal, id: b.id, name: b.name });
        break;
      }
      case "thinking": {
        const text = this.budget.take(b.thinking);
        const signature = this.budget.take(b.signature ?? "");
        // a signature cut short is worthless: the text is kept without one
        acc = { kind: "thinking", text, signature: this.budget.exceeded ? "" : signature };
        if (text) this.output({ type: "reasoning_delta", text });
        break;
      }
      case "redacted_thinking":
        // an opaque body cut short is worthless: not kept
        acc = { kind: "redacted", data: this.budget.take(b.data) };
        this.budget.check();
        this.keep();
        break;
      default:
        return assertNever(b, "content block");
    }
    this.byIndex.set(i, acc);
    this.order.push(acc);
    this.budget.check();
  }

  /** `checked`: the delta already checked by fastAnthropicDelta, so zod is not run again */
  private delta(i: number, rawDelta: { type: string }, checked?: DeltaParsed): void {
    const acc = this.byIndex.get(i);
    if (!acc) throw new StreamFault(`${this.label} sent a delta for content block ${i}, which never started`, "stream");
    if (acc.kind === "ignored") return;
    if (!KNOWN_DELTAS.has(rawDelta.type)) {
      this.emit({ type: "warning", message: `ignored an Anthropic delta of unknown type "${rawDelta.type}"` });
      return;
    }
    let d = checked;
    if (!d) {
      const parsed = deltaSchema.safeParse(rawDelta);
      if (!parsed.success) throw this.malformed(`"content_block_delta" stream event`, "event", parsed.error);
      d = parsed.data;
    }
    const dt = d.type;
    const mismatch = (): StreamFault =>
      new StreamFault(`${this.label} sent a ${dt} for a ${acc.kind} block (index ${i})`, "stream");
    switch (d.type) {
      case "text_delta": {
        if (acc.kind !== "text") throw mismatch();
        const text = this.budget.take(d.text);
        acc.text += text;
        this.output({ type: "text_delta", text });
        this.budget.check();
        return;
      }
      case "input_json_delta": {
        if (acc.kind !== "tool") throw mismatch();
        const json = this.budget.take(d.partial_json);
        acc.json += json;
        if (json) this.output({ type: "tool_call_delta", index: acc.ordinal, partialJson: json });
        // the call stays unfinished, and an unfinished call is neither kept nor run
        this.budget.check(`the input of the tool call "${acc.name}" was cut off there, and the call is not run`);
        return;
      }
      case "thinking_delta": {
        if (acc.kind !== "thinking") throw mismatch();
        const text = this.budget.take(d.thinking);
        acc.text += text;
        this.output({ type: "reasoning_delta", text });
        this.budget.check();
        return;
      }
      case "signature_delta":
        if (acc.kind !== "thinking") throw mismatch();
        {
          const signature = this.budget.take(d.signature);
          // a signature cut short is worthless: the text is kept without one
          acc.signature = this.budget.exceeded ? "" : acc.signature + signature;
        }
        this.budget.check();
        return;
      case "citations_delta":
        return; // citations annotate text we already have
      default:
        return assertNever(d, "Anthropic delta");
    }
  }

  private blockStop(i: number): void {
    const acc = this.byIndex.get(i);
    if (!acc) throw new StreamFault(`${this.label} stopped content block ${i}, which never started`, "stream");
    if (acc.kind !== "tool" || acc.done) return;
    acc.done = true;
    const { input, valid } = parseToolInput(acc.json);
    acc.input = input;
    if (!valid) {
      this.emit({
        type: "warning",
        message: `the input Anthropic streamed for tool "${acc.name}" is not valid JSON; kept as _raw`,
      });
    }
  }

  private mergeUsage(u: z.infer<typeof usageSchema>): void {
    // message_delta usage is cumulative and may carry only some fields: overwrite what it has
    const next: Usage = this.reported ?? { inputTokens: 0, outputTokens: 0 };
    if (u.input_tokens != null) next.inputTokens = tokenCount(u.input_tokens);
    if (u.output_tokens != null) next.outputTokens = tokenCount(u.output_tokens);
    if (u.cache_read_input_tokens != null) next.cacheReadTokens = tokenCount(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens != null) next.cacheWriteTokens = tokenCount(u.cache_creation_input_tokens);
    this.report(next);
  }

  protected override stopReason(): StopReason {
    return this.stop;
  }

  protected override blocks(final: boolean): Block[] {
    const out: Block[] = [];
    for (const acc of this.order) {
      switch (acc.kind) {
        case "text":
          if (acc.text.length > 0) out.push({ type: "text", text: acc.text });
          break;
        case "tool":
          // a call whose input was cut off cannot be run or sent back: only whole calls are kept
          if (acc.done) out.push({ type: "tool_use", id: acc.id, name: acc.name, input: acc.input ?? {} });
          else if (final) out.push({ type: "tool_use", id: acc.id, name: acc.name, input: parseToolInput(acc.json).input });
          break;
        case "thinking":
          // without its signature a thinking block would be refused if sent back; keep the text
          if (acc.signature) {
            out.push({ type: "reasoning", text: acc.text, opaque: { kind: OPAQUE_THINKING_SIGNATURE, body: acc.signature } });
          } else if (acc.text.length > 0) {
            out.push({ type: "reasoning", text: acc.text });
          }
          break;
        case "redacted":
          out.push({ type: "reasoning", text: "", opaque: { kind: OPAQUE_REDACTED_THINKING, body: acc.data } });
          break;
        case "ignored":
          break;
        default:
          assertNever(acc, "accumulator");
      }
    }
    return out;
  }
}
