// Images made for tests, whole and broken as a hostile server or a bad disk makes them: a
// truncated PNG, a GIF of 0×0, a JPEG whose scan is cut, bytes of the wrong kind.
import { PNG } from "pngjs";
import jpeg from "jpeg-js";
import { GifWriter } from "omggif";

/** A whole PNG of `w`×`h` px, a gradient (so it does not compress to nothing). */
export function pngImage(w = 16, h = 16): Buffer {
  const png = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) {
    png.data[i * 4] = i % 256;
    png.data[i * 4 + 1] = (i * 7) % 256;
    png.data[i * 4 + 2] = (i * 13) % 256;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/**
 * A whole PNG of `w`×`h` px that is `bytes` long: its pixels compress to little, and a private
 * ancillary chunk (which decoders skip) pads it to the size a test needs.
 */
export function paddedPng(bytes: number, w = 3, h = 2): Buffer {
  const png = new PNG({ width: w, height: h });
  png.data.fill(255);
  const base = PNG.sync.write(png, { deflateLevel: 9 });
  const iend = base.length - 12;
  const room = bytes - base.length - 12;
  if (room < 0) return base;
  const chunk = Buffer.alloc(12 + room);
  chunk.writeUInt32BE(room, 0);
  chunk.write("paDd", 4, "latin1");
  // the CRC covers the type and the data; a wrong one is refused by the decoder
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + room)), 8 + room);
  return Buffer.concat([base.subarray(0, iend), chunk, base.subarray(iend)]);
}

let table: Uint32Array | undefined;
function crc32(b: Buffer): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const x of b) c = table[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A whole baseline JPEG. */
export function jpegImage(w = 32, h = 32): Buffer {
  const data = Buffer.alloc(w * h * 4);
  for (let i = 0; i < w * h; i++) data.writeUInt32BE((((i * 2654435761) >>> 0) | 0xff) >>> 0, i * 4);
  return jpeg.encode({ width: w, height: h, data }, 80).data;
}

/** A whole one-frame GIF. */
export function gifImage(w = 8, h = 8): Buffer {
  const buf = Buffer.alloc(1024 + w * h * 2);
  const g = new GifWriter(buf, w, h, { palette: [0x000000, 0xffffff] });
  g.addFrame(0, 0, w, h, Array.from({ length: w * h }, (_, i) => i % 2));
  return buf.subarray(0, g.end());
}

/** A PNG cut at half its bytes: its header (and image-size) still reads 16×16. */
export function truncatedPng(): Buffer {
  const p = pngImage(64, 64);
  return p.subarray(0, Math.floor(p.length / 2));
}

/** A GIF whose screen is 0×0, with one empty frame: a header check finds nothing wrong with the signature. */
export function zeroGif(): Buffer {
  const g = gifImage(1, 1);
  g.writeUInt16LE(0, 6);
  g.writeUInt16LE(0, 8);
  return g;
}

/** A JPEG cut inside its scan, with its end marker put back so only decoding finds it. */
export function corruptJpeg(): Buffer {
  const j = jpegImage(64, 64);
  const cut = j.subarray(0, Math.floor(j.length * 0.6));
  // the scan's middle overwritten with markers the decoder cannot take
  const bad = Buffer.concat([cut, Buffer.from([0xff, 0xc4, 0x00, 0x02, 0xff, 0xd9])]);
  return bad;
}

/** Text with a PNG's name: the magic is wrong. */
export function notAnImage(): Buffer {
  return Buffer.from("this is not an image, whatever its name says\n");
}

/** A WebP whose RIFF header claims more bytes than the file holds. */
export function truncatedWebp(): Buffer {
  const b = Buffer.alloc(30);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(4000, 4);
  b.write("WEBPVP8 ", 8, "latin1");
  b.writeUInt32LE(3990, 16);
  return b;
}
