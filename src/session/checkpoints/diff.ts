// What changed between two walks of the workspace (before a turn's first command and after
// the turn), as the changes a turn record keeps; and how a change that cannot be restored is
// named.
import path from "node:path";
import { quoteId } from "../../record/session-id.js";
import type { RecordedChange } from "./record.js";
import { captureOne, fpTimes, RACY_MS, type Snapshot } from "./snapshot.js";
import { describeState, sameState } from "./state.js";

// C0 and C1 controls, DEL, line and paragraph separators, bidi controls
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A path for a sentence: as it is, or quoted with its control characters escaped (a name
 * may hold a newline or an escape sequence). */
export function shownPath(p: string): string {
  return CONTROLS.test(p) || p.trim() !== p || p === "" ? quoteId(p) : p;
}

/** "big.bin: a file of 1.0 GB, over the 10.0 MB per-file cap" */
export function unrestorableLine(c: Pick<RecordedChange, "path" | "before">): string {
  const b = c.before;
  return b.kind === "uncopied" ? `${shownPath(c.path)}: ${b.what}, ${b.why}` : `${shownPath(c.path)}: ${describeState(b)}`;
}

export async function diffWalks(a: Snapshot, b: Snapshot, by: string, deps: Parameters<typeof captureOne>[2]): Promise<RecordedChange[]> {
  const out: RecordedChange[] = [];
  for (const [p, ea] of a.entries) {
    const eb = b.entries.get(p);
    if (eb) {
      if (!sameState(ea.s, eb.s, ea.f, eb.f)) out.push({ path: p, before: ea.s, after: eb.s, by });
    } else {
      // gone from the walk: removed, or left out of it now (ignored since, past the limit)
      const now = await captureOne(a.root, path.join(a.root, p), deps);
      if (!sameState(ea.s, now.s, ea.f, now.f)) out.push({ path: p, before: ea.s, after: now.s, by });
    }
    // a link that leads outside: a change made through it is out of reach, and named
    if (ea.o?.f !== undefined && eb?.o?.real === ea.o.real && eb.o.f !== ea.o.f) {
      const s = { kind: "uncopied" as const, what: `the file a link in the workspace (${shownPath(p)}) leads to`, why: "it is outside the workspace, where checkpoints do not reach" };
      out.push({ path: ea.o.real, before: s, after: s, by });
    }
  }
  const since = a.takenAtMs - RACY_MS;
  for (const [p, eb] of b.entries) {
    if (a.entries.has(p)) continue;
    // new in this walk: made by the turn, or there before but not walked then (ignored then,
    // or past the file limit): a path born before the first walk was there already
    let existed = !a.complete;
    if (!existed && eb.f !== undefined) {
      const [, ctime, btime] = fpTimes(eb.f);
      existed = (btime > 0 ? btime : ctime) < since;
    }
    const before = existed
      ? { kind: "uncopied" as const, what: describeState(eb.s), why: "it was not checkpointed when the turn began (ignored then, or past the file limit)" }
      : { kind: "absent" as const };
    out.push({ path: p, before, after: eb.s, by });
  }
  return out;
}
