// Two refusals of the real APIs, hooked into test/helpers/fake-provider.ts (and the Responses
// endpoint): a body whose JSON holds a lone surrogate ("\ud800" escaped without its pair,
// which Python's and Go's JSON parsers refuse: "no low surrogate in string"), and an image
// the provider cannot decode (Anthropic: "Could not process image"; OpenAI: "You uploaded an
// unsupported image"). The fake decodes each image with the same libraries a server would use
// for the job (pngjs, jpeg-js, omggif; a WebP's RIFF container is checked), independently of
// the client's own check, so a client that sent such an image is caught.
import { PNG } from "pngjs";
import jpeg from "jpeg-js";
import { GifReader } from "omggif";

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

/** A lone surrogate: a high half without its low half after it, or a low half alone. */
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (s: string): boolean => !LONE.test(s);

/** The JSON path of the first string (or key) in `v` holding a lone surrogate, or undefined. */
export function illFormedAt(v: unknown, at = "body"): string | undefined {
  if (typeof v === "string") return wellFormed(v) ? undefined : at;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const r = illFormedAt(v[i], `${at}.${i}`);
      if (r) return r;
    }
    return undefined;
  }
  if (isObj(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (!wellFormed(k)) return `${at} (a key)`;
      const r = illFormedAt(x, `${at}.${k}`);
      if (r) return r;
    }
  }
  return undefined;
}

/** The real APIs' words for a body that is not valid JSON because of a lone surrogate. */
export function surrogateRefusal(shape: "anthropic" | "openai" | "responses", where: string): { status: number; body: unknown; message: string } {
  if (shape === "anthropic") {
    const message = `The request body is not valid JSON: no low surrogate in string (at ${where})`;
    return { status: 400, message, body: { type: "error", error: { type: "invalid_request_error", message }, request_id: "req_fake" } };
  }
  const message =
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";
  return { status: 400, message, body: { error: { message, type: "invalid_request_error", param: null, code: null } } };
}

/** verdicts of images seen before: every request replays the same images */
const seen = new Map<string, string | undefined>();

/** Why the bytes of a base64 image cannot be decoded, or undefined when they can. */
export function undecodable(base64: string): string | undefined {
  if (seen.has(base64)) return seen.get(base64);
  const v = decodeVerdict(base64);
  if (seen.size > 256) seen.clear();
  seen.set(base64, v);
  return v;
}

function decodeVerdict(base64: string): string | undefined {
  const b = Buffer.from(base64, "base64");
  try {
    if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) {
      const p = PNG.sync.read(b);
      return p.width > 0 && p.height > 0 ? undefined : "empty PNG";
    }
    if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8) {
      const j = jpeg.decode(b, { useTArray: true, tolerantDecoding: false, maxMemoryUsageInMB: 1024 });
      const tail = b.subarray(Math.max(0, b.length - 64));
      if (!tail.includes(Buffer.from([0xff, 0xd9]))) return "JPEG without its end";
      return j.width > 0 && j.height > 0 ? undefined : "empty JPEG";
    }
    if (b.toString("latin1", 0, 3) === "GIF") {
      const g = new GifReader(b);
      if (g.width <= 0 || g.height <= 0 || g.numFrames() < 1) return "empty GIF";
      g.decodeAndBlitFrameRGBA(0, new Uint8Array(g.width * g.height * 4));
      return undefined;
    }
    if (b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") {
      return b.readUInt32LE(4) + 8 <= b.length && b.length >= 30 ? undefined : "truncated WebP";
    }
    return "not an image";
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Every base64 image of a body with its path: Anthropic's sources, and data URLs (Chat's
 * image_url.url, Responses' input_image.image_url). */
function images(v: unknown, at: string, out: Array<{ at: string; data: string }>): void {
  if (Array.isArray(v)) v.forEach((x, i) => images(x, `${at}.${i}`, out));
  else if (isObj(v)) {
    if (v["type"] === "image" && isObj(v["source"]) && typeof v["source"]["data"] === "string") {
      out.push({ at: `${at}.image.source.base64.data`, data: v["source"]["data"] });
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === "string" && x.startsWith("data:image/")) out.push({ at: `${at}.${k}`, data: x.slice(x.indexOf(",") + 1) });
      else images(x, `${at}.${k}`, out);
    }
  }
}

/** The API's refusal of the first image of `body` that does not decode, or undefined. */
export function imageRefusal(shape: "anthropic" | "openai" | "responses", body: unknown): { status: number; body: unknown; message: string } | undefined {
  if (!isObj(body)) return undefined;
  const all: Array<{ at: string; data: string }> = [];
  images(body["messages"] ?? body["input"], shape === "anthropic" ? "messages" : "input", all);
  for (const { at, data } of all) {
    if (undecodable(data) === undefined) continue;
    if (shape === "anthropic") {
      const message = `${at}: Could not process image`;
      return { status: 400, message, body: { type: "error", error: { type: "invalid_request_error", message }, request_id: "req_fake" } };
    }
    const message = "You uploaded an unsupported image. Please make sure your image is valid.";
    return { status: 400, message, body: { error: { message, type: "invalid_request_error", param: null, code: "image_parse_error" } } };
  }
  return undefined;
}
