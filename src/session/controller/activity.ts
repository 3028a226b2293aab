// What runs in the session now: a turn, a /compact, or a prompt waiting for the turn's parts.
// One at a time, since each works on the same history; Esc (interrupt) stops whichever it is.
import { messageOf } from "../../record/errors.js";
import { stopToolProcesses } from "../../tools/processes.js";
import type { EventHub } from "../turn/events.js";
import type { TurnOutcome } from "../turn/env.js";
import { BUSY, NOT_SENT } from "./sentences.js";

export class Activity {
  private abort: AbortController | undefined;
  private running: Promise<TurnOutcome> | undefined;
  /** a /compact in progress: it calls the provider and stores a summary, so it excludes turns */
  private compacting: Promise<string> | undefined;
  /** a prompt waiting for the parts (runPrompt): busy already, so the screen keeps a second
   * prompt's text and /new or a switch cannot move the first into another session */
  private awaitingParts = false;

  constructor(private readonly events: EventHub) {}

  busy(): boolean {
    return this.running !== undefined || this.compacting !== undefined || this.awaitingParts;
  }

  /** a turn runs (not a /compact, not a prompt waiting for the parts) */
  turnRunning(): boolean {
    return this.running !== undefined;
  }

  interrupt(): void {
    this.abort?.abort();
  }

  /** why a prompt cannot run now, if it cannot */
  promptRefusal(): string | undefined {
    return this.running || this.awaitingParts ? BUSY.prompt : this.compacting ? BUSY.promptDuringCompact : undefined;
  }

  /** why /compact cannot run now, if it cannot */
  compactRefusal(): string | undefined {
    if (this.running || this.awaitingParts) return BUSY.compactDuringTurn;
    if (this.compacting) return BUSY.compactAgain;
    return undefined;
  }

  /**
   * A prompt sent before the turn's parts are in waits for them, counted as busy meanwhile.
   * Esc meanwhile (interrupt()) takes the prompt back: nothing is stored or sent yet. Gives
   * the prompt's outcome when it ends here, undefined when the parts are in.
   */
  async awaitParts(ready: () => Promise<unknown>): Promise<TurnOutcome | undefined> {
    this.awaitingParts = true;
    const waiting = new AbortController();
    this.abort = waiting;
    try {
      // Esc answers at once; the parts go on loading for the next prompt
      await new Promise<void>((resolve, reject) => {
        waiting.signal.addEventListener("abort", () => resolve(), { once: true });
        ready().then(() => resolve(), reject);
      });
    } catch (e) {
      // ready() has said so in a notice; the next prompt tries again
      return { ok: false, error: `Could not load what a turn needs: ${messageOf(e)}`, finalText: "" };
    } finally {
      this.awaitingParts = false;
      if (this.abort === waiting) this.abort = undefined;
    }
    if (waiting.signal.aborted) {
      const note = NOT_SENT;
      this.events.emit({ type: "notice", level: "info", text: note });
      return { ok: false, interrupted: true, unsent: true, error: note, finalText: "" };
    }
    return undefined;
  }

  /**
   * Runs a turn. It counts as running from this call, before its first await: a second
   * prompt arriving meanwhile is refused, not run alongside on the same history. `ended`
   * takes what the turn learnt as soon as it ends; what the turn's commands left running in
   * the background ends with it, and then `after` runs, the turn still counting as running.
   */
  async turn(start: (signal: AbortSignal) => Promise<TurnOutcome>, ended: (outcome: TurnOutcome) => void, after?: () => Promise<void>): Promise<TurnOutcome> {
    const abort = new AbortController();
    this.abort = abort;
    const run = start(abort.signal);
    this.running = run;
    const outcome = await run;
    ended(outcome);
    try {
      await stopToolProcesses({ owner: abort.signal });
    } catch (e) {
      this.events.emit({ type: "notice", level: "warning", text: `Could not stop what the turn's commands left running: ${messageOf(e)}` });
    }
    try {
      // the turn's own end (its checkpoint), while it still counts as running
      await after?.();
    } finally {
      // whatever happened above, the next prompt must not be refused as "a turn is running"
      this.running = undefined;
      this.abort = undefined;
    }
    return outcome;
  }

  /** Runs a /compact: busy() holds while it runs, since a prompt sent meanwhile would race it
   * on the same history. */
  async compact(work: (signal: AbortSignal) => Promise<string>): Promise<string> {
    const abort = new AbortController();
    this.abort = abort;
    const run = work(abort.signal);
    this.compacting = run;
    try {
      return await run;
    } finally {
      this.compacting = undefined;
      this.abort = undefined;
    }
  }

  /** Stops what runs and waits for it to end. */
  async stop(): Promise<void> {
    this.abort?.abort();
    if (this.running) await this.running.catch(() => undefined);
    if (this.compacting) await this.compacting.catch(() => undefined);
  }
}
