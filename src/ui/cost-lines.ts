// /cost: what the session cost per turn and in all, at list prices, from the provider's usage
// (session/controller/cost.ts); a turn whose model has no price says so instead of a figure.
import type { SessionCost, TurnCost } from "../session/controller/cost.js";
import { formatDollars } from "../provider/prices.js";
import { formatInt } from "../record/numbers.js";
import { inertLine } from "./inert.js";
import type { Line } from "./style.js";

function row(label: string, t: Omit<TurnCost, "turn">): Line {
  const tokens = `in ${formatInt(t.inputTokens)} · out ${formatInt(t.outputTokens)} · cache read ${formatInt(t.cacheReadTokens)} · cache write ${formatInt(t.cacheWriteTokens)}`;
  const money = t.cost
    ? `${formatDollars(t.cost.total)} (in ${formatDollars(t.cost.input)}, out ${formatDollars(t.cost.output)}, read ${formatDollars(t.cost.cacheRead)}, write ${formatDollars(t.cost.cacheWrite)}; caching saved ${formatDollars(t.cost.savedByCache)})`
    : `no price for ${inertLine(t.unpriced.join(", ") || "its model")}`;
  return [{ t: label.padEnd(9), s: "dim" }, { t: `${tokens}  ` }, { t: money, s: t.cost ? "key" : "dim" }];
}

export function costLines(c: SessionCost): Line[] {
  const out: Line[] = [[{ t: "Cost", s: "heading" }, { t: ` (${c.label})`, s: "dim" }]];
  if (c.turns.length === 0) return [...out, [{ t: "nothing sent yet", s: "dim" }]];
  for (const t of c.turns) out.push(row(`turn ${t.turn}`, t));
  out.push(row("session", c.total));
  return out;
}
