// Reads an image file into a record block: media type from its bytes, dimensions from
// image-size, and a size limit per provider that is named when it refuses.
import fs from "node:fs/promises";
import { imageSize } from "image-size";
import type { ImageBlock } from "../record/types.js";
import type { ProviderName } from "../provider/types.js";
import { assertNever } from "../record/types.js";

const TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** The largest image (decoded bytes) each provider takes, with the limit as the provider states it. */
export function imageLimit(provider: ProviderName): { bytes: number; text: string } {
  switch (provider) {
    case "anthropic":
      // Anthropic counts the base64 payload: 5 MB of base64 is 3.75 MB of image
      return { bytes: Math.floor((5 * 1024 * 1024 * 3) / 4), text: "Anthropic accepts images up to 5 MB of base64 (about 3.7 MB of file)" };
    case "openai":
      return { bytes: 20 * 1024 * 1024, text: "OpenAI accepts images up to 20 MB" };
    default:
      return assertNever(provider, "provider");
  }
}

export async function loadImage(file: string, provider: ProviderName): Promise<ImageBlock> {
  let buf: Buffer;
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    const limit = imageLimit(provider);
    if (st.size > limit.bytes) {
      throw new Error(`${file} is ${(st.size / 1048576).toFixed(1)} MB; ${limit.text}. Resize it and attach it again.`);
    }
    buf = await fs.readFile(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") throw new Error(`image not found: ${file}`);
    throw err;
  }
  let dims: ReturnType<typeof imageSize>;
  try {
    dims = imageSize(buf);
  } catch {
    throw new Error(`${file} is not a PNG, JPEG, GIF or WebP image`);
  }
  const mediaType = dims.type ? TYPES[dims.type] : undefined;
  if (!mediaType) throw new Error(`${file} is a ${dims.type ?? "unknown"} image; PNG, JPEG, GIF and WebP are supported`);
  const block: ImageBlock = { type: "image", mediaType, data: buf.toString("base64"), bytes: buf.length };
  if (dims.width) block.width = dims.width;
  if (dims.height) block.height = dims.height;
  return block;
}
