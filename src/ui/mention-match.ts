// The fuzzy match behind `@` completion, kept to a bounded cost per key on 100,000 paths:
// the paths are held shortest first, each key narrows the paths the previous query kept
// (resuming each path's match where it stopped, one indexOf per new character), and fuzzysort
// ranks at most a few hundred of them. Pure: no I/O, the walk is mentions.ts's.
import fuzzysort, { type Prepared } from "fuzzysort";

/** at most this many matching paths are ranked by fuzzysort as they are */
const RANK_ALL_UNDER = 300;
/** over that, this many are picked by a cheap rule (the query as typed in the file's name, then
 * anywhere in the path, then scattered; shortest first in each) and fuzzysort ranks those */
const CANDIDATES = 200;
/** once this many paths are looked at and CANDIDATES are in, the pick stops: a name holding the
 * query further down is a longer path, and it comes up as the query narrows */
const SCAN_BUDGET = 20_000;
/** the narrowing steps kept for Backspace; a longer query narrows from the deepest one kept */
const MAX_STEPS = 64;

interface Step {
  query: string;
  /** indexes of the paths that hold the query's characters in order */
  pool: Int32Array;
  /** for each of them, where its greedy match of the query ended (the next character to look at) */
  ends: Int32Array;
}

/** Greedy subsequence from `from`: the position after the last character of `q` in `s`, or -1. */
function advance(q: string, s: string, from: number): number {
  let at = from;
  for (let i = 0; i < q.length; i++) {
    at = s.indexOf(q[i]!, at) + 1;
    if (at === 0) return -1;
  }
  return at;
}

export class PathMatcher {
  /** shortest first, then in the order given (the walk's) */
  readonly paths: readonly string[];
  private readonly lower: string[];
  private readonly prepared: Array<Prepared | undefined>;
  private steps: Step[] = [];
  private memo: { query: string; limit: number; found: string[] } | undefined;

  constructor(paths: readonly string[]) {
    // a counting sort on the length: linear, so 100,000 paths cost no pause
    const byLen: string[][] = [];
    for (const p of paths) (byLen[p.length] ??= []).push(p);
    const sorted: string[] = [];
    for (const group of byLen) if (group) for (const p of group) sorted.push(p);
    this.paths = sorted;
    this.lower = sorted.map((p) => p.toLowerCase());
    this.prepared = new Array<Prepared | undefined>(sorted.length);
  }

  get size(): number {
    return this.paths.length;
  }

  /** the best matches for `query`, best first */
  find(query: string, limit = 8): string[] {
    if (this.memo && this.memo.query === query && this.memo.limit === limit) return this.memo.found;
    const found = query === "" ? this.paths.slice(0, limit) : this.rank(query, this.narrow(query.toLowerCase()).pool, limit);
    this.memo = { query, limit, found };
    return found;
  }

  /** the paths that can match `q`, from the deepest step whose query `q` extends */
  private narrow(q: string): Step {
    while (this.steps.length > 0 && !q.startsWith(this.steps[this.steps.length - 1]!.query)) this.steps.pop();
    const from = this.steps[this.steps.length - 1];
    if (from?.query === q) return from;
    const added = from ? q.slice(from.query.length) : q;
    const n = from ? from.pool.length : this.lower.length;
    const pool = new Int32Array(n);
    const ends = new Int32Array(n);
    let kept = 0;
    for (let k = 0; k < n; k++) {
      const i = from ? from.pool[k]! : k;
      const end = advance(added, this.lower[i]!, from ? from.ends[k]! : 0);
      if (end === -1) continue;
      pool[kept] = i;
      ends[kept] = end;
      kept++;
    }
    // views, not copies: a step lives only while its query is being typed
    const step: Step = { query: q, pool: pool.subarray(0, kept), ends: ends.subarray(0, kept) };
    if (this.steps.length >= MAX_STEPS) this.steps.shift();
    this.steps.push(step);
    return step;
  }

  private rank(query: string, pool: Int32Array, limit: number): string[] {
    if (pool.length === 0) return [];
    let picked: ArrayLike<number> = pool;
    if (pool.length > RANK_ALL_UNDER) {
      const q = query.toLowerCase();
      const inName: number[] = [];
      const inPath: number[] = [];
      const scattered: number[] = [];
      for (let k = 0; k < pool.length && inName.length < CANDIDATES; k++) {
        if (k >= SCAN_BUDGET && inName.length + inPath.length >= CANDIDATES) break;
        const i = pool[k]!;
        const l = this.lower[i]!;
        const at = l.indexOf(q);
        if (at === -1) {
          if (scattered.length < CANDIDATES) scattered.push(i);
        } else if (at > l.lastIndexOf("/")) inName.push(i);
        else if (inPath.length < CANDIDATES) inPath.push(i);
      }
      picked = [...inName, ...inPath, ...scattered].slice(0, CANDIDATES);
    }
    // fuzzysort's prepared form is made once per path, when the path is first ranked
    const targets: Prepared[] = [];
    for (let k = 0; k < picked.length; k++) {
      const i = picked[k]!;
      targets.push((this.prepared[i] ??= fuzzysort.prepare(this.paths[i]!)));
    }
    const ranked = fuzzysort.go(query, targets, { limit, threshold: 0 }).map((r) => r.target);
    // fuzzysort can refuse what the narrowing kept (it wants no more than its own rules): the
    // shortest of the rest fill the list
    if (ranked.length < limit) {
      const seen = new Set(ranked);
      for (let k = 0; k < picked.length && ranked.length < limit; k++) {
        const p = this.paths[picked[k]!]!;
        if (!seen.has(p)) ranked.push(p);
      }
    }
    return ranked;
  }
}
