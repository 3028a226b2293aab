// What a session cost, per turn and in all, from the provider usage stored with each answer
// (never from estimates), at list prices (provider/prices.ts): for /cost, the status line and
// sessions --json. Pure: messages and prices in, figures out.
import { costOf, priceFor, sumCosts, type Cost, type PriceOverride } from "../../provider/prices.js";
import type { StoredMessage } from "../../record/types.js";

export interface TurnCost {
  /** the turn's prompt number, from 1 */
  turn: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** undefined when an answer's model has no price */
  cost?: Cost;
  /** models of the turn's answers that have no price */
  unpriced: string[];
}

export interface SessionCost {
  turns: TurnCost[];
  total: Omit<TurnCost, "turn">;
  /** "list prices": the figures are the table's (or the config's) prices, not a bill */
  label: string;
}

const isPrompt = (m: StoredMessage): boolean => m.role === "user" && m.blocks.some((b) => b.type !== "tool_result");

export function sessionCost(messages: readonly StoredMessage[], o: { overrides?: Readonly<Record<string, PriceOverride>>; ttl?: "5m" | "1h" } = {}): SessionCost {
  const turns: TurnCost[] = [];
  const costs = new Map<number, Cost[]>();
  let turn = 0;
  for (const m of messages) {
    if (isPrompt(m)) {
      turn++;
      turns.push({ turn, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, unpriced: [] });
      continue;
    }
    const u = m.usage;
    const t = turns.at(-1);
    if (m.role !== "assistant" || !u || !t) continue;
    t.inputTokens += u.inputTokens;
    t.outputTokens += u.outputTokens;
    t.cacheReadTokens += u.cacheReadTokens ?? 0;
    t.cacheWriteTokens += u.cacheWriteTokens ?? 0;
    const price = m.model ? priceFor(m.model, o.overrides) : undefined;
    if (!price) {
      const name = m.model ?? "(unknown model)";
      if (!t.unpriced.includes(name)) t.unpriced.push(name);
      continue;
    }
    const list = costs.get(t.turn) ?? [];
    list.push(costOf(u, price, o.ttl));
    costs.set(t.turn, list);
  }
  for (const t of turns) {
    const list = costs.get(t.turn);
    if (list && t.unpriced.length === 0) t.cost = sumCosts(list);
  }
  const priced = turns.every((t) => t.unpriced.length === 0);
  const total: Omit<TurnCost, "turn"> = {
    inputTokens: turns.reduce((n, t) => n + t.inputTokens, 0),
    outputTokens: turns.reduce((n, t) => n + t.outputTokens, 0),
    cacheReadTokens: turns.reduce((n, t) => n + t.cacheReadTokens, 0),
    cacheWriteTokens: turns.reduce((n, t) => n + t.cacheWriteTokens, 0),
    unpriced: [...new Set(turns.flatMap((t) => t.unpriced))],
    ...(priced && costs.size > 0 ? { cost: sumCosts([...costs.values()].flat()) } : {}),
  };
  return { turns, total, label: "list prices, from provider usage" };
}

/** The session's cost, computed again only when the record changed (the status line asks
 * at every frame). */
export class CostMemo {
  private key: { messages: readonly StoredMessage[]; length: number; last: StoredMessage | undefined } | undefined;
  private value: SessionCost | undefined;

  get(messages: readonly StoredMessage[], o: Parameters<typeof sessionCost>[1] = {}): SessionCost {
    const k = this.key;
    if (this.value && k && k.messages === messages && k.length === messages.length && k.last === messages.at(-1)) return this.value;
    this.key = { messages, length: messages.length, last: messages.at(-1) };
    return (this.value = sessionCost(messages, o));
  }
}
