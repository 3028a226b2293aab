// Each listed session's cost for `sessions --json`: its stored provider usage at list prices
// (the config's over the table, cost.ts), read session by session from the store.
import type { Config } from "../../config/config.js";
import { messageOf } from "../../record/errors.js";
import type { SessionInfo } from "../../record/types.js";
import type { HistoryStore } from "../store/types.js";
import { sessionCost, sessionCostJson, type SessionCostJson } from "./cost.js";

/** A config that cannot be read costs the sessions at the table's prices, and says so on
 * stderr: listing sessions does not hang on the config. */
export async function costsOfSessions(
  store: Pick<HistoryStore, "loadHistory">,
  list: readonly SessionInfo[],
  config: () => Promise<Config>,
  warn: (line: string) => void,
): Promise<Array<SessionInfo & { cost: SessionCostJson }>> {
  let c: Config | undefined;
  try {
    c = await config();
  } catch (e) {
    warn(`warning: the config could not be read (${messageOf(e)}); costs are at the built-in list prices`);
  }
  const o = { ttl: c?.cacheTtl ?? "5m", ...(c?.prices ? { overrides: c.prices } : {}) } as const;
  const out: Array<SessionInfo & { cost: SessionCostJson }> = [];
  for (const s of list) {
    const { messages } = await store.loadHistory(s.id);
    out.push({ ...s, cost: sessionCostJson(sessionCost(messages, o)) });
  }
  return out;
}
