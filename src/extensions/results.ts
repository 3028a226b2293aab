// An MCP tool result as the record holds it: text as text; images as image blocks (checked
// by their bytes, bounded by what every provider accepts) that the results message carries
// after the tool results, so the vision rule replays them; embedded resources as text under
// their URI; anything else named in a line. The text is sanitized (a server's output must
// not drive the terminal) and capped like every built-in tool's; `isError` is an error.
import { imageSize } from "image-size";
import { z } from "zod";
import { assertNever, type ImageBlock } from "../record/types.js";
import { imageLimits } from "../provider/catalog.js";
import { capText } from "../tools/cap.js";
import { sanitizeForTerminal } from "../text/sanitize.js";
import { wellFormed } from "../text/well-formed.js";
import { checkImage, sniff } from "../provider/image-check.js";
import type { ToolOutput } from "../tools/types.js";
import { formatInt } from "../record/numbers.js";

/** A tool's output that may bring images: the turn stores them after the results. */
interface ExtensionToolOutput extends ToolOutput {
  images?: ImageBlock[];
}

/** The images an output brought, if it is an extension tool's. */
export function outputImages(out: ToolOutput): ImageBlock[] {
  const imgs = (out as ExtensionToolOutput).images;
  return Array.isArray(imgs) ? imgs : [];
}

const TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** The most an image may hold to be kept: what both providers accept, so a /model switch
 * never makes the history unsendable. */
function maxImageBytes(): number {
  let n = Infinity;
  for (const p of ["anthropic", "openai"] as const) {
    const l = imageLimits(p);
    if (l.maxBytes !== undefined) n = Math.min(n, l.maxBytes);
    if (l.maxBase64Bytes !== undefined) n = Math.min(n, Math.floor((l.maxBase64Bytes * 3) / 4));
  }
  return n;
}

// What we read of a result: loose, so a server's extra fields do not matter; the SDK has
// checked the result's shape already, this names what we use.
const contentSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }).loose(),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string() }).loose(),
  z.object({ type: z.literal("audio"), data: z.string(), mimeType: z.string() }).loose(),
  z.object({ type: z.literal("resource_link"), uri: z.string(), name: z.string().optional(), mimeType: z.string().optional() }).loose(),
  z
    .object({
      type: z.literal("resource"),
      resource: z.union([
        z.object({ uri: z.string(), text: z.string(), mimeType: z.string().optional() }).loose(),
        z.object({ uri: z.string(), blob: z.string(), mimeType: z.string().optional() }).loose(),
      ]),
    })
    .loose(),
]);
const resultSchema = z
  .object({
    content: z.array(z.unknown()).optional(),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
    toolResult: z.unknown().optional(),
  })
  .loose();

function decodedBytes(b64: string): number {
  return Buffer.byteLength(b64, "base64");
}

async function image(given: string, declared: string): Promise<{ block?: ImageBlock; note: string }> {
  const max = maxImageBytes();
  // the estimate first, so a huge string is not decoded for nothing
  if (decodedBytes(given) > Math.ceil(max * 1.5)) return { note: `[image not kept: ${declared}, about ${formatInt(decodedBytes(given))} bytes, over the ${formatInt(max)} bytes every provider accepts]` };
  // kept as its bytes encoded again: the SDK's check (atob) lets line breaks, spaces and
  // missing padding through, and a provider refuses them in every later request
  const raw = Buffer.from(given, "base64");
  const data = raw.toString("base64");
  const bytes = raw.length;
  if (bytes > max) return { note: `[image not kept: ${declared}, ${formatInt(bytes)} bytes, over the ${formatInt(max)} bytes every provider accepts]` };
  if (!sniff(raw)) {
    let other: string | undefined;
    try {
      other = imageSize(raw).type;
    } catch {
      other = undefined;
    }
    if (other && !TYPES[other]) return { note: `[image not kept: a ${other} image; PNG, JPEG, GIF and WebP are kept]` };
    return { note: `[image not kept: declared ${declared}, but its bytes are not a PNG, JPEG, GIF or WebP image]` };
  }
  // decoded whole: a truncated or empty image would be refused with every later request
  const checked = await checkImage(raw);
  if (!checked.ok) return { note: `[image not kept: declared ${declared}, but it is not a usable image: ${sanitizeForTerminal(wellFormed(checked.why))}]` };
  const mediaType = checked.mediaType;
  const dims = { width: checked.width, height: checked.height };
  const block: ImageBlock = { type: "image", mediaType, data, bytes };
  if (dims.width) block.width = dims.width;
  if (dims.height) block.height = dims.height;
  const size = dims.width && dims.height ? `, ${dims.width}×${dims.height}` : "";
  return { block, note: `[image: ${mediaType}, ${formatInt(bytes)} bytes${size}; attached after the results]` };
}

/** Maps a CallToolResult; a result that is not one is an error result saying so. */
export async function mapResult(raw: unknown, redact: (t: string) => string = (t) => t): Promise<ExtensionToolOutput> {
  const r = resultSchema.safeParse(raw);
  if (!r.success) return { output: "the server's answer is not a tool result (no content list)", isError: true };
  const parts: string[] = [];
  const images: ImageBlock[] = [];
  const content = r.data.content ?? [];
  for (const [i, item] of content.entries()) {
    const c = contentSchema.safeParse(item);
    if (!c.success) {
      const type = typeof item === "object" && item !== null && "type" in item ? String((item as { type: unknown }).type) : typeof item;
      parts.push(`[content item ${i + 1} not understood (type ${type})]`);
      continue;
    }
    const v = c.data;
    switch (v.type) {
      case "text":
        parts.push(v.text);
        break;
      case "image": {
        const m = await image(v.data, v.mimeType);
        if (m.block) images.push(m.block);
        parts.push(m.note);
        break;
      }
      case "audio":
        parts.push(`[audio not kept: ${v.mimeType}, ${formatInt(decodedBytes(v.data))} bytes]`);
        break;
      case "resource_link":
        parts.push(`[resource link: ${v.name ? `${v.name} ` : ""}<${v.uri}>${v.mimeType ? ` (${v.mimeType})` : ""}]`);
        break;
      case "resource": {
        const res = v.resource;
        if ("text" in res) parts.push(`Resource <${res.uri}>${res.mimeType ? ` (${res.mimeType})` : ""}:\n${res.text}`);
        else parts.push(`[resource <${res.uri}>${res.mimeType ? ` (${res.mimeType})` : ""}: ${formatInt(decodedBytes(res.blob))} bytes of binary, not kept]`);
        break;
      }
      default:
        return assertNever(v, "MCP content");
    }
  }
  // a result with structured content only (or the old protocol's toolResult) says it as JSON
  if (parts.length === 0 && r.data.structuredContent !== undefined) parts.push(JSON.stringify(r.data.structuredContent));
  if (parts.length === 0 && r.data.toolResult !== undefined) parts.push(JSON.stringify(r.data.toolResult));
  // a lone surrogate from a server becomes U+FFFD here, where its text enters
  const text = wellFormed(parts.length > 0 ? parts.join("\n") : "(the tool returned no content)");
  // keys are cut before the cut to size (see tools/run.ts), and the terminal's controls go
  const output = capText(redact(sanitizeForTerminal(text)));
  return { output, isError: r.data.isError === true, ...(images.length > 0 ? { images } : {}) };
}
