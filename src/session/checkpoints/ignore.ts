// Which paths of the workspace a checkpoint leaves out: the rules of its .gitignore files
// (and .git/info/exclude), read as git reads them. The patterns come from the repository, so
// a hostile one must not be able to stall the walk: they are matched here by a table over
// pattern × name (time linear in each), not compiled to a regular expression, where a line
// such as `*a*a*a*a*a*a*a*a*a*a*a*b` backtracks for minutes over one long file name.
import { assertNever } from "../../record/types.js";

/** One piece of a compiled pattern. */
type Token =
  | { t: "lit"; c: string }
  /** `?`: one character but "/" */
  | { t: "one" }
  /** `*`: any run without "/" */
  | { t: "star" }
  /** `**` at the end after "/": anything, at least one character */
  | { t: "anyPlus" }
  /** a leading `**` + "/" or an inner "/" + `**` + "/": zero or more whole folders */
  | { t: "dirs" }
  | { t: "class"; neg: boolean; items: Array<string | [string, string]> };

export interface IgnoreRule {
  /** the folder of the file the rule came from, relative to the workspace ("" at its root) */
  base: string;
  negated: boolean;
  /** a pattern ending in "/": folders only */
  dirOnly: boolean;
  /** a "/" at its start or middle: matched against the path below base, not the name alone */
  anchored: boolean;
  tokens: Token[];
  /** the pattern has no wildcard: compared as text */
  literal: string | undefined;
  /** the pattern is `*` then text without "/" ("*.log"): the name ends with it */
  suffix: string | undefined;
}

/** A .gitignore longer than this is read only this far (a rule list, not data). */
export const MAX_IGNORE_FILE_BYTES = 256 * 1024;

/** The rules of one .gitignore (or exclude) file found in `base`. */
export function parseIgnoreFile(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let line of text.split("\n")) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line === "" || line.startsWith("#")) continue;
    // trailing spaces go unless escaped with a backslash
    line = line.replace(/(?<!\\)[ ]+$/, "");
    if (line === "") continue;
    let negated = false;
    if (line.startsWith("!")) {
      negated = true;
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/") && !line.endsWith("\\/")) {
      dirOnly = true;
      line = line.replace(/\/+$/, "");
    }
    if (line === "") continue;
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.replace(/^\/+/, "");
    if (line === "") continue;
    const tokens = compile(line);
    const text = (ts: readonly Token[]): string | undefined => (ts.every((t) => t.t === "lit") ? ts.map((t) => (t as { c: string }).c).join("") : undefined);
    const literal = text(tokens);
    const tail = tokens[0]?.t === "star" ? text(tokens.slice(1)) : undefined;
    const suffix = tail !== undefined && !tail.includes("/") ? tail : undefined;
    rules.push({ base, negated, dirOnly, anchored, tokens, literal, suffix });
  }
  return rules;
}

function compile(p: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i]!;
    if (c === "\\") {
      if (i + 1 < p.length) out.push({ t: "lit", c: p[i + 1]! });
      i += 2;
      continue;
    }
    if (c === "*") {
      let n = 0;
      while (p[i + n] === "*") n++;
      const atStart = i === 0 || p[i - 1] === "/";
      const atEnd = i + n === p.length || p[i + n] === "/";
      if (n >= 2 && atStart && atEnd) {
        if (i + n === p.length) {
          // "a/**": everything inside a (the "/" before is a literal already); "**" alone: anything
          out.push({ t: "anyPlus" });
          i += n;
        } else {
          // "**/" at the start or "/**/" inside: zero or more folders (the "/" after is taken)
          out.push({ t: "dirs" });
          i += n + 1;
        }
        continue;
      }
      // any other run of stars is one star (git's rule)
      out.push({ t: "star" });
      i += n;
      continue;
    }
    if (c === "?") {
      out.push({ t: "one" });
      i++;
      continue;
    }
    if (c === "[") {
      const cls = parseClass(p, i);
      if (cls) {
        out.push(cls.token);
        i = cls.end;
        continue;
      }
    }
    out.push({ t: "lit", c });
    i++;
  }
  return out;
}

/** `[...]` at i, or undefined when it does not close (then "[" is itself). */
function parseClass(p: string, start: number): { token: Token; end: number } | undefined {
  let i = start + 1;
  let neg = false;
  if (p[i] === "!" || p[i] === "^") {
    neg = true;
    i++;
  }
  const items: Array<string | [string, string]> = [];
  let first = true;
  while (i < p.length) {
    let c = p[i]!;
    if (c === "]" && !first) return { token: { t: "class", neg, items }, end: i + 1 };
    first = false;
    if (c === "\\" && i + 1 < p.length) {
      i++;
      c = p[i]!;
    }
    if (p[i + 1] === "-" && i + 2 < p.length && p[i + 2] !== "]") {
      let hi = p[i + 2]!;
      let skip = 3;
      if (hi === "\\" && i + 3 < p.length) {
        hi = p[i + 3]!;
        skip = 4;
      }
      items.push([c, hi]);
      i += skip;
      continue;
    }
    items.push(c);
    i++;
  }
  return undefined;
}

function classHas(tok: Extract<Token, { t: "class" }>, ch: string): boolean {
  if (ch === "/") return false;
  let hit = false;
  for (const it of tok.items) {
    if (typeof it === "string" ? it === ch : ch >= it[0] && ch <= it[1]) {
      hit = true;
      break;
    }
  }
  return hit !== tok.neg;
}

/**
 * Whether the tokens match the whole of `s`: a table from the end of both, one row per token
 * (two rows kept), so the time is tokens × characters whatever the pattern.
 */
export function matchTokens(tokens: readonly Token[], s: string): boolean {
  const n = s.length;
  let next = new Uint8Array(n + 1);
  let cur = new Uint8Array(n + 1);
  next[n] = 1; // no tokens left: only the end matches
  for (let ti = tokens.length - 1; ti >= 0; ti--) {
    const tok = tokens[ti]!;
    cur.fill(0);
    switch (tok.t) {
      case "lit":
        for (let si = 0; si < n; si++) cur[si] = s[si] === tok.c ? next[si + 1]! : 0;
        break;
      case "one":
        for (let si = 0; si < n; si++) cur[si] = s[si] !== "/" ? next[si + 1]! : 0;
        break;
      case "class":
        for (let si = 0; si < n; si++) cur[si] = classHas(tok, s[si]!) ? next[si + 1]! : 0;
        break;
      case "star":
        cur[n] = next[n]!;
        for (let si = n - 1; si >= 0; si--) cur[si] = next[si] || (s[si] !== "/" ? cur[si + 1]! : 0) ? 1 : 0;
        break;
      case "anyPlus": {
        // anything of one character or more, then the rest
        let any = 0; // some position after si matches the rest
        for (let si = n - 1; si >= 0; si--) {
          any = any || next[si + 1]! ? 1 : 0;
          cur[si] = any;
        }
        break;
      }
      case "dirs": {
        // zero folders, or a run ending in "/" then the rest
        let body = 0;
        cur[n] = next[n]!;
        for (let si = n - 1; si >= 0; si--) {
          body = (s[si] === "/" && next[si + 1]) || body ? 1 : 0;
          cur[si] = next[si] || body ? 1 : 0;
        }
        break;
      }
      default:
        return assertNever(tok, "pattern token");
    }
    [cur, next] = [next, cur];
  }
  return next[0] === 1;
}

function ruleMatches(r: IgnoreRule, rel: string, isDir: boolean): boolean {
  if (r.dirOnly && !isDir) return false;
  let sub: string;
  if (r.base === "") sub = rel;
  else if (rel.startsWith(r.base + "/")) sub = rel.slice(r.base.length + 1);
  else return false;
  const target = r.anchored ? sub : sub.slice(sub.lastIndexOf("/") + 1);
  if (r.literal !== undefined) return target === r.literal;
  if (r.suffix !== undefined) return target.endsWith(r.suffix) && !target.slice(0, target.length - r.suffix.length).includes("/");
  return matchTokens(r.tokens, target);
}

/** The rules in force in one folder: those of the folders above it, then its own. */
export class IgnoreRules {
  constructor(private readonly rules: readonly IgnoreRule[] = []) {}

  /** these rules and then those of a file found below them (a later rule wins) */
  with(more: readonly IgnoreRule[]): IgnoreRules {
    return more.length === 0 ? this : new IgnoreRules([...this.rules, ...more]);
  }

  /** whether `rel` (relative to the workspace, "/" between names) is ignored: the last rule
   * that matches decides. A folder that is ignored is not walked, so nothing below it can be
   * taken back by a "!" rule, as in git. */
  ignored(rel: string, isDir: boolean): boolean {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const r = this.rules[i]!;
      if (ruleMatches(r, rel, isDir)) return !r.negated;
    }
    return false;
  }
}
