// Export of a stored session: pure functions of the record (every surface reads the same
// record: docs/architecture.md, Design rules). Markdown is for people, so image and opaque
// bodies are named, never copied, and what tools and models wrote is made inert:
// `albedo-tui export ID` prints it to a terminal, and the file is read with cat. JSON is the
// record itself.
import type { Block, Session, StoredMessage } from "../../record/types.js";
import { assertNever } from "../../record/types.js";
import { messageOf } from "../../record/errors.js";
import { sanitizeForTerminal } from "../../text/sanitize.js";
import { formatInt } from "../../record/numbers.js";
import type { StoredSummary } from "../../compaction/types.js";
import { summariesInOrder, summaryHeading } from "../../compaction/heading.js";

export const EXPORT_FORMAT = "albedo-tui/session";
const EXPORT_VERSION = 1;

/** A fence longer than any backtick run inside the text, so content cannot close it. */
function fence(text: string, lang = ""): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = "`".repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${text}${text.endsWith("\n") ? "" : "\n"}${f}`;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((l) => (l ? `> ${l}` : ">"))
    .join("\n");
}

function inlineCode(text: string): string {
  const tick = text.includes("`") ? "``" : "`";
  const pad = tick === "``" ? " " : "";
  return `${tick}${pad}${text}${pad}${tick}`;
}

function describeImage(b: { mediaType: string; bytes: number; width?: number; height?: number }): string {
  const dims = b.width !== undefined && b.height !== undefined ? `, ${b.width}×${b.height}` : "";
  return `${b.mediaType}, ${formatInt(b.bytes)} bytes${dims}`;
}

function stringifyInput(input: unknown): string {
  try {
    return JSON.stringify(input, null, 2) ?? "null";
  } catch (e) {
    return `(input could not be shown as JSON: ${messageOf(e)})`;
  }
}

function blockMarkdown(b: Block): string {
  switch (b.type) {
    case "text":
      return b.text;
    case "tool_use":
      return `**Tool call** ${inlineCode(b.name)} (id ${inlineCode(b.id)})\n\n${fence(stringifyInput(b.input), "json")}`;
    case "tool_result":
      return (
        `**Tool result${b.isError ? " (error)" : ""}** ${inlineCode(b.name)} (for ${inlineCode(b.toolUseId)})\n\n` +
        fence(b.output)
      );
    case "reasoning": {
      const parts = ["**Reasoning**"];
      if (b.text) parts.push(b.text);
      if (b.opaque) parts.push(`_[opaque ${b.opaque.kind} from the provider, ${b.opaque.body.length} chars, not shown]_`);
      return quote(parts.join("\n\n"));
    }
    case "image":
      return `_[image: ${describeImage(b)}]_`;
    default:
      return assertNever(b, "block");
  }
}

function roleName(m: StoredMessage): string {
  switch (m.role) {
    case "user":
      return "User";
    case "assistant":
      return "Assistant";
    default:
      return assertNever(m.role, "role");
  }
}

/** A /compact summary at its place: after the last message it replaced. */
function summaryMarkdown(s: StoredSummary): string {
  return `## ${summaryHeading(s)} · ${s.model}\n\n_${s.createdAt}_\n\n${quote(s.text)}`;
}

export function exportMarkdown(session: Session, messages: StoredMessage[], summaries: readonly StoredSummary[] = []): string {
  const out: string[] = [];
  out.push(`# ${session.title.trim() || "Untitled session"}`);
  out.push(
    [
      `- Session: ${inlineCode(session.id)}`,
      `- Workspace: ${inlineCode(session.workspace)}`,
      `- Created: ${session.createdAt}`,
      `- Updated: ${session.updatedAt}`,
      `- Messages: ${messages.length}`,
      ...(summaries.length ? [`- Summaries: ${summaries.length}`] : []),
    ].join("\n"),
  );
  const waiting = summariesInOrder(summaries);
  for (const m of messages) {
    while (waiting[0] && waiting[0].toSeq < m.seq) out.push(summaryMarkdown(waiting.shift()!));
    const tags = [m.model, m.status === "interrupted" ? "interrupted" : undefined].filter((t) => t !== undefined);
    out.push(`## ${m.seq}. ${roleName(m)}${tags.length ? ` · ${tags.join(" · ")}` : ""}\n\n_${m.createdAt}_`);
    if (m.blocks.length === 0) out.push("_(no content)_");
    for (const b of m.blocks) out.push(blockMarkdown(b));
  }
  for (const s of waiting) out.push(summaryMarkdown(s));
  return sanitizeForTerminal(out.join("\n\n") + "\n");
}

/** The record itself; each summary names the run of messages it replaced (fromSeq..toSeq). */
export function exportJson(session: Session, messages: StoredMessage[], summaries: readonly StoredSummary[] = []): string {
  const sums = summariesInOrder(summaries).map((s) => ({ id: s.id, fromSeq: s.fromSeq, toSeq: s.toSeq, model: s.model, createdAt: s.createdAt, text: s.text }));
  return JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, session, messages, summaries: sums }, null, 2) + "\n";
}
