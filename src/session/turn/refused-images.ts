// A stored image the provider refused (a 400 naming it: "Could not process image", "invalid
// image") would be sent, and refused, with every later request. It is marked in the record
// (never deleted): replay then sends a marker saying it was refused (replay.ts, unseenReason),
// and the turn's request goes again once. Which image: the one at the path the error names
// (Anthropic's "messages.2.content.1.image…", read in the body that was sent); else those our
// own decoder cannot decode; else the request's only image; else all of its images.
import type { ImageBlock, StoredMessage } from "../../record/types.js";
import { ProviderError, type Request } from "../../provider/types.js";
import { checkImage } from "../../provider/image-check.js";
import { isObj } from "../../provider/json.js";
import type { TurnEnv } from "./env.js";
import { update } from "./record.js";

const PATH = /messages\.(\d+)\.content\.(\d+)(?:\.content\.(\d+))?\.image/;
const ABOUT_IMAGES = /image/i;

/** The provider's words, short, for the record and the marker. */
function said(e: ProviderError): string {
  const m = e.message.replace(/\s+/g, " ").trim();
  return m.length > 240 ? `${m.slice(0, 239)}…` : m;
}

/** The base64 data of the image at the error's path in the body sent, if it names one. */
function namedData(env: TurnEnv, req: Request, message: string): string | undefined {
  const m = PATH.exec(message);
  if (!m || !env.provider.encode) return undefined;
  const body = env.provider.encode(req).body;
  const messages = body["messages"];
  if (!Array.isArray(messages)) return undefined;
  const msg: unknown = messages[Number(m[1])];
  if (!isObj(msg) || !Array.isArray(msg["content"])) return undefined;
  let part: unknown = msg["content"][Number(m[2])];
  if (m[3] !== undefined && isObj(part) && Array.isArray(part["content"])) part = part["content"][Number(m[3])];
  const src = isObj(part) ? part["source"] : undefined;
  return isObj(src) && typeof src["data"] === "string" ? src["data"] : undefined;
}

/**
 * Marks the images `e` refused in the record; true when any was marked (the caller sends
 * the request again, once). A refusal about something else marks nothing.
 */
export async function markRefusedImages(env: TurnEnv, req: Request, e: unknown): Promise<boolean> {
  if (!(e instanceof ProviderError) || e.kind !== "bad_request" || !ABOUT_IMAGES.test(e.message)) return false;
  const sent = new Set<string>();
  for (const m of [...req.history, ...(req.live ?? [])]) for (const p of m.content) if (p.type === "image") sent.add(p.data);
  const candidates: Array<{ msg: StoredMessage; block: ImageBlock }> = [];
  for (const msg of env.history) {
    for (const b of msg.blocks) if (b.type === "image" && b.refused === undefined && sent.has(b.data)) candidates.push({ msg, block: b });
  }
  if (candidates.length === 0) return false;
  const named = namedData(env, req, e.message);
  let chosen = named !== undefined ? candidates.filter((c) => c.block.data === named) : [];
  if (chosen.length === 0) {
    const undecodable = await Promise.all(candidates.map(async (c) => !(await checkImage(Buffer.from(c.block.data, "base64"))).ok));
    chosen = candidates.filter((_, i) => undecodable[i]);
  }
  if (chosen.length === 0) chosen = candidates;
  const words = said(e);
  const byMsg = new Map<StoredMessage, Set<ImageBlock>>();
  for (const c of chosen) {
    let s = byMsg.get(c.msg);
    if (!s) byMsg.set(c.msg, (s = new Set()));
    s.add(c.block);
  }
  for (const [msg, blocks] of byMsg) {
    await update(env, msg, msg.blocks.map((b) => (b.type === "image" && blocks.has(b) ? { ...b, refused: words } : b)), msg.status);
  }
  const n = chosen.length;
  env.events.emit({
    type: "notice",
    level: "warning",
    text: `The provider refused ${n === 1 ? "an image" : `${n} images`} of this session (${words}); ${n === 1 ? "it is" : "they are"} kept in the record, marked refused, and sent from now on as a marker saying so. Sending again.`,
  });
  return true;
}
