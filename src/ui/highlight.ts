// Syntax colours for fenced code. cli-highlight runs highlight.js and calls a theme function
// per token; our theme wraps each token in private markers (the code is already inert, so it
// holds no control characters of its own) and we turn the markers back into styled segments.
// That keeps chalk's colour detection and ANSI codes out of the screen entirely.
import { createRequire } from "node:module";
import type { Theme } from "cli-highlight";
import type { Line, Seg, StyleName } from "./style.js";

type CliHighlight = typeof import("cli-highlight");
const require = createRequire(import.meta.url);
let lib: CliHighlight | undefined;
// loaded on the first fenced block: highlight.js with all its languages costs ~80 ms at start-up
function load(): CliHighlight {
  lib ??= require("cli-highlight") as CliHighlight;
  return lib;
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
const MAX_HIGHLIGHT = 40_000;
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
  let lines: Line[];
  if (!language || code.length > MAX_HIGHLIGHT || !load().supportsLanguage(language)) {
    lines = plainLines(code);
  } else {
    try {
      lines = parseMarked(load().highlight(code, { language, ignoreIllegals: true, theme }));
    } catch {
      lines = plainLines(code);
    }
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, lines);
  return lines;
}
