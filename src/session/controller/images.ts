// Reads an image file into a record block: media type from its bytes, dimensions from
// image-size, and the provider's limits (the catalog's, through the replay's image rule)
// named when it refuses.
import { imageSize } from "image-size";
import { imageLimits } from "../../provider/catalog.js";
import { imageTarget, unseenReason } from "../../replay/replay.js";
import type { ImageBlock } from "../../record/types.js";
import type { ProviderName } from "../../provider/types.js";
import { assertNever } from "../../record/types.js";
import { readStartFile, StartFileError } from "../../config/files.js";
import { checkImage, sniff } from "../../provider/image-check.js";

const TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** The largest image (decoded bytes) each provider takes, with the limit as the provider states it. */
export function imageLimit(provider: ProviderName): { bytes: number; text: string } {
  const l = imageLimits(provider);
  // Anthropic counts the base64 payload: 5 MB of base64 is 3.75 MB of image
  const bytes = Math.min(l.maxBytes ?? Infinity, l.maxBase64Bytes !== undefined ? Math.floor((l.maxBase64Bytes * 3) / 4) : Infinity);
  switch (provider) {
    case "anthropic":
      return { bytes, text: "Anthropic accepts images up to 5 MB of base64 (about 3.7 MB of file)" };
    case "openai":
      return { bytes, text: "OpenAI accepts images up to 20 MB" };
    default:
      return assertNever(provider, "provider");
  }
}

export async function loadImage(file: string, provider: ProviderName): Promise<ImageBlock> {
  const limit = imageLimit(provider);
  let buf: Buffer;
  try {
    // opened without blocking and checked on the handle: a FIFO or /dev/zero is refused by name
    buf = await readStartFile(file, {
      what: "image",
      maxBytes: limit.bytes,
      tooLarge: (size) => size === undefined
          ? `${file} grew past the limit while it was read; ${limit.text}.`
          : `${file} is ${(size / 1048576).toFixed(1)} MB; ${limit.text}. Resize it and attach it again.`,
    });
  } catch (e) {
    if (e instanceof StartFileError && e.code === "ENOENT") throw new Error(`image not found: ${file}`);
    throw e;
  }
  // decoded whole: a header can be whole over a truncated body, and a stored image the
  // provider cannot decode would be refused with every later request
  const checked = await checkImage(buf);
  if (!checked.ok) {
    if (!sniff(buf)) {
      let other: string | undefined;
      try {
        other = imageSize(buf).type;
      } catch {
        other = undefined;
      }
      if (other && !TYPES[other]) throw new Error(`${file} is a ${other} image; PNG, JPEG, GIF and WebP are supported`);
    }
    throw new Error(`${file} is not a usable image: ${checked.why}.`);
  }
  const mediaType = checked.mediaType;
  const dims = { width: checked.width, height: checked.height };
  const block: ImageBlock = { type: "image", mediaType, data: buf.toString("base64"), bytes: buf.length };
  if (dims.width) block.width = dims.width;
  if (dims.height) block.height = dims.height;
  // the rule each request applies (a 9000 px side under Anthropic): refused now, by name,
  // rather than sent as a marker the person did not ask for
  const unseen = unseenReason(block, imageTarget(provider, true));
  if (unseen) {
    throw new Error(`${file} is ${unseen.why} (${mediaType}, ${dims.width ?? "?"}×${dims.height ?? "?"} px${unseen.detail ? `; ${unseen.detail}` : ""}). Resize it and attach it again.`);
  }
  return block;
}
