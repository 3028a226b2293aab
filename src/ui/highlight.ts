// Syntax colours for fenced code. cli-highlight runs highlight.js and calls a theme function
// per token; our theme wraps each token in private markers (the code is already inert, so it
// holds no control characters of its own) and we turn the markers back into styled segments.
// That keeps chalk's colour detection and ANSI codes out of the screen entirely.
//
// highlight.js with all its languages costs ~80 ms and ~10 MB to load, so nothing waits for
// it: the first fenced block with a language starts loading it in the background and is shown
// plain meanwhile. Such a plain rendering is not cached here, and is counted (plainMisses), so
// the transcript knows which of its items to lay out again when loadHighlighter()
// resolves. Sessions that never show code never load it.
import type { Theme } from "cli-highlight";
import type { Line, Seg, StyleName } from "./style.js";

interface CliHighlight {
  highlight(code: string, options: { language: string; ignoreIllegals: boolean; theme: Theme }): string;
  supportsLanguage(name: string): boolean;
}
let lib: CliHighlight | undefined;
let loading: Promise<void> | undefined;
let misses = 0;
let failed = false;

/**
 * How long after the first fenced block asks for it the highlighter starts loading. The
 * bundle's import() is a require() (scripts/bundle.mjs): started at once, its ~80-120 ms of
 * loading would run before the frame that shows the block, and a resumed session with code
 * would show ~200 ms later. Waiting lets the frames showing the session come first.
 */
const LOAD_AFTER_MS = 100;

/** starts loading the highlighter (once); resolves when it is there, or failed to load */
export function loadHighlighter(): Promise<void> {
  loading ??= new Promise<void>((resolve) => setTimeout(resolve, LOAD_AFTER_MS).unref()).then(() => import("cli-highlight")).then(
    (m) => {
      // a CommonJS module: its named exports are found by Node's export scan
      lib = { highlight: m.highlight, supportsLanguage: m.supportsLanguage };
    },
    () => {
      // no colours then; code stays plain and readable
      failed = true;
    },
  );
  return loading;
}

export function highlighterLoaded(): boolean {
  return lib !== undefined;
}

/** how many code blocks were shown plain only because the highlighter was still loading */
export function plainMisses(): number {
  return misses;
}

const OPEN = "\x01";
const MID = "\x02";
const CLOSE = "\x03";

const TOKEN_STYLE: Record<string, StyleName> = {
  keyword: "hl.keyword",
  built_in: "hl.type",
  type: "hl.type",
  literal: "hl.literal",
  number: "hl.number",
  regexp: "hl.regexp",
  string: "hl.string",
  subst: "hl.variable",
  symbol: "hl.literal",
  class: "hl.type",
  function: "hl.function",
  title: "hl.function",
  params: "codeBlock",
  comment: "hl.comment",
  doctag: "hl.comment",
  meta: "hl.meta",
  "meta-keyword": "hl.keyword",
  "meta-string": "hl.string",
  section: "hl.function",
  tag: "hl.tag",
  name: "hl.tag",
  "builtin-name": "hl.type",
  attr: "hl.attr",
  attribute: "hl.attr",
  variable: "hl.variable",
  bullet: "hl.literal",
  code: "hl.string",
  emphasis: "codeBlock",
  strong: "codeBlock",
  formula: "hl.literal",
  link: "hl.function",
  quote: "hl.comment",
  "selector-tag": "hl.tag",
  "selector-id": "hl.attr",
  "selector-class": "hl.attr",
  "selector-attr": "hl.attr",
  "selector-pseudo": "hl.attr",
  "template-tag": "hl.keyword",
  "template-variable": "hl.variable",
  addition: "diffAdd",
  deletion: "diffDel",
};

const theme: Theme = { default: (s) => s };
for (const token of Object.keys(TOKEN_STYLE)) {
  (theme as Record<string, (s: string) => string>)[token] = (s: string) => `${OPEN}${token}${MID}${s}${CLOSE}`;
}

/** the longest code we colour; beyond it highlight.js costs more than the colours are worth */
export const MAX_HIGHLIGHT = 40_000;
const CACHE_MAX = 200;
const cache = new Map<string, Line[]>();

function plainLines(code: string): Line[] {
  return code.split("\n").map((l) => (l ? [{ t: l, s: "codeBlock" as const }] : []));
}

function parseMarked(text: string): Line[] {
  const lines: Line[] = [[]];
  const stack: StyleName[] = [];
  let buf = "";
  const flush = (): void => {
    if (!buf) return;
    const s: StyleName = stack[stack.length - 1] ?? "codeBlock";
    const parts = buf.split("\n");
    parts.forEach((p, i) => {
      if (i > 0) lines.push([]);
      if (p) lines[lines.length - 1]!.push({ t: p, s } satisfies Seg);
    });
    buf = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === OPEN) {
      flush();
      const mid = text.indexOf(MID, i);
      const token = text.slice(i + 1, mid < 0 ? i + 1 : mid);
      stack.push(TOKEN_STYLE[token] ?? "codeBlock");
      i = mid < 0 ? i : mid;
    } else if (c === CLOSE) {
      flush();
      stack.pop();
    } else {
      buf += c;
    }
  }
  flush();
  return lines;
}

/** code (already inert) as coloured logical lines; plain when the language is unknown */
export function highlightCode(code: string, lang: string | undefined): Line[] {
  const language = (lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const key = `${language}\0${code}`;
  const have = cache.get(key);
  if (have) return have;
  if (!language || code.length > MAX_HIGHLIGHT) return plainLines(code);
  const hl = lib;
  if (!hl) {
    // after a failed load plain is all there will be: not a miss, nothing to wait for
    if (failed) return plainLines(code);
    misses++;
    void loadHighlighter();
    return plainLines(code);
  }
  let lines: Line[];
  if (!hl.supportsLanguage(language)) {
    lines = plainLines(code);
  } else {
    try {
      lines = parseMarked(hl.highlight(code, { language, ignoreIllegals: true, theme }));
    } catch {
      lines = plainLines(code);
    }
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, lines);
  return lines;
}
