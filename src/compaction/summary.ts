// Summary compaction: an older prefix of whole turns is replaced, in the prepared copy, by a
// note the model wrote about it. Planning the cut, asking for the note and applying a stored
// note are separate pure steps; the caller runs the request and stores the result.
import type { StoredMessage } from "../record/types.js";
import type { StoredSummary } from "./types.js";
import { estimateMessage, type EstimateOptions } from "./estimate.js";
import type { TokenMethod } from "../tokens/count.js";
import type { PreparedMessage } from "./types.js";
import { formatInt } from "../record/numbers.js";

/** A summarised prefix smaller than this saves less than the note itself costs. */
const MIN_SUMMARY_PREFIX_TOKENS = 800;

/** A real user prompt: a user message that carries no tool results. Turns start here, and it
 * is the only place a cut keeps every tool round whole. */
export function isPlainPrompt(m: Pick<StoredMessage, "role" | "blocks">): boolean {
  return m.role === "user" && !m.blocks.some((b) => b.type === "tool_result");
}

interface PlanSummaryOptions extends EstimateOptions {
  /** at least about this many tokens of the newest history stay as they are */
  keepRecentTokens: number;
  method: TokenMethod;
  /** the seq an existing summary already covers up to: a new cut must go past it */
  afterSeq?: number;
  /** below this the prefix is not worth a summary; defaults to MIN_SUMMARY_PREFIX_TOKENS */
  minPrefixTokens?: number;
}

/** Chooses the latest cut, right before a plain user prompt, that keeps at least
 * keepRecentTokens (and always the last turn) after it. Undefined when no such cut exists or
 * the prefix it would summarise is too small to be worth it. */
export function planSummary(
  msgs: readonly StoredMessage[],
  opts: PlanSummaryOptions,
): { upToSeq: number } | undefined {
  const after = opts.afterSeq ?? Number.NEGATIVE_INFINITY;
  const minPrefix = opts.minPrefixTokens ?? MIN_SUMMARY_PREFIX_TOKENS;
  const sizes = msgs.map((m) => estimateMessage(m, opts.method, opts));
  let suffix = 0;
  let cut = -1;
  // walk back from the newest message; the first turn start with enough kept after it wins
  for (let i = msgs.length - 1; i >= 1; i--) {
    suffix += sizes[i]!;
    if (msgs[i - 1]!.seq <= after) break;
    if (isPlainPrompt(msgs[i]!) && suffix >= opts.keepRecentTokens) {
      cut = i;
      break;
    }
  }
  if (cut < 1) return undefined;
  let prefix = 0;
  for (let i = 0; i < cut; i++) if (msgs[i]!.seq > after) prefix += sizes[i]!;
  if (prefix < minPrefix) return undefined;
  return { upToSeq: msgs[cut - 1]!.seq };
}

export const SUMMARY_SYSTEM = [
  "You write handover notes for a coding agent.",
  "The earlier part of the agent's conversation with a user is about to leave its context, and",
  "your note is all the agent will keep of it. The agent continues the work from the note alone,",
  "so the note must be accurate and specific about everything that still matters.",
  "Write plain text; Markdown headings and lists are fine.",
  "Do not call tools, do not carry on with the task, and do not address the user.",
].join("\n");

const SECTIONS = [
  "## Goal\nWhat the user wants, in their terms, with every later change to the request and every constraint they set.",
  "## Decisions\nChoices made and the reasons for them; approaches tried and given up, and why.",
  "## Files\nEvery file read, created or modified, by path. For each change: what changed and where (functions, types, sections).",
  "## Commands\nCommands run (builds, tests, scripts, git) and what came of each: passed, failed, and how.",
  "## Errors and open problems\nErrors not yet resolved, with their exact text where it matters; anything uncertain or unverified.",
  "## Current state\nWhere the work stands at the end of the conversation above.",
  "## Next steps\nWhat remains to do, in order.",
];

/** The request that asks the model for a summary. The caller replays `prefix` as prose and
 * sends `prompt` as the final user message. When an earlier summary exists, `prefix` is what
 * came after it, and the new note folds the earlier one in and replaces it. */
export function summaryRequestParts(
  prefix: ReadonlyArray<Pick<StoredMessage, "role" | "blocks">>,
  previousSummary?: string,
): { system: string; prompt: string } {
  const count = `${formatInt(prefix.length)} ${prefix.length === 1 ? "message" : "messages"}`;
  const parts = [
    `Write the handover note for the conversation above (${count}).`,
    "Use these sections in this order; leave one out only when it has nothing to say.",
    "",
    SECTIONS.join("\n\n"),
    "",
    "Keep identifiers exact: paths, names of functions and types, commands, error messages.",
    "Say when something was assumed rather than checked. Leave out pleasantries and what no longer",
    "matters, and do not add anything that did not happen. Stay under about 1,500 words.",
  ];
  if (previousSummary !== undefined && previousSummary.trim().length > 0) {
    parts.push(
      "",
      "The conversation above continues from an earlier note, given below. Fold what still holds",
      "from it into the new note: the new note replaces it entirely.",
      "<earlier-note>",
      previousSummary.trim(),
      "</earlier-note>",
    );
  }
  return { system: SUMMARY_SYSTEM, prompt: parts.join("\n") };
}

/** Whether a summary covers a prefix of this history: same session, starting at or before
 * the first message, ending inside the history. */
function coversPrefix(msgs: readonly StoredMessage[], s: StoredSummary): boolean {
  const first = msgs[0];
  const last = msgs[msgs.length - 1];
  if (!first || !last) return false;
  if (s.sessionId !== first.sessionId) return false;
  return s.fromSeq <= first.seq && s.toSeq >= first.seq && s.toSeq <= last.seq;
}

/** The newest stored summary that covers a prefix of the history: a later summary already
 * folds in the earlier ones, so it supersedes them. */
function pickSummary(
  msgs: readonly StoredMessage[],
  summaries: StoredSummary | readonly StoredSummary[],
): StoredSummary | undefined {
  const list: readonly StoredSummary[] = isList(summaries) ? summaries : [summaries];
  let best: StoredSummary | undefined;
  for (const s of list) {
    if (!coversPrefix(msgs, s)) continue;
    if (!best || newer(s, best)) best = s;
  }
  return best;
}

function isList(s: StoredSummary | readonly StoredSummary[]): s is readonly StoredSummary[] {
  return Array.isArray(s);
}

function newer(a: StoredSummary, b: StoredSummary): boolean {
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
  return a.id > b.id;
}

/** How a summary's note begins (the inspector recognises a summary applied by it). */
export const SUMMARY_NOTE_PREFIX = "[Summary of earlier conversation (";

/** "[Summary of earlier conversation (messages 1–120), written by claude-sonnet-4]\n…" */
export function summaryText(summary: Pick<StoredSummary, "text" | "model">, count: number): string {
  const range = count === 1 ? "message 1" : `messages 1–${formatInt(count)}`;
  return `${SUMMARY_NOTE_PREFIX}${range}), written by ${summary.model}]\n${summary.text}`;
}

/** The history with the summarised prefix replaced by one user message holding the note.
 * Without a covering summary the history comes back unchanged (as prepared messages). */
export function applySummary(
  msgs: readonly StoredMessage[],
  summaries: StoredSummary | readonly StoredSummary[],
): PreparedMessage[] {
  return applySummaryCounted(msgs, summaries).messages;
}

/** applySummary, also saying how many stored messages the summary stands in for. */
export function applySummaryCounted(
  msgs: readonly StoredMessage[],
  summaries: StoredSummary | readonly StoredSummary[],
): { messages: PreparedMessage[]; summarized: number; summary?: StoredSummary } {
  const s = pickSummary(msgs, summaries);
  if (!s) return { messages: msgs.map(prepared), summarized: 0 };
  let k = 0;
  while (k < msgs.length && msgs[k]!.seq <= s.toSeq) k++;
  const note: PreparedMessage = { role: "user", blocks: [{ type: "text", text: summaryText(s, k) }] };
  return { messages: [note, ...msgs.slice(k).map(prepared)], summarized: k, summary: s };
}

function prepared(m: StoredMessage): PreparedMessage {
  return { role: m.role, blocks: m.blocks, status: m.status };
}

/** What a new summary request covers: the newest applicable summary (if any) and the stored
 * messages after it up to the planned cut. The new summary spans fromSeq..toSeq. */
interface SummaryInput {
  fromSeq: number;
  toSeq: number;
  prefix: StoredMessage[];
  previous?: StoredSummary;
}

export function planSummaryInput(
  msgs: readonly StoredMessage[],
  summaries: readonly StoredSummary[],
  opts: Omit<PlanSummaryOptions, "afterSeq">,
): SummaryInput | undefined {
  const first = msgs[0];
  if (!first) return undefined;
  const previous = pickSummary(msgs, summaries);
  const plan = planSummary(msgs, previous ? { ...opts, afterSeq: previous.toSeq } : opts);
  if (!plan) return undefined;
  const after = previous?.toSeq ?? Number.NEGATIVE_INFINITY;
  const prefix = msgs.filter((m) => m.seq > after && m.seq <= plan.upToSeq);
  const input: SummaryInput = { fromSeq: previous ? Math.min(previous.fromSeq, first.seq) : first.seq, toSeq: plan.upToSeq, prefix };
  if (previous) input.previous = previous;
  return input;
}
