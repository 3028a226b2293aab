// When the context view stops showing how the next request is composed: the sources whose
// text changed, why a session's stored request is stale, and the marks that say "pending"
// (kept for after a turn or /compact when the change comes while one runs).
import type { ContextItem } from "../../provider/types.js";
import type { Capture, InspectorView, Page, SectionSummary } from "../../context/types.js";
import { messageOf } from "../../record/errors.js";
import type { HistoryStore } from "../store/types.js";
import type { EventHub } from "../turn/events.js";
import type { ModelInUse } from "./model-choice.js";

/** The sources whose text differs between two readings of the project context (a repeated
 * source numbered as the capture numbers it). */
export function changedItems(before: readonly ContextItem[], after: readonly ContextItem[]): string[] {
  const keyed = (items: readonly ContextItem[]): Map<string, string> => {
    const out = new Map<string, string>();
    for (const item of items) {
      let source = item.source;
      for (let n = 2; out.has(source); n++) source = `${item.source} (${n})`;
      out.set(source, item.text);
    }
    return out;
  };
  const a = keyed(before);
  const b = keyed(after);
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k));
}

/** what a stored request is compared with: the one a turn started now would send */
interface ComposedNow {
  model: ModelInUse;
  /** the turn's parts: the comparison builds the next request as a turn would */
  ready(): Promise<{ SUMMARY_REQUEST_NOTE: string }>;
  /** the capture of the request a turn started now would send, before its prompt */
  capture(): Capture;
  /** a page of the stored capture */
  page(section: number, page: number): Promise<Page | undefined>;
}

/** Why a session's stored request no longer shows how the next one is composed, if it does not. */
export async function staleReason(view: InspectorView, now: ComposedNow): Promise<string | undefined> {
  if (view.state !== "current") return undefined;
  const { SUMMARY_REQUEST_NOTE } = await now.ready();
  const { meta } = view;
  const { provider, model } = now.model;
  if (meta.provider !== provider || meta.model !== model) {
    return `model is now ${provider}:${model} (the last request went to ${meta.provider}:${meta.model})`;
  }
  // a summary request carries none of the project context: nothing to compare
  if (meta.compaction === SUMMARY_REQUEST_NOTE) return undefined;
  const changed = await changedContext(view.sections, now);
  return changed.length > 0 ? `project context changed since the last request (${changed.join(", ")})` : undefined;
}

/**
 * The context sections whose text differs between the stored request and the one a turn
 * would send now: both as the inspector captures them, compared by size and then by text
 * (an edit that keeps a file's length changes the request too).
 */
async function changedContext(stored: readonly SectionSummary[], composed: ComposedNow): Promise<string[]> {
  const now = composed.capture();
  const before = new Map(stored.filter((x) => x.kind === "context").map((x) => [x.source, x]));
  const after = new Map(now.sections.filter((x) => x.kind === "context").map((x) => [x.source, x]));
  const changed: string[] = [];
  for (const source of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(source);
    const b = after.get(source);
    if (!a || !b || a.bytes !== b.bytes || a.pages !== b.pages) {
      changed.push(source);
      continue;
    }
    for (let p = 0; p < a.pages; p++) {
      const page = await composed.page(a.index, p);
      if (page?.text !== now.pages[b.index]?.[p]) {
        changed.push(source);
        break;
      }
    }
  }
  return changed;
}

interface PendingDeps {
  store: Pick<HistoryStore, "setPending">;
  events: EventHub;
  /** a turn or /compact runs: its later requests are built from what it started with */
  busy(): boolean;
  /** the current session's id once it is stored; undefined for a draft */
  storedId(): string | undefined;
  /** the app is closing: nothing more is written (the next run that opens the session weighs
   * the stored request against what it would send, staleReason) */
  closing(): boolean;
}

/** Marks the context view pending when what the next request is made of changes. */
export class PendingMarks {
  /** a composition change made while a turn or /compact ran: their later requests were
   * built from what they started with, so the view goes pending again when they end */
  private afterRun: string | undefined;

  constructor(private readonly deps: PendingDeps) {}

  async mark(reason: string): Promise<void> {
    if (this.deps.closing()) return;
    if (this.deps.busy()) this.afterRun = reason;
    // a draft has sent nothing yet: its view is pending by nature
    const id = this.deps.storedId();
    if (id !== undefined) await this.deps.store.setPending(id, reason);
    this.deps.events.emit({ type: "capture" });
  }

  /** mark(), where a failure is said as a warning and the command goes on */
  markOrWarn(reason: string): Promise<void> {
    return this.mark(reason).catch((e: unknown) => {
      this.deps.events.emit({ type: "notice", level: "warning", text: `The context view could not be marked pending: ${messageOf(e)}` });
    });
  }

  /** After a turn or /compact: a change made while it ran leaves the view pending. */
  async again(): Promise<void> {
    const reason = this.afterRun;
    if (reason === undefined) return;
    this.afterRun = undefined;
    await this.markOrWarn(reason);
  }
}
