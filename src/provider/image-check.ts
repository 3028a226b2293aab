// Whether an image's bytes are an image a provider can decode, found by decoding them where
// they enter (--image, an attachment, an MCP result): a header can be whole over a truncated
// body (a cut PNG, a GIF of 0×0, a JPEG whose scan is corrupt), and such an image, once
// stored, would be refused with every later request. PNG (pngjs), JPEG (jpeg-js) and GIF
// (omggif, its first frame) are decoded whole; WebP has no decoder installed, so its RIFF
// container is checked: the signature, a declared size the bytes hold, a known first chunk,
// and dimensions above zero. The decoders load lazily, away from the first frame.
import { imageSize } from "image-size";

export type ImageKind = "png" | "jpeg" | "gif" | "webp";

export const MEDIA_TYPES: Record<ImageKind, string> = { png: "image/png", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** Decoding a larger picture would take more memory than the check is worth; providers
 * scale (OpenAI) or refuse (Anthropic, 8000 px a side) far smaller ones. */
export const MAX_DECODE_PIXELS = 50_000_000;

export type ImageCheck =
  | { ok: true; kind: ImageKind; mediaType: string; width: number; height: number }
  /** `why`: what is wrong, as the end of "<name> is not a usable image: …" */
  | { ok: false; why: string };

/** What the first bytes say the image is, whatever its name or declared type says. */
export function sniff(buf: Uint8Array): ImageKind | undefined {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b.length >= 6 && (b.toString("latin1", 0, 6) === "GIF87a" || b.toString("latin1", 0, 6) === "GIF89a")) return "gif";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return "webp";
  return undefined;
}

const fail = (why: string): ImageCheck => ({ ok: false, why });

function errText(e: unknown): string {
  const m0 = e instanceof Error ? e.message : String(e);
  // pngjs's words for data that stops early
  const m = /read requests|finished stream|unexpected end/i.test(m0) ? "its data ends early" : m0;
  return m.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").slice(0, 120);
}

/** Decodes `buf` to find whether it is a whole image of a kind providers take. */
export async function checkImage(buf: Uint8Array): Promise<ImageCheck> {
  if (buf.length === 0) return fail("the file is empty");
  const kind = sniff(buf);
  if (!kind) return fail("its bytes do not start as a PNG, JPEG, GIF or WebP image does (wrong magic)");
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  let dims: { width?: number; height?: number };
  try {
    dims = imageSize(b);
  } catch (e) {
    return fail(`its ${kind.toUpperCase()} header cannot be read (${errText(e)})`);
  }
  const width = dims.width ?? 0;
  const height = dims.height ?? 0;
  if (width <= 0 || height <= 0) return fail(`its ${kind.toUpperCase()} header says ${width}×${height} px; an image needs at least 1×1`);
  if (width * height > MAX_DECODE_PIXELS) {
    return fail(`it is ${width}×${height} px, more than the ${MAX_DECODE_PIXELS / 1_000_000} megapixels albedo-tui decodes to check an image; resize it`);
  }
  const ok = (w: number, h: number): ImageCheck => ({ ok: true, kind, mediaType: MEDIA_TYPES[kind], width: w, height: h });
  switch (kind) {
    case "png": {
      const { PNG } = await import("pngjs");
      try {
        const png = PNG.sync.read(b, { checkCRC: true });
        if (png.width <= 0 || png.height <= 0) return fail(`the PNG is ${png.width}×${png.height} px`);
        return ok(png.width, png.height);
      } catch (e) {
        return fail(`the PNG does not decode (${errText(e)}); the file may be truncated or corrupt`);
      }
    }
    case "jpeg": {
      const jpeg = await import("jpeg-js");
      try {
        const j = jpeg.decode(b, { useTArray: true, tolerantDecoding: false, maxResolutionInMP: MAX_DECODE_PIXELS / 1_000_000, maxMemoryUsageInMB: 512, formatAsRGBA: false });
        if (j.width <= 0 || j.height <= 0) return fail(`the JPEG is ${j.width}×${j.height} px`);
        if (!endsWithEoi(b)) return fail("the JPEG has no end marker; the file is truncated");
        return ok(j.width, j.height);
      } catch (e) {
        return fail(`the JPEG does not decode (${errText(e)}); the file may be truncated or corrupt`);
      }
    }
    case "gif": {
      const { GifReader } = await import("omggif");
      try {
        const g = new GifReader(b);
        if (g.width <= 0 || g.height <= 0) return fail(`the GIF is ${g.width}×${g.height} px; an image needs at least 1×1`);
        if (g.numFrames() < 1) return fail("the GIF has no frame");
        const f = g.frameInfo(0);
        if (f.data_offset + f.data_length > b.length) return fail("the GIF's first frame runs past the end of the file; it is truncated");
        g.decodeAndBlitFrameRGBA(0, new Uint8Array(g.width * g.height * 4));
        return ok(g.width, g.height);
      } catch (e) {
        return fail(`the GIF does not decode (${errText(e)}); the file may be truncated or corrupt`);
      }
    }
    case "webp":
      return webp(b, width, height);
    default: {
      const never: never = kind;
      return fail(`unknown kind ${String(never)}`);
    }
  }
}

/** A JPEG ends with EOI (FF D9), perhaps followed by padding: jpeg-js decodes a cut scan as
 * if the rest were grey. */
function endsWithEoi(b: Buffer): boolean {
  const tail = b.subarray(Math.max(0, b.length - 64));
  for (let i = tail.length - 2; i >= 0; i--) if (tail[i] === 0xff && tail[i + 1] === 0xd9) return true;
  return false;
}

/** WebP without a decoder: the container and the first chunk must be whole. */
function webp(b: Buffer, width: number, height: number): ImageCheck {
  const declared = b.readUInt32LE(4) + 8;
  if (declared > b.length) return fail(`the WebP says it is ${declared} bytes but the file has ${b.length}; it is truncated`);
  if (b.length < 20) return fail("the WebP holds no image chunk");
  const chunk = b.toString("latin1", 12, 16);
  if (chunk !== "VP8 " && chunk !== "VP8L" && chunk !== "VP8X") return fail(`the WebP's first chunk is "${chunk.replace(/[^\x20-\x7e]/g, "?")}", not VP8, VP8L or VP8X`);
  const size = b.readUInt32LE(16);
  if (20 + size > b.length) return fail(`the WebP's ${chunk.trim()} chunk runs past the end of the file; it is truncated`);
  return { ok: true, kind: "webp", mediaType: "image/webp", width, height };
}
