// The Markdown export is printed to a terminal (`albedo-tui export ID`, Markdown by default) and
// read with `cat`: what a tool or the model wrote must arrive there as inert text.
import { describe, expect, it } from "vitest";
import { exportJson, exportMarkdown } from "../../src/session/controller/export.js";
import type { Session, StoredMessage } from "../../src/record/types.js";

const ESC = "\x1b";
const session: Session = { id: "s1", title: `title ${ESC}]0;PWNED-TITLE\x07`, workspace: "/w", createdAt: "t", updatedAt: "t" };
const msg = (seq: number, role: "user" | "assistant", blocks: StoredMessage["blocks"]): StoredMessage => ({
  id: seq,
  sessionId: "s1",
  seq,
  role,
  status: "complete",
  createdAt: "t",
  blocks,
});
const messages: StoredMessage[] = [
  msg(1, "user", [{ type: "text", text: "run it" }]),
  msg(2, "assistant", [
    { type: "reasoning", text: `thinking ${ESC}[2J` },
    { type: "text", text: `answer \u202eevil\u202c ${ESC}[97;3H` },
    { type: "tool_use", id: "c1", name: "bash", input: { command: "cat \u009d0;PWNED-INPUT\u009c" } },
  ]),
  msg(3, "user", [
    { type: "tool_result", toolUseId: "c1", name: "bash", output: `out ${ESC}]52;c;UFdORUQ=${ESC}\\ CLIP-GONE \u009b31mRED\r\nnext`, isError: false },
  ]),
];

describe("Markdown export carries no terminal control sequences", () => {
  it("strips escape sequences, C1 controls and bidi overrides from every part, keeping the words", () => {
    const md = exportMarkdown(session, messages);
    for (const bad of [ESC, "\x07", "\u009b", "\u009d", "\u009c", "\u202e", "PWNED", "UFdORUQ="]) expect(md).not.toContain(bad);
    for (const kept of ["CLIP-GONE", "RED", "next", "answer", "evil", "thinking", "\"command\": \"cat \""]) expect(md).toContain(kept);
  });

  it("the JSON export still holds the record exactly", () => {
    const parsed = JSON.parse(exportJson(session, messages)) as { messages: StoredMessage[] };
    expect(parsed.messages).toEqual(messages);
  });
});
