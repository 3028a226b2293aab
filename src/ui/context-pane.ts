// The context pane: the inspector's view of the last request (sections, counts, meta) and the
// selected section's 8,000-character pages. It only ever calls the two read methods; opening,
// paging and refreshing never prepare, compact or send anything.
import { messageOf } from "../record/errors.js";
import { formatDelta, formatEstimate, formatCacheUsage, formatFigure, forPeople, num, requestEstimate } from "../context/format.js";
import type { ContextFigure } from "../session/controller/types.js";
import type { InspectorView, Page, SectionSummary } from "../context/types.js";
import type { ProviderCounts } from "../provider/types.js";
import type { AutoCount } from "../session/controller/shown-request.js";
import { assertNever } from "../record/types.js";
import { inert, inertLine } from "./inert.js";
import type { Line } from "./style.js";
import { fit, lineWidth, restyle, textWidth, truncate, wrapText } from "./text.js";

export interface InspectorSource {
  inspectorView(): Promise<InspectorView>;
  inspectorPage(section: number, page: number): Promise<Page | undefined>;
  /** the strategy in force (and why auto-compaction is off, when it is), and the estimate of
   * the next request while the view is pending; optional for tests */
  contextStatus?(): { compaction: string; figure?: ContextFigure | undefined };
  /** exact counts of the request shown, from the provider's counter; asked only by a key */
  countShownRequest?(): Promise<ProviderCounts>;
  /** the exact count asked after each request (the config's countTokens "each request") */
  autoCount?(): AutoCount | undefined;
}

interface PaneKeys {
  page: string;
  section: string;
  scroll: string;
  close: string;
}

const FLASH_MS = 2000;

export class ContextPane {
  open = false;
  view: InspectorView | undefined;
  error: string | undefined;
  section = 0;
  page = 0;
  pageData: Page | undefined;
  scroll = 0;
  updatedAt: number | undefined;
  private seq = 0;
  private pageCache: { key: string; lines: Line[] } | undefined;
  private lastPageRows = 10;
  /** the provider's exact counts of the request captured at `of`, apart from the estimates */
  exact: { of: string; counts?: ProviderCounts; error?: string; asking?: boolean } | undefined;

  constructor(
    private readonly src: InspectorSource,
    private readonly changed: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the pane holds no longer shows the last request (a capture was stored, or another
   * session shown, while it was closed): opened again, it says "loading…" until its refresh is
   * in, instead of showing the old request's figures for a moment beside the status line's new one. */
  outdated(): void {
    this.seq++;
    this.view = undefined;
    this.pageData = undefined;
    this.pageCache = undefined;
  }

  /** its page is laid out again: widths were estimated until string-width came */
  widthsArrived(): void {
    this.pageCache = undefined;
  }

  /** While closed and idle, reads what opening would show, drawing nothing: the pane's key then
   * shows the figures in its first frame instead of "loading…" and two reads later. */
  async prefetch(): Promise<void> {
    if (this.open || this.view) return;
    await this.refresh(false, true);
  }

  /** re-reads the view (and the current page); `flash` marks it "updated" for a moment;
   * `silent`: no frame is asked for (the pane is closed) */
  async refresh(flash = false, silent = false): Promise<void> {
    const my = ++this.seq;
    try {
      const view = await this.src.inspectorView();
      if (my !== this.seq) return;
      this.view = view;
      this.error = undefined;
      if (view.state === "current") {
        const n = view.sections.length;
        this.section = Math.min(Math.max(0, this.section), Math.max(0, n - 1));
        const pages = view.sections[this.section]?.pages ?? 0;
        this.page = Math.min(this.page, Math.max(0, pages - 1));
      }
      if (flash) this.updatedAt = this.now();
      await this.loadPage(my, silent);
    } catch (e) {
      if (my !== this.seq) return;
      this.error = messageOf(e);
    }
    if (!silent) this.changed();
  }

  private async loadPage(my = ++this.seq, silent = false): Promise<void> {
    const view = this.view;
    if (!view || view.state !== "current" || view.sections.length === 0) {
      this.pageData = undefined;
      return;
    }
    try {
      const p = await this.src.inspectorPage(this.section, this.page);
      if (my !== this.seq) return;
      this.pageData = p;
      this.error = p ? undefined : `section ${forPeople(this.section)} page ${forPeople(this.page)} is not available`;
    } catch (e) {
      if (my !== this.seq) return;
      this.error = messageOf(e);
    }
    if (!silent) this.changed();
  }

  private sections(): SectionSummary[] {
    return this.view?.state === "current" ? this.view.sections : [];
  }

  stepPage(dir: -1 | 1): void {
    const s = this.sections()[this.section];
    if (!s) return;
    const next = this.page + dir;
    if (next < 0 || next >= s.pages) return;
    this.page = next;
    this.scroll = 0;
    void this.loadPage();
  }

  stepSection(dir: -1 | 1): void {
    const n = this.sections().length;
    const next = this.section + dir;
    if (next < 0 || next >= n) return;
    this.section = next;
    this.page = 0;
    this.scroll = 0;
    void this.loadPage();
  }

  scrollPage(dir: -1 | 1): void {
    const step = Math.max(1, this.lastPageRows - 2);
    this.scroll = Math.max(0, this.scroll + dir * step);
    this.changed();
  }

  /** Asks the provider to count the request shown (the pane's key): nothing is counted unasked. */
  async countExact(): Promise<void> {
    const view = this.view;
    if (!view || view.state !== "current" || !this.src.countShownRequest) return;
    const of = view.meta.capturedAt;
    if (this.exact?.asking) return;
    this.exact = { of, asking: true };
    this.changed();
    try {
      const counts = await this.src.countShownRequest();
      this.exact = { of, counts };
    } catch (e) {
      this.exact = { of, error: messageOf(e) };
    }
    this.changed();
  }

  /** The exact figures' lines, labelled with their method and the time asked, for the request
   * shown only (a newer capture leaves them out). */
  private exactLines(w: number, capturedAt: string): Line[] {
    // the key's own count first; otherwise the one asked after the request (each request)
    const asked = this.exact?.of === capturedAt ? this.exact : undefined;
    const auto = this.src.autoCount?.();
    const x: AutoCount | undefined = asked ?? (auto?.of === capturedAt ? auto : undefined);
    if (!x) return [];
    if (x.asking) return wrapText("count_tokens: asking the provider…", w, "dim");
    if (x.error !== undefined) return wrapText(`exact count failed: ${inertLine(x.error)}`, w, "err");
    if (x.note !== undefined) return wrapText(`exact counts: ${inertLine(x.note)}`, w, "dim");
    const c = x.counts;
    if (!c) return [];
    const at = c.askedAt.replace(/^.*T/, "").replace(/\.\d+Z?$/, "");
    const parts = c.sections.map((s) => `${inertLine(s.source)} ${num(s.tokens)}`).join(" · ");
    return wrapText(`exact, ${inertLine(c.method)}, asked ${at}: total ${num(c.total)} tokens · ${parts}`, w, "ok");
  }

  flashing(): boolean {
    return this.updatedAt !== undefined && this.now() - this.updatedAt < FLASH_MS;
  }

  private pageLines(width: number): Line[] {
    const p = this.pageData;
    if (!p) return [];
    const key = `${p.section}:${p.page}:${width}:${p.text.length}`;
    if (this.pageCache?.key === key) return this.pageCache.lines;
    // wrapped at spaces but with every character kept: this is the text as it was sent
    const lines = wrapText(inert(p.text), width, undefined, { preserve: true });
    this.pageCache = { key, lines };
    return lines;
  }

  render(width: number, height: number, keys: PaneKeys): Line[] {
    const w = Math.max(10, width);
    const out: Line[] = [];
    const head: Line = [{ t: "Context", s: "title" }, { t: " · what the last request sent", s: "dim" }];
    if (this.flashing()) head.push({ t: "  updated", s: "ok", b: true });
    const title = truncate(head, w);
    out.push(title);
    const view = this.view;
    if (!view) {
      out.push([{ t: this.error ? `cannot read the inspector: ${inertLine(this.error)}` : "loading…", s: this.error ? "err" : "dim" }]);
      return this.finish(out, w, height, keys);
    }
    switch (view.state) {
      case "pending":
        out.push([]);
        out.push(...wrapText(`pending: ${inertLine(view.reason)}`, w, "warn"));
        out.push(...wrapText(`since ${view.since}. The next request is shown here once it is prepared; opening this pane sends nothing.`, w, "dim"));
        out.push(...this.nextFigure(w));
        return this.finish(out, w, height, keys);
      case "current":
        break;
      default:
        return assertNever(view, "inspector view");
    }
    const m = view.meta;
    const time = m.capturedAt.replace(/^.*T/, "").replace(/\.\d+Z?$/, "");
    const windowText = m.contextWindow !== undefined ? `window ${num(m.contextWindow)} tokens` : "window unknown";
    const estimate = formatEstimate(requestEstimate(view.sections));
    const strategy = this.src.contextStatus?.().compaction;
    const next = this.src.contextStatus?.().figure;
    const s = view.sections[this.section];
    const errLines = this.error ? wrapText(this.error, w, "err") : [];
    const lines = this.pageLines(w);
    const empty: Line[] = s && s.chars === 0 ? [[{ t: "(this section is empty)", s: "dim" }]] : [];
    const rule = (label: string): Line[] =>
      s ? [truncate([{ t: "──", s: "rule" }, { t: label, s: "title" }, { t: "─".repeat(Math.max(0, w - textWidth(label) - 2)), s: "rule" }], w)] : [];
    const pages = s ? Math.max(1, s.pages) : 1;
    const pageLabel = s ? `page ${Math.min(forPeople(this.page), pages)} of ${pages}` : "";

    // The page is what the pane is for: the header gives way when the pane is short, from
    // the full one to one-line facts and the table, to the facts alone, to the section rule,
    // whichever first leaves the page half the pane (or all the room it needs).
    const full: Line[] = [
      title,
      ...wrapText(`${m.provider} / ${inertLine(m.model)} · iteration ${m.iteration} · captured ${time}`, w, "dim"),
      // the whole request's estimate, first so that it is not wrapped apart: the figure the status line gives
      ...wrapText(`total ${num(m.totalBytes)} bytes · ${estimate} · ${windowText}`, w, "dim"),
      // between turns the status line gives the next request's estimate: the pane gives it too
      ...(next?.basis === "next request" ? wrapText(`${formatFigure(next.basis, next)}: what would be sent now, before your next prompt`, w, "dim") : []),
      ...wrapText(`provider usage (previous response, as reported): ${m.providerUsage ? formatCacheUsage(m.providerUsage) : "none reported"}`, w, "dim"),
      ...(strategy ? wrapText(`compaction in force: ${inertLine(strategy)}`, w, "dim") : []),
      ...wrapText(`compaction in this request: ${m.compaction ? inertLine(m.compaction) : "nothing left out"}`, w, "dim"),
      ...(m.change ? wrapText(`since the previous request: ${inertLine(m.change)}`, w, "dim") : []),
      ...(m.cacheBreak ? wrapText(`cached prefix broke ${inertLine(m.cacheBreak)}`, w, "warn") : []),
      [],
      ...this.table(view.sections, w, true),
      ...this.exactLines(w, m.capturedAt),
      ...rule(s ? ` ${forPeople(s.index)} ${inertLine(s.source)} · ${pageLabel} ` : ""),
    ];
    // the figure first, as in the full header, so that a narrow pane cuts the model instead
    const facts: Line = truncate([{ t: `total ${num(m.totalBytes)} bytes · ${estimate} · ${m.provider} / ${inertLine(m.model)} · ${windowText}`, s: "dim" }], w);
    const short: Line[] = [title, facts, ...this.table(view.sections, w, false), ...this.exactLines(w, m.capturedAt), ...rule(s ? ` ${forPeople(s.index)} ${inertLine(s.source)} · ${pageLabel} ` : "")];
    // without the table, the rule says which of how many sections this is
    const where = s ? ` ${forPeople(s.index)} of ${view.sections.length}: ${inertLine(s.source)} · ${pageLabel} ` : "";
    const least: Line[] = [title, facts, ...rule(where)];
    const tiny: Line[] = s ? rule(where) : [title];
    const bodyH = Math.max(1, height - 1);
    const want = Math.min(empty.length + lines.length, Math.ceil(bodyH / 2));
    const header = [full, short, least].find((h) => bodyH - h.length - errLines.length >= want) ?? tiny;
    out.splice(0, out.length, ...header, ...errLines);
    // the page fills what is left above the footer
    const room = Math.max(1, bodyH - out.length);
    this.lastPageRows = room;
    const maxScroll = Math.max(0, lines.length - room);
    if (this.scroll > maxScroll) this.scroll = maxScroll;
    out.push(...empty);
    out.push(...lines.slice(this.scroll, this.scroll + room));
    return this.finish(out, w, height, keys, lines.length > room ? `${this.scroll + 1}-${Math.min(lines.length, this.scroll + room)}/${lines.length}` : "");
  }

  /** While pending: the estimate of the next request, the figure the status line gives then. */
  private nextFigure(w: number): Line[] {
    const f = this.src.contextStatus?.().figure;
    if (f?.basis !== "next request") return [];
    return [
      [],
      ...wrapText(formatFigure(f.basis, f), w),
      ...wrapText("estimated from what would be sent now: system, project context, the history as compacted, tools; your next prompt comes on top", w, "dim"),
    ];
  }

  private table(sections: SectionSummary[], w: number, note: boolean): Line[] {
    const methods = new Set(sections.map((s) => s.estimate.method));
    const oneMethod = methods.size === 1 ? [...methods][0]! : undefined;
    const head = ["#", "source", "items", "bytes", "≈ tokens", "change", "pages"];
    const rows = sections.map((s) => [
      String(forPeople(s.index)),
      inertLine(s.source),
      num(s.items),
      num(s.bytes),
      oneMethod ? `≈ ${num(s.estimate.tokens)}` : `≈ ${num(s.estimate.tokens)} (${s.estimate.method})`,
      formatDelta(s.deltaBytes),
      num(s.pages),
    ]);
    const widths = head.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i]!))));
    const right = [true, false, true, true, true, true, true];
    // when the pane is narrow the items column goes first, then the change column; the
    // source is cut only after them ("workspac…" names nothing)
    const shown = head.map(() => true);
    const total = (): number => {
      const ws = widths.filter((_, i) => shown[i]);
      return ws.reduce((a, b) => a + b, 0) + 2 * (ws.length - 1);
    };
    for (const drop of [2, 5]) if (total() > w) shown[drop] = false;
    while (total() > w && widths[1]! > 6) widths[1]!--;
    const cell = (t: string, i: number): string => {
      const cw = widths[i]!;
      const cut = textWidth(t) > cw ? truncate([{ t }], cw)[0]?.t ?? "" : t;
      const pad = " ".repeat(Math.max(0, cw - textWidth(cut)));
      return right[i] ? pad + cut : cut + pad;
    };
    const line = (cells: string[]): string =>
      cells
        .map(cell)
        .filter((_, i) => shown[i])
        .join("  ");
    const out: Line[] = [truncate([{ t: line(head), s: "dim" }], w)];
    rows.forEach((r, i) => {
      const l: Line = truncate([{ t: line(r) }], w);
      out.push(i === this.section ? restyle(fit(l, w), { inv: true }) : l);
    });
    if (rows.length === 0) out.push([{ t: "(no sections)", s: "dim" }]);
    if (note) out.push(...wrapText(`bytes are exact UTF-8; tokens are estimates${oneMethod ? ` (${oneMethod})` : ""}`, w, "dim"));
    return out;
  }

  private finish(out: Line[], w: number, height: number, keys: PaneKeys, where = ""): Line[] {
    const body = out.slice(0, Math.max(0, height - 1));
    while (body.length < height - 1) body.push([]);
    const hint = `${keys.close} close · ${keys.page} page · ${keys.section} section · ${keys.scroll} scroll`;
    const footer: Line = [{ t: hint, s: "hint" }];
    if (where && lineWidth(footer) + textWidth(where) + 2 <= w) footer.push({ t: " ".repeat(w - lineWidth(footer) - textWidth(where)) }, { t: where, s: "dim" });
    body.push(truncate(footer, w));
    return body;
  }
}
