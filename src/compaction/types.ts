// Shapes shared by the compaction modules. A prepared message is what one request will replay:
// the stored message's role and blocks, possibly blurred or replaced, never the record itself.
import type { Block, MessageStatus } from "../record/types.js";

export interface PreparedMessage {
  role: "user" | "assistant";
  blocks: Block[];
  /** as stored; replay says so when an answer was cut off (absent: complete) */
  status?: MessageStatus;
}

/** What compaction left out of a request. */
export interface Removed {
  /** tool outputs blurred to a marker */
  outputs: number;
  /** UTF-8 bytes of those outputs */
  bytes: number;
}

/** How long histories are shortened for the model (the config's "compaction"). */
export type CompactionStrategy = "none" | "microcompact" | "summary" | "microcompact+summary";

/** A summary the model wrote of an older part of the record, stored beside it (the record
 * itself is never changed). */
export interface StoredSummary {
  id: number;
  sessionId: string;
  /** the summary covers stored messages with fromSeq <= seq <= toSeq */
  fromSeq: number;
  toSeq: number;
  text: string;
  model: string;
  createdAt: string;
}
