// What changed since the previous request, and where a provider's cached prefix broke:
// "history changed from item 14: microcompact blurred 3 outputs".
// Pure: a request's print is read from the adapter's own encoding (the wire items that are
// sent), and two prints are compared. The print is small (one short digest per history item)
// and is stored with the capture, so the comparison holds across a restart.
//
// Why a break happened is read from the request itself, not guessed from the turn: a summary
// note begins with SUMMARY_NOTE_PREFIX, a blurred output is a CLEARED_OUTPUT_RE marker, the
// previous request's live round (its turn in progress) is replayed as prose at the next turn,
// and the model and each section have their own digests.
import crypto, { createHash, type Hash } from "node:crypto";
import { z } from "zod";
import type { EncodedRequest, Request } from "../provider/types.js";
import { assertNever } from "../record/types.js";
import { formatInt } from "../record/numbers.js";
import { CLEARED_OUTPUT_RE } from "../compaction/microcompact.js";
import { SUMMARY_NOTE_PREFIX } from "../compaction/summary.js";

/** The change line of a request beside the conversation (a summary's): the next request is
 * compared with the conversation's request before it. */
export const SIDE_REQUEST_CHANGE = "a side request with its own prefix; the conversation's cached prefix is left as it was";

/** Hex digits kept of each digest: 64 bits, plenty to tell two items of one session apart. */
const DIGEST_HEX = 16;

export const requestPrintSchema = z.object({
  provider: z.string(),
  model: z.string(),
  /** digest of each section other than history, by its name ("system", "AGENTS.md", "tools") */
  sections: z.array(z.tuple([z.string(), z.string()])),
  /** digest of each history item, in wire order */
  history: z.array(z.string()),
  /** [item, blurred outputs in it], for items that hold any */
  cleared: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().positive()])),
  /** the item holding a summary's note, if any */
  summary: z.number().int().nonnegative().optional(),
  /** the first item of the live round (the turn in progress, sent natively) */
  liveFrom: z.number().int().nonnegative(),
});

/** A request's fingerprint, for the next request's change line. */
export type RequestPrint = z.infer<typeof requestPrintSchema>;

/** Pieces at least this long are hashed as they come; shorter ones are gathered first. */
const GATHER_BELOW = 4096;
// one-shot hashing (Node 20.12+): no Hash object for an item made of short pieces
const hashOnce = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/**
 * The digest of one item: SHA-256 of its pieces' UTF-8, one after another. A history item is
 * a few short pieces (labels, separators, a message), and an update per piece cost more than
 * the hashing itself (a print of a 775 kB history took 2.7 ms, 0.5 ms of it hashing bytes):
 * short pieces are gathered and hashed as one string, long ones hashed as they come. The
 * bytes are the same, so the digest is the same as piece by piece: content always follows a
 * `\0kind\0` separator, so no two pieces that touch could pair up lone surrogate halves.
 */
class ItemHash {
  // kept so that the class's shape, and the code optimized for it, outlive a full collection
  // (see WireWriter in provider/encoded.ts)
  private static readonly shapeKeeper = new ItemHash("");
  private h: Hash | undefined;
  private readonly gathered: string[] = [];
  cleared = 0;
  summary = false;
  private texts = 0;
  constructor(role: string) {
    this.add(`${role}\0`);
  }
  block(): void {
    this.add("\0b");
  }
  text(kind: string, s: string): void {
    this.add(`\0${kind}\0`);
    this.add(s);
  }
  note(s: string): void {
    if (this.texts++ === 0 && s.startsWith(SUMMARY_NOTE_PREFIX)) this.summary = true;
    if (s.includes(" cleared: ")) this.cleared += s.match(CLEARED_OUTPUT_RE)?.length ?? 0;
  }
  digest(): string {
    const hex = this.h === undefined && hashOnce ? hashOnce("sha256", this.gathered.join(""), "hex") : this.flush().digest("hex");
    return hex.slice(0, DIGEST_HEX);
  }

  private add(s: string): void {
    if (s.length === 0) return;
    if (s.length < GATHER_BELOW) this.gathered.push(s);
    else this.flush().update(s);
  }

  /** Hashes what is gathered; the running hash. */
  private flush(): Hash {
    const h = (this.h ??= createHash("sha256"));
    if (this.gathered.length > 0) {
      h.update(this.gathered.length === 1 ? this.gathered[0]! : this.gathered.join(""));
      this.gathered.length = 0;
    }
    return h;
  }
}

/** The print of a request, from the encoding that is sent. */
export function printEncoded(req: Request, enc: EncodedRequest): RequestPrint {
  // context sections are named as the capture names them: a repeated source is numbered
  const seen = new Map<string, number>();
  const contextNames = req.context.map((c) => {
    const n = (seen.get(c.source) ?? 0) + 1;
    seen.set(c.source, n);
    return n === 1 ? c.source : `${c.source} (${n})`;
  });
  const sections = new Map<string, ItemHash>();
  const history: string[] = [];
  const cleared: [number, number][] = [];
  let summary: number | undefined;
  let item: ItemHash | undefined;
  let inHistory = false;
  const closeItem = (): void => {
    if (!item || !inHistory) return;
    const i = history.length;
    history.push(item.digest());
    if (item.cleared > 0) cleared.push([i, item.cleared]);
    if (item.summary && summary === undefined) summary = i;
  };
  for (const e of enc.wire) {
    switch (e.type) {
      case "item": {
        closeItem();
        const s = e.section;
        inHistory = s.kind === "history";
        if (inHistory) {
          item = new ItemHash(e.role);
          break;
        }
        const name = s.kind === "context" ? `context:${contextNames[s.index] ?? s.index}` : s.kind;
        // a section of several items (the tools) is one running digest, items separated
        let h = sections.get(name);
        if (!h) {
          h = new ItemHash(s.kind);
          sections.set(name, h);
        } else h.block();
        item = h;
        item.text("role", e.role);
        break;
      }
      case "block":
        item?.block();
        break;
      case "text":
        item?.text("t", e.text);
        if (inHistory) item?.note(e.text);
        break;
      case "label":
        item?.text("l", e.text);
        break;
      case "image":
        item?.text("i", e.data);
        break;
      case "opaque":
        item?.text("o", e.body);
        break;
      case "schema":
        item?.text("s", e.json);
        break;
      case "cache_breakpoint":
        // a mark, not content: the provider's cache hash leaves it out, and so does the print
        break;
      default:
        assertNever(e, "wire event");
    }
  }
  closeItem();
  const print: RequestPrint = {
    provider: req.provider,
    model: req.model,
    sections: [...sections].map(([name, h]) => [name, h.digest()]),
    history,
    cleared,
    liveFrom: Math.min(req.history.length, history.length),
  };
  if (summary !== undefined) print.summary = summary;
  return print;
}

function sectionWords(name: string): string {
  if (name === "system") return "system prompt";
  if (name === "tools") return "tools";
  if (name.startsWith("context:")) return `project context (${name.slice("context:".length)})`;
  return name;
}

function plural(n: number, one: string, many: string): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

/** Why history differs from item i on, when the request shows it. */
function historyReason(prev: RequestPrint, cur: RequestPrint, i: number): string | undefined {
  if (cur.summary === i) return prev.summary === undefined ? "summary applied" : "a new summary applied";
  const before = new Map(prev.cleared);
  let blurred = 0;
  for (const [j, n] of cur.cleared) {
    if (j < i || j >= prev.history.length) continue;
    blurred += Math.max(0, n - (before.get(j) ?? 0));
  }
  if (blurred > 0) return `microcompact blurred ${plural(blurred, "output", "outputs")}`;
  if (i >= prev.liveFrom && prev.liveFrom < prev.history.length) return "the previous turn now replays as prose";
  return undefined;
}

/**
 * Where the previous request's cached prefix broke: the first part, in the order providers
 * hash a prompt's prefix (tools, then system, then each project-context block, then the
 * history item by item), whose bytes differ from the previous request's. Anthropic's
 * documentation names that order (tools, system, messages); OpenAI's caches the same way,
 * its tool definitions ahead of the messages. Undefined without a previous request, and
 * when the whole previous request is still the new one's prefix.
 */
export function describeCacheBreak(prev: RequestPrint | undefined, cur: RequestPrint): string | undefined {
  if (!prev) return undefined;
  if (prev.provider !== cur.provider || prev.model !== cur.model) return "at the model: another model caches nothing of the previous one";
  const order = (p: RequestPrint): Array<[string, string]> => [
    ...p.sections.filter(([n]) => n === "tools"),
    ...p.sections.filter(([n]) => n === "system"),
    ...p.sections.filter(([n]) => n !== "tools" && n !== "system"),
  ];
  const a = order(prev);
  const b = order(cur);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x && y && x[0] === y[0] && x[1] === y[1]) continue;
    const name = (y ?? x)![0];
    const what = !x || (y && x[0] !== y[0]) ? "added" : !y ? "removed" : "changed";
    return `at the ${sectionWords(name)} (${what}): nothing after it is read from the cache`;
  }
  const common = Math.min(prev.history.length, cur.history.length);
  for (let i = 0; i < common; i++) {
    if (prev.history[i] !== cur.history[i]) {
      const why = historyReason(prev, cur, i);
      return `at history item ${formatInt(i + 1)}${why ? ` (${why})` : ""}: the items before it can be read from the cache`;
    }
  }
  if (cur.history.length < prev.history.length) return `at history item ${formatInt(cur.history.length + 1)} (the history was shortened)`;
  return undefined;
}

/**
 * The change line: what differs from the previous request, in request order, naming the
 * first history item (counted from 1, as the pages number them) that differs and why when
 * the request shows it. Undefined when there is no previous request.
 */
export function describeChange(prev: RequestPrint | undefined, cur: RequestPrint): string | undefined {
  if (!prev) return undefined;
  if (prev.provider !== cur.provider || prev.model !== cur.model) {
    return `model switched (${prev.provider}/${prev.model} → ${cur.provider}/${cur.model}): nothing cached carries over`;
  }
  const parts: string[] = [];
  const before = new Map(prev.sections);
  const now = new Map(cur.sections);
  for (const [name, digest] of cur.sections) {
    const was = before.get(name);
    if (was === undefined) parts.push(`${sectionWords(name)} added`);
    else if (was !== digest) parts.push(`${sectionWords(name)} changed`);
  }
  for (const [name] of prev.sections) if (!now.has(name)) parts.push(`${sectionWords(name)} removed`);

  let diff: number | undefined;
  const common = Math.min(prev.history.length, cur.history.length);
  for (let i = 0; i < common; i++) {
    if (prev.history[i] !== cur.history[i]) {
      diff = i;
      break;
    }
  }
  if (diff === undefined && cur.history.length < prev.history.length) diff = cur.history.length;
  if (diff === undefined) {
    const added = cur.history.length - prev.history.length;
    parts.push(
      added > 0
        ? `history: the previous ${plural(prev.history.length, "item", "items")} unchanged, ${formatInt(added)} new`
        : "history unchanged",
    );
  } else {
    const why = diff < cur.history.length ? historyReason(prev, cur, diff) : undefined;
    const where = diff < cur.history.length ? `history changed from item ${formatInt(diff + 1)}` : `history shortened to ${plural(diff, "item", "items")}`;
    parts.push(why ? `${where}: ${why}` : where);
  }
  return parts.join("; ");
}
