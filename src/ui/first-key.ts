// The work a session needs only once the person types: the turn's parts, the HTTP client and
// the file list for `@` load at the first key (typed before or after the session showed), not
// on a timer behind the frame, so that a screen that says `idle` does nothing until then. The
// key's own frame is drawn first: the work starts on the next turn of the event loop.
import type { InputEvent } from "./keys.js";

/** not typed by a person: the terminal's focus reports */
const notTyped = (ev: InputEvent): boolean => ev.type === "key" && (ev.name === "focusin" || ev.name === "focusout");

export class FirstKey {
  private keyed = false;
  private work: (() => void) | undefined;
  private done = false;

  /** input came: the first event a person typed starts the work (once the session is there) */
  input(events: readonly InputEvent[]): void {
    if (this.keyed || !events.some((e) => !notTyped(e))) return;
    this.keyed = true;
    this.run();
  }

  /** the session is on screen: `work` runs at the first key, or now when one came already */
  arm(work: () => void): void {
    this.work = work;
    this.run();
  }

  /** whether the work has started */
  started(): boolean {
    return this.done;
  }

  private run(): void {
    if (this.done || !this.keyed || !this.work) return;
    this.done = true;
    setImmediate(this.work);
  }
}
