// Streamed text is insurance against a kill: it is stored as an `interrupted` message about
// once a second while it arrives, and that same row becomes the answer's final form (complete,
// or interrupted with what arrived), so a kill loses at most about a second of it.
import type { AnswerUsage, Block, MessageStatus, StoredMessage } from "../../record/types.js";
import { messageOf } from "../../record/errors.js";
import type { AnswerId } from "./events.js";
import type { TurnEnv } from "./env.js";
import { append, clean, update } from "./record.js";

const DEFAULT_CHECKPOINT_MS = 1000;

export class Checkpointer {
  private text = "";
  private reasoning = "";
  private message: StoredMessage | undefined;
  /** the chain of writes; it starts after `before` (the capture's write) and fails with it */
  private writes: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private lastWrite = 0;
  private failed = false;

  constructor(
    private readonly env: TurnEnv,
    private readonly answer: AnswerId,
    private readonly intervalMs = env.checkpointMs ?? DEFAULT_CHECKPOINT_MS,
    before: Promise<void> = Promise.resolve(),
  ) {
    // nothing of the answer is stored before its request's capture, nor when that failed: a
    // failed capture skips every checkpoint, and finish() rejects with its error
    this.writes = before;
  }

  addText(t: string): void {
    this.text += t;
    this.schedule();
  }

  addReasoning(t: string): void {
    this.reasoning += t;
    this.schedule();
  }

  /** the text streamed so far */
  streamedText(): string {
    return this.text;
  }

  /** what arrived so far, as blocks */
  partial(): Block[] {
    const blocks: Block[] = [];
    if (this.reasoning) blocks.push({ type: "reasoning", text: this.reasoning });
    if (this.text) blocks.push({ type: "text", text: this.text });
    return blocks;
  }

  /** whether a checkpoint row exists (it must then be finished, even with nothing in it) */
  started(): boolean {
    return this.message !== undefined;
  }

  /**
   * The answer's final form: replaces the checkpoint in place, or appends when none was
   * written. Stops the timer and waits for checkpoints in flight first. `usage` (the
   * provider's report) is stored with it in the same statement.
   */
  async finish(blocks: Block[], status: MessageStatus, usage?: AnswerUsage): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writes;
    if (this.message) await update(this.env, this.message, blocks, status, this.answer, usage);
    else await append(this.env, "assistant", blocks, status, this.answer, usage);
  }

  private schedule(): void {
    if (this.timer) return;
    if (this.lastWrite === 0) {
      this.write();
      return;
    }
    const wait = Math.max(0, this.lastWrite + this.intervalMs - Date.now());
    this.timer = setTimeout(() => this.write(), wait);
  }

  private write(): void {
    this.timer = undefined;
    this.lastWrite = Date.now();
    const blocks = this.partial();
    this.writes = this.writes.then(async () => {
      try {
        if (!this.message) this.message = await append(this.env, "assistant", blocks, "interrupted", this.answer);
        else await this.env.store.updateMessage(this.message.id, clean(this.env, blocks), "interrupted");
      } catch (e) {
        // A checkpoint that cannot be written (a database busy for a moment) must not cost
        // the answer itself: the next one tries again, and the complete message is stored
        // when the stream ends.
        if (!this.failed) {
          this.failed = true;
          this.env.events.emit({ type: "notice", level: "warning", text: `Could not checkpoint the streaming answer (${messageOf(e)}); it is stored when complete.` });
        }
      }
    });
    // rejects only with a failed capture, which finish() reports: not an unhandled rejection
    this.writes.catch(() => undefined);
  }
}
