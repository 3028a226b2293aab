// The writer an adapter encodes a request with: every piece of content it puts in the body
// goes through a method here that records the very same value in the request's wire stream,
// so the inspector reads exactly what is sent (types in ./types.ts, "the encoded request").
import type {
  EncodedRequest,
  ImagePart,
  Request,
  TextPart,
  WireBlockStart,
  WireContent,
  WireEvent,
  WireItemStart,
  WireSection,
} from "./types.js";

const BLOCK: WireBlockStart = { type: "block" };

function header(section: WireSection, role: string): WireItemStart {
  return { type: "item", section, role };
}

// Item headers shared by every item of their kind: one object per kind, not per message.
const SYSTEM: WireSection = Object.freeze({ kind: "system" });
const HISTORY: WireSection = Object.freeze({ kind: "history" });
export const SYSTEM_ITEM = header(SYSTEM, "system");
export const HISTORY_ITEM = {
  user: header(HISTORY, "user"),
  assistant: header(HISTORY, "assistant"),
  tool: header(HISTORY, "tool"),
} as const;
export const TOOL_ITEM = header(Object.freeze({ kind: "tools" }), "tool");

/** The header of a context item's system text. */
export function contextItem(index: number): WireItemStart {
  return header({ kind: "context", index }, "system");
}

export class WireWriter {
  // One writer kept as long as the class, never written to. V8 keeps the hidden class an
  // instance's fields make only while some instance holds it: a full collection with no writer
  // alive drops it, and with it the optimized code of every encoder that writes through one,
  // so each request after a collection ran unoptimized and was compiled again (the replay
  // bench's calls took twice as long after one). Held, both survive (docs/performance.md).
  private static readonly shapeKeeper = new WireWriter();

  readonly wire: WireEvent[] = [];

  /** Opens the next wire item. */
  item(h: WireItemStart): this {
    this.wire.push(h);
    return this;
  }

  /** Opens the next content block of the item. */
  block(): this {
    this.wire.push(BLOCK);
    return this;
  }

  /** Content as sent: recorded, and returned for the body. */
  text(s: string): string {
    this.wire.push({ type: "text", text: s });
    return s;
  }

  /** A text part as sent: the part itself is the record (same shape, no copy). */
  textPart(p: TextPart): string {
    this.wire.push(p);
    return p.text;
  }

  /** Strings sent as one, joined by `sep`: recorded piece by piece (the same characters, and
   * each part stays the string it was, which the token-count cache knows), returned joined. */
  joined(parts: readonly string[], sep: string): string {
    if (parts.length <= 1) return this.text(parts[0] ?? "");
    const piece: WireContent = { type: "text", text: sep };
    parts.forEach((p, i) => {
      if (i > 0) this.wire.push(piece);
      this.wire.push({ type: "text", text: p });
    });
    return parts.join(sep);
  }

  /** Says what a native part or field is; not content, not in the body. */
  label(s: string): this {
    this.wire.push({ type: "label", text: s });
    return this;
  }

  /** An image's base64 body: recorded with what is known of the image, returned for the body. */
  image(p: ImagePart): string {
    const piece: WireContent = { type: "image", data: p.data, mediaType: p.mediaType, bytes: p.bytes };
    if (p.width !== undefined) piece.width = p.width;
    if (p.height !== undefined) piece.height = p.height;
    this.wire.push(piece);
    return p.data;
  }

  /** An opaque provider body: recorded under its kind, returned for the body. */
  opaque(kind: string, body: string): string {
    this.wire.push({ type: "opaque", kind, body });
    return body;
  }

  /** A tool definition: the object goes in the body, its JSON is what the body holds of it. */
  schema<T extends Record<string, unknown>>(value: T): T {
    this.wire.push({ type: "schema", json: JSON.stringify(value), value });
    return value;
  }
}

// A request is encoded for its capture and then sent (src/session/turn/turn.ts): both uses get one
// encoding. The first use keeps it and the second takes it, so at most one encoding is held
// at a time, and none once sent: held encodings of multi-megabyte histories (a WeakMap of
// every request, a slot per adapter) cost the collector more than encoding twice would.
// A request is never changed after it is built; a third use encodes it again, the same.
let kept: { req: Request; build: (req: Request) => EncodedRequest; enc: EncodedRequest } | undefined;

export function encodeOnce(req: Request, build: (req: Request) => EncodedRequest): EncodedRequest {
  if (kept && kept.req === req && kept.build === build) {
    const enc = kept.enc;
    kept = undefined;
    return enc;
  }
  const enc = build(req);
  kept = { req, build, enc };
  return enc;
}
