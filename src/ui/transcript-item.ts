// What the transcript holds: one item per stored message, notice or block of lines, and one
// per answer while it streams. An item's version goes up whenever what it shows changes, so
// its cached layout (transcript-lines.ts) is made again only then.
import type { StoredMessage } from "../record/types.js";
import type { StoredSummary } from "../compaction/types.js";
import type { AnswerId } from "../session/turn/events.js";
import type { GrowingMarkdown } from "./markdown-growing.js";
import type { Line } from "./style.js";

export type NoticeLevel = "error" | "warning" | "info";

export type Body =
  | { kind: "message"; msg: StoredMessage }
  | { kind: "notice"; level: NoticeLevel; text: string }
  /** a /compact summary, where the messages it replaced end: its text folds under its heading */
  | { kind: "summary"; summary: StoredSummary }
  | { kind: "lines"; lines: Line[] }
  | {
      kind: "live";
      answer: AnswerId;
      reasoning: string;
      text: string;
      /** tool calls whose input is still arriving, by their index in the answer */
      toolInputs: Map<number, { name: string; bytes: number }>;
      /** the answer's latest checkpoint: shown in place of the live text when the turn ends */
      stored?: StoredMessage;
      /** the turn ended before anything of it was stored: shown as it was, marked not saved */
      closed: boolean;
    };

export type LiveBody = Extract<Body, { kind: "live" }>;

export interface Item {
  uid: number;
  version: number;
  body: Body;
  /** an answer's text laid out as it streamed: kept when its message settles, so the stored
   * text (the same, unless redaction changed it) is not laid out again from the start */
  md?: GrowingMarkdown;
}

/** an answer still streaming */
export function isOpenLive(i: Item): boolean {
  return i.body.kind === "live" && !i.body.closed;
}
