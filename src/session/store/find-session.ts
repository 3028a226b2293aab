// A session named from outside by its id or by a prefix of it, as the screen shows ids
// (8 characters of 12): one resolver for every entry (--resume, context, export, sessions rm,
// rewind, the screen's switch, the local API), beside the id rule of record/session-id.ts.
import { assertNever, type Session } from "../../record/types.js";
import { quoteId, sessionIdProblem } from "../../record/session-id.js";
import type { HistoryStore } from "./types.js";

/** A prefix shorter than this names no session: "a" would pick one of sixteen by chance. */
export const MIN_ID_PREFIX = 4;

/** how many of the sessions a prefix matches are named when it matches more than one */
const NAMED = 5;

export type FoundSession =
  | { ok: true; session: Session }
  /** `bad`: the id cannot name a session; `short`: a prefix under MIN_ID_PREFIX; `none`: no
   * session has it; `ambiguous`: several do (`matches` names up to five, newest first) */
  | { ok: false; kind: "bad" | "short" | "none" | "ambiguous"; problem: string; matches?: Session[] };

/**
 * The session `given` names: the one with exactly that id, else the one whose id starts with
 * it. A prefix of several sessions names them; one too short or matching none is a sentence.
 */
export async function findSession(store: Pick<HistoryStore, "getSession" | "sessionsByPrefix">, given: string): Promise<FoundSession> {
  const bad = sessionIdProblem(given);
  if (bad) return { ok: false, kind: "bad", problem: bad };
  const exact = await store.getSession(given);
  if (exact) return { ok: true, session: exact };
  if ([...given].length < MIN_ID_PREFIX) {
    return {
      ok: false,
      kind: "short",
      problem: `no session with id ${quoteId(given)} (the start of an id names a session from ${MIN_ID_PREFIX} characters on)`,
    };
  }
  const found = await store.sessionsByPrefix(given, NAMED + 1);
  if (found.length === 1) return { ok: true, session: found[0]! };
  if (found.length === 0) return { ok: false, kind: "none", problem: `no session with id ${quoteId(given)}, nor one whose id starts with it` };
  const shown = found.slice(0, NAMED);
  const more = found.length > NAMED ? " and more" : "";
  return {
    ok: false,
    kind: "ambiguous",
    problem: `${quoteId(given)} is the start of the ids of ${found.length > NAMED ? `more than ${NAMED}` : found.length} sessions (${shown.map(describe).join("; ")}${more}); give more of the id`,
    matches: shown,
  };
}

/** "3f9c2a1b7d0e "fix the parser"" as a match is named */
function describe(s: Session): string {
  return s.title ? `${s.id} ${quoteId(s.title.length > 40 ? `${s.title.slice(0, 39)}…` : s.title)}` : s.id;
}

/** The refusal as the command line says it: where it looked, and how to list the ids. */
export function sessionNotFound(f: Extract<FoundSession, { ok: false }>, dbPath: string): string {
  switch (f.kind) {
    case "bad":
      return `${f.problem}; list the sessions with: albedo-tui sessions`;
    case "ambiguous":
      return f.problem;
    case "short":
    case "none":
      return `${f.problem} in ${dbPath}; list them with: albedo-tui sessions`;
    default:
      return assertNever(f.kind, "session lookup");
  }
}
