// Steering: a message sent into a running turn. It waits in the inbox until the turn's next
// model call (after the tool round in progress) and is stored there as a user message, so the
// record, replay, the inspector and a kill -9 all hold it where it was sent. A turn that would
// stop with a steered message waiting makes one more call for it instead. What the turn never
// took (it was interrupted or failed first) is given back to whoever sent it.
import type { Block } from "../../record/types.js";
import type { TurnEnv } from "./env.js";
import { append } from "./record.js";

export { SteerInbox } from "./steer-inbox.js";

/**
 * Before a model call: stores what was steered in since the last one as one user message (one
 * text block per message, in the order sent). Gives whether anything was stored.
 */
export async function takeSteered(env: TurnEnv): Promise<boolean> {
  const inbox = env.steer;
  if (!inbox?.pending()) return false;
  const got = inbox.take();
  const blocks: Block[] = got.map((w) => ({ type: "text", text: w.text }));
  try {
    await append(env, "user", blocks, "complete");
  } catch (e) {
    for (const w of got) w.settle(false);
    throw e;
  }
  for (const w of got) w.settle(true);
  return true;
}
