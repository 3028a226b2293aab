// Opaque provider bodies and the key redactor: a thinking signature, redacted thinking or a
// Responses reasoning item (whose summary is plain text inside it) that holds a configured
// key, or a piece of one by the redactor's rules, is dropped whole rather than stored or
// sent as is; the redacted text stays, and crosses as prose. A body with nothing to cut is
// kept (the same object).
import { describe, expect, it } from "vitest";
import { redactBlocks, redactRequest } from "../../src/session/turn/redact.js";
import { KEY_PIECE, redactorFor, REDACTED } from "../../src/config/secrets.js";
import { OPAQUE_THINKING_SIGNATURE, OPAQUE_REDACTED_THINKING } from "../../src/provider/anthropic/parts.js";
import { OPAQUE_OPENAI_REASONING } from "../../src/provider/responses/encode.js";
import type { Block, ReasoningBlock } from "../../src/record/types.js";
import type { Request } from "../../src/provider/types.js";

const KEY = "sk-proj-opaque-SECRET-0123456789abcdef";
const redact = redactorFor(() => [KEY]);

/** A Responses reasoning item as the adapter keeps it: the item's JSON. */
function item(summary: string): string {
  return JSON.stringify({ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: summary }], encrypted_content: "gAAAAB-ciphertext" });
}

const reasoning = (text: string, kind: string, body: string): ReasoningBlock => ({ type: "reasoning", text, opaque: { kind, body } });

describe("opaque bodies that hold a key", () => {
  // each way a key can sit in an opaque body, by kind: the whole key, its head or its tail
  // (the redactor's pieces), in the text the body covers, or JSON-escaped inside the body
  const head = KEY.slice(0, KEY_PIECE + 2);
  const tail = KEY.slice(-KEY_PIECE);
  const escaped = JSON.stringify({ type: "reasoning", summary: [{ type: "summary_text", text: "x" }], encrypted_content: "c", note: "k" }).replace(
    '"note":"k"',
    `"note":"${[...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"`,
  );
  const cases: Array<[string, ReasoningBlock]> = [
    ["a Responses item whose summary quotes the key", reasoning(`I will use ${KEY}.`, OPAQUE_OPENAI_REASONING, item(`I will use ${KEY}.`))],
    ["a Responses item holding the key's head only in its body", reasoning("plain", OPAQUE_OPENAI_REASONING, item(`cut: ${head}`))],
    ["a Responses item holding the key's tail only in its body", reasoning("plain", OPAQUE_OPENAI_REASONING, item(`…${tail} was cut`))],
    ["a Responses item with the key escaped as \\u sequences", reasoning("plain", OPAQUE_OPENAI_REASONING, escaped)],
    ["a thinking signature over text that quotes the key", reasoning(`the key is ${KEY}`, OPAQUE_THINKING_SIGNATURE, "EqQBCkYIBRgCKkA-signature")],
    ["a signature that itself contains the key", reasoning("thinking", OPAQUE_THINKING_SIGNATURE, `Eq${KEY}Bk`)],
    ["redacted thinking whose data contains a piece of the key", reasoning("", OPAQUE_REDACTED_THINKING, `EmwK${head}Aa`)],
  ];

  for (const [name, block] of cases) {
    it(`${name}: dropped, the text redacted, nothing of the key left`, () => {
      const [out] = redactBlocks([block], redact) as [ReasoningBlock];
      expect(out.opaque).toBeUndefined();
      expect(out.text).toBe(redact(block.text));
      const json = JSON.stringify(out);
      expect(json).not.toContain(head);
      expect(json).not.toContain(tail);
      // the same rule at the request's last gate (the live round's reasoning part)
      const req: Request = {
        provider: "openai",
        model: "gpt-5",
        system: "s",
        context: [],
        history: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        live: [{ role: "assistant", content: [{ type: "reasoning", text: block.text, opaque: block.opaque! }, { type: "text", text: "done" }] }],
        tools: [],
        maxOutputTokens: 100,
        reasoning: "high",
      };
      const part = redactRequest(req, redact).live![0]!.content[0]!;
      expect(part).toEqual({ type: "reasoning", text: redact(block.text) });
    });
  }

  it("keeps a body with nothing to cut, the same objects", () => {
    const blocks: Block[] = [
      reasoning("thinking about tabs", OPAQUE_THINKING_SIGNATURE, "EqQBCkYIBRgCKkA-signature"),
      reasoning("", OPAQUE_REDACTED_THINKING, "EmwKAhgBEgy3va3pzix"),
      reasoning("summary", OPAQUE_OPENAI_REASONING, item("summary")),
    ];
    expect(redactBlocks(blocks, redact)).toBe(blocks);
  });
});
