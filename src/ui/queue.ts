// Messages typed while a turn runs: Enter queues them (shown under the transcript), and they
// are sent one by one, in order, as each turn ends well. The last one can be taken back into
// the prompt or dropped with the keys the keymap names (queue.edit, queue.remove). A turn
// that is interrupted or fails gives them back to the prompt instead: the person stopped it,
// so what was meant to follow it is theirs to send again. Pure but for the lines' cache.
import type { ImageBlock } from "../record/types.js";
import { inertLine } from "./inert.js";
import type { Line } from "./style.js";
import { formatBytes, truncate } from "./text.js";

export interface Queued {
  text: string;
  images: ImageBlock[];
  /** typed as "//text": sent as written, never expanded as a command */
  literal?: boolean | undefined;
}

/** the message as it was typed: a literal one gets back the "/" that made it literal */
export function asTyped(q: Pick<Queued, "text" | "literal">): string {
  return q.literal ? `/${q.text}` : q.text;
}

/** the most queued rows shown; the rest are counted */
const SHOWN = 3;
/** a row shows at most this much of its message: a 1 MB message is summarised, never scanned whole each frame */
const PREVIEW_CHARS = 400;

interface Entry extends Queued {
  /** the row's text, made once: sanitized, one line */
  preview: string;
}

export class PromptQueue {
  private items: Entry[] = [];

  get size(): number {
    return this.items.length;
  }

  add(q: Queued, front = false): void {
    const e: Entry = { ...q, preview: preview(asTyped(q), q.images.length) };
    if (front) this.items.unshift(e);
    else this.items.push(e);
  }

  /** the next to send */
  next(): Queued | undefined {
    return strip(this.items.shift());
  }

  /** queue.edit and queue.remove: the last one queued */
  takeLast(): Queued | undefined {
    return strip(this.items.pop());
  }

  /** everything queued, in order, the queue emptied */
  drain(): Queued[] {
    return this.items.splice(0).map((e) => strip(e)!);
  }

  /** the texts queued as typed, in order (what a draft keeps of them) */
  texts(): string[] {
    return this.items.map((e) => asTyped(e));
  }

  /** the rows shown under the transcript: the first SHOWN, then how many more */
  lines(width: number, keys: { edit: string; remove: string }): Line[] {
    if (this.items.length === 0) return [];
    const out: Line[] = [];
    const shown = this.items.slice(0, SHOWN);
    for (const [i, e] of shown.entries()) {
      out.push(truncate([{ t: `queued ${i + 1} `, s: "dim" }, { t: e.preview }], width));
    }
    const more = this.items.length - shown.length;
    const tail = `${more > 0 ? `+${more} more · ` : ""}sent when the turn ends · ${keys.edit} edits the last · ${keys.remove} drops it`;
    out.push(truncate([{ t: tail, s: "dim" }], width));
    return out;
  }
}

function strip(e: Entry | undefined): Queued | undefined {
  return e ? { text: e.text, images: e.images, literal: e.literal } : undefined;
}

function preview(text: string, images: number): string {
  const head = inertLine(text.slice(0, PREVIEW_CHARS)) || "(images only)";
  const extra: string[] = [];
  if (text.length > PREVIEW_CHARS || text.includes("\n")) extra.push(formatBytes(Buffer.byteLength(text)));
  if (images > 0) extra.push(`${images} image${images > 1 ? "s" : ""}`);
  return extra.length > 0 ? `${head} (${extra.join(", ")})` : head;
}
