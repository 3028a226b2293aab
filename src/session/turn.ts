// One user turn (SPEC §4): store the prompt, then repeat { prepare → capture → call the
// provider → store the answer → run its tools → store their results } until the model stops.
// Stored history crosses as prose (replay); the rounds of THIS turn cross natively with
// their call ids, so the provider's pairing rules hold inside the turn and never across it.
import type { Block, StoredMessage, ToolUseBlock, ToolResultBlock, MessageStatus } from "../record/types.js";
import type { ContextItem, Provider, ProviderName, ReasoningLevel, Request, Usage } from "../provider/types.js";
import { ProviderError } from "../provider/types.js";
import { summaryRequest, turnRequest } from "../replay/request.js";
import type { HistoryStore } from "./store-types.js";
import type { AnswerId, EventHub } from "./events.js";
import type { ToolContext, ToolDef } from "../tools/types.js";
import { runTool, toolSchemas, type PermissionMemory } from "../tools/run.js";
import { captureRequest } from "../context/capture.js";
import { prepareHistory, type PrepareResult } from "../compaction/prepare.js";
import { planSummaryInput, summaryRequestParts } from "../compaction/summary.js";
import { KEEP_RECENT_SHARE } from "../compaction/prepare.js";
import type { TokenMethod } from "../compaction/tokens.js";
import type { CompactionStrategy } from "./controller-types.js";
import { noRedaction } from "../config/secrets.js";
import { redactBlocks, redactRequest } from "./redact.js";

export interface TurnEnv {
  store: HistoryStore;
  sessionId: string;
  /** the loaded record of the session; the turn appends what it stores */
  history: StoredMessage[];
  provider: Provider;
  providerName: ProviderName;
  model: string;
  vision: boolean;
  contextWindow?: number;
  maxOutputTokens: number;
  reasoning: ReasoningLevel;
  system: string;
  context: ContextItem[];
  tools: ToolDef[];
  toolCtx: Omit<ToolContext, "signal">;
  /** cuts the configured keys out of everything stored or sent (tool output, prompts,
   * answers, summaries, requests): a project's .env or a config file may hold them, and
   * what is stored is sent with every later request */
  redact?: (text: string) => string;
  memory: PermissionMemory;
  compaction: { strategy: CompactionStrategy; threshold: number; keepRounds: number };
  tokenMethod: TokenMethod;
  events: EventHub;
  /** usage the provider reported for the previous response (shown as provider usage) */
  lastUsage?: Usage;
  /** what compaction did for the last request, for the status line */
  lastPrepare?: PrepareResult;
  /** checkpoint interval for streamed text */
  checkpointMs?: number;
  maxIterations?: number;
}

export interface TurnOutcome {
  ok: boolean;
  interrupted?: boolean;
  error?: string;
  /** the assistant's last text, for headless mode */
  finalText: string;
}

const DEFAULT_CHECKPOINT_MS = 1000;

/** Every block goes through the redactor on its way into the record: the one door. */
function clean(env: TurnEnv, blocks: Block[]): Block[] {
  return redactBlocks(blocks, env.redact ?? noRedaction);
}

async function append(env: TurnEnv, role: "user" | "assistant", raw: Block[], status: MessageStatus, answer?: AnswerId): Promise<StoredMessage> {
  const blocks = clean(env, raw);
  const msg = await env.store.appendMessage(env.sessionId, {
    role,
    blocks,
    status,
    ...(role === "assistant" ? { model: env.model } : {}),
  });
  env.history.push(msg);
  env.events.emit(answer === undefined ? { type: "message", msg } : { type: "message", msg, answer });
  return msg;
}

async function update(env: TurnEnv, msg: StoredMessage, raw: Block[], status: MessageStatus, answer?: AnswerId): Promise<void> {
  const blocks = clean(env, raw);
  await env.store.updateMessage(msg.id, blocks, status);
  msg.blocks = blocks;
  msg.status = status;
  env.events.emit(answer === undefined ? { type: "message", msg } : { type: "message", msg, answer });
}

function errorText(e: unknown): string {
  if (e instanceof ProviderError) return e.message;
  return e instanceof Error ? e.message : String(e);
}

/** The request for one iteration (src/replay/request.ts), through the redactor: the one
 * redacted request is both captured and sent. */
function buildRequest(env: TurnEnv, prepared: PrepareResult, turnStart: number): Request {
  return redactRequest(turnRequest(prepared.messages, env.history.slice(turnStart), {
    provider: env.providerName,
    model: env.model,
    system: env.system,
    context: env.context,
    tools: toolSchemas(env.tools),
    maxOutputTokens: env.maxOutputTokens,
    reasoning: env.reasoning,
    vision: env.vision,
  }), env.redact ?? noRedaction);
}

function fixedTokens(env: TurnEnv): number {
  let chars = env.system.length;
  for (const c of env.context) chars += c.text.length;
  for (const t of toolSchemas(env.tools)) chars += JSON.stringify(t).length;
  return Math.ceil(chars / 4);
}

async function prepare(env: TurnEnv, turnStart: number): Promise<PrepareResult> {
  const summaries = await env.store.loadSummaries(env.sessionId);
  const prior = env.history.slice(0, turnStart);
  // A stored summary exists only because one was asked for (/compact, a context-length
  // refusal, or the summary strategy), so it is used whatever the strategy; but only the
  // summary strategies ask for new ones automatically.
  const own = env.compaction.strategy;
  const autoSummary = own === "summary" || own === "microcompact+summary";
  const strategy: CompactionStrategy =
    autoSummary || summaries.length === 0 ? own : own === "microcompact" ? "microcompact+summary" : "summary";
  const opts = {
    strategy,
    summaries,
    keepRounds: env.compaction.keepRounds,
    threshold: env.compaction.threshold,
    method: env.tokenMethod,
    vision: env.vision,
    // the other sections of the request take room in the window too
    reserveTokens: fixedTokens(env),
    ...(env.contextWindow !== undefined ? { contextWindow: env.contextWindow } : {}),
  };
  const result = prepareHistory(prior, opts);
  if (!autoSummary) result.needsSummary = false;
  return result;
}

/** The compaction note of a captured summary request (it carries no project context). */
export const SUMMARY_REQUEST_NOTE = "summary request";

/** Stores the request the provider is about to get, for the inspector. */
async function record(env: TurnEnv, req: Request, iteration: number, note?: string): Promise<void> {
  const previousBytes = await env.store.lastSectionBytes(env.sessionId);
  const capture = captureRequest(req, {
    iteration,
    capturedAt: new Date().toISOString(),
    ...(env.contextWindow !== undefined ? { contextWindow: env.contextWindow } : {}),
    ...(env.lastUsage ? { providerUsage: env.lastUsage } : {}),
    ...(previousBytes ? { previousBytes } : {}),
    ...(note && note !== "none" ? { compaction: note } : {}),
  });
  await env.store.saveCapture(env.sessionId, capture);
  env.events.emit({ type: "capture" });
}

/**
 * Summarises an older prefix of the stored history with the model and stores the summary.
 * Returns a line for the person, or undefined when there was nothing to summarise.
 */
export async function summarize(
  env: TurnEnv,
  uptoIndex: number,
  signal: AbortSignal,
  opts: { iteration?: number; force?: boolean } = {},
): Promise<string | undefined> {
  const iteration = opts.iteration ?? 0;
  const prior = env.history.slice(0, uptoIndex);
  const summaries = await env.store.loadSummaries(env.sessionId);
  // Automatic: the same cut rule prepareHistory uses to decide a summary is due, so one
  // summary settles it. Forced (/compact, or the provider said too long): keep only the last turn.
  const budget = env.contextWindow ? Math.floor(env.compaction.threshold * env.contextWindow) - fixedTokens(env) : undefined;
  const keepRecentTokens = opts.force ? 0 : budget ? Math.floor(budget * KEEP_RECENT_SHARE) : 20_000;
  const input = planSummaryInput(prior, summaries, { keepRecentTokens, method: env.tokenMethod });
  if (!input) return undefined;
  const parts = summaryRequestParts(input.prefix, input.previous?.text);
  const req: Request = redactRequest(
    summaryRequest(input.prefix, parts, { provider: env.providerName, model: env.model, maxOutputTokens: env.maxOutputTokens }),
    env.redact ?? noRedaction,
  );
  env.events.emit({ type: "state", state: "compacting" });
  await record(env, req, iteration, SUMMARY_REQUEST_NOTE);
  const result = await env.provider.stream(req, { signal });
  if (result.usage) env.lastUsage = result.usage;
  const text = (env.redact ?? noRedaction)(
    result.blocks
      .filter((b): b is Extract<Block, { type: "text" }> => b.type === "text")
      .map((b) => b.text)
      .join("\n")
      .trim(),
  );
  if (!text) throw new Error("the model returned an empty summary");
  // the new note folds in the earlier one and replaces it
  await env.store.saveSummary({ sessionId: env.sessionId, fromSeq: input.fromSeq, toSeq: input.toSeq, text, model: env.model });
  return `summarised messages ${input.fromSeq}–${input.toSeq}`;
}

export async function runTurn(env: TurnEnv, userBlocks: Block[], signal: AbortSignal): Promise<TurnOutcome> {
  const turnStart = env.history.length;
  await append(env, "user", userBlocks, "complete");
  let finalText = "";
  let contextRetryUsed = false;
  const maxIterations = env.maxIterations ?? 100;

  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    if (signal.aborted) return { ok: false, interrupted: true, finalText };
    let prepared = await prepare(env, turnStart);
    if (prepared.needsSummary) {
      try {
        const said = await summarize(env, turnStart, signal, { iteration });
        if (said) {
          env.events.emit({ type: "notice", level: "info", text: `Compaction: ${said}.` });
          prepared = await prepare(env, turnStart);
        }
      } catch (e) {
        if (signal.aborted) return { ok: false, interrupted: true, finalText };
        env.events.emit({ type: "notice", level: "warning", text: `Automatic summary failed (${errorText(e)}); sending the history as it is.` });
      }
    }
    env.lastPrepare = prepared;
    const req = buildRequest(env, prepared, turnStart);
    await record(env, req, iteration, prepared.note);

    // stream, checkpointing what arrives so a kill loses at most about a second of it
    env.events.emit({ type: "state", state: "streaming" });
    // the answer's identity comes before its first delta: every event of it carries this
    const answer = env.events.newAnswer();
    env.events.emit({ type: "answer_start", answer });
    let text = "";
    let reasoning = "";
    let checkpoint: StoredMessage | undefined;
    let writes: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    let lastWrite = 0;
    const checkpointMs = env.checkpointMs ?? DEFAULT_CHECKPOINT_MS;
    const partialBlocks = (): Block[] => {
      const blocks: Block[] = [];
      if (reasoning) blocks.push({ type: "reasoning", text: reasoning });
      if (text) blocks.push({ type: "text", text });
      return blocks;
    };
    let checkpointFailed = false;
    const writeCheckpoint = (): void => {
      timer = undefined;
      lastWrite = Date.now();
      const blocks = partialBlocks();
      writes = writes.then(async () => {
        try {
          if (!checkpoint) checkpoint = await append(env, "assistant", blocks, "interrupted", answer);
          else await env.store.updateMessage(checkpoint.id, clean(env, blocks), "interrupted");
        } catch (e) {
          // A checkpoint is insurance against a kill. One that cannot be written (a database
          // busy for a moment) must not cost the answer itself: the next checkpoint tries
          // again, and the complete message is stored when the stream ends.
          if (!checkpointFailed) {
            checkpointFailed = true;
            env.events.emit({ type: "notice", level: "warning", text: `Could not checkpoint the streaming answer (${errorText(e)}); it is stored when complete.` });
          }
        }
      });
    };
    const onDelta = (): void => {
      if (timer) return;
      const wait = Math.max(0, lastWrite + checkpointMs - Date.now());
      if (lastWrite === 0) writeCheckpoint();
      else timer = setTimeout(writeCheckpoint, wait);
    };

    const toolInputs = new Map<number, { name: string; bytes: number }>();
    let result;
    try {
      result = await env.provider.stream(req, {
        signal,
        onEvent: (e) => {
          switch (e.type) {
            case "text_delta":
              text += e.text;
              env.events.emit({ type: "text_delta", answer, text: e.text });
              onDelta();
              break;
            case "reasoning_delta":
              reasoning += e.text;
              env.events.emit({ type: "reasoning_delta", answer, text: e.text });
              onDelta();
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
            default: {
              const never: never = e;
              throw new Error(`unknown stream event ${JSON.stringify(never)}`);
            }
          }
        },
      });
    } catch (e) {
      if (timer) clearTimeout(timer);
      await writes.catch(() => undefined);
      const partial = e instanceof ProviderError && e.partial.length > 0 ? e.partial : partialBlocks();
      if (partial.length > 0 || checkpoint) {
        // keep what arrived, marked interrupted
        if (checkpoint) await update(env, checkpoint, partial, "interrupted", answer);
        else await append(env, "assistant", partial, "interrupted", answer);
      }
      if (signal.aborted || (e instanceof ProviderError && e.kind === "aborted")) {
        env.events.emit({ type: "notice", level: "info", text: "Interrupted; what arrived is kept." });
        return { ok: false, interrupted: true, finalText: text };
      }
      if (e instanceof ProviderError && e.kind === "context_length" && !contextRetryUsed && partial.length === 0) {
        contextRetryUsed = true;
        try {
          const said = await summarize(env, turnStart, signal, { iteration, force: true });
          if (said) {
            env.events.emit({ type: "notice", level: "warning", text: `The provider said the context is too long; ${said}. Retrying once.` });
            iteration--;
            continue;
          }
        } catch (se) {
          env.events.emit({ type: "notice", level: "error", text: `${errorText(e)} (a summary to make room failed too: ${errorText(se)})` });
          return { ok: false, error: errorText(e), finalText };
        }
      }
      const msg = errorText(e);
      env.events.emit({ type: "notice", level: "error", text: msg });
      return { ok: false, error: msg, finalText };
    }
    if (timer) clearTimeout(timer);
    await writes;
    if (result.usage) {
      env.lastUsage = result.usage;
    }

    // the complete answer replaces the checkpoint in place; its tools run with the input as
    // stored (redacted), so what runs is what the record and the next request show
    const blocks = clean(env, result.blocks);
    if (checkpoint) await update(env, checkpoint, blocks, "complete", answer);
    else await append(env, "assistant", blocks, "complete", answer);
    const answerText = blocks
      .filter((b): b is Extract<Block, { type: "text" }> => b.type === "text")
      .map((b) => b.text)
      .join("");
    if (answerText) finalText = answerText;

    const calls = blocks.filter((b): b is ToolUseBlock => b.type === "tool_use");
    if (calls.length === 0) {
      if (result.stopReason === "max_tokens") {
        env.events.emit({ type: "notice", level: "warning", text: "The answer stopped at the output token limit." });
      }
      return { ok: true, finalText };
    }

    // run the tools, store all their results as ONE user message
    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      if (signal.aborted) {
        results.push({ type: "tool_result", toolUseId: call.id, name: call.name, output: "interrupted before it ran", isError: true });
        continue;
      }
      env.events.emit({ type: "state", state: "tool", detail: call.name });
      env.events.emit({ type: "tool_start", id: call.id, name: call.name, input: call.input });
      // the time the tool ran: a person's wait at a permission prompt is not its cost
      let t0 = Date.now();
      const onRun = (): void => {
        t0 = Date.now();
      };
      const out = await runTool(env.tools, call.name, call.input, { ...env.toolCtx, signal, onRun }, env.memory);
      const ms = Date.now() - t0;
      const redact = env.redact ?? noRedaction;
      const output = redact(out.output);
      const diff = out.diff !== undefined ? redact(out.diff) : undefined;
      env.events.emit({ type: "tool_end", id: call.id, name: call.name, output, isError: out.isError, ms, ...(diff ? { diff } : {}) });
      results.push({ type: "tool_result", toolUseId: call.id, name: call.name, output, isError: out.isError });
    }
    await append(env, "user", results, "complete");
    if (signal.aborted) {
      env.events.emit({ type: "notice", level: "info", text: "Interrupted; tool results so far are kept." });
      return { ok: false, interrupted: true, finalText };
    }
  }
  const msg = `Stopped after ${maxIterations} model calls in one turn; send another message to continue.`;
  env.events.emit({ type: "notice", level: "warning", text: msg });
  return { ok: false, error: msg, finalText };
}
