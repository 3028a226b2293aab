// Chat Completions chunks → the neutral stream events and the answer's blocks: text and
// reasoning as segments in the order they came, tool calls gathered by index or id.
import { wellFormedReviver } from "../../text/well-formed.js";
import type { z } from "zod";
import { assertNever, type Block } from "../../record/types.js";
import { clip, StreamFault } from "../failures.js";
import { isObj } from "../json.js";
import { AnswerParser, askingForCalls } from "../parser.js";
import type { SseFrame } from "../sse.js";
import { parseToolInput } from "../tool-input.js";
import type { StopReason, Usage } from "../types.js";
import { splitPrompt, tokenCount } from "../usage.js";
import {
  chunkSchema,
  errorChunkSchema,
  errorKind,
  fastChatChunk,
  mapOpenAIFinishReason,
  type toolCallDeltaSchema,
  type usageSchema,
} from "./events.js";

interface Call {
  ordinal: number;
  /** the server's index for this call, when it sends one */
  index?: number;
  id: string;
  name: string;
  args: string;
}

type Segment = { kind: "text"; text: string } | { kind: "reasoning"; text: string } | { kind: "call"; call: Call };

export class OpenAIStreamHandler extends AnswerParser {
  private readonly segments: Segment[] = [];
  private readonly calls: Call[] = [];
  private finish: string | undefined;
  private finals: Block[] | undefined;

  override onFrame(frame: SseFrame): "more" | "done" {
    const data = frame.data.trim();
    if (data === "[DONE]") return "done";
    let raw: unknown;
    try {
      // lone surrogates become U+FFFD here, where text enters
      raw = JSON.parse(data, wellFormedReviver);
    } catch {
      throw new StreamFault(`${this.label} sent a malformed stream chunk: not valid JSON: ${clip(data)}`, "stream");
    }
    if (!isObj(raw)) throw new StreamFault(`${this.label} sent a malformed stream chunk: not an object: ${clip(data)}`, "stream");
    const obj = raw;
    if ("error" in obj && obj["error"] != null) {
      const parsed = errorChunkSchema.safeParse(obj);
      const e = parsed.success ? parsed.data.error : { message: clip(JSON.stringify(obj["error"])) };
      const code = e.code != null ? String(e.code) : undefined;
      throw this.reportedError(e.message ?? undefined, code, errorKind(e.type ?? undefined, code));
    }
    const named = frame.event !== undefined && frame.event !== "message";
    if (named || !("choices" in obj || "usage" in obj)) {
      const what = named ? `event "${frame.event}"` : `chunk ${clip(data, 60)}`;
      this.emit({ type: "warning", message: `ignored an unknown ${this.label} stream ${what}` });
      return "more";
    }
    const fast = fastChatChunk(obj);
    const parsed = fast ? { success: true as const, data: fast } : chunkSchema.safeParse(obj);
    if (!parsed.success) throw this.malformed("stream chunk", "chunk", parsed.error);
    const chunk = parsed.data;
    for (const choice of chunk.choices ?? []) {
      // n > 1 is never requested; another index would be a second answer we did not ask for
      if (choice.index != null && choice.index !== 0) continue;
      const d = choice.delta;
      if (d) {
        const reasoning = firstText(d.reasoning_content, d.reasoning, d.reasoning_text);
        if (reasoning) this.append("reasoning", reasoning);
        if (d.content) this.append("text", d.content);
        if (d.refusal) this.append("text", d.refusal);
        for (const tc of d.tool_calls ?? []) this.toolDelta(tc);
      }
      if (choice.finish_reason) this.finish = choice.finish_reason;
      if (choice.usage) this.setUsage(choice.usage);
    }
    if (chunk.usage) this.setUsage(chunk.usage);
    return "more";
  }

  /** Some servers stop after the finish chunk without "[DONE]": that answer is whole. */
  completeWithoutFinal(): boolean {
    return this.finish !== undefined;
  }

  private append(kind: "text" | "reasoning", whole: string): void {
    const last = this.segments[this.segments.length - 1];
    const fresh = !last || last.kind !== kind;
    if (fresh) this.budget.block();
    const text = this.budget.take(whole);
    if (text) {
      if (fresh) this.segments.push({ kind, text });
      else last.text += text;
      this.output(kind === "text" ? { type: "text_delta", text } : { type: "reasoning_delta", text });
    }
    this.budget.check();
  }

  private toolDelta(tc: z.infer<typeof toolCallDeltaSchema>): void {
    const id = tc.id ?? undefined;
    let call: Call | undefined;
    if (tc.index != null) {
      call = this.calls.find((c) => c.index === tc.index);
      // a server that reuses one index for parallel calls shows it by a new id
      if (call && id && call.id && call.id !== id) call = undefined;
    } else if (id) {
      call = this.calls.find((c) => c.id === id);
    } else {
      call = this.calls[this.calls.length - 1];
    }
    const name = tc.function?.name ?? undefined;
    const args = tc.function?.arguments ?? "";
    if (!call) {
      // a call whose id and name do not fit is not started at all
      this.budget.block();
      this.budget.take((id ?? "") + (name ?? ""));
      this.budget.check("the tool call it was starting is not run");
      call = { ordinal: this.calls.length, id: id ?? "", name: name ?? "", args: "" };
      if (tc.index != null) call.index = tc.index;
      this.calls.push(call);
      this.segments.push({ kind: "call", call });
      if (!call.id) call.id = `call_albedo_${call.ordinal}`;
      this.output({ type: "tool_call_start", index: call.ordinal, id: call.id, name: call.name });
    } else {
      // repeated ids and names on every fragment are common: only fill what is missing
      if (id && call.id.startsWith("call_albedo_")) call.id = this.budget.take(id);
      if (name && !call.name) call.name = this.budget.take(name);
      this.budget.check("the tool call it was sending is not run");
    }
    const piece = this.budget.take(args);
    if (piece) {
      call.args += piece;
      this.emit({ type: "tool_call_delta", index: call.ordinal, partialJson: piece });
    }
    // an interrupted answer's calls are never kept, so the cut-off call is not run
    this.budget.check(`the input of the tool call "${call.name || "(unnamed)"}" was cut off there, and the call is not run`);
  }

  private setUsage(u: z.infer<typeof usageSchema>): void {
    // prompt_tokens includes cached tokens; Usage keeps them apart, as Anthropic reports them
    const reported = u.prompt_tokens_details?.cached_tokens;
    const { uncached, cached } = splitPrompt(u.prompt_tokens, reported ?? 0);
    const usage: Usage = { inputTokens: uncached, outputTokens: tokenCount(u.completion_tokens) };
    // a reported 0 is a miss the status line shows ("cache 0%"); no field, no figure
    if (typeof reported === "number") usage.cacheReadTokens = cached;
    this.report(usage);
  }

  protected override stopReason(blocks: readonly Block[]): StopReason {
    // some servers say "stop" even when the answer is tool calls
    return askingForCalls(this.finish ? mapOpenAIFinishReason(this.finish) : "other", blocks);
  }

  protected override blocks(final: boolean): Block[] {
    if (final && this.finals) return this.finals;
    const out: Block[] = [];
    for (const s of this.segments) {
      switch (s.kind) {
        case "text":
          out.push({ type: "text", text: s.text });
          break;
        case "reasoning":
          out.push({ type: "reasoning", text: s.text });
          break;
        case "call": {
          // the arguments of an interrupted answer are probably cut: such calls are not kept
          if (!final) break;
          const c = s.call;
          if (!c.name) {
            this.emit({ type: "warning", message: `dropped a tool call from ${this.label} that had no name` });
            break;
          }
          out.push({ type: "tool_use", id: c.id, name: c.name, input: this.parseArgs(c) });
          break;
        }
        default:
          assertNever(s, "segment");
      }
    }
    if (final) this.finals = out;
    return out;
  }

  private parseArgs(c: Call): unknown {
    const { input, valid } = parseToolInput(c.args);
    if (!valid) {
      this.emit({
        type: "warning",
        message: `the arguments ${this.label} sent for tool "${c.name}" are not valid JSON; kept as _raw`,
      });
    }
    return input;
  }
}

function firstText(...xs: unknown[]): string | undefined {
  for (const x of xs) if (typeof x === "string" && x.length > 0) return x;
  return undefined;
}
