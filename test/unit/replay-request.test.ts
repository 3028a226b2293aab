// How a request is built (src/replay/request.ts): prior history as prose, the live round
// natively, and each normalisation step applied once, to both.
import { describe, expect, it } from "vitest";
import { summaryRequest, turnRequest, type RequestSettings } from "../../src/replay/request.js";
import { BLIND, EMPTY_MESSAGE_MARKER, LEADING_USER_MARKER, imageTarget, replayMessage } from "../../src/replay/replay.js";
import { requestMessages, type WireMessage } from "../../src/provider/types.js";
import type { Block, MessageStatus, Role } from "../../src/record/types.js";

const settings = (over: Partial<RequestSettings> = {}): RequestSettings => ({
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  system: "SYS",
  context: [{ source: "AGENTS.md", text: "rules" }],
  tools: [{ name: "ls", description: "List", inputSchema: { type: "object" } }],
  maxOutputTokens: 32000,
  reasoning: "medium",
  vision: imageTarget("anthropic", true),
  ...over,
});

type Live = { role: Role; blocks: Block[]; status: MessageStatus };
const msg = (role: Role, blocks: Block[], status: MessageStatus = "complete"): Live => ({ role, blocks, status });
const text = (t: string): Block => ({ type: "text", text: t });
const image: Block = { type: "image", mediaType: "image/png", data: "AAAA", bytes: 3, width: 2, height: 2 };
const signed: Block = { type: "reasoning", text: "plan", opaque: { kind: "thinking_signature", body: "SIG" } };
const call: Block = { type: "tool_use", id: "toolu_1", name: "ls", input: { path: "." } };
const result: Block = { type: "tool_result", toolUseId: "toolu_1", name: "ls", output: "a.ts", isError: false };

/** Every part type anywhere in the replayed history. */
const historyPartTypes = (msgs: WireMessage[]): string[] => [...new Set(msgs.flatMap((m) => m.content.map((p) => p.type)))].sort();

describe("turnRequest", () => {
  const prior = [msg("user", [text("earlier")]), msg("assistant", [signed, text("ok"), call]), msg("user", [result])];
  const live = [msg("user", [text("now"), image]), msg("assistant", [signed, text("Looking."), call]), msg("user", [result])];

  it("replays the prior turns as prose and sends the live round natively, in order", () => {
    const req = turnRequest(prior, live, settings());
    expect(historyPartTypes(req.history)).toEqual(["text"]);
    expect(req.history).toHaveLength(3);
    expect(req.history[1]!.content.map((p) => (p.type === "text" ? p.text : p.type))).toEqual([
      "[Reasoning]: plan",
      "ok",
      'Tool use: ls({"path":"."})',
    ]);
    expect(req.live).toEqual([
      { role: "user", content: [{ type: "text", text: "now" }, { type: "image", mediaType: "image/png", data: "AAAA", bytes: 3, width: 2, height: 2 }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "plan", opaque: { kind: "thinking_signature", body: "SIG" } },
          { type: "text", text: "Looking." },
          { type: "tool_call", id: "toolu_1", name: "ls", input: { path: "." } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", callId: "toolu_1", name: "ls", output: "a.ts", isError: false }] },
    ]);
    expect(requestMessages(req)).toHaveLength(6);
    expect(req).toMatchObject({ provider: "anthropic", model: "claude-sonnet-4-5", system: "SYS", maxOutputTokens: 32000, reasoning: "medium" });
    expect(req.tools.map((t) => t.name)).toEqual(["ls"]);
  });

  it("sends an interrupted message of the live round as prose: its reasoning unsigned, a call maybe cut off", () => {
    const cut = msg("assistant", [{ type: "reasoning", text: "half" }, text("partial"), call], "interrupted");
    const req = turnRequest([], [msg("user", [text("go")]), cut], settings());
    expect(req.live![1]).toEqual(replayMessage(cut, { vision: imageTarget("anthropic", true) }));
    expect(historyPartTypes(req.live!)).toEqual(["text"]);
  });

  it("blinds images for a model that cannot see, in the history and in the live round alike", () => {
    const req = turnRequest([msg("user", [image])], [msg("user", [text("and this"), image]), msg("user", [image, result])], settings({ vision: BLIND }));
    const json = JSON.stringify(requestMessages(req));
    expect(json).not.toContain('"type":"image"');
    expect(json).not.toContain("AAAA");
    expect(json.match(/Image not seen/g)).toHaveLength(3);
  });

  it("drops blank text from the live round's native messages as from replayed ones (the wire refuses it)", () => {
    // a model may send whitespace before its calls; a blank text part is refused by Anthropic
    const req = turnRequest([], [msg("user", [text("go")]), msg("assistant", [text("\n\n"), call]), msg("user", [text(" "), result])], settings());
    for (const m of requestMessages(req)) {
      for (const p of m.content) if (p.type === "text") expect(p.text.trim()).not.toBe("");
    }
    expect(req.live![1]!.content.map((p) => p.type)).toEqual(["tool_call"]);
    expect(req.live![2]!.content.map((p) => p.type)).toEqual(["tool_result"]);
  });

  it("says so instead of sending an empty message, live or replayed", () => {
    const req = turnRequest([msg("user", [text("a")]), msg("assistant", [])], [msg("user", [text("go")]), msg("assistant", [text(" ")])], settings());
    expect(req.history[1]!.content).toEqual([{ type: "text", text: EMPTY_MESSAGE_MARKER }]);
    expect(req.live![1]!.content).toEqual([{ type: "text", text: EMPTY_MESSAGE_MARKER }]);
  });

  it("keeps a call or reasoning stored in a user message, and a result stored in an assistant one, as prose", () => {
    const req = turnRequest([], [msg("user", [text("go"), call, signed]), msg("assistant", [result, text("so")])], settings());
    expect(req.live![0]!.content.map((p) => p.type)).toEqual(["text", "text", "text"]);
    expect(req.live![1]!.content).toEqual([
      { type: "text", text: "Result (ls): a.ts" },
      { type: "text", text: "so" },
    ]);
  });

  it("opens with a user message: the marker goes first when the history would start with the assistant", () => {
    const req = turnRequest([msg("assistant", [text("orphan answer")])], [msg("user", [text("go")])], settings());
    expect(req.history[0]).toEqual({ role: "user", content: [{ type: "text", text: LEADING_USER_MARKER }] });
    expect(requestMessages(req).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    // and no marker when the first message is a user's
    expect(turnRequest([], [msg("user", [text("go")])], settings()).history).toEqual([]);
  });
});

describe("summaryRequest", () => {
  it("replays the prefix as blind prose and asks with the prompt last; no context, tools or reasoning", () => {
    const req = summaryRequest(
      [msg("assistant", [text("orphan")]), msg("user", [text("look"), image]), msg("assistant", [signed, call])],
      { system: "SUMMARISE", prompt: "Write the note." },
      { provider: "openai", model: "gpt-4o", maxOutputTokens: 100_000 },
    );
    expect(req.system).toBe("SUMMARISE");
    expect(req.context).toEqual([]);
    expect(req.tools).toEqual([]);
    expect(req.reasoning).toBe("off");
    expect(req.maxOutputTokens).toBe(8192);
    expect(req.history[0]).toEqual({ role: "user", content: [{ type: "text", text: LEADING_USER_MARKER }] });
    expect(historyPartTypes(req.history)).toEqual(["text"]);
    expect(JSON.stringify(req.history)).toContain("Image not seen");
    expect(req.live).toEqual([{ role: "user", content: [{ type: "text", text: "Write the note." }] }]);
    expect(summaryRequest([], { system: "S", prompt: "P" }, { provider: "openai", model: "m", maxOutputTokens: 10 }).maxOutputTokens).toBe(10);
  });
});

describe("images per target in a request", () => {
  // attached under OpenAI: 8 MB, taken there, more than Anthropic takes
  const big: Block = { type: "image", mediaType: "image/png", data: "BIGIMAGE", bytes: 8 * 1_048_576, width: 1200, height: 900 };
  const wide: Block = { type: "image", mediaType: "image/jpeg", data: "WIDEIMAGE", bytes: 90_000, width: 9000, height: 300 };
  const build = (provider: "anthropic" | "openai") =>
    turnRequest(
      [msg("user", [text("look"), big]), msg("assistant", [text("seen")])],
      [msg("user", [text("and these"), wide]), msg("assistant", [call]), msg("user", [result, big])],
      settings({ provider, model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o", vision: imageTarget(provider, true) }),
    );

  it("degrades what Anthropic cannot take to the marker in the history, the live prompt and a tool-result message alike", () => {
    const req = build("anthropic");
    const json = JSON.stringify(requestMessages(req));
    expect(json).not.toContain('"type":"image"');
    expect(json).not.toContain("BIGIMAGE");
    expect(json).not.toContain("WIDEIMAGE");
    expect(json.match(/Image not seen: larger than this provider accepts \(image\/png, 8388608 bytes, 1200×900; 10\.7 MB as base64; anthropic takes up to 5 MB\)/g)).toHaveLength(2);
    expect(json).toContain("Image not seen: larger than this provider accepts (image/jpeg, 90000 bytes, 9000×300; anthropic takes up to 8000 px a side)");
    // nothing else about the projection changes: the live round is still native
    expect(req.live![2]!.content[0]).toMatchObject({ type: "tool_result", callId: "toolu_1" });
  });

  it("sends the same images natively to OpenAI", () => {
    const req = build("openai");
    const images = requestMessages(req).flatMap((m) => m.content.filter((p) => p.type === "image"));
    expect(images).toHaveLength(3);
    expect(JSON.stringify(requestMessages(req))).not.toContain("Image not seen");
  });

  it("holds Anthropic's many-image rule: past 20 images in one request, each must be within 2000 px a side", () => {
    const shot = (i: number): Block => ({ type: "image", mediaType: "image/png", data: `SHOT${i}`, bytes: 50_000, width: 3000, height: 1800 });
    const small: Block = { type: "image", mediaType: "image/png", data: "SMALL", bytes: 500, width: 100, height: 100 };
    const prior = (n: number) => Array.from({ length: n }, (_, i) => msg("user", [text(`shot ${i}`), shot(i)]));
    const sent = (req: ReturnType<typeof turnRequest>) => requestMessages(req).flatMap((m) => m.content.filter((p) => p.type === "image")).length;
    const anthropic = (n: number, live: Block[] = [text("go")]) => turnRequest(prior(n), [msg("user", live)], settings({ vision: imageTarget("anthropic", true) }));
    expect(sent(anthropic(20))).toBe(20);
    // the 21st image, in the live prompt, turns every 3000 px shot into a marker saying why
    const req = anthropic(20, [text("and this"), small]);
    expect(sent(req)).toBe(1);
    expect(JSON.stringify(requestMessages(req))).toContain("anthropic takes up to 2000 px a side in a request of more than 20 images (this one has 21)");
    // OpenAI has no such rule
    expect(sent(turnRequest(prior(21), [msg("user", [text("go")])], settings({ provider: "openai", model: "gpt-4o", vision: imageTarget("openai", true) })))).toBe(21);
  });

  // each image fits, but not all of them in one request: Anthropic's request cap (32 MB, the
  // body whole) and its count (100 a request), OpenAI's 500 images and 50 MB. Before, every
  // later request of such a session was refused.
  describe("per request: the newest images that fit are sent, the older ones cross as markers", () => {
    const images = (req: ReturnType<typeof turnRequest>) => requestMessages(req).flatMap((m) => m.content.filter((p) => p.type === "image"));
    const base64 = (req: ReturnType<typeof turnRequest>) => images(req).reduce((n, p) => n + Math.ceil((p as { bytes: number }).bytes / 3) * 4, 0);
    const photo = (i: number, bytes: number): Block => ({ type: "image", mediaType: "image/jpeg", data: `PHOTO${i}`, bytes, width: 1500, height: 1000 });

    it("Anthropic: eight 3.5 MB photos (4.7 MB of base64 each, each taken) do not all go in one request", () => {
      const prior = Array.from({ length: 7 }, (_, i) => msg("user", [text(`photo ${i}`), photo(i, 3_500_000)]));
      const req = turnRequest(prior, [msg("user", [text("and this"), photo(7, 3_500_000)])], settings());
      const sent = images(req);
      // what goes stays under the request cap with room for the text, and it is the newest
      expect(base64(req)).toBeLessThanOrEqual(24 * 1_048_576);
      expect(sent.length).toBe(5);
      expect(sent.map((p) => (p as { data: string }).data)).toEqual(["PHOTO3", "PHOTO4", "PHOTO5", "PHOTO6", "PHOTO7"]);
      const json = JSON.stringify(requestMessages(req));
      expect(json.match(/Image not seen: more images than this provider accepts in one request \(image\/jpeg, 3500000 bytes, 1500×1000; anthropic takes up to 100 images or 24 MB of them as base64 in one request; the newest are sent\)/g)).toHaveLength(3);
      // OpenAI takes them all
      expect(images(turnRequest(prior, [msg("user", [text("and this"), photo(7, 3_500_000)])], settings({ provider: "openai", model: "gpt-4o", vision: imageTarget("openai", true) })))).toHaveLength(8);
    });

    it("Anthropic: 101 small screenshots, the oldest one crosses as a marker; OpenAI's cap is 500", () => {
      const shot = (i: number): Block => ({ type: "image", mediaType: "image/png", data: `S${i}`, bytes: 2_000, width: 200, height: 100 });
      const prior = Array.from({ length: 100 }, (_, i) => msg("user", [shot(i)]));
      const req = turnRequest(prior, [msg("user", [text("one more"), shot(100)])], settings());
      expect(images(req)).toHaveLength(100);
      expect((images(req)[0] as { data: string }).data).toBe("S1");
      expect(JSON.stringify(req.history![0])).toContain("more images than this provider accepts in one request");
      const many = Array.from({ length: 501 }, (_, i) => msg("user", [shot(i)]));
      expect(images(turnRequest(many, [msg("user", [text("go")])], settings({ provider: "openai", model: "gpt-4o", vision: imageTarget("openai", true) })))).toHaveLength(500);
    });
  });
});

