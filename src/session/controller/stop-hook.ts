// Whether a Stop hook's block keeps the model going: as in Claude Code, the hook's reason is
// the model's next instruction. It goes on only after a turn that ended well, and only a few
// times in a row: a hook that blocks every stop (not reading stop_hook_active) must not keep
// a session busy for ever. Pure.
import { visibleEscape } from "../../text/sanitize.js";
import type { TurnOutcome } from "../turn/env.js";

/** how many times in a row a Stop hook may send the model on */
export const MAX_STOP_HOOK_ROUNDS = 5;

export interface StopHookNext {
  /** the prompt the model goes on with; undefined: the turn ends here */
  prompt?: string;
  /** what the person is told */
  notice?: string;
}

export function stopHookContinuation(reason: string | undefined, outcome: TurnOutcome, round: number): StopHookNext {
  if (reason === undefined) return {};
  // the model reads the reason as the hook wrote it; the person sees its controls escaped
  const said = visibleEscape(reason);
  if (!outcome.ok || outcome.interrupted) return { notice: `A Stop hook asked the model to go on (${said}); the turn did not end well, so it stops here.` };
  if (round >= MAX_STOP_HOOK_ROUNDS) return { notice: `A Stop hook asked the model to go on again (${said}); after ${MAX_STOP_HOOK_ROUNDS} times in a row it stops here.` };
  return { prompt: `A Stop hook asked you to go on: ${reason}`, notice: `A Stop hook sends the model on: ${said}` };
}
