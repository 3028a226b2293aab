// Rewind and fork, as the screen and the command line both do them: pick a prompt (counted
// from 1 as the screen counts them), see what will change, then restore the code (the file
// checkpoints of the turns from that prompt on, src/session/checkpoints/), the conversation
// (a fork whose record stops before that prompt: the original stays whole), or both. The
// code goes first: a rewind killed half-way has forked nothing yet, and run again it finishes.
import type { Session, StoredMessage } from "../../record/types.js";
import { isPlainPrompt } from "../../compaction/summary.js";
import type { HistoryStore } from "../store/types.js";
import type { Checkpoints } from "../checkpoints/checkpoints.js";
import type { PlannedItem, RewindPlan, RewindSource } from "../checkpoints/rewind.js";
import { itemLine } from "../checkpoints/rewind.js";

export type { PlannedItem, RewindPlan };

/** code and conversation, the conversation only, or the code only */
export type RewindMode = "both" | "conversation" | "code";

export const REWIND_MODES: readonly RewindMode[] = ["both", "conversation", "code"];

/** What the inspector says after a code rewind: the files the next request reads may differ. */
export const WORKSPACE_RESTORED = "workspace restored";

export interface PromptChoice {
  /** its number, from 1 */
  n: number;
  /** the prompt's text (its text blocks), "" for images alone */
  text: string;
  images: number;
  createdAt: string;
}

/** The session's prompts: its user messages that carry no tool results, numbered from 1. */
export function promptChoices(messages: readonly StoredMessage[]): PromptChoice[] {
  const out: PromptChoice[] = [];
  for (const m of messages) {
    if (!isPlainPrompt(m)) continue;
    const text = m.blocks.map((b) => (b.type === "text" ? b.text : "")).filter((t) => t !== "").join("\n");
    out.push({ n: out.length + 1, text, images: m.blocks.filter((b) => b.type === "image").length, createdAt: m.createdAt });
  }
  return out;
}

/** The messages a conversation rewind to prompt n keeps (those before it). */
function keptBefore(messages: readonly StoredMessage[], n: number): number {
  let seen = 0;
  for (let i = 0; i < messages.length; i++) {
    if (isPlainPrompt(messages[i]!) && ++seen === n) return i;
  }
  return messages.length;
}

/**
 * The checkpoint records a code rewind of `session` to prompt n reads: the session's own
 * from n on, and for a fork the prompts before its fork point from the session it was forked
 * from (its record up to there is that session's), and so on up the chain.
 */
export async function codeSources(store: Pick<HistoryStore, "getSession">, session: Session, n: number): Promise<RewindSource[]> {
  const out: RewindSource[] = [];
  let s: Session | undefined = session;
  let to: number | undefined;
  const seen = new Set<string>();
  while (s && !seen.has(s.id)) {
    seen.add(s.id);
    const at = s.forkedFrom?.atPrompt;
    // this session's own turns are its prompts from its fork point on
    const from = Math.max(n, at ?? 1);
    if (to === undefined || from < to) out.push({ session: s.id, from, ...(to !== undefined ? { to } : {}) });
    if (!s.forkedFrom || n >= s.forkedFrom.atPrompt) break;
    to = s.forkedFrom.atPrompt;
    s = await store.getSession(s.forkedFrom.id);
  }
  return out;
}

export interface RewindPreview {
  session: Session;
  prompt: PromptChoice;
  mode: RewindMode;
  /** what the code rewind will change (mode both or code); undefined when checkpoints are off */
  code?: RewindPlan;
  /** mode both or code, with checkpoints off: why no code can be restored */
  noCode?: string;
  /** mode both or conversation: the messages the fork keeps, and those it leaves behind */
  conversation?: { keeps: number; leaves: number };
}

export interface RewindDeps {
  store: HistoryStore;
  /** undefined: checkpoints are off */
  checkpoints: Checkpoints | undefined;
  /** the workspace's real path */
  root: string;
}

export class RewindError extends Error {}

export async function previewRewind(deps: RewindDeps, session: Session, messages: readonly StoredMessage[], n: number, mode: RewindMode): Promise<RewindPreview> {
  const prompts = promptChoices(messages);
  const prompt = prompts[n - 1];
  if (!Number.isSafeInteger(n) || n < 1 || !prompt) {
    throw new RewindError(
      prompts.length === 0
        ? `session ${session.id} has no prompt to rewind to`
        : `session ${session.id} has ${prompts.length === 1 ? "1 prompt" : `${prompts.length} prompts`}: rewind to one of 1${prompts.length > 1 ? `–${prompts.length}` : ""} (got ${String(n)})`,
    );
  }
  const preview: RewindPreview = { session, prompt, mode };
  if (mode !== "conversation") {
    if (deps.checkpoints) preview.code = await deps.checkpoints.plan(deps.root, await codeSources(deps.store, session, n));
    else preview.noCode = "file checkpoints are off (the config's checkpoints.enabled), so no code can be restored";
  }
  if (mode !== "code") {
    const keeps = keptBefore(messages, n);
    preview.conversation = { keeps, leaves: messages.length - keeps };
  }
  return preview;
}

/** The preview in lines, for the command line and the screen. */
export function previewLines(p: RewindPreview): string[] {
  const out: string[] = [];
  const what = p.mode === "both" ? "code and conversation" : p.mode === "code" ? "code only" : "conversation only";
  out.push(`Rewind session ${p.session.id} to prompt ${p.prompt.n} (${what}): ${promptLabel(p.prompt)}`);
  if (p.noCode) out.push(`code: ${p.noCode}`);
  if (p.code) {
    const c = p.code;
    if (c.items.length === 0) out.push(c.unchanged > 0 ? `code: nothing to restore (the ${c.unchanged} recorded path${c.unchanged === 1 ? " is" : "s are"} as they were)` : "code: no file changes were recorded from this prompt on");
    else out.push(`code: ${c.items.length} path${c.items.length === 1 ? "" : "s"} to put back as they were before prompt ${p.prompt.n}:`);
    for (const i of c.items) out.push(`  ${itemLine(i)}`);
    if (c.unrestorable.length > 0) {
      out.push(`code: ${c.unrestorable.length} change${c.unrestorable.length === 1 ? "" : "s"} cannot be put back:`);
      for (const u of c.unrestorable) out.push(`  ${u}`);
    }
    for (const n of c.notes) out.push(`  note: ${n}`);
  }
  if (p.conversation) {
    const { keeps, leaves } = p.conversation;
    out.push(
      `conversation: a new session with the ${keeps} message${keeps === 1 ? "" : "s"} before prompt ${p.prompt.n}; ` +
        `this session keeps all ${keeps + leaves}${leaves > 0 ? ` (the ${leaves} from prompt ${p.prompt.n} on stay here)` : ""}`,
    );
  }
  return out;
}

/** "“fix the parser”" or "(2 images)", on one line, cut at 60 characters */
export function promptLabel(p: PromptChoice): string {
  const one = p.text.replace(/\s+/g, " ").trim();
  const cut = one.length > 60 ? `${one.slice(0, 59)}…` : one;
  const images = p.images > 0 ? `${p.images} image${p.images === 1 ? "" : "s"}` : "";
  if (!cut) return images ? `(${images})` : "(empty)";
  return `“${cut}”${images ? ` (+${images})` : ""}`;
}

export interface RewindDone {
  /** one line per path put back */
  restored: string[];
  /** paths that could not be put back, with why */
  failed: string[];
  /** changes no checkpoint could keep */
  unrestorable: string[];
  /** the conversation's fork, when there is one */
  fork?: Session;
  /** the prompt's text, for the input box */
  text: string;
}

/** Carries a preview out: the code first, then the fork. */
export async function runRewind(deps: RewindDeps, p: RewindPreview, onItem?: (line: string) => void): Promise<RewindDone> {
  const done: RewindDone = { restored: [], failed: [], unrestorable: [], text: p.prompt.text };
  if (p.code && deps.checkpoints) {
    const r = await deps.checkpoints.apply(p.code, { session: p.session.id, prompt: p.prompt.n }, onItem);
    done.restored = r.done;
    done.failed = r.failed;
    done.unrestorable = r.unrestorable;
    // the files a request reads (AGENTS.md, the project's facts) may be others now
    if (r.done.length > 0) await deps.store.setPending(p.session.id, WORKSPACE_RESTORED);
  }
  if (p.conversation) done.fork = await deps.store.fork(p.session.id, p.prompt.n);
  return done;
}

/** What was done, in lines. */
export function doneLines(d: RewindDone, p: RewindPreview): string[] {
  const out: string[] = [];
  if (p.code) {
    if (d.restored.length > 0) {
      out.push(`Restored ${d.restored.length} path${d.restored.length === 1 ? "" : "s"}:`);
      for (const l of d.restored) out.push(`  ${l}`);
    } else if (d.failed.length === 0) {
      out.push("No file needed restoring.");
    }
    if (d.failed.length > 0) {
      out.push(`Could not restore ${d.failed.length} path${d.failed.length === 1 ? "" : "s"}:`);
      for (const l of d.failed) out.push(`  ${l}`);
    }
    if (d.unrestorable.length > 0) {
      out.push(`Not restored (no checkpoint could keep ${d.unrestorable.length === 1 ? "it" : "them"}):`);
      for (const l of d.unrestorable) out.push(`  ${l}`);
    }
  }
  if (p.noCode) out.push(`Code not restored: ${p.noCode}.`);
  if (d.fork) out.push(`Forked session ${p.session.id} at prompt ${p.prompt.n}: the new session is ${d.fork.id} (the original keeps its whole record).`);
  return out;
}

