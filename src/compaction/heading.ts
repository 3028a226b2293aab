// How a stored summary is named wherever it is shown (the transcript, the export): by the run
// of messages it stands for in the requests.
import type { StoredSummary } from "./types.js";

export function summaryHeading(s: Pick<StoredSummary, "fromSeq" | "toSeq">): string {
  const run = s.fromSeq === s.toSeq ? `message ${s.fromSeq}` : `messages ${s.fromSeq}–${s.toSeq}`;
  return `Summary of ${run} (compact)`;
}

/** Each summary with the seq of the message it follows: the last one it replaced, oldest first. */
export function summariesInOrder<S extends Pick<StoredSummary, "id" | "toSeq">>(summaries: readonly S[]): S[] {
  return [...summaries].sort((a, b) => a.toSeq - b.toSeq || a.id - b.id);
}
