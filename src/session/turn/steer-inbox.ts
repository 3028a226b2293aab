// The inbox of messages steered into a running turn (steer.ts takes them). Apart from the
// step so the controller holds one without loading the turn's code before the first frame.

export interface Waiting {
  text: string;
  /** true: stored in the turn; false: the turn ended without it */
  settle: (taken: boolean) => void;
}

/** the most steered messages waiting at once: a key held down must not queue without end */
export const STEER_MAX_WAITING = 50;

export class SteerInbox {
  private waiting: Waiting[] = [];

  /** resolves true once the turn has stored it, false if the turn ends without it */
  push(text: string): Promise<boolean> {
    if (this.waiting.length >= STEER_MAX_WAITING || !text.trim()) return Promise.resolve(false);
    return new Promise((settle) => this.waiting.push({ text, settle }));
  }

  pending(): boolean {
    return this.waiting.length > 0;
  }

  /** the waiting messages, handed over: the caller settles them once they are stored */
  take(): Waiting[] {
    return this.waiting.splice(0);
  }

  /** the turn has ended: what it did not take goes back */
  release(): void {
    for (const w of this.waiting.splice(0)) w.settle(false);
  }
}
