// The inspector's capture: the exact request handed to the provider, turned into ordered
// sections with exact byte counts, labelled token estimates and 8,000-unit pages (docs/architecture.md, "Design rules").
// Pure: no I/O, no clock (the caller passes capturedAt), nothing from the environment.
//
// The capture never walks the Request itself: it reads the provider adapter's own encoding
// of it (src/provider/encode.ts): the wire items recorded, value for value, as the body that
// is sent was written. So:
// - items are the wire's items (OpenAI's one `tool` message per call counts);
// - bytes are the UTF-8 bytes of the content as sent, bodies included, piece by piece with
//   Buffer.byteLength (no concatenation of the history just to measure it): the `Error: `
//   prefix, the joins, the filler of an empty message count; a dropped blank block does not;
//   tool bytes are each definition's JSON as it appears in the body;
// - pages show that content; a native part of the live round is named as what it is
//   (`tool_use id=… name=… input=…`, `tool_result for id=…`, `thinking: …`), replayed prose
//   stays prose;
// - the inspectable text never contains an image's base64 or an opaque provider body: each
//   is replaced, in its place, by a marker that MARKER_RE recognises.
//
// The page text of a section: system and context are their text as sent. History is its wire
// items in order, separated by a blank line, each a header `── N · ROLE ──` and then its
// content blocks one per line, a block's pieces run together (a label, then its content).
// Tools are the definitions as indented JSON, separated by a blank line.
import type { EncodedRequest, ProviderName, Request, Usage, WireContent, WireItemStart, WireSection } from "../provider/types.js";
import { encodeRequest } from "../provider/encode.js";
import { describeCacheBreak, describeChange, printEncoded, SIDE_REQUEST_CHANGE, type RequestPrint } from "./change.js";
import { assertNever } from "../record/types.js";
import { formatInt } from "../record/numbers.js";
import { countTokens, methodFor, opaqueTokens, type TokenMethod } from "../tokens/count.js";
import { PAGE_CHARS, type Capture, type SectionKind, type SectionSummary, type TokenEstimate } from "./types.js";

interface CaptureOptions {
  /** 1-based iteration of the model/tool loop within the turn */
  iteration: number;
  /** ISO time; passed in so that capture stays a pure function */
  capturedAt: string;
  contextWindow?: number;
  /** usage the provider reported for the previous response */
  providerUsage?: Usage;
  /** the previous capture's section bytes, keyed by sectionKey() */
  previousBytes?: Map<string, number>;
  /** what compaction left out of this request, in words */
  compaction?: string;
  /** take the request's print and say what changed since `previous` (context/change.ts).
   * `side`: a request beside the conversation (the summary's): it keeps `previous` as the
   * print the next request is compared with, so that one names what changed in the
   * conversation's own prefix */
  print?: { previous?: RequestPrint | undefined; side?: boolean };
}

/** Longest marker this file can produce; paginate() looks back this far at each boundary. */
export const MARKER_MAX = 200;

/**
 * Recognises an omission marker: `[image omitted: image/png, 12,345 bytes, 800×600]` or
 * `[thinking signature omitted: 512 bytes]`. Kinds and media types are sanitised before
 * they enter a marker, so a marker never holds brackets, newlines or surrogates.
 */
export const MARKER_RE = /\[[a-z0-9][a-z0-9 .-]{0,39} omitted: [^[\]\n]{1,120}\]/g;
/** A cache breakpoint's marker, on its own line after the block it marks: a mark in the body,
 * not content, so it counts no bytes and no tokens (docs/architecture.md, The inspector). */
function breakpointMarker(ttl: string): string {
  return `\n[cache breakpoint: ${ttl}]`;
}
const BREAKPOINT_RE = /\[cache breakpoint: (5m|1h)\]/g;
// either marker anchored at a position, for the page-boundary check: no page cuts one
const MARKER_AT = new RegExp(`${MARKER_RE.source}|${BREAKPOINT_RE.source}`, "y");

const PREVIEW_CHARS = 200;
/** Flat image estimate when the size is unknown: about what a large image costs either provider. */
const UNKNOWN_IMAGE_TOKENS = 1600;

const nf = { format: formatInt };

/** The key that links a section to the same section of the previous capture. */
function sectionKey(s: Pick<SectionSummary, "kind" | "source">): string {
  return `${s.kind}:${s.source}`;
}

/** Section bytes of a capture by key: what the next capture compares itself with. */
export function sectionBytes(sections: ReadonlyArray<SectionSummary>): Map<string, number> {
  return new Map(sections.map((s) => [sectionKey(s), s.bytes]));
}

function utf8(s: string): number {
  return Buffer.byteLength(s, "utf8");
}


// A provider's kind string ("thinking_signature", "encrypted_content") becomes words that
// cannot break the marker's shape.
function kindWords(kind: string): string {
  const w = kind
    .toLowerCase()
    .replace(/[_\s]+/g, " ")
    .replace(/[^a-z0-9 .-]/g, "")
    .replace(/ +/g, " ")
    .trim()
    .slice(0, 40)
    .trim();
  return /^[a-z0-9]/.test(w) ? w : "opaque body";
}

function safeMediaType(mt: string): string {
  const s = mt.replace(/[^A-Za-z0-9/+.-]/g, "").slice(0, 60);
  return s.length > 0 ? s : "unknown type";
}

export function imageMarker(mediaType: string, bytes: number, width?: number, height?: number): string {
  const dims = width !== undefined && height !== undefined ? `, ${width}×${height}` : "";
  return `[image omitted: ${safeMediaType(mediaType)}, ${nf.format(bytes)} bytes${dims}]`;
}

export function opaqueMarker(kind: string, bodyBytes: number): string {
  return `[${kindWords(kind)} omitted: ${nf.format(bodyBytes)} bytes]`;
}

/** Rough image cost by the provider's published rule; a flat figure when the size is unknown. */
function imageTokens(provider: ProviderName, width?: number, height?: number): number {
  if (!width || !height) return UNKNOWN_IMAGE_TOKENS;
  switch (provider) {
    case "anthropic": {
      // scaled to a long edge of 1,568 px, then about w*h/750, at most ~1,600
      const scale = Math.min(1, 1568 / Math.max(width, height));
      const w = width * scale;
      const h = height * scale;
      return Math.min(UNKNOWN_IMAGE_TOKENS, Math.ceil((w * h) / 750));
    }
    case "openai": {
      // high detail: fit in 2048×2048, shortest side to 768, then 170 per 512-px tile + 85
      let w = width;
      let h = height;
      const fit = Math.min(1, 2048 / Math.max(w, h));
      w *= fit;
      h *= fit;
      const shrink = Math.min(1, 768 / Math.min(w, h));
      w *= shrink;
      h *= shrink;
      return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
    }
    default:
      return assertNever(provider, "provider");
  }
}

function imageMethod(known: number, unknown: number): string {
  if (known + unknown === 0) return "";
  if (unknown === 0) return " + images by size";
  if (known === 0) return ` + images at a flat ${nf.format(UNKNOWN_IMAGE_TOKENS)} (size unknown)`;
  return ` + images by size (flat ${nf.format(UNKNOWN_IMAGE_TOKENS)} when unknown)`;
}

// Never end a cut on the first half of a surrogate pair.
function cutUnits(s: string, n: number): string {
  if (s.length <= n) return s;
  let end = n;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end);
}

/** One line, at most PREVIEW_CHARS units, control characters and runs of space folded. Only
 * the head is looked at (previews are built for multi-megabyte histories too): `text` may be
 * just its first PREVIEW_CHARS * 4 + 1 units, and `length` the whole text's. */
function previewOf(text: string, length = text.length, max = PREVIEW_CHARS): string {
  const headLen = max * 4;
  const head = cutUnits(text, headLen);
  // eslint-disable-next-line no-control-regex
  const flat = head.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  if (flat.length <= max && length <= headLen) return flat;
  return `${cutUnits(flat, max - 1).trimEnd()}…`;
}

/** The first `n` units of the text the pages make up (or all of it). */
function headOf(pages: readonly string[], n: number): string {
  const out: string[] = [];
  for (const p of pages) {
    if (n <= 0) break;
    out.push(p.length <= n ? p : p.slice(0, n));
    n -= p.length;
  }
  return out.join("");
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * A text held as the pieces it was put together from, read without joining them: a section's
 * page text is only ever read a page at a time, and one flat string of a multi-megabyte
 * history is a fresh large-object allocation each request (a page fault per 4 kB: joining
 * 700 kB cost ~5 ms, some twenty times what the page-sized joins below cost together).
 */
class PiecedText {
  // kept so that the class's shape, and the code optimized for it, outlive a full collection
  // (see WireWriter in provider/encoded.ts)
  private static readonly shapeKeeper = new PiecedText();
  private readonly parts: string[] = [];
  /** where each part starts in the text */
  private readonly starts: number[] = [];
  /** the text's length in UTF-16 units */
  length = 0;

  /** Adds a piece at the end (kept as it is, not copied). */
  push(piece: string): void {
    if (piece.length === 0) return;
    this.parts.push(piece);
    this.starts.push(this.length);
    this.length += piece.length;
  }

  /** The index of the part that holds unit `at` (0 <= at < length). */
  private partAt(at: number): number {
    let lo = 0;
    let hi = this.parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Units [from, to) as one string: a slice of one part, or the few parts a page spans joined. */
  slice(from: number, to: number): string {
    from = Math.max(0, from);
    to = Math.min(this.length, to);
    if (to <= from) return "";
    let k = this.partAt(from);
    const first = this.parts[k]!;
    const off = from - this.starts[k]!;
    if (off + (to - from) <= first.length) return first.slice(off, off + (to - from));
    const out = [first.slice(off)];
    let at = this.starts[k]! + first.length;
    while (at < to) {
      const p = this.parts[++k]!;
      out.push(to - at >= p.length ? p : p.slice(0, to - at));
      at += p.length;
    }
    return out.join("");
  }
}

/**
 * Splits text into pages of at most pageChars UTF-16 units. A page ends one unit early
 * rather than split a surrogate pair, and ends before an omission marker rather than cut it
 * (unless the marker alone is longer than a page). Pages joined give back the text exactly.
 * Linear: each boundary looks back at most MARKER_MAX units. The text may be given as the
 * pieces it is made of (the same pages as their join, without ever joining them whole).
 */
export function paginate(text: string | readonly string[], pageChars: number = PAGE_CHARS): string[] {
  const t = new PiecedText();
  if (typeof text === "string") t.push(text);
  else for (const p of text) t.push(p);
  return pagesOf(t, pageChars);
}

function pagesOf(t: PiecedText, pageChars: number = PAGE_CHARS): string[] {
  if (!Number.isInteger(pageChars) || pageChars < 2) {
    throw new RangeError(`page size must be an integer of at least 2, got ${pageChars}`);
  }
  if (t.length === 0) return [""];
  const pages: string[] = [];
  let start = 0;
  while (start < t.length) {
    let end = Math.min(start + pageChars, t.length);
    if (end < t.length) {
      // what the boundary's checks read: the look-back, and a marker's length past the end
      const w0 = Math.max(start, end - MARKER_MAX);
      const win = t.slice(w0, end + MARKER_MAX);
      // a marker holds no "[" after its first character, so only the last "[" before the
      // boundary can open a marker that straddles it
      const from = Math.max(start + 1, end - MARKER_MAX + 1);
      for (let i = end - 1; i >= from; i--) {
        if (win.charCodeAt(i - w0) !== 0x5b /* [ */) continue;
        MARKER_AT.lastIndex = i - w0;
        const m = MARKER_AT.exec(win);
        if (m && i + m[0].length > end) end = i;
        break;
      }
      if (isHigh(win.charCodeAt(end - 1 - w0)) && isLow(win.charCodeAt(end - w0))) end--;
    }
    pages.push(t.slice(start, end));
    start = end;
  }
  return pages;
}

interface Built {
  kind: SectionKind;
  source: string;
  items: number;
  bytes: number;
  /** the page text as its pieces (paginated from them; never joined whole) */
  text: PiecedText;
  estimate: TokenEstimate;
  /** always present, undefined when absent: a property added after the literal makes a shape
   * V8 drops at a full collection when nothing holds it (see WireWriter in provider/encoded.ts) */
  preview: string | undefined;
  shape: string | undefined;
}

/** One section being read from the wire items. */
class SectionReader {
  // kept so that the class's shape, and the code optimized for it, outlive a full collection
  // (see WireWriter in provider/encoded.ts)
  private static readonly shapeKeeper = new SectionReader("history", "history", "anthropic", "chars/4");
  items = 0;
  bytes = 0;
  tokens = 0;
  /** images with a known size, and without */
  known = 0;
  unknown = 0;
  /** opaque bodies: counted by size (tokens/count.ts, opaqueTokens) */
  opaque = 0;
  readonly roles = new Map<string, number>();
  /** content blocks of the current item so far */
  private blocks = 0;
  /** the page text in pieces: no piece is concatenated with another, and the whole is never
   * joined (paginate reads the pieces), so a multi-megabyte history is only copied page by page */
  private readonly out = new PiecedText();

  constructor(
    readonly kind: SectionKind,
    readonly source: string,
    private readonly provider: ProviderName,
    private readonly tm: TokenMethod,
  ) {}

  /** Opens a wire item of this section. */
  start(item: WireItemStart): void {
    this.items++;
    this.blocks = 0;
    this.roles.set(item.role, (this.roles.get(item.role) ?? 0) + 1);
    if (this.items > 1) this.out.push(this.kind === "history" || this.kind === "tools" ? "\n\n" : "\n");
    // history is numbered as the provider receives the messages
    if (this.kind === "history") this.out.push(`── ${this.items} · ${item.role} ──\n`);
  }

  /** Opens the next content block of the current item: one line (or more) of the page each. */
  block(): void {
    if (this.blocks++ > 0) this.out.push("\n");
  }

  /** Counts one piece and puts what the page shows of it. */
  put(p: WireContent): void {
    this.out.push(this.piece(p));
  }

  /** Counts one piece and returns what the page shows of it. */
  private piece(p: WireContent): string {
    switch (p.type) {
      case "text":
        this.bytes += utf8(p.text);
        this.tokens += countTokens(p.text, this.tm);
        return p.text;
      case "label":
        return p.text;
      case "image":
        this.bytes += utf8(p.data);
        this.tokens += imageTokens(this.provider, p.width, p.height);
        if (p.width && p.height) this.known++;
        else this.unknown++;
        return imageMarker(p.mediaType, p.bytes, p.width, p.height);
      case "opaque": {
        const n = utf8(p.body);
        this.bytes += n;
        this.tokens += opaqueTokens(n);
        this.opaque++;
        return opaqueMarker(p.kind, n);
      }
      case "schema":
        this.bytes += utf8(p.json);
        // estimated on the compact JSON that is sent, not on the indented copy shown
        this.tokens += countTokens(p.json, this.tm);
        return JSON.stringify(p.value, null, 2);
      case "cache_breakpoint":
        return breakpointMarker(p.ttl);
      default:
        return assertNever(p, "wire content");
    }
  }

  built(method: string, preview?: string): Built {
    return {
      kind: this.kind,
      source: this.source,
      items: this.items,
      bytes: this.bytes,
      text: this.out,
      estimate: { tokens: this.tokens, method: method + imageMethod(this.known, this.unknown) + (this.opaque > 0 ? " + opaque bodies by size" : "") },
      preview,
      shape:
        this.kind === "history" && this.items > 0
          ? `${[...this.roles].map(([role, n]) => `${formatInt(n)} ${role}`).join(", ")} messages`
          : undefined,
    };
  }
}

function inItem(r: SectionReader | undefined): SectionReader {
  if (!r) throw new Error("the encoding has content before its first item");
  return r;
}

function sectionOf(readers: { system: SectionReader; context: SectionReader[]; history: SectionReader; tools: SectionReader }, s: WireSection): SectionReader {
  switch (s.kind) {
    case "system":
      return readers.system;
    case "context": {
      const r = readers.context[s.index];
      if (!r) throw new RangeError(`the encoding names context item ${s.index}, which the request does not have`);
      return r;
    }
    case "history":
      return readers.history;
    case "tools":
      return readers.tools;
    default:
      return assertNever(s, "wire section");
  }
}

/** Turns the Request passed to the provider into the inspector's record of it, read from
 * the provider adapter's encoding of it (the one that is sent). */
export function captureRequest(req: Request, opts: CaptureOptions): Capture {
  return captureEncoded(req, encodeRequest(req), opts);
}

/** The capture of a request from its encoding (`encodeRequest(req)`). */
export function captureEncoded(req: Request, enc: EncodedRequest, opts: CaptureOptions): Capture {
  const method = methodFor(req.provider, req.model);
  const reader = (kind: SectionKind, source: string): SectionReader => new SectionReader(kind, source, req.provider, method);
  // two context items from one source would share a key; number the later ones
  const seen = new Map<string, number>();
  const readers = {
    system: reader("system", "system"),
    context: req.context.map((item) => {
      const n = (seen.get(item.source) ?? 0) + 1;
      seen.set(item.source, n);
      return reader("context", n === 1 ? item.source : `${item.source} (${n})`);
    }),
    history: reader("history", "history"),
    tools: reader("tools", "tools"),
  };
  let current: SectionReader | undefined;
  for (const e of enc.wire) {
    switch (e.type) {
      case "item":
        current = sectionOf(readers, e.section);
        current.start(e);
        break;
      case "block":
        inItem(current).block();
        break;
      default:
        inItem(current).put(e);
    }
  }
  const built: Built[] = [
    readers.system.built(method),
    ...readers.context.map((r) => r.built(method)),
    readers.history.built(method),
    readers.tools.built(method, previewOf(req.tools.map((t) => t.name).join(", "))),
  ];

  const sections: SectionSummary[] = [];
  const pages: string[][] = [];
  let totalBytes = 0;
  built.forEach((b, index) => {
    const p = pagesOf(b.text);
    const chars = b.text.length;
    const prev = opts.previousBytes?.get(sectionKey(b));
    totalBytes += b.bytes;
    pages.push(p);
    sections.push({
      index,
      kind: b.kind,
      source: b.source,
      items: b.items,
      bytes: b.bytes,
      estimate: b.estimate,
      preview: b.preview ?? previewOf(headOf(p, PREVIEW_CHARS * 4 + 1), chars),
      chars,
      pages: p.length,
      deltaBytes: prev === undefined ? null : b.bytes - prev,
      ...(b.shape !== undefined ? { shape: b.shape } : {}),
    });
  });

  const meta: Capture["meta"] = {
    provider: req.provider,
    model: req.model,
    capturedAt: opts.capturedAt,
    iteration: opts.iteration,
    totalBytes,
  };
  if (opts.contextWindow !== undefined) meta.contextWindow = opts.contextWindow;
  if (opts.providerUsage !== undefined) meta.providerUsage = opts.providerUsage;
  if (opts.compaction !== undefined && opts.compaction.length > 0) meta.compaction = opts.compaction;
  if (!opts.print) return { meta, sections, pages };
  const { previous, side } = opts.print;
  if (side) {
    meta.change = SIDE_REQUEST_CHANGE;
    return previous ? { meta, sections, pages, print: previous } : { meta, sections, pages };
  }
  const print = printEncoded(req, enc);
  const change = describeChange(previous, print);
  if (change !== undefined) meta.change = change;
  const broke = describeCacheBreak(previous, print);
  if (broke !== undefined) meta.cacheBreak = broke;
  return { meta, sections, pages, print };
}
