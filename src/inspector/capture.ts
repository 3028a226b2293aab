// The inspector's capture: the exact Request handed to the provider, turned into ordered
// sections with exact byte counts, labelled token estimates and 8,000-unit pages (docs/architecture.md, "Design rules").
// Pure: no I/O, no clock (the caller passes capturedAt), nothing from the environment.
//
// Two rules shape this file:
// - bytes are counted on the request content as sent, bodies included, part by part with
//   Buffer.byteLength (no concatenation of the history just to measure it);
// - the inspectable text never contains an image's base64 or an opaque provider body: each
//   is replaced, in its place, by a marker that MARKER_RE recognises.
import { requestMessages, type ProviderName, type Request, type Usage, type WirePart } from "../provider/types.js";
import { encodeTool, toolResultText } from "../provider/encode-tools.js";
import { toolInputJson } from "../provider/tool-input.js";
import { assertNever } from "../record/types.js";
import { formatInt } from "../record/numbers.js";
import { countTokens, methodFor } from "../tokens/count.js";
import { PAGE_CHARS, type Capture, type SectionKind, type SectionSummary, type TokenEstimate } from "./types.js";

export interface CaptureOptions {
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
}

/** Longest marker this file can produce; paginate() looks back this far at each boundary. */
export const MARKER_MAX = 200;

/**
 * Recognises an omission marker: `[image omitted: image/png, 12,345 bytes, 800×600]` or
 * `[thinking signature omitted: 512 bytes]`. Kinds and media types are sanitised before
 * they enter a marker, so a marker never holds brackets, newlines or surrogates.
 */
export const MARKER_RE = /\[[a-z0-9][a-z0-9 .-]{0,39} omitted: [^[\]\n]{1,120}\]/g;
// the same pattern anchored at a position, for the page-boundary check
const MARKER_AT = new RegExp(MARKER_RE.source, "y");

const PREVIEW_CHARS = 200;
/** Flat image estimate when the size is unknown: about what a large image costs either provider. */
export const UNKNOWN_IMAGE_TOKENS = 1600;

const nf = { format: formatInt };

/** The key that links a section to the same section of the previous capture. */
export function sectionKey(s: Pick<SectionSummary, "kind" | "source">): string {
  return `${s.kind}:${s.source}`;
}

/** Section bytes of a capture by key: what the next capture compares itself with. */
export function sectionBytes(sections: ReadonlyArray<SectionSummary>): Map<string, number> {
  return new Map(sections.map((s) => [sectionKey(s), s.bytes]));
}

function utf8(s: string): number {
  return Buffer.byteLength(s, "utf8");
}


/** Exact UTF-8 bytes of one wire part's content as the provider's adapter sends it, bodies included. */
export function partContentBytes(part: WirePart, provider: ProviderName = "anthropic"): number {
  switch (part.type) {
    case "text":
      return utf8(part.text);
    case "image":
      return utf8(part.data);
    case "tool_call":
      return utf8(toolInputJson(part.input));
    case "tool_result":
      return utf8(toolResultText(provider, part.output, part.isError));
    case "reasoning":
      return utf8(part.text) + (part.opaque ? utf8(part.opaque.body) : 0);
    default:
      return assertNever(part, "wire part");
  }
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
export function imageTokens(provider: ProviderName, width?: number, height?: number): number {
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

/** One line, at most PREVIEW_CHARS units, control characters and runs of space folded. */
export function previewOf(text: string, max = PREVIEW_CHARS): string {
  // only the head is looked at: previews are built for multi-megabyte histories too
  const headLen = max * 4;
  const head = cutUnits(text, headLen);
  // eslint-disable-next-line no-control-regex
  const flat = head.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  if (flat.length <= max && text.length <= headLen) return flat;
  return `${cutUnits(flat, max - 1).trimEnd()}…`;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * Splits text into pages of at most pageChars UTF-16 units. A page ends one unit early
 * rather than split a surrogate pair, and ends before an omission marker rather than cut it
 * (unless the marker alone is longer than a page). Pages joined give back the text exactly.
 * Linear: each boundary looks back at most MARKER_MAX units.
 */
export function paginate(text: string, pageChars: number = PAGE_CHARS): string[] {
  if (!Number.isInteger(pageChars) || pageChars < 2) {
    throw new RangeError(`page size must be an integer of at least 2, got ${pageChars}`);
  }
  if (text.length === 0) return [""];
  const pages: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + pageChars, text.length);
    if (end < text.length) {
      // a marker holds no "[" after its first character, so only the last "[" before the
      // boundary can open a marker that straddles it
      const from = Math.max(start + 1, end - MARKER_MAX + 1);
      for (let i = end - 1; i >= from; i--) {
        if (text.charCodeAt(i) !== 0x5b /* [ */) continue;
        MARKER_AT.lastIndex = i;
        const m = MARKER_AT.exec(text);
        if (m && i + m[0].length > end) end = i;
        break;
      }
      if (isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) end--;
    }
    pages.push(text.slice(start, end));
    start = end;
  }
  return pages;
}

interface Built {
  kind: SectionKind;
  source: string;
  items: number;
  bytes: number;
  text: string;
  estimate: TokenEstimate;
  preview?: string;
}

function buildHistory(req: Request, method: string): Built {
  const pieces: string[] = [];
  let bytes = 0;
  let tokens = 0;
  let known = 0;
  let unknown = 0;
  const tm = methodFor(req.provider, req.model);
  // one section for the whole conversation, replayed history then the live round, numbered
  // as the provider receives the messages
  const messages = requestMessages(req);
  messages.forEach((msg, i) => {
    if (i > 0) pieces.push("");
    pieces.push(`── ${i + 1} · ${msg.role} ──`);
    for (const part of msg.content) {
      bytes += partContentBytes(part, req.provider);
      let shown: string;
      // what the estimate counts: the content the model reads, not headers or markers
      let counted = "";
      switch (part.type) {
        case "text":
          shown = counted = part.text;
          break;
        case "image":
          shown = imageMarker(part.mediaType, part.bytes, part.width, part.height);
          tokens += imageTokens(req.provider, part.width, part.height);
          if (part.width && part.height) known++;
          else unknown++;
          break;
        case "tool_call":
          shown = counted = `Tool use: ${part.name}(${toolInputJson(part.input)})`;
          break;
        case "tool_result":
          shown = counted = `${part.isError ? "Error" : "Result"} (${part.name}): ${part.output}`;
          break;
        case "reasoning":
          counted = part.text;
          shown = part.opaque ? `${part.text}\n${opaqueMarker(part.opaque.kind, utf8(part.opaque.body))}` : part.text;
          break;
        default:
          return assertNever(part, "wire part");
      }
      pieces.push(shown);
      tokens += countTokens(counted, tm);
    }
  });
  return {
    kind: "history",
    source: "history",
    items: messages.length,
    bytes,
    text: pieces.join("\n"),
    estimate: { tokens, method: method + imageMethod(known, unknown) },
  };
}

function buildTools(req: Request, method: string): Built {
  const tm = methodFor(req.provider, req.model);
  let bytes = 0;
  let tokens = 0;
  const shown: string[] = [];
  for (const t of req.tools) {
    const encoded = encodeTool(req.provider, t);
    const compact = JSON.stringify(encoded);
    bytes += utf8(compact);
    // estimated on the compact JSON that is sent, not on the indented copy shown
    tokens += countTokens(compact, tm);
    shown.push(JSON.stringify(encoded, null, 2));
  }
  return {
    kind: "tools",
    source: "tools",
    items: req.tools.length,
    bytes,
    text: shown.join("\n\n"),
    estimate: { tokens, method },
    preview: previewOf(req.tools.map((t) => t.name).join(", ")),
  };
}

function plain(kind: SectionKind, source: string, text: string, method: string, req: Request): Built {
  const tm = methodFor(req.provider, req.model);
  return { kind, source, items: 1, bytes: utf8(text), text, estimate: { tokens: countTokens(text, tm), method } };
}

/** Turns the Request passed to the provider into the inspector's record of it. */
export function captureRequest(req: Request, opts: CaptureOptions): Capture {
  const method = methodFor(req.provider, req.model);
  const built: Built[] = [plain("system", "system", req.system, method, req)];
  // two context items from one source would share a key; number the later ones
  const seen = new Map<string, number>();
  for (const item of req.context) {
    const n = (seen.get(item.source) ?? 0) + 1;
    seen.set(item.source, n);
    const source = n === 1 ? item.source : `${item.source} (${n})`;
    built.push(plain("context", source, item.text, method, req));
  }
  built.push(buildHistory(req, method));
  built.push(buildTools(req, method));

  const sections: SectionSummary[] = [];
  const pages: string[][] = [];
  let totalBytes = 0;
  built.forEach((b, index) => {
    const p = paginate(b.text);
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
      preview: b.preview ?? previewOf(b.text),
      chars: b.text.length,
      pages: p.length,
      deltaBytes: prev === undefined ? null : b.bytes - prev,
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
  return { meta, sections, pages };
}
