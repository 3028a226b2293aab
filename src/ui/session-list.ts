// `albedo-tui sessions` as a person reads it at a glance (pure): id, last activity in
// relative words, message count, model, workspace, title.
import type { SessionInfo } from "../record/types.js";

const UNITS: [number, string][] = [
  [60, "second"],
  [60, "minute"],
  [24, "hour"],
  [7, "day"],
  [4.35, "week"],
  [12, "month"],
  [Number.POSITIVE_INFINITY, "year"],
];

/** "just now", "5 minutes ago", "3 days ago": hand-made (ICU's formatter costs memory). */
export function relativeTime(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  let n = (now.getTime() - then) / 1000;
  if (n < 0) return "in the future";
  if (n < 45) return "just now";
  for (const [size, unit] of UNITS) {
    // compared rounded, so 11.99 months reads as a year, not "12 months"
    if (Math.round(n) < size) {
      const k = Math.max(1, Math.round(n));
      return `${k} ${unit}${k === 1 ? "" : "s"} ago`;
    }
    n /= size;
  }
  return iso;
}

/** where a session is open other than here, as the lists say it */
export function openMark(s: SessionInfo): string | undefined {
  if (!s.open) return undefined;
  return s.open.detached ? "running (detached)" : "open elsewhere";
}

/** the mark with the process that holds the session: "running (detached, pid 4242)" */
function openMarkWithPid(s: SessionInfo, field: (s: string) => string): string {
  const mark = openMark(s);
  if (!mark || !s.open) return "";
  const where = `pid ${s.open.pid}${s.open.host !== undefined ? ` on ${field(s.open.host)}` : ""}`;
  return mark.endsWith(")") ? `${mark.slice(0, -1)}, ${where})` : `${mark} (${where})`;
}

/** The links of a fork, both ways: "forked from 3f2a… at prompt 4", "forks: 9c1d… (at prompt 2)". */
export function forkLines(s: SessionInfo, field: (s: string) => string = (x) => x): string[] {
  const out: string[] = [];
  if (s.forkedFrom) out.push(`forked from ${field(s.forkedFrom.id)} at prompt ${s.forkedFrom.atPrompt}`);
  if (s.forks?.length) out.push(`forks: ${s.forks.map((f) => `${field(f.id)} (at prompt ${f.atPrompt})`).join(", ")}`);
  return out;
}

/**
 * One line per session, and under it its fork links. `field` makes text from outside (titles
 * come from prompts, folders from paths) safe for where it is printed.
 */
export function sessionLines(list: readonly SessionInfo[], now: Date, field: (s: string) => string = (s) => s): string[] {
  const when = list.map((s) => relativeTime(s.updatedAt, now));
  const count = list.map((s) => (s.messages === undefined ? "? msgs" : `${s.messages} msg${s.messages === 1 ? "" : "s"}`));
  const model = list.map((s) => s.model ?? "-");
  // the column of where a session is open elsewhere, only when one is
  const open = list.map((s) => openMarkWithPid(s, field));
  const w = (xs: string[]): number => Math.max(0, ...xs.map((x) => x.length));
  const [ww, cw, mw, ow] = [w(when), w(count), w(model), w(open)];
  return list.flatMap((s, i) => [
    `${s.id}  ${when[i]!.padEnd(ww)}  ${count[i]!.padStart(cw)}  ${model[i]!.padEnd(mw)}  ${ow > 0 ? `${open[i]!.padEnd(ow)}  ` : ""}${field(s.title) || "(untitled)"}  ${field(s.workspace)}`,
    ...forkLines(s, field).map((l) => `  ↳ ${l}`),
  ]);
}
