// A Responses reasoning item keeps its encrypted item (the opaque body) only when the item it
// preceded is sent again as its own item, right after it: a call, or a message with text that
// is not blank. Before a message of blank text (the live round drops it), an item of a type
// the adapter ignores, another reasoning item, or nothing, it keeps its text only and crosses
// as prose; otherwise the live round would put it before an item it did not precede.
import { describe, expect, it } from "vitest";
import { OPAQUE_OPENAI_REASONING } from "../../src/provider/responses/encode.js";
import { ResponsesStreamHandler } from "../../src/provider/responses/stream.js";
import { AnswerBudget } from "../../src/provider/budget.js";
import type { SseFrame } from "../../src/provider/sse.js";
import type { Block } from "../../src/record/types.js";

type Ev = Record<string, unknown>;

const reasoning = (i: number, text: string): Ev[] => [
  { type: "response.output_item.added", output_index: i, item: { type: "reasoning", id: `rs_${i}`, summary: [] } },
  { type: "response.reasoning_summary_text.delta", output_index: i, summary_index: 0, delta: text },
  {
    type: "response.output_item.done",
    output_index: i,
    item: { type: "reasoning", id: `rs_${i}`, summary: [{ type: "summary_text", text }], encrypted_content: `enc_${i}` },
  },
];
const message = (i: number, text: string): Ev[] => [
  { type: "response.output_item.added", output_index: i, item: { type: "message", id: `m_${i}`, role: "assistant", content: [] } },
  ...(text ? [{ type: "response.output_text.delta", output_index: i, delta: text }] : []),
  { type: "response.output_item.done", output_index: i, item: { type: "message", id: `m_${i}`, role: "assistant", content: [{ type: "output_text", text }] } },
];
const call = (i: number): Ev[] => [
  { type: "response.output_item.added", output_index: i, item: { type: "function_call", id: `fc_${i}`, call_id: `call_${i}`, name: "ls", arguments: "" } },
  { type: "response.function_call_arguments.done", output_index: i, arguments: "{}" },
  { type: "response.output_item.done", output_index: i, item: { type: "function_call", id: `fc_${i}`, call_id: `call_${i}`, name: "ls", arguments: "{}" } },
];
const hosted = (i: number): Ev[] => [
  { type: "response.output_item.added", output_index: i, item: { type: "web_search_call", id: `ws_${i}` } },
  { type: "response.output_item.done", output_index: i, item: { type: "web_search_call", id: `ws_${i}`, status: "completed" } },
];
const done: Ev = { type: "response.completed", response: { status: "completed", usage: { input_tokens: 10, output_tokens: 5 } } };

function blocks(...items: Ev[][]): Block[] {
  const h = new ResponsesStreamHandler({ emit: () => {}, budget: new AnswerBudget(1 << 20) }, "OpenAI");
  for (const [n, e] of [...items.flat(), done].entries()) h.onFrame({ event: String(e["type"]), data: JSON.stringify({ sequence_number: n, ...e }) } as SseFrame);
  return h.result().blocks;
}

const kept = (b: Block | undefined): boolean => b?.type === "reasoning" && b.opaque?.kind === OPAQUE_OPENAI_REASONING;

describe("where a Responses reasoning item can go back", () => {
  it("before a call or a message with text: kept whole", () => {
    expect(kept(blocks(reasoning(0, "think"), call(1))[0])).toBe(true);
    expect(kept(blocks(reasoning(0, "think"), message(1, "Checking."), call(2))[0])).toBe(true);
  });

  const notInPlace: Array<[string, Ev[][]]> = [
    ["a message of blank text", [reasoning(0, "think"), message(1, " \n\t"), call(2)]],
    ["an empty message", [reasoning(0, "think"), message(1, ""), call(2)]],
    ["an item of a type the adapter ignores", [reasoning(0, "think"), hosted(1), call(2)]],
    ["another reasoning item", [reasoning(0, "think"), reasoning(1, "more"), call(2)]],
    ["nothing (the answer ended)", [reasoning(0, "think")]],
  ];
  for (const [what, items] of notInPlace) {
    it(`before ${what}: its text only`, () => {
      const out = blocks(...items);
      expect(out[0]).toEqual({ type: "reasoning", text: "think" });
    });
  }
});
