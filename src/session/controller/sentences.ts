// What the controller tells the person in words: the answers to /model, /reload and /compact,
// what a reload changed, why the context view went pending, the rows that could not be read,
// and why a command waits. A notice that only wraps a caught error stays where it is caught.
import type { ModelInfo } from "../../provider/catalog.js";
import { formatInt } from "../../record/numbers.js";
import type { BadMessage } from "../store/types.js";
import type { ModelChoice, ModelInUse } from "./model-choice.js";
import type { Reloadable } from "./options.js";
import type { OpenElsewhere } from "../store/leases.js";

/** why a prompt or a command is refused while something else runs */
export const BUSY = {
  /** a prompt while a turn runs, or while a prompt waits for the turn's parts */
  prompt: "A turn is already running; press Esc to interrupt it first.",
  promptDuringCompact: "A /compact is running; wait for it, or press Esc to stop it.",
  compactDuringTurn: "A turn is running; compact after it ends.",
  compactAgain: "A /compact is already running.",
  /** /new or a session switch (thrown: the screen shows the message) */
  switchSession: "a turn is running; press Esc first",
} as const;

/** a prompt taken back by Esc while it waited for the turn's parts */
export const NOT_SENT = "Interrupted before it was sent: nothing was stored or sent.";

/** a tool that asks permission, headless, with nobody to ask */
export const UNATTENDED =
  "albedo-tui runs headless (-p) with --permission ask and no one can be asked; rerun with --permission auto to allow this";

/** a session id that names no session; with the store's path when it came from the command line */
export function noSession(id: string, dbPath?: string): string {
  return dbPath === undefined ? `no session with id "${id}"` : `no session with id "${id}" in ${dbPath}; list them with: albedo-tui sessions`;
}

/** the rows of a session that could not be read, a line each */
export function badLines(bad: readonly BadMessage[]): string[] {
  return bad.map((b) => `message #${b.seq} (${b.role}, id ${b.id}) could not be read: ${b.error}`);
}

/** "/model" with nothing after it: the model in use, and how to name another */
export function modelNow(now: ModelInUse): string {
  return `Model: ${now.provider}:${now.model}. Use /model NAME or /model anthropic:NAME / openai:NAME.`;
}

/** /model's answer: the model now in use, what is known of it, and what the person should know
 * (a missing key, `big` stored images that go as notes) */
export function modelAnswer(choice: ModelChoice, info: ModelInfo, key: string | undefined, big: number): string {
  const { provider, model, said } = choice;
  const window = info.contextWindow ? `${formatInt(info.contextWindow)} tokens` : "unknown";
  const images = big
    ? ` ${big} image${big === 1 ? "" : "s"} in this session ${big === 1 ? "is" : "are"} more than ${provider} accepts: ${big === 1 ? "it goes" : "they go"} as a note saying so, not as ${big === 1 ? "an image" : "images"} (switch back to send ${big === 1 ? "it" : "them"}).`
    : "";
  const basis = !info.known ? `; unknown to the provider's model list and the catalog, assumed: ${info.assumed ?? "no window"}` : info.source === "line" ? "; no source gives its figures, its line's are used" : info.source === "server" ? "; as the provider's model list says" : "";
  return `Model: ${provider}:${model} (context window ${window}${basis}).${said ? " " + said : ""}${key ? " " + key : ""}${images}`;
}

/** what /reload changed among the settings, in words; keys are named, never shown */
export function settingsChanges(was: Reloadable, now: Reloadable): string {
  const out: string[] = [];
  for (const k of ["permission", "compaction", "reasoning"] as const) if (was[k] !== now[k]) out.push(`${k} ${was[k]} → ${now[k]}`);
  for (const p of ["anthropic", "openai"] as const) {
    const a = was.credentials.keys[p];
    const b = now.credentials.keys[p];
    if (a !== b) out.push(!a ? `${p} key added` : !b ? `${p} key removed` : `${p} key changed`);
    const u = was.credentials.baseUrls[p];
    const v = now.credentials.baseUrls[p];
    if (u !== v) out.push(`${p} base URL ${v ? `now ${v}` : "back to the default"}`);
  }
  return out.length ? `changed: ${out.join(", ")}` : "nothing changed";
}

/** what /reload did, whole */
interface Reloaded {
  /** the project context's sources as read now, and those whose text changed */
  sources: readonly string[];
  changed: readonly string[];
  /** settingsChanges' words; absent when there is no config to read again */
  settings?: string;
  configFile?: string;
  /** the MCP servers' reload, when there are servers */
  mcp?: string;
}

/** /reload's answer: names everything it read again, and what changed */
export function reloadAnswer(r: Reloaded): string {
  const { changed, settings } = r;
  const context = `Reloaded the project context: ${r.sources.join(", ")}${changed.length > 0 ? ` (${changed.join(", ")} changed)` : " (unchanged)"}.`;
  const withMcp = r.mcp !== undefined ? ` ${r.mcp}` : "";
  if (settings === undefined) return context + withMcp;
  const from = r.configFile ? `the config (${r.configFile}) and the environment` : "the config and the environment";
  return `${context} Reloaded from ${from}: permission, compaction, reasoning, API keys and per-provider base URLs (${settings}). The model and --base-url stay as they are; /model switches.${withMcp}`;
}

/** /compact's answer: what the summary changed, or that there was nothing to summarise */
export function compactAnswer(said: string | undefined): string {
  return said ? `Compaction: ${said}.` : "Nothing to compact yet: the history is short.";
}

/** why the context view no longer shows the next request, as the pane says it */
export const PENDING = {
  modelSwitched: (now: ModelInUse): string => `model switched to ${now.provider}:${now.model}`,
  reloaded: (changed: readonly string[]): string => `project context reloaded (/reload)${changed.length > 0 ? `: ${changed.join(", ")} changed` : ""}`,
  compacted: (said: string): string => `history compacted by /compact (${said}): the next request carries the summary`,
} as const;

/** where a session is open, for the one who found it open there */
export function openElsewhere(id: string, h: OpenElsewhere): string {
  const state = h.alive ? "running" : "not answering";
  return `Session ${id} is open in another albedo-tui (pid ${h.pid} on ${h.host}, since ${h.since}, ${state})`;
}

/** the screen opened a session held elsewhere: it shows it, and says what can be done */
export function readOnlyHere(id: string, h: OpenElsewhere): string {
  return `${openElsewhere(id, h)}. It is shown read-only here, so the two never mix their turns: /fork continues it in a new session with its record copied, or quit the other one and open it again.`;
}

/** Enter (or /compact) in a session shown read-only */
export function readOnlyRefusal(why: string): string {
  return `Not sent: this session is read-only here. ${why}`;
}

/** headless with --continue/--resume of a session held elsewhere: nothing is sent, exit 1 */
export function headlessHeld(id: string, h: OpenElsewhere): string {
  return `${openElsewhere(id, h)}; a session is open in one place at a time, so nothing was sent. Quit the other one first, or open it in the screen (albedo-tui --resume ${id}) to read or fork it.`;
}

/** the heartbeat found the lease taken: another opener found this process gone */
export function leaseLost(id: string): string {
  return `Session ${id} was taken over by another albedo-tui; it is read-only here now: /fork continues it in a new session.`;
}

/** /fork's answer */
export function forkAnswer(from: string, to: string, messages: number): string {
  return `Forked: session ${to} holds a copy of ${from}'s ${formatInt(messages)} message${messages === 1 ? "" : "s"} and is open here; ${from} stays as it was.`;
}

export const NOTHING_TO_FORK = "Nothing to fork yet: this session has no message.";
