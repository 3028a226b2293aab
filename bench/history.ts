// A realistic coding-agent history, generated deterministically, for the benchmarks that need
// a long record: prompts, answers in Markdown with code, tool rounds (read, bash, grep, edit)
// with their outputs, reasoning with a signature, and a few image attachments.
//
// Proportions follow what real sessions look like: tool output is most of the bytes, prose is
// most of the messages. A fixed seed keeps every run (and both sides of a ratio) on the same
// data.
import zlib from "node:zlib";
import type { Block, StoredMessage } from "../src/record/types.js";
import { prng as rng } from "../test/helpers/prng.js";


const WORDS = (
  "the a to of and in is that it for on with as this be by are from at or not but we can if " +
  "function value request stream session store message screen history token capture page test " +
  "error result file path line column buffer parser render frame model provider budget output " +
  "input config option default return await async import export const type interface class " +
  "change update remove check before after when only every each first last next because which"
).split(" ");

const IDENTS = (
  "store session message blocks request stream parser render screen history capture page " +
  "offset limit result output input config options handler events signal timer buffer line " +
  "text bytes tokens model provider frame width height cursor index count total items"
).split(" ");

const FILES = [
  "src/session/store/store.ts",
  "src/session/turn/turn.ts",
  "src/ui/transcript.ts",
  "src/provider/anthropic.ts",
  "src/provider/http.ts",
  "src/context/capture.ts",
  "src/replay/replay.ts",
  "test/unit/store.test.ts",
  "package.json",
  "README.md",
];

class Gen {
  constructor(private readonly r: () => number) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  chance(p: number): boolean {
    return this.r() < p;
  }

  sentence(): string {
    const n = this.int(6, 18);
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(this.pick(WORDS));
    const s = w.join(" ");
    return s.charAt(0).toUpperCase() + s.slice(1) + ".";
  }

  prose(chars: number): string {
    const out: string[] = [];
    let len = 0;
    while (len < chars) {
      const para: string[] = [];
      for (let i = this.int(2, 5); i > 0 && len < chars; i--) {
        const s = this.sentence();
        para.push(s);
        len += s.length + 1;
      }
      out.push(para.join(" "));
    }
    return out.join("\n\n");
  }

  codeLine(indent: number): string {
    const pad = "  ".repeat(indent);
    const a = this.pick(IDENTS);
    const b = this.pick(IDENTS);
    const c = this.pick(IDENTS);
    switch (this.int(0, 5)) {
      case 0:
        return `${pad}const ${a} = await ${b}.${c}(${this.pick(IDENTS)}, ${this.int(0, 9999)});`;
      case 1:
        return `${pad}if (${a}.${b} > ${c}.length) return ${this.pick(IDENTS)};`;
      case 2:
        return `${pad}// ${this.sentence().toLowerCase()}`;
      case 3:
        return `${pad}${a}.${b} = { ${c}: ${this.int(0, 99)}, ${this.pick(IDENTS)}: "${this.pick(WORDS)}" };`;
      case 4:
        return `${pad}for (const ${a} of ${b}.${c}) ${this.pick(IDENTS)}.push(${a});`;
      default:
        return `${pad}export function ${a}${b.charAt(0).toUpperCase()}${b.slice(1)}(${c}: string): number {`;
    }
  }

  code(lines: number): string {
    const out: string[] = [];
    for (let i = 0; i < lines; i++) out.push(this.codeLine(this.int(0, 3)));
    return out.join("\n");
  }

  /** `cat -n` style, as the read tool returns a file. */
  numbered(lines: number): string {
    const start = this.int(1, 400);
    const out: string[] = [];
    for (let i = 0; i < lines; i++) out.push(`${String(start + i).padStart(6)}\t${this.codeLine(this.int(0, 3))}`);
    return out.join("\n");
  }

  markdownAnswer(chars: number): string {
    const parts: string[] = [this.prose(Math.floor(chars * 0.5))];
    parts.push("```ts\n" + this.code(this.int(4, 14)) + "\n```");
    parts.push(
      Array.from({ length: this.int(2, 5) }, () => `- **${this.pick(IDENTS)}**: ${this.sentence()}`).join("\n"),
    );
    parts.push(this.prose(Math.floor(chars * 0.2)));
    return parts.join("\n\n");
  }

  toolRound(n: number): { call: Block; result: Block } {
    const id = `toolu_${n.toString(36).padStart(8, "0")}`;
    switch (this.int(0, 4)) {
      case 0:
      case 1: {
        const p = this.pick(FILES);
        const output = this.numbered(this.int(20, 160));
        return {
          call: { type: "tool_use", id, name: "read", input: { path: p, offset: this.int(1, 300), limit: 200 } },
          result: { type: "tool_result", toolUseId: id, name: "read", output, isError: false },
        };
      }
      case 2: {
        const failing = this.chance(0.25);
        const lines = Array.from({ length: this.int(5, 60) }, () =>
          this.chance(0.3) ? `  ✓ ${this.sentence()} (${this.int(1, 90)} ms)` : `${this.pick(FILES)}:${this.int(1, 900)}: ${this.sentence()}`,
        );
        return {
          call: { type: "tool_use", id, name: "bash", input: { command: this.pick(["npm test", "npx tsc --noEmit", "git status", "ls -la src"]) } },
          result: { type: "tool_result", toolUseId: id, name: "bash", output: lines.join("\n") + `\n[exit ${failing ? 1 : 0}]`, isError: failing },
        };
      }
      case 3: {
        const lines = Array.from({ length: this.int(3, 40) }, () => `${this.pick(FILES)}:${this.int(1, 900)}:${this.codeLine(1)}`);
        return {
          call: { type: "tool_use", id, name: "grep", input: { pattern: this.pick(IDENTS), glob: "*.ts" } },
          result: { type: "tool_result", toolUseId: id, name: "grep", output: lines.join("\n"), isError: false },
        };
      }
      default: {
        const p = this.pick(FILES);
        return {
          call: { type: "tool_use", id, name: "edit", input: { path: p, old_string: this.code(this.int(1, 6)), new_string: this.code(this.int(1, 8)) } },
          result: { type: "tool_result", toolUseId: id, name: "edit", output: `Edited ${p}: 1 replacement\n@@ -${this.int(1, 300)},3 +${this.int(1, 300)},4 @@\n${this.code(4)}`, isError: false },
        };
      }
    }
  }
}

// ------------------------------------------------------------------------------- images

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A real, decodable RGB PNG of noisy pixels (noise keeps it from compressing to nothing, as a
 *  screenshot would not). */
export function makePng(width: number, height: number, seed: number): Buffer {
  const r = rng(seed);
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width * 3; x++) raw[row + 1 + x] = (x * 7 + y * 3 + (r() < 0.15 ? Math.floor(r() * 255) : 0)) & 0xff;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", zlib.deflateSync(raw)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

// ------------------------------------------------------------------------------ history

export interface HistoryOptions {
  /** stop once the blocks' text and image data reach this many bytes … */
  targetBytes?: number;
  /** … or once there are this many messages (whichever comes first) */
  messages?: number;
  /** image attachments, spread evenly over the history */
  images?: number;
  seed?: number;
}

export type HistoryMessage = Pick<StoredMessage, "role" | "blocks" | "status" | "model">;

function blockBytes(b: Block): number {
  switch (b.type) {
    case "text":
      return b.text.length;
    case "tool_use":
      return JSON.stringify(b.input).length + b.name.length;
    case "tool_result":
      return b.output.length;
    case "reasoning":
      return b.text.length + (b.opaque?.body.length ?? 0);
    case "image":
      return b.data.length;
  }
}

/**
 * Generates whole user turns (prompt → rounds of tool calls and results → answer) until the
 * size or count is reached. Roles alternate as providers require.
 */
export function makeHistory(opts: HistoryOptions): HistoryMessage[] {
  const g = new Gen(rng(opts.seed ?? 7));
  const target = opts.targetBytes ?? Infinity;
  const maxMessages = opts.messages ?? Infinity;
  if (!Number.isFinite(target) && !Number.isFinite(maxMessages)) throw new Error("makeHistory needs a size or a count");
  const images = opts.images ?? 0;
  const out: HistoryMessage[] = [];
  let bytes = 0;
  let toolN = 0;
  let imagesLeft = images;
  const model = "claude-sonnet-4-5";
  const push = (m: HistoryMessage) => {
    out.push(m);
    for (const b of m.blocks) bytes += blockBytes(b);
  };
  const done = () => bytes >= target || out.length >= maxMessages;
  // expected turns, to spread the images; refined as we go
  const imageEvery = Number.isFinite(maxMessages) ? Math.max(1, Math.floor(maxMessages / (images + 1))) : Math.max(1, Math.floor(target / 3000 / (images + 1)));

  while (!done()) {
    const prompt: Block[] = [{ type: "text", text: g.prose(g.int(40, 400)) }];
    if (imagesLeft > 0 && out.length >= imageEvery * (images - imagesLeft + 1)) {
      const png = makePng(g.int(120, 200), g.int(80, 140), out.length);
      prompt.push({ type: "image", mediaType: "image/png", data: png.toString("base64"), bytes: png.length });
      imagesLeft--;
    }
    push({ role: "user", blocks: prompt, status: "complete" });
    if (done()) break;
    const rounds = g.int(0, 4);
    for (let i = 0; i < rounds && !done(); i++) {
      const { call, result } = g.toolRound(toolN++);
      const blocks: Block[] = [];
      if (g.chance(0.3)) {
        blocks.push({ type: "reasoning", text: g.prose(g.int(80, 500)), opaque: { kind: "thinking_signature", body: "Eq" + "A".repeat(g.int(200, 600)) } });
      }
      if (g.chance(0.5)) blocks.push({ type: "text", text: g.sentence() });
      blocks.push(call);
      push({ role: "assistant", blocks, status: "complete", model });
      if (done()) break;
      push({ role: "user", blocks: [result], status: "complete" });
    }
    if (done()) break;
    push({ role: "assistant", blocks: [{ type: "text", text: g.markdownAnswer(g.int(200, 2000)) }], status: "complete", model });
  }
  return out;
}

/** The generated history as the store would hand it back (ids, seqs, times). */
export function asStored(history: readonly HistoryMessage[], sessionId = "bench0000000"): StoredMessage[] {
  const t = Date.parse("2026-11-30T10:00:00Z");
  return history.map((m, i) => {
    const s: StoredMessage = {
      id: i + 1,
      sessionId,
      seq: i + 1,
      role: m.role,
      blocks: m.blocks,
      status: m.status,
      createdAt: new Date(t + i * 1000).toISOString(),
    };
    if (m.model !== undefined) s.model = m.model;
    return s;
  });
}

/** Total UTF-16 length of the history's content, the figure chars/4 estimates from. */
export function historyBytes(history: readonly HistoryMessage[]): number {
  let n = 0;
  for (const m of history) for (const b of m.blocks) n += blockBytes(b);
  return n;
}
