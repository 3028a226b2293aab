// The step before every request: stored history → the messages this request replays, with
// what was left out and how full the context is. Pure: the record is read, never written, and
// the summary itself is requested and stored by the caller when needsSummary says so.
import { assertNever, type StoredMessage } from "../record/types.js";
import type { CompactionStrategy } from "./types.js";
import type { StoredSummary } from "./types.js";
import { estimateMessages, type HistoryEstimate } from "./estimate.js";
import { countRounds, DEFAULT_MICROCOMPACT_STEP, describeRemoved, microcompact } from "./microcompact.js";
import { applySummaryCounted, planSummaryInput } from "./summary.js";
import type { TokenMethod } from "../tokens/count.js";
import type { PreparedMessage } from "./types.js";
import { formatInt } from "../record/numbers.js";

export type { PreparedMessage } from "./types.js";

const DEFAULT_KEEP_ROUNDS = 3;
const DEFAULT_THRESHOLD = 0.8;
/** Share of the usable budget a summary keeps verbatim after its cut. */
export const KEEP_RECENT_SHARE = 0.3;

export const AUTO_COMPACTION_OFF = "auto-compaction off: the model's context window is unknown";

/** The sentence to show when automatic compaction cannot run, or undefined when it can. */
export function autoCompactionOff(window?: number): string | undefined {
  return knownWindow(window) ? undefined : AUTO_COMPACTION_OFF;
}

function knownWindow(window?: number): window is number {
  return window !== undefined && Number.isFinite(window) && window > 0;
}

export interface PrepareOptions {
  strategy: CompactionStrategy;
  /** the session's stored summaries, any order */
  summaries: readonly StoredSummary[];
  /** tool rounds kept whole by microcompact (default 3) */
  keepRounds?: number;
  /** rounds microcompact blurs at once when the tail reaches keepRounds + step (default 12) */
  step?: number;
  /** share of the context window past which a summary is asked for (default 0.8) */
  threshold?: number;
  /** undefined when the catalog does not know the model: automatic compaction is then off */
  contextWindow?: number;
  method: TokenMethod;
  /** tokens the rest of the request takes: system, context items, tool schemas, output */
  reserveTokens?: number;
  /** whether the model sees images (an unseen image crosses as a short marker) */
  vision?: boolean;
  /** tokens of recent history a new summary should leave alone; defaults to a share of the budget */
  keepRecentTokens?: number;
}

export interface PrepareResult {
  messages: PreparedMessage[];
  /** of `messages`, the history section only */
  estimate: HistoryEstimate;
  removed: { outputs: number; bytes: number; summarizedMessages: number };
  /** "microcompact: 14 outputs, 412 kB", "summary: 120 messages", both joined by "; ", or "none" */
  note: string;
  /** the strategy summarises, pressure is over the threshold after everything applied, and
   * there is an older prefix of whole turns a summary could replace */
  needsSummary: boolean;
  /** estimate + reserve is above threshold × window (false when the window is unknown) */
  overThreshold: boolean;
  /** threshold × window − reserve: the tokens history may take before compaction is due */
  budget?: number;
  /** set when the window is unknown: the sentence saying automatic compaction is off */
  autoOff?: string;
  /** the stored summary applied to this request, if any */
  summary?: StoredSummary;
}

export function prepareHistory(history: readonly StoredMessage[], opts: PrepareOptions): PrepareResult {
  const threshold = opts.threshold ?? DEFAULT_THRESHOLD;
  const keepRounds = opts.keepRounds ?? DEFAULT_KEEP_ROUNDS;
  const step = opts.step ?? DEFAULT_MICROCOMPACT_STEP;
  const reserve = opts.reserveTokens ?? 0;
  const estOpts = opts.vision === undefined ? {} : { vision: opts.vision };

  let useMicro: boolean;
  let useSummary: boolean;
  switch (opts.strategy) {
    case "none":
      [useMicro, useSummary] = [false, false];
      break;
    case "microcompact":
      [useMicro, useSummary] = [true, false];
      break;
    case "summary":
      [useMicro, useSummary] = [false, true];
      break;
    case "microcompact+summary":
      [useMicro, useSummary] = [true, true];
      break;
    default:
      assertNever(opts.strategy, "compaction strategy");
  }

  // The summary goes first: it only removes an older prefix, so microcompact's "most recent
  // rounds" are the same either way, and there is less left to scan.
  let messages: PreparedMessage[];
  let summarized = 0;
  let applied: StoredSummary | undefined;
  if (useSummary) {
    const r = applySummaryCounted(history, opts.summaries);
    messages = r.messages;
    summarized = r.summarized;
    applied = r.summary;
  } else {
    messages = history.map((m) => ({ role: m.role, blocks: m.blocks, status: m.status }));
  }

  let outputs = 0;
  let bytes = 0;
  if (useMicro) {
    // the rounds a summary stands in for still count toward the step boundary
    const r = microcompact(messages, { keepRounds, step, roundsBefore: countRounds(history.slice(0, summarized)) });
    messages = r.messages;
    outputs = r.removed.outputs;
    bytes = r.removed.bytes;
  }

  const estimate = estimateMessages(messages, opts.method, estOpts);

  const notes: string[] = [];
  if (summarized > 0) notes.push(`summary: ${formatInt(summarized)} ${summarized === 1 ? "message" : "messages"}`);
  if (outputs > 0) notes.push(`microcompact: ${describeRemoved({ outputs, bytes })}`);

  const result: PrepareResult = {
    messages,
    estimate,
    removed: { outputs, bytes, summarizedMessages: summarized },
    note: notes.length > 0 ? notes.join("; ") : "none",
    needsSummary: false,
    overThreshold: false,
  };
  if (applied) result.summary = applied;

  const window = opts.contextWindow;
  if (!knownWindow(window)) {
    result.autoOff = AUTO_COMPACTION_OFF;
    return result;
  }
  const budget = Math.max(0, Math.floor(threshold * window) - reserve);
  result.budget = budget;
  result.overThreshold = estimate.tokens > budget;
  if (useSummary && result.overThreshold) {
    // only ask for a summary when one can help: a history that is one huge turn has no
    // prefix of whole turns to replace, and asking would repeat every request
    const keepRecentTokens = opts.keepRecentTokens ?? Math.floor(budget * KEEP_RECENT_SHARE);
    result.needsSummary =
      planSummaryInput(history, opts.summaries, { keepRecentTokens, method: opts.method, ...estOpts }) !== undefined;
  }
  return result;
}
