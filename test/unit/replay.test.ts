// Replay pins (docs/providers.md, The prose replay): every prose row, the message boundary,
// killed turns, images both ways, and the absence of any tool role / call-id linkage in
// replayed history.
import { describe, expect, it } from "vitest";
import {
  EMPTY_MESSAGE_MARKER,
  INTERRUPTED_MARKER,
  blockToPart,
  noResultProse,
  replayMessage,
  replayMessages,
  imageTarget,
  BLIND as NO_SIGHT,
  type ReplayOptions,
} from "../../src/replay/replay.js";
import type { Block, ImageBlock, Role } from "../../src/record/types.js";
import { parseBlocks } from "../../src/record/schema.js";
import type { WireMessage, WirePart } from "../../src/provider/types.js";
import { prng } from "../helpers/prng.js";

type Stored = { role: Role; blocks: Block[]; status?: "complete" | "interrupted" };

const SEE: ReplayOptions = { vision: imageTarget("anthropic", true) };
const BLIND: ReplayOptions = { vision: NO_SIGHT };

const text = (t: string): Block => ({ type: "text", text: t });
const use = (id: string, name: string, input: unknown): Block => ({ type: "tool_use", id, name, input });
const result = (toolUseId: string, name: string, output: string, isError = false): Block => ({
  type: "tool_result",
  toolUseId,
  name,
  output,
  isError,
});

const PNG_DATA = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function only(msgs: WireMessage[]): WirePart[] {
  expect(msgs).toHaveLength(1);
  return msgs[0]!.content;
}

function texts(msg: WireMessage): string[] {
  return msg.content.map((p) => {
    if (p.type !== "text") throw new Error(`expected a text part, got ${p.type}`);
    return p.text;
  });
}

/** Every forbidden trace of tool-protocol linkage, checked structurally and textually. */
function assertNoToolProtocol(out: WireMessage[], forbiddenStrings: Iterable<string>): void {
  const json = JSON.stringify(out);
  for (const m of out) {
    expect(["user", "assistant"]).toContain(m.role);
    for (const p of m.content) {
      expect(["text", "image"]).toContain(p.type);
    }
  }
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        expect(["tool_calls", "tool_call_id", "toolUseId", "callId", "id"]).not.toContain(k);
        walk(child);
      }
    }
  };
  walk(out);
  expect(json).not.toContain('"role":"tool"');
  expect(json).not.toContain("tool_calls");
  expect(json).not.toMatch(/"type":"(tool_use|tool_result|tool_call|reasoning)"/);
  for (const s of forbiddenStrings) expect(json).not.toContain(s);
}

describe("prose rows (one per block kind)", () => {
  it("text crosses as the text itself", () => {
    const t = "Here is the plan:\n1. read\n2. edit — ünïcödé 🚀";
    expect(only(replayMessages([{ role: "user", blocks: [text(t)] }], SEE))).toEqual([{ type: "text", text: t }]);
  });

  it("tool_use crosses as `Tool use: NAME(INPUT_JSON)`", () => {
    const input = { path: "src/a.ts", range: [1, 20], opts: { follow: true, note: 'say "hi"' } };
    const part = blockToPart(use("toolu_01ABC", "read", input), SEE);
    expect(part).toEqual({ type: "text", text: `Tool use: read(${JSON.stringify(input)})` });
    expect(JSON.stringify(part)).not.toContain("toolu_01ABC");
  });

  it("tool_use with no input still crosses as valid prose", () => {
    expect(blockToPart(use("c1", "ls", undefined), SEE)).toEqual({ type: "text", text: "Tool use: ls({})" });
    expect(blockToPart(use("c1", "ls", {}), SEE)).toEqual({ type: "text", text: "Tool use: ls({})" });
  });

  it("tool_result crosses as `Result (NAME): OUTPUT`", () => {
    const part = blockToPart(result("call_9f", "bash", "total 3\nfoo\nbar"), SEE);
    expect(part).toEqual({ type: "text", text: "Result (bash): total 3\nfoo\nbar" });
    expect(JSON.stringify(part)).not.toContain("call_9f");
  });

  it("an error tool_result crosses as `Error (NAME): OUTPUT`", () => {
    const part = blockToPart(result("call_9f", "edit", "old_string not found in a.ts", true), SEE);
    expect(part).toEqual({ type: "text", text: "Error (edit): old_string not found in a.ts" });
  });

  it("reasoning crosses as `[Reasoning]: TEXT` and the opaque body is not replayed", () => {
    const signature = "EqQBCkgIARABGAIiQL7sig-SECRET-SIGNATURE-0123456789abcdef";
    const stored: Stored[] = [
      {
        role: "assistant",
        blocks: [
          { type: "reasoning", text: "The user wants X, so check Y first.", opaque: { kind: "signature", body: signature } },
          { type: "reasoning", text: "", opaque: { kind: "redacted_thinking", body: "ENCRYPTED-BLOB-xyz" } },
          text("Done."),
        ],
      },
    ];
    for (const opts of [SEE, BLIND]) {
      const out = replayMessages(stored, opts);
      expect(texts(out[0]!)[0]).toBe("[Reasoning]: The user wants X, so check Y first.");
      expect(texts(out[0]!)[2]).toBe("Done.");
      const json = JSON.stringify(out);
      expect(json).not.toContain(signature);
      expect(json).not.toContain("ENCRYPTED-BLOB-xyz");
      expect(json).not.toContain("opaque");
      expect(json).not.toContain("signature");
    }
  });

  it("image crosses natively, every field kept, when the model can see", () => {
    const img: ImageBlock = { type: "image", mediaType: "image/png", data: PNG_DATA, bytes: 70, width: 1, height: 1 };
    expect(blockToPart(img, SEE)).toEqual({ type: "image", mediaType: "image/png", data: PNG_DATA, bytes: 70, width: 1, height: 1 });
    const noDims: ImageBlock = { type: "image", mediaType: "image/jpeg", data: "/9j/4AAQ", bytes: 6 };
    const part = blockToPart(noDims, SEE);
    expect(part).toEqual({ type: "image", mediaType: "image/jpeg", data: "/9j/4AAQ", bytes: 6 });
    expect(Object.keys(part)).not.toContain("width");
  });

  it("image becomes a marker saying plainly it was NOT seen (media type, size, dims) when blind", () => {
    const img: ImageBlock = { type: "image", mediaType: "image/png", data: PNG_DATA, bytes: 48213, width: 640, height: 480 };
    const part = blockToPart(img, BLIND);
    expect(part.type).toBe("text");
    const t = (part as { text: string }).text;
    expect(t).toMatch(/not seen/i);
    expect(t).toContain("image/png");
    expect(t).toContain("48213 bytes");
    expect(t).toMatch(/640\s*[×x]\s*480/);
    expect(JSON.stringify(part)).not.toContain(PNG_DATA);
  });

  it("blind image marker without known dims names type and size and invents no dims", () => {
    const part = blockToPart({ type: "image", mediaType: "image/webp", data: "UklGR", bytes: 1234 }, BLIND);
    const t = (part as { text: string }).text;
    expect(t).toMatch(/not seen/i);
    expect(t).toContain("image/webp");
    expect(t).toContain("1234 bytes");
    expect(t).not.toMatch(/\d+\s*[×x]\s*\d+/);
    expect(t).not.toContain("undefined");
  });

  it("blockToPart throws for an unknown kind slipped past the types, naming the kind", () => {
    const bogus = { type: "video", url: "x" } as unknown as Block;
    expect(() => blockToPart(bogus, SEE)).toThrow(/video/);
    expect(() => replayMessages([{ role: "user", blocks: [text("a"), bogus] }], SEE)).toThrow(/video/);
  });
});

describe("message boundary", () => {
  it("one wire message per stored message: same role, same order, blocks → parts in order", () => {
    const stored: Stored[] = [
      { role: "user", blocks: [text("u1"), { type: "image", mediaType: "image/png", data: PNG_DATA, bytes: 70 }] },
      { role: "assistant", blocks: [text("a1"), text("a2")] },
      { role: "user", blocks: [text("u2")] },
    ];
    const out = replayMessages(stored, SEE);
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(out[0]!.content.map((p) => p.type)).toEqual(["text", "image"]);
    expect(texts(out[1]!)).toEqual(["a1", "a2"]);
    expect(texts(out[2]!)).toEqual(["u2"]);
  });

  it("an assistant message with text and three tool uses replays as ONE assistant message", () => {
    const stored: Stored[] = [
      { role: "user", blocks: [text("fix the build")] },
      {
        role: "assistant",
        blocks: [
          text("Let me look."),
          use("toolu_A1", "read", { path: "a.ts" }),
          use("toolu_B2", "grep", { pattern: "foo" }),
          use("toolu_C3", "bash", { command: "npm test" }),
        ],
      },
      {
        role: "user",
        blocks: [
          result("toolu_A1", "read", "export const a = 1;"),
          result("toolu_B2", "grep", "a.ts:1: foo"),
          result("toolu_C3", "bash", "1 failing", true),
        ],
      },
      { role: "assistant", blocks: [text("Fixed.")] },
    ];
    const out = replayMessages(stored, SEE);
    expect(out).toHaveLength(4);
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(texts(out[1]!)).toEqual([
      "Let me look.",
      'Tool use: read({"path":"a.ts"})',
      'Tool use: grep({"pattern":"foo"})',
      'Tool use: bash({"command":"npm test"})',
    ]);
    expect(texts(out[2]!)).toEqual([
      "Result (read): export const a = 1;",
      "Result (grep): a.ts:1: foo",
      "Error (bash): 1 failing",
    ]);
    assertNoToolProtocol(out, ["toolu_A1", "toolu_B2", "toolu_C3"]);
  });

  it("consecutive same-role messages are kept as they are (not merged, not split)", () => {
    const stored: Stored[] = [
      { role: "user", blocks: [text("one")] },
      { role: "user", blocks: [text("two")] },
      { role: "assistant", blocks: [text("three")] },
      { role: "assistant", blocks: [text("four")] },
      { role: "assistant", blocks: [text("five")] },
    ];
    const out = replayMessages(stored, SEE);
    expect(out.map((m) => [m.role, texts(m)])).toEqual([
      ["user", ["one"]],
      ["user", ["two"]],
      ["assistant", ["three"]],
      ["assistant", ["four"]],
      ["assistant", ["five"]],
    ]);
  });

  it("a killed turn's empty message still crosses as one message carrying the interrupted marker", () => {
    const stored: Stored[] = [
      { role: "user", blocks: [text("go")] },
      { role: "assistant", blocks: [] },
      { role: "user", blocks: [text("again")] },
    ];
    const out = replayMessages(stored, SEE);
    expect(out).toHaveLength(3);
    expect(out[1]).toEqual({ role: "assistant", content: [{ type: "text", text: EMPTY_MESSAGE_MARKER }] });
    expect(EMPTY_MESSAGE_MARKER).toMatch(/interrupted/i);
    expect(EMPTY_MESSAGE_MARKER.trim().length).toBeGreaterThan(0);
  });

  it("empty (and whitespace-only) text blocks produce no parts; all-empty falls back to the marker", () => {
    expect(texts(replayMessage({ role: "assistant", blocks: [text(""), text("real"), text("")] }, SEE))).toEqual(["real"]);
    expect(texts(replayMessage({ role: "assistant", blocks: [text(""), text("")] }, SEE))).toEqual([EMPTY_MESSAGE_MARKER]);
    // providers reject whitespace-only text blocks too (a crash mid-stream can checkpoint "\n\n")
    expect(texts(replayMessage({ role: "assistant", blocks: [text("\n\n")] }, SEE))).toEqual([EMPTY_MESSAGE_MARKER]);
    expect(texts(replayMessage({ role: "assistant", blocks: [text("  "), use("c", "ls", {})] }, SEE))).toEqual([
      "Tool use: ls({})",
    ]);
  });

  it("does not mutate the stored messages", () => {
    const stored: Stored[] = [
      {
        role: "assistant",
        blocks: [
          { type: "reasoning", text: "r", opaque: { kind: "signature", body: "sig" } },
          { type: "image", mediaType: "image/png", data: PNG_DATA, bytes: 70, width: 1, height: 1 },
          use("c1", "read", { path: "x" }),
          text(""),
        ],
      },
    ];
    const before = structuredClone(stored);
    replayMessages(stored, SEE);
    replayMessages(stored, BLIND);
    expect(stored).toEqual(before);
  });
});

describe("killed rounds and orphans", () => {
  it("a dangling tool_use (no result anywhere) replays as prose without error", () => {
    const stored: Stored[] = [
      { role: "user", blocks: [text("run the tests")] },
      { role: "assistant", blocks: [text("Running."), use("toolu_DANGLING_1", "bash", { command: "npm test" })] },
      // the turn was killed before the result landed; the user typed again
      { role: "user", blocks: [text("are you there?")] },
    ];
    const out = replayMessages(stored, SEE);
    expect(out).toHaveLength(3);
    // the call never got a result: the prose says so, in the same message
    expect(texts(out[1]!)).toEqual(["Running.", 'Tool use: bash({"command":"npm test"})', noResultProse("bash")]);
    assertNoToolProtocol(out, ["toolu_DANGLING_1"]);
  });

  it("a dangling tool_use as the very last message replays without error", () => {
    const out = replayMessages(
      [
        { role: "user", blocks: [text("x")] },
        { role: "assistant", blocks: [use("call_LAST", "read", { path: "a" })] },
      ],
      BLIND,
    );
    expect(texts(out[1]!)).toEqual(['Tool use: read({"path":"a"})', "Result (read): [no result: the turn was interrupted before the tool finished]"]);
    assertNoToolProtocol(out, ["call_LAST"]);
  });

  it("an answer cut off (Esc, a dropped link, kill -9) ends with the interrupted marker, as prose, one message", () => {
    const out = replayMessages(
      [
        { role: "user", blocks: [text("explain")] },
        { role: "assistant", blocks: [{ type: "reasoning", text: "thinking" }, text("The reason is")], status: "interrupted" },
        { role: "user", blocks: [text("go on")] },
      ],
      SEE,
    );
    expect(out).toHaveLength(3);
    expect(texts(out[1]!)).toEqual(["[Reasoning]: thinking", "The reason is", INTERRUPTED_MARKER]);
    // an interrupted answer with nothing in it keeps the one empty-message marker
    const empty = replayMessages([{ role: "assistant", blocks: [], status: "interrupted" }], SEE);
    expect(texts(empty[0]!)).toEqual([EMPTY_MESSAGE_MARKER]);
    // a complete answer has no marker
    expect(texts(replayMessages([{ role: "assistant", blocks: [text("done")], status: "complete" }], SEE)[0]!)).toEqual(["done"]);
  });

  it("a tool_result whose tool_use is missing replays as prose", () => {
    const stored: Stored[] = [
      { role: "user", blocks: [text("hi")] },
      { role: "assistant", blocks: [text("(history before this was compacted)")] },
      { role: "user", blocks: [result("toolu_ORPHAN_9", "grep", "no matches", false), result("toolu_ORPHAN_8", "read", "ENOENT", true)] },
    ];
    const out = replayMessages(stored, SEE);
    expect(texts(out[2]!)).toEqual(["Result (grep): no matches", "Error (read): ENOENT"]);
    assertNoToolProtocol(out, ["toolu_ORPHAN_9", "toolu_ORPHAN_8"]);
  });
});

// ---------- property-style: many random histories ----------


const WORDS = ["alpha", "beta", "read", "the", "file", "ok", "error", "\n", "é", "🚀", '"q"', "{}", "[]", "\\", "tool", "call"];
const TOOLS = ["read", "write", "edit", "bash", "ls", "glob", "grep"];
const MEDIA = ["image/png", "image/jpeg", "image/gif", "image/webp"];

interface Gen {
  stored: Stored[];
  ids: Set<string>;
  secrets: Set<string>;
  hasImage: boolean;
}

function generate(seed: number): Gen {
  const r = prng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[int(16)]).join("");
  const words = (max: number) => Array.from({ length: int(max + 1) }, () => pick(WORDS)).join(" ");
  const ids = new Set<string>();
  const secrets = new Set<string>();
  let hasImage = false;
  const newId = () => {
    const id = `${pick(["toolu_", "call_", "fc_"])}ID${hex(20)}`;
    ids.add(id);
    return id;
  };
  const pendingIds: Array<{ id: string; name: string }> = [];
  const block = (): Block => {
    switch (int(6)) {
      case 0:
        return text(int(5) === 0 ? pick(["", " ", "\n"]) : words(6));
      case 1: {
        const name = pick(TOOLS);
        const id = newId();
        pendingIds.push({ id, name });
        const input = int(4) === 0 ? undefined : { arg: words(3), n: int(100), nested: { list: [words(2), int(9)] } };
        return use(id, name, input);
      }
      case 2: {
        // sometimes the matching use, sometimes an orphan
        const p = int(3) === 0 || pendingIds.length === 0 ? { id: newId(), name: pick(TOOLS) } : pendingIds.shift()!;
        return result(p.id, p.name, words(8), int(2) === 0);
      }
      case 3: {
        const b: Block = { type: "reasoning", text: words(5) };
        if (int(2) === 0) {
          const body = `SIG${hex(32)}`;
          secrets.add(body);
          b.opaque = { kind: pick(["signature", "redacted_thinking", "encrypted_content"]), body };
        }
        return b;
      }
      case 4: {
        hasImage = true;
        const data = `IMG${hex(24)}`;
        // sizes on both sides of each provider's limits (Anthropic 5 MB of base64 and 8000 px
        // a side, OpenAI 20 MB): an image taken by one target may be refused by the other
        const img: ImageBlock = { type: "image", mediaType: pick(MEDIA), data, bytes: int(2) === 0 ? int(5_000_000) : int(25_000_000) };
        if (int(2) === 0) {
          img.width = 1 + int(int(3) === 0 ? 10_000 : 4000);
          img.height = 1 + int(4000);
        }
        return img;
      }
      default:
        return text(words(10));
    }
  };
  const stored: Stored[] = [];
  const n = int(12);
  for (let i = 0; i < n; i++) {
    const role: Role = int(2) === 0 ? "user" : "assistant";
    const blocks = Array.from({ length: int(7) }, block);
    stored.push(role === "assistant" && int(4) === 0 ? { role, blocks, status: "interrupted" } : { role, blocks });
  }
  return { stored, ids, secrets, hasImage };
}

type Target = "anthropic" | "openai" | "blind";
const TARGETS: Record<Target, ReplayOptions> = {
  anthropic: SEE,
  openai: { vision: imageTarget("openai", true) },
  blind: BLIND,
};

/** An independent oracle for whether an image crosses as itself: the providers' stated
 * limits, by arithmetic (docs/providers.md; Anthropic counts the base64). */
function taken(img: ImageBlock, target: Target): boolean {
  switch (target) {
    case "anthropic":
      return Math.ceil(img.bytes / 3) * 4 <= 5_242_880 && (img.width ?? 0) <= 8000 && (img.height ?? 0) <= 8000;
    case "openai":
      return img.bytes <= 20 * 1_048_576;
    case "blind":
      return false;
  }
}

/** An independent oracle for what each block must become (null: dropped as empty). */
function expectedPart(b: Block, target: Target): WirePart | null {
  switch (b.type) {
    case "text":
      return b.text.trim() === "" ? null : { type: "text", text: b.text };
    case "tool_use":
      return { type: "text", text: `Tool use: ${b.name}(${b.input === undefined ? "{}" : JSON.stringify(b.input)})` };
    case "tool_result":
      return { type: "text", text: `${b.isError ? "Error" : "Result"} (${b.name}): ${b.output}` };
    case "reasoning":
      return { type: "text", text: `[Reasoning]: ${b.text.trim() ? b.text : "(not shown by the provider)"}` };
    case "image":
      return taken(b, target) ? { ...b } : null; // markers are checked separately
  }
}

describe("property: random histories (seeded)", () => {
  const CASES = 500;

  it(`${CASES} random histories replay with no tool protocol, one message each, parts in order`, () => {
    let totalBlocks = 0;
    const sawKinds = new Set<string>();
    const sawVerdicts = new Set<string>();
    for (let seed = 1; seed <= CASES; seed++) {
      const g = generate(seed * 7919);
      const before = structuredClone(g.stored);
      const answered = new Set(g.stored.flatMap((m) => m.blocks.flatMap((b) => (b.type === "tool_result" ? [b.toolUseId] : []))));
      for (const target of ["anthropic", "openai", "blind"] as const) {
        const vision = target !== "blind";
        let out: WireMessage[];
        try {
          out = replayMessages(g.stored, TARGETS[target]);
        } catch (e) {
          throw new Error(`seed ${seed * 7919} target=${target}: ${(e as Error).message}`);
        }
        expect(out.length, `seed ${seed}`).toBe(g.stored.length);
        assertNoToolProtocol(out, [...g.ids, ...g.secrets]);
        const json = JSON.stringify(out);
        if (!vision) expect(json).not.toMatch(/IMG[0-9a-f]{24}/);
        out.forEach((m, i) => {
          const src = g.stored[i]!;
          expect(m.role).toBe(src.role);
          expect(m.content.length).toBeGreaterThan(0);
          for (const p of m.content) if (p.type === "text") expect(p.text.trim().length).toBeGreaterThan(0);
          const kept = src.blocks.filter((b) => b.type !== "text" || b.text.trim() !== "");
          if (kept.length === 0) {
            expect(m.content).toEqual([{ type: "text", text: EMPTY_MESSAGE_MARKER }]);
            return;
          }
          // a call that never got a result is followed by a line saying so; an interrupted
          // answer ends with the interrupted marker
          const extra = kept.filter((b) => b.type === "tool_use" && !answered.has(b.id)).length;
          const interrupted = src.status === "interrupted" && src.role === "assistant";
          expect(m.content.length, `seed ${seed} msg ${i}`).toBe(kept.length + extra + (interrupted ? 1 : 0));
          if (interrupted) expect(m.content.at(-1)).toEqual({ type: "text", text: INTERRUPTED_MARKER });
          let at = 0;
          kept.forEach((b) => {
            const got = m.content[at++]!;
            if (b.type === "tool_use" && !answered.has(b.id)) expect(m.content[at++]).toEqual({ type: "text", text: noResultProse(b.name) });
            sawKinds.add(b.type);
            const want = expectedPart(b, target);
            if (b.type === "image") sawVerdicts.add(`${target} ${want ? "image" : "marker"}`);
            if (want) {
              expect(got).toEqual(want);
            } else {
              // an image not taken: a text marker naming why, its type and size
              expect(b.type).toBe("image");
              const img = b as ImageBlock;
              expect(got.type, `seed ${seed} ${target}`).toBe("text");
              const t = (got as { text: string }).text;
              expect(t).toMatch(vision ? /^\[Image not seen: larger than this provider accepts \(.*; \w+ takes up to [\d.]+ (MB|px a side)\)\.\]$/ : /^\[Image not seen: the model cannot view images/);
              expect(t).toContain(img.mediaType);
              expect(t).toContain(`${img.bytes} bytes`);
              if (img.width !== undefined && img.height !== undefined) expect(t).toContain(`${img.width}×${img.height}`);
            }
          });
          totalBlocks += kept.length;
        });
      }
      // what the target takes as an image is the only fact that changes the projection
      if (!g.hasImage) {
        expect(replayMessages(g.stored, SEE)).toEqual(replayMessages(g.stored, BLIND));
        expect(replayMessages(g.stored, TARGETS.openai)).toEqual(replayMessages(g.stored, BLIND));
      }
      expect(g.stored).toEqual(before);
    }
    expect(totalBlocks).toBeGreaterThan(CASES); // the generator really produced a big history
    expect([...sawKinds].sort()).toEqual(["image", "reasoning", "text", "tool_result", "tool_use"]);
    // every target both took and refused images: the limits were really on trial
    expect([...sawVerdicts].sort()).toEqual(["anthropic image", "anthropic marker", "blind marker", "openai image", "openai marker"]);
  });
});

describe("Block schema (parseBlocks)", () => {
  it("accepts every kind and round-trips it", () => {
    const blocks: Block[] = [
      text("hello"),
      use("toolu_1", "read", { path: "a.ts" }),
      use("toolu_2", "ls", null),
      result("toolu_1", "read", "contents", false),
      result("toolu_3", "bash", "boom", true),
      { type: "reasoning", text: "think" },
      { type: "reasoning", text: "", opaque: { kind: "signature", body: "sig" } },
      { type: "image", mediaType: "image/png", data: PNG_DATA, bytes: 70 },
      { type: "image", mediaType: "image/png", data: PNG_DATA, bytes: 70, width: 1, height: 1 },
    ];
    const r = parseBlocks(JSON.stringify(blocks));
    expect(r).toEqual({ ok: true, blocks });
    expect(parseBlocks("[]")).toEqual({ ok: true, blocks: [] });
  });

  it("rejects a wrong shape with a message naming the path", () => {
    const cases: Array<[unknown, RegExp]> = [
      [[text("ok"), { type: "tool_result", toolUseId: "x", name: "bash", output: "o", isError: "no" }], /\b1\.isError\b/],
      [[{ type: "tool_use", id: "x", input: {} }], /\b0\.name\b/],
      [[{ type: "image", mediaType: "image/png", data: "x", bytes: -1 }], /\b0\.bytes\b/],
      [[{ type: "image", mediaType: "image/png", data: "x", bytes: 1, width: 0 }], /\b0\.width\b/],
      [[{ type: "reasoning", text: "t", opaque: { kind: "signature" } }], /\b0\.opaque\.body\b/],
      [[text("a"), text("b"), { type: "video", url: "x" }], /\b2(\.type)?\b/],
      [{ type: "text", text: "not an array" }, /\(root\)/],
    ];
    for (const [value, path] of cases) {
      const r = parseBlocks(JSON.stringify(value));
      expect(r.ok, JSON.stringify(value)).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(/fail validation at/);
        expect(r.error, r.error).toMatch(path);
      }
    }
  });

  it("rejects text that is not JSON, saying so", () => {
    const r = parseBlocks("[{not json");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/not valid JSON/);
  });
});

describe("redacted reasoning", () => {
  it("says the provider did not show it instead of sending an empty label, and never its body", () => {
    const [m] = replayMessages(
      [{ role: "assistant", blocks: [{ type: "reasoning", text: "", opaque: { kind: "redacted_thinking", body: "ENCRYPTED-BODY" } }, { type: "text", text: "ok" }] }],
      SEE,
    );
    expect(m!.content[0]).toEqual({ type: "text", text: "[Reasoning]: (not shown by the provider)" });
    expect(JSON.stringify(m)).not.toContain("ENCRYPTED-BODY");
  });
});

describe("images per target", () => {
  const OPENAI: ReplayOptions = { vision: imageTarget("openai", true) };
  const MB = 1_048_576;
  const img = (bytes: number, width?: number, height?: number, mediaType = "image/png"): ImageBlock => ({
    type: "image",
    mediaType,
    data: "IMGDATA",
    bytes,
    ...(width !== undefined ? { width } : {}),
    ...(height !== undefined ? { height } : {}),
  });

  it("an 8 MB image goes to OpenAI as itself and to Anthropic as a marker naming the limit", () => {
    const b = img(8 * MB, 1200, 900);
    expect(blockToPart(b, OPENAI)).toMatchObject({ type: "image", bytes: 8 * MB });
    expect(blockToPart(b, SEE)).toEqual({
      type: "text",
      text: "[Image not seen: larger than this provider accepts (image/png, 8388608 bytes, 1200×900; 10.7 MB as base64; anthropic takes up to 5 MB).]",
    });
  });

  it("an image over 8000 px a side goes to OpenAI as itself and to Anthropic as a marker", () => {
    for (const [w, h] of [[9000, 300], [300, 9000]] as const) {
      const b = img(200_000, w, h);
      expect(blockToPart(b, OPENAI).type).toBe("image");
      expect(blockToPart(b, SEE)).toEqual({
        type: "text",
        text: `[Image not seen: larger than this provider accepts (image/png, 200000 bytes, ${w}×${h}; anthropic takes up to 8000 px a side).]`,
      });
    }
    expect(blockToPart(img(200_000, 8000, 8000), SEE).type).toBe("image");
  });

  it("counts Anthropic's limit on the base64, to the byte", () => {
    // 3,932,160 bytes are exactly 5,242,880 characters of base64; 3 bytes more are 4 more
    expect(blockToPart(img(3_932_160), SEE).type).toBe("image");
    expect(blockToPart(img(3_932_161), SEE).type).toBe("text");
    expect(blockToPart(img(20 * MB), OPENAI).type).toBe("image");
    expect((blockToPart(img(20 * MB + 1), OPENAI) as { text: string }).text).toContain("20 MB; openai takes up to 20 MB");
  });

  it("a format the target does not take crosses as a marker naming the formats it takes", () => {
    expect((blockToPart(img(1000, 10, 10, "image/bmp"), SEE) as { text: string }).text).toBe(
      "[Image not seen: a format this provider does not accept (image/bmp, 1000 bytes, 10×10; anthropic takes image/jpeg, image/png, image/gif, image/webp).]",
    );
  });

  it("the same stored block crosses by each request's target, in any order (the memo keeps one part per verdict)", () => {
    const stored: Stored[] = [{ role: "user", blocks: [text("look"), img(8 * MB, 10, 10)] }];
    for (const opts of [SEE, OPENAI, BLIND, SEE, OPENAI]) {
      const part = only(replayMessages(stored, opts))[1]!;
      expect(part.type).toBe(opts === OPENAI ? "image" : "text");
      if (opts === BLIND) expect((part as { text: string }).text).toMatch(/the model cannot view images/);
      if (opts === SEE) expect((part as { text: string }).text).toMatch(/anthropic takes up to 5 MB/);
    }
    // the very same part object each time for the same verdict (the token cache relies on it)
    expect(only(replayMessages(stored, SEE))[1]).toBe(only(replayMessages(stored, SEE))[1]);
  });
});

