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

/** "+1,204" / "−80" / "0" / "new" (no previous capture had this section). */
export function formatDelta(d: number | null): string {
  if (d === null) return "new";
  if (d > 0) return `+${num(d)}`;
  if (d < 0) return `−${num(-d)}`;
  return "0";
}

export function formatUsage(u: Usage): string {
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

export function formatSectionsTable(sections: ReadonlyArray<SectionSummary>): string {
  const rows = sections.map((s) => [
    String(s.index),
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
        `total: ${num(m.totalBytes)} bytes`,
        `provider usage (previous response): ${m.providerUsage ? formatUsage(m.providerUsage) : "none reported"}`,
      ];
      if (m.compaction) lines.push(`compaction: ${neutralizeControls(m.compaction)}`);
      lines.push("", formatSectionsTable(view.sections));
      lines.push("", "Token figures are estimates; byte figures are exact UTF-8 bytes of the request content.");
      return lines.join("\n");
    }
    default:
      return assertNever(view, "inspector view");
  }
}

/** A page for people: "page K of N" counts from 1, the API's page numbers from 0. */
export function formatPage(p: Page, summary?: SectionSummary): string {
  const where = summary
    ? `section ${p.section} (${neutralizeControls(summary.source)}), page ${num(p.page + 1)} of ${num(p.pages)}`
    : `section ${p.section}, page ${num(p.page + 1)} of ${num(p.pages)}`;
  return `${where}\n\n${neutralizeControls(p.text)}`;
}
