// Plain-text rendering of the inspector for the shell (`albedo-tui context`) and the screen.
// Pure: the same view always gives the same text.
import { assertNever } from "../record/types.js";
import { formatInt } from "../record/numbers.js";
import type { InspectorView, Page, SectionSummary, TokenEstimate } from "./types.js";
import type { Usage } from "../provider/types.js";

export function num(n: number): string {
  return formatInt(n);
}

/** "≈ 41,200 tokens (o200k tokenizer)": always an estimate, always with its method. */
export function formatEstimate(e: TokenEstimate): string {
  return `≈ ${num(e.tokens)} tokens (${e.method})`;
}

/**
 * People count sections and pages from 1 (the screen, `context` text and its flags); the
 * stored record, `--json` and the HTTP API count from 0, as the API is specified. This is
 * the one place the two meet.
 */
export function forPeople(index: number): number {
  return index + 1;
}

/** What `--json` and the API write beside their section and page numbers. */
export const MACHINE_NUMBERING = "zero-based";

/**
 * The whole request's estimate: its sections' estimates summed (system, each context item,
 * history, tools, as compacted), with the method they used. The status line and the context
 * pane both give this figure, so the two cannot disagree.
 */
export function requestEstimate(sections: ReadonlyArray<{ estimate: TokenEstimate }>): TokenEstimate {
  let tokens = 0;
  const methods: string[] = [];
  for (const s of sections) {
    tokens += s.estimate.tokens;
    if (!methods.includes(s.estimate.method)) methods.push(s.estimate.method);
  }
  // "chars/4" and "chars/4 + images by size" are one method: the longer one says it all
  const widest = methods.find((m) => methods.every((o) => m.startsWith(o)));
  return { tokens, method: widest ?? (methods.length > 0 ? methods.join("; ") : "no sections") };
}

/** What a request figure is: the last captured request, or an estimate of the next one. */
export type FigureBasis = "last request" | "next request";

/** "≈ 1,200 tokens (chars/4)" for the last request; "next request ≈ 1,200 tokens (chars/4)". */
export function formatFigure(basis: FigureBasis, e: TokenEstimate): string {
  switch (basis) {
    case "last request":
      return formatEstimate(e);
    case "next request":
      return `next request ${formatEstimate(e)}`;
    default:
      return assertNever(basis, "figure basis");
  }
}

/** "+1,204" / "−80" / "0" / "new" (no previous capture had this section). */
export function formatDelta(d: number | null): string {
  if (d === null) return "new";
  if (d > 0) return `+${num(d)}`;
  if (d < 0) return `−${num(-d)}`;
  return "0";
}

/** The share (0–1) of a request's input the provider reports it read from its prompt cache;
 * undefined when it reported nothing about caching. The whole input is uncached + read +
 * written (Usage). */
export function cacheHitShare(u: Usage): number | undefined {
  if (u.cacheReadTokens === undefined && u.cacheWriteTokens === undefined) return undefined;
  const read = u.cacheReadTokens ?? 0;
  const all = u.inputTokens + read + (u.cacheWriteTokens ?? 0);
  return all > 0 ? read / all : undefined;
}

/** "cache 92%": rounded down, so a request with anything uncached never shows 100%. */
export function formatCacheShare(share: number): string {
  return `cache ${Math.floor(share * 100)}%`;
}

/** The provider's own report, cache first: "9,000 read from cache, 800 written to cache,
 * 12 uncached input, 340 output tokens (cache 91%)". */
export function formatCacheUsage(u: Usage): string {
  const share = cacheHitShare(u);
  if (share === undefined) return formatUsage(u);
  const parts = [
    `${num(u.cacheReadTokens ?? 0)} read from cache`,
    `${num(u.cacheWriteTokens ?? 0)} written to cache`,
    `${num(u.inputTokens)} uncached input`,
    `${num(u.outputTokens)} output`,
  ];
  return `${parts.join(", ")} tokens (${formatCacheShare(share)})`;
}

function formatUsage(u: Usage): string {
  const parts = [`${num(u.inputTokens)} input`, `${num(u.outputTokens)} output`];
  if (u.cacheReadTokens !== undefined) parts.push(`${num(u.cacheReadTokens)} cache read`);
  if (u.cacheWriteTokens !== undefined) parts.push(`${num(u.cacheWriteTokens)} cache write`);
  return `${parts.join(", ")} tokens`;
}

// Text from tools and models reaches a terminal here: control characters (ESC above all)
// are shown in caret notation so that nothing printed can move the cursor or set a title.
export function neutralizeControls(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
    if (code === 0x7f) return "^?";
    return `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

function pad(s: string, width: number, right: boolean): string {
  const n = [...s].length;
  if (n >= width) return s;
  const fill = " ".repeat(width - n);
  return right ? fill + s : s + fill;
}

function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? "")].length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => pad(c, widths[i] ?? 0, rightAligned[i] ?? false))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

function formatSectionsTable(sections: ReadonlyArray<SectionSummary>): string {
  const rows = sections.map((s) => [
    String(forPeople(s.index)),
    neutralizeControls(s.source),
    num(s.items),
    num(s.bytes),
    formatEstimate(s.estimate),
    formatDelta(s.deltaBytes),
    `${num(s.pages)}`,
  ]);
  return table(
    ["#", "source", "items", "bytes", "estimate", "change", "pages"],
    rows,
    [true, false, true, true, false, true, true],
  );
}

export function formatView(view: InspectorView): string {
  switch (view.state) {
    case "pending":
      return [
        "Context: pending — no request prepared since the last change.",
        `reason: ${neutralizeControls(view.reason)}`,
        `since: ${view.since}`,
        "The next request to the model will be shown here once it is prepared.",
      ].join("\n");
    case "current": {
      const m = view.meta;
      const lines = [
        `Context of the last request: ${m.provider} / ${neutralizeControls(m.model)}`,
        `captured: ${m.capturedAt} (iteration ${m.iteration})`,
        `context window: ${m.contextWindow !== undefined ? `${num(m.contextWindow)} tokens` : "unknown"}`,
        `total: ${num(m.totalBytes)} bytes, ${formatEstimate(requestEstimate(view.sections))}`,
        `provider usage (previous response): ${m.providerUsage ? formatUsage(m.providerUsage) : "none reported"}`,
      ];
      if (m.compaction) lines.push(`compaction: ${neutralizeControls(m.compaction)}`);
      if (m.change) lines.push(`since the previous request: ${neutralizeControls(m.change)}`);
      if (m.cacheBreak) lines.push(`cached prefix broke ${neutralizeControls(m.cacheBreak)}`);
      lines.push("", formatSectionsTable(view.sections));
      lines.push("", "Token figures are estimates; byte figures are exact UTF-8 bytes of the request content.");
      lines.push("A section's text: --section N [--page K], numbered as above, from 1 (--json counts from 0).");
      return lines.join("\n");
    }
    default:
      return assertNever(view, "inspector view");
  }
}

/** A page for people: its section and page counted from 1 (the page itself holds them from 0). */
export function formatPage(p: Page, summary?: SectionSummary): string {
  const section = summary ? `section ${forPeople(p.section)} (${neutralizeControls(summary.source)})` : `section ${forPeople(p.section)}`;
  const where = `${section}, page ${num(forPeople(p.page))} of ${num(p.pages)}`;
  return `${where}\n\n${neutralizeControls(p.text)}`;
}
