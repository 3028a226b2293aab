// The window rule: a request that the client's own estimate puts over the model's context
// window is never sent. The provider would refuse it, and a stored prompt that large would be
// sent again, and refused again, with every later request. Pure: the estimate of a whole
// request (every part kind: text, tool calls and results, reasoning with its opaque body,
// images), the sentences that say why something was not sent, and the cut that brings a
// prepared history under a budget by putting, in its largest blocks' places, markers that say
// what was left out of the request (the record keeps them whole).
import { assertNever, type Block } from "../record/types.js";
import type { ContextItem, Request, ToolSchema, WireMessage, WirePart } from "../provider/types.js";
import { requestMessages } from "../provider/types.js";
import { toolInputJson } from "../provider/tool-input.js";
import { countTokens, formatEstimate, opaqueTokens, type TokenMethod } from "../tokens/count.js";
import { formatInt } from "../record/numbers.js";
import { imageNotSeenMarker, reasoningProse } from "../replay/replay.js";
import { estimateBlock, imageTokens, MESSAGE_OVERHEAD_TOKENS } from "./estimate.js";
import type { PreparedMessage } from "./types.js";

/** A request over the window: its estimate, the window, and how the estimate was made. */
export interface OverWindow {
  tokens: number;
  window: number;
  method: string;
}

/** Tokens the label of a tool call or result adds to its content ("Tool use: read(…)"). */
const LABEL_TOKENS = 4;

function partTokens(p: WirePart, method: TokenMethod): number {
  switch (p.type) {
    case "text":
      return countTokens(p.text, method);
    case "image":
      return imageTokens(p.width, p.height);
    case "tool_call":
      return LABEL_TOKENS + countTokens(p.name, method) + countTokens(toolInputJson(p.input), method);
    case "tool_result":
      return LABEL_TOKENS + countTokens(p.name, method) + countTokens(p.output, method);
    case "reasoning":
      // the text crosses, and the body with it when it goes back verbatim
      return countTokens(reasoningProse(p.text), method) + (p.opaque ? opaqueTokens(Buffer.byteLength(p.opaque.body, "utf8")) : 0);
    default:
      return assertNever(p, "wire part");
  }
}

function messagesTokens(msgs: readonly WireMessage[], method: TokenMethod): { tokens: number; images: boolean; opaque: boolean } {
  let tokens = 0;
  let images = false;
  let opaque = false;
  for (const m of msgs) {
    tokens += MESSAGE_OVERHEAD_TOKENS;
    const parts: readonly WirePart[] = m.content;
    for (const p of parts) {
      tokens += partTokens(p, method);
      if (p.type === "image") images = true;
      else if (p.type === "reasoning" && p.opaque) opaque = true;
    }
  }
  return { tokens, images, opaque };
}

function fixedSectionTokens(system: string, context: readonly ContextItem[], tools: readonly ToolSchema[], method: TokenMethod): number {
  let n = countTokens(system, method);
  for (const c of context) n += countTokens(c.text, method);
  for (const t of tools) n += countTokens(JSON.stringify(t), method);
  return n;
}

/** The estimate of a whole request as it will be sent: system, project context, tools, the
 * replayed history and the live round, each part by its kind. */
export function requestTokens(req: Request, method: TokenMethod): { tokens: number; method: string } {
  const m = messagesTokens(requestMessages(req), method);
  const label = `${method}${m.images ? " + images by size" : ""}${m.opaque ? " + opaque bodies by size" : ""}`;
  return { tokens: fixedSectionTokens(req.system, req.context, req.tools, method) + m.tokens, method: label };
}

function knownWindow(window: number | undefined): window is number {
  return window !== undefined && Number.isFinite(window) && window > 0;
}

/** The rule itself: the request's figures when its estimate is over the window, undefined when
 * it fits or the window is unknown (then nothing can be known to be too large). */
export function overWindow(req: Request, o: { contextWindow?: number | undefined; method: TokenMethod }): OverWindow | undefined {
  if (!knownWindow(o.contextWindow)) return undefined;
  const e = requestTokens(req, o.method);
  return e.tokens > o.contextWindow ? { tokens: e.tokens, window: o.contextWindow, method: e.method } : undefined;
}

/** The most a cut brings a request to: the compaction threshold's share of the window (room
 * for the answer and the turn's tool results), never the whole window. */
export function fitLimit(window: number, threshold: number): number {
  const share = Number.isFinite(threshold) && threshold > 0 ? Math.min(threshold, 0.95) : 0.8;
  return Math.floor(share * window);
}

/** A block this large takes a quarter of the window by itself: when the request is over the
 * window, such blocks are left out before anything else is tried (a summary would only have to
 * leave them out too). */
export const OVERSIZED_SHARE = 0.25;

/** Below this a block's marker saves too little to be worth what it loses. */
export const MIN_CUT_TOKENS = 256;

/** How every marker of a left-out block begins. */
export const LEFT_OUT_PREFIX = "[Left out of this request to fit the model's context window: ";

const HEAD_CHARS = 240;

function head(text: string): string {
  // only the head is looked at: the text may be megabytes
  const flat = text.slice(0, HEAD_CHARS * 2).replace(/\s+/g, " ").trim();
  return flat.length > HEAD_CHARS ? `${flat.slice(0, HEAD_CHARS).trimEnd()}…` : flat;
}

/** "[Left out of this request to fit the model's context window: the text of a prompt, ≈ 316,219
 * tokens (1,264,876 characters). The session's record keeps it whole. It began: "…"]" */
export function leftOutMarker(what: string, tokens: number, text: string): string {
  const began = text.trim() ? ` It began: "${head(text)}"` : "";
  return `${LEFT_OUT_PREFIX}${what}, ≈ ${formatInt(tokens)} tokens (${formatInt(text.length)} characters). The session's record keeps it whole.${began}]`;
}

/** The block that stands for `b` in the request, of the same kind where pairing depends on it
 * (a tool result keeps its call's id). */
function cutBlock(b: Block, role: PreparedMessage["role"], tokens: number): Block {
  switch (b.type) {
    case "text":
      return { type: "text", text: leftOutMarker(role === "user" ? "the text of a user message" : "the text of an answer", tokens, b.text) };
    case "tool_result":
      return { ...b, output: leftOutMarker(`the ${b.isError ? "error output" : "output"} of ${b.name}`, tokens, b.output) };
    case "tool_use":
      // prior history crosses as prose: the call becomes what it says
      return { type: "text", text: `Tool use: ${b.name}(${leftOutMarker(`the input of this ${b.name} call`, tokens, toolInputJson(b.input))})` };
    case "reasoning":
      return { type: "reasoning", text: leftOutMarker("reasoning", tokens, b.text) };
    case "image":
      return { type: "text", text: imageNotSeenMarker(b.mediaType, b.bytes, b.width, b.height, { why: "left out of this request to fit the model's context window" }) };
    default:
      return assertNever(b, "block");
  }
}

export interface CutOptions {
  /** tokens the cut must save */
  excess: number;
  method: TokenMethod;
  /** whether the model sees images (an unseen one already crosses as a short marker) */
  vision?: boolean;
  /** only blocks at least this large are cut (default MIN_CUT_TOKENS) */
  minTokens?: number;
}

export interface Cut {
  messages: PreparedMessage[];
  /** blocks left out */
  blocks: number;
  /** their estimate before the cut */
  tokens: number;
}

/**
 * The largest blocks, biggest first (the older first among equals), each replaced by a marker
 * that says what it was and that the record keeps it, until the cut saves `excess` tokens or
 * nothing large enough is left. The input is not touched: changed messages get new block
 * arrays, unchanged blocks are shared. Messages keep their number and roles.
 */
export function cutToFit(msgs: ReadonlyArray<Pick<PreparedMessage, "role" | "blocks" | "status">>, o: CutOptions): Cut {
  const minTokens = Math.max(MIN_CUT_TOKENS, o.minTokens ?? 0);
  const estOpts = o.vision === undefined ? {} : { vision: o.vision };
  const candidates: { i: number; j: number; tokens: number }[] = [];
  msgs.forEach((m, i) =>
    m.blocks.forEach((b, j) => {
      const tokens = estimateBlock(b, o.method, estOpts);
      if (tokens >= minTokens) candidates.push({ i, j, tokens });
    }),
  );
  candidates.sort((a, b) => b.tokens - a.tokens || a.i - b.i || a.j - b.j);
  const copies = new Map<number, Block[]>();
  let saved = 0;
  let blocks = 0;
  let tokens = 0;
  for (const c of candidates) {
    if (saved >= o.excess) break;
    const m = msgs[c.i]!;
    const marker = cutBlock(m.blocks[c.j]!, m.role, c.tokens);
    const gain = c.tokens - estimateBlock(marker, o.method, estOpts);
    if (gain <= 0) continue;
    let copy = copies.get(c.i);
    if (!copy) copies.set(c.i, (copy = m.blocks.slice()));
    copy[c.j] = marker;
    saved += gain;
    blocks++;
    tokens += c.tokens;
  }
  const messages = msgs.map((m, i): PreparedMessage => {
    const b = copies.get(i) ?? m.blocks;
    return m.status === undefined ? { role: m.role, blocks: b } : { role: m.role, blocks: b, status: m.status };
  });
  return { messages, blocks, tokens };
}

/** "left out to fit the window: 1 block, ≈ 316,219 tokens" (the capture's compaction note). */
export function describeCut(c: Pick<Cut, "blocks" | "tokens">): string {
  return `left out to fit the window: ${formatInt(c.blocks)} ${c.blocks === 1 ? "block" : "blocks"}, ≈ ${formatInt(c.tokens)} tokens`;
}

function figures(o: OverWindow, model: string): string {
  return `${formatEstimate(o)}, more than ${model}'s context window of ${formatInt(o.window)} tokens`;
}

/** Why a prompt was not sent: with the fixed sections alone it makes a request over the window,
 * and nothing compaction does to the history can change that. */
export function promptTooLarge(o: OverWindow, model: string): string {
  return `Not sent: this prompt makes a request of ${figures(o, model)}, so the provider would refuse it.`;
}

/** Why a turn's request was not sent, after the history was summarised and cut as far as it goes. */
export function requestTooLarge(o: OverWindow, model: string, midTurn: boolean): string {
  if (midTurn) {
    return (
      `The turn stopped before its next request: it would be ${figures(o, model)}. ` +
      "Send another message to continue: the next turn's compaction can shorten this one's tool results."
    );
  }
  return `Not sent: the request would be ${figures(o, model)}, even with the older history summarised and its largest parts left out. Run /compact, or start a new session.`;
}

/** Why a summary could not be asked for: even with its largest parts left out, the request would be over the window. */
export function summaryTooLarge(o: OverWindow, model: string): string {
  return `the summary request would be ${figures(o, model)}, even with its largest parts left out`;
}
