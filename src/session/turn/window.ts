// The step that builds each request of a turn, where the window rule holds (src/compaction/
// window.ts): a request over the model's context window by the client's own estimate is not
// sent. Before giving up, the prior history is made to fit: blocks that alone fill a share of
// the window are left out of the request (markers say what went; the record keeps them), then
// an older prefix is summarised, then the largest blocks of any size are left out. Only what
// still does not fit is refused, with a sentence, and nothing is sent.
import type { Block, MessageStatus } from "../../record/types.js";
import type { Request, Usage } from "../../provider/types.js";
import type { PrepareResult, PreparedMessage } from "../../compaction/prepare.js";
import {
  cutToFit,
  describeCut,
  fitLimit,
  MIN_CUT_TOKENS,
  OVERSIZED_SHARE,
  overWindow,
  requestTooLarge,
  type OverWindow,
} from "../../compaction/window.js";
import { turnRequest } from "../../replay/request.js";
import { toolSchemas } from "../../tools/run.js";
import { noRedaction } from "../../config/secrets.js";
import { formatInt } from "../../record/numbers.js";
import { messageOf } from "../../record/errors.js";
import { redactRequest } from "./redact.js";
import { withTaskList } from "./task-list.js";
import { clean } from "./record.js";
import { prepare, summarize } from "./compact.js";
import type { TurnEnv } from "./env.js";

type LiveMessage = { role: "user" | "assistant"; blocks: Block[]; status: MessageStatus };

/** The request for one model call, through the redactor: the one redacted request is both
 * checked, captured and sent. */
export function buildRequest(env: TurnEnv, prior: readonly PreparedMessage[], live: readonly LiveMessage[]): Request {
  const req = turnRequest(prior, live, {
    provider: env.providerName,
    model: env.model,
    system: env.system,
    // after a summary, the task list it stood in for (task-list.ts)
    context: withTaskList(env.context, prior, env.history),
    tools: toolSchemas(env.tools),
    maxOutputTokens: env.maxOutputTokens,
    reasoning: env.reasoning,
    vision: env.vision,
    ...(env.cache ? { cache: env.cache } : {}),
    ...(env.api ? { api: env.api } : {}),
    ...(env.contextWindow !== undefined ? { contextWindow: env.contextWindow } : {}),
  });
  return redactRequest(req, env.redact ?? noRedaction);
}

/** The window rule for a request this turn would send. */
export function requestOverWindow(env: TurnEnv, req: Request): OverWindow | undefined {
  return overWindow(req, { contextWindow: env.contextWindow, method: env.tokenMethod });
}

/**
 * The rule at Enter: the request a prompt makes with no history at all (system, project
 * context, tools and the prompt). Over the window, no compaction can make it fit, so it is
 * refused before anything is stored. The same rule as every request's (requestOverWindow).
 */
export function promptOverWindow(env: TurnEnv, blocks: Block[]): OverWindow | undefined {
  if (env.contextWindow === undefined) return undefined;
  return requestOverWindow(env, buildRequest(env, [], [{ role: "user", blocks: clean(env, blocks), status: "complete" }]));
}

export type Fitted =
  | { kind: "fits"; req: Request; prepared: PrepareResult; usage?: Usage }
  /** still over the window: the sentence that says so; nothing was sent */
  | { kind: "over"; said: string }
  | { kind: "interrupted" };

/** What the turn's requests share: a summary to make room is asked for at most once a turn,
 * and that parts of the history were left out is said once a turn, not with every request. */
export interface FitState {
  summarised: boolean;
  told?: boolean;
}

/** The request for this iteration, made to fit the window when it can be. */
export async function fitRequest(
  env: TurnEnv,
  prepared: PrepareResult,
  turnStart: number,
  signal: AbortSignal,
  state: FitState,
  o: { iteration: number; providerUsage?: Usage },
): Promise<Fitted> {
  const live = env.history.slice(turnStart);
  let req = buildRequest(env, prepared.messages, live);
  let over = requestOverWindow(env, req);
  if (!over || env.contextWindow === undefined) return { kind: "fits", req, prepared };
  const window = env.contextWindow;
  const limit = fitLimit(window, env.compaction.threshold);
  let usage: Usage | undefined;
  let cut = { blocks: 0, tokens: 0 };

  const leaveOut = (minTokens: number): void => {
    if (!over) return;
    const c = cutToFit(prepared.messages, { excess: over.tokens - limit, method: env.tokenMethod, vision: env.vision.sees, minTokens });
    if (c.blocks === 0) return;
    cut = { blocks: cut.blocks + c.blocks, tokens: cut.tokens + c.tokens };
    prepared = { ...prepared, messages: c.messages, note: [prepared.note, describeCut(c)].filter((n) => n !== "none").join("; ") };
    req = buildRequest(env, prepared.messages, live);
    over = requestOverWindow(env, req);
  };
  const fitted = (): Fitted => {
    if (cut.blocks > 0 && !state.told) {
      state.told = true;
      const what = `${formatInt(cut.blocks)} ${cut.blocks === 1 ? "part" : "parts"} of the history (≈ ${formatInt(cut.tokens)} tokens)`;
      env.events.emit({ type: "notice", level: "warning", text: `Left ${what} out of this request to fit ${env.model}'s context window of ${formatInt(window)} tokens; the session's record keeps them whole.` });
    }
    return { kind: "fits", req, prepared, ...(usage ? { usage } : {}) };
  };

  // a block that fills a share of the window by itself: no summary could keep it either
  leaveOut(Math.floor(window * OVERSIZED_SHARE));
  if (!over) return fitted();

  if (!state.summarised) {
    state.summarised = true;
    try {
      const s = await summarize(env, turnStart, signal, { iteration: o.iteration, force: true, ...(o.providerUsage ? { providerUsage: o.providerUsage } : {}) });
      if (s.usage) usage = s.usage;
      if (s.said) {
        env.events.emit({ type: "notice", level: "warning", text: `The request would be ${formatInt(over.tokens)} tokens, over the context window; ${s.said} to make room.` });
        prepared = await prepare(env, turnStart);
        cut = { blocks: 0, tokens: 0 };
        req = buildRequest(env, prepared.messages, live);
        over = requestOverWindow(env, req);
        leaveOut(Math.floor(window * OVERSIZED_SHARE));
        if (!over) return fitted();
      }
    } catch (e) {
      if (signal.aborted) return { kind: "interrupted" };
      env.events.emit({ type: "notice", level: "warning", text: `A summary to make room in the context window failed (${messageOf(e)}).` });
    }
  }

  leaveOut(MIN_CUT_TOKENS);
  if (!over) return fitted();
  return { kind: "over", said: requestTooLarge(over, env.model, o.iteration > 1) };
}
