import { describe, expect, it } from "vitest";
import { exportJson, exportMarkdown, EXPORT_FORMAT } from "../../src/session/controller/export.js";
import type { Session, StoredMessage } from "../../src/record/types.js";

const IMAGE_DATA = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const SIGNATURE = "RXNpZ25hdHVyZS1ib2R5LXRoYXQtbXVzdC1ub3QtbGVhaw==";

const session: Session = {
  id: "a1b2c3d4e5f6",
  title: "Fix the parser",
  workspace: "/home/me/project",
  createdAt: "2026-11-30T10:00:00.000Z",
  updatedAt: "2026-11-30T10:05:00.000Z",
};

const messages: StoredMessage[] = [
  {
    id: 1,
    sessionId: session.id,
    seq: 1,
    role: "user",
    status: "complete",
    createdAt: "2026-11-30T10:00:01.000Z",
    blocks: [
      { type: "text", text: "Why does this fail?" },
      { type: "image", mediaType: "image/png", data: IMAGE_DATA, bytes: 70, width: 1, height: 1 },
      { type: "image", mediaType: "image/jpeg", data: "/9j/4AAQSkZJRg==", bytes: 12345 },
    ],
  },
  {
    id: 2,
    sessionId: session.id,
    seq: 2,
    role: "assistant",
    status: "complete",
    model: "claude-test",
    createdAt: "2026-11-30T10:00:02.000Z",
    blocks: [
      { type: "reasoning", text: "Look at the file first.\nThen decide.", opaque: { kind: "signature", body: SIGNATURE } },
      { type: "text", text: "Let me read it." },
      { type: "tool_use", id: "call_7", name: "read_file", input: { path: "src/parse.ts" } },
    ],
  },
  {
    id: 3,
    sessionId: session.id,
    seq: 3,
    role: "user",
    status: "complete",
    createdAt: "2026-11-30T10:00:03.000Z",
    blocks: [
      { type: "tool_result", toolUseId: "call_7", name: "read_file", output: "const x = ```;\nexport {}", isError: false },
      { type: "tool_result", toolUseId: "call_8", name: "bash", output: "command not found", isError: true },
    ],
  },
  {
    id: 4,
    sessionId: session.id,
    seq: 4,
    role: "assistant",
    status: "interrupted",
    model: "claude-test",
    createdAt: "2026-11-30T10:00:04.000Z",
    blocks: [{ type: "text", text: "The template lit" }],
  },
];

describe("exportMarkdown", () => {
  const md = exportMarkdown(session, messages);

  it("has the title, workspace and one header per message with role, model and status", () => {
    expect(md.startsWith("# Fix the parser\n")).toBe(true);
    expect(md).toContain("- Workspace: `/home/me/project`");
    expect(md).toContain("- Session: `a1b2c3d4e5f6`");
    expect(md).toContain("## 1. User\n");
    expect(md).toContain("## 2. Assistant · claude-test\n");
    expect(md).toContain("## 4. Assistant · claude-test · interrupted\n");
    expect(md.indexOf("## 1.")).toBeLessThan(md.indexOf("## 2."));
    expect(md.indexOf("## 3.")).toBeLessThan(md.indexOf("## 4."));
  });

  it("shows text, tool calls as fenced JSON and results fenced", () => {
    expect(md).toContain("Why does this fail?");
    expect(md).toContain('**Tool call** `read_file` (id `call_7`)\n\n```json\n{\n  "path": "src/parse.ts"\n}\n```');
    // output holding ``` gets a longer fence so it cannot close the block early
    expect(md).toContain("**Tool result** `read_file` (for `call_7`)\n\n````\nconst x = ```;\nexport {}\n````");
    expect(md).toContain("**Tool result (error)** `bash` (for `call_8`)\n\n```\ncommand not found\n```");
  });

  it("quotes reasoning and names opaque bodies without copying them", () => {
    expect(md).toContain("> **Reasoning**\n>\n> Look at the file first.\n> Then decide.");
    expect(md).toContain(`> _[opaque signature from the provider, ${SIGNATURE.length} chars, not shown]_`);
    expect(md).not.toContain(SIGNATURE);
  });

  it("describes images in one line and never includes base64", () => {
    expect(md).toContain("_[image: image/png, 70 bytes, 1×1]_");
    expect(md).toContain("_[image: image/jpeg, 12,345 bytes]_");
    expect(md).not.toContain(IMAGE_DATA);
    expect(md).not.toContain("/9j/4AAQ");
    expect(md).not.toMatch(/data:image/);
  });

  it("names an untitled session as such", () => {
    expect(exportMarkdown({ ...session, title: "" }, []).split("\n")[0]).toBe("# Untitled session");
  });
});

describe("exportJson", () => {
  it("is the full record, parseable, with nothing dropped", () => {
    const parsed = JSON.parse(exportJson(session, messages)) as {
      format: string;
      version: number;
      session: Session;
      messages: StoredMessage[];
    };
    expect(parsed.format).toBe(EXPORT_FORMAT);
    expect(parsed.version).toBe(1);
    expect(parsed.session).toEqual(session);
    expect(parsed.messages).toEqual(messages);
  });

  it("carries no credential-shaped fields", () => {
    const json = exportJson(session, messages);
    expect(json).not.toMatch(/api[_-]?key|authorization|x-api-key|bearer/i);
  });
});

describe("export of a session with a /compact summary", () => {
  const summary = { id: 7, sessionId: session.id, fromSeq: 1, toSeq: 2, text: "They read the parser.\n\x1b[31mred\x1b[0m", model: "claude-test", createdAt: "2026-11-30T10:03:00.000Z" };

  it("Markdown: the summary stands after the last message it replaced, named by that run, its text inert", () => {
    const md = exportMarkdown(session, messages, [summary]);
    expect(md).toContain("- Summaries: 1");
    const heading = md.indexOf("## Summary of messages 1–2 (compact) · claude-test");
    expect(heading).toBeGreaterThan(md.indexOf("## 2. Assistant"));
    const third = md.indexOf("## 3. ");
    if (third >= 0) expect(heading).toBeLessThan(third);
    expect(md).toContain("> They read the parser.");
    expect(md).not.toContain("\x1b[31m");
  });

  it("JSON: the summaries with the run of messages each replaced", () => {
    const doc = JSON.parse(exportJson(session, messages, [summary])) as { summaries: unknown[] };
    expect(doc.summaries).toEqual([{ id: 7, fromSeq: 1, toSeq: 2, model: "claude-test", createdAt: summary.createdAt, text: summary.text }]);
    expect((JSON.parse(exportJson(session, messages)) as { summaries: unknown[] }).summaries).toEqual([]);
  });
});
