// /copy: text to the system clipboard with OSC 52, which the terminal carries out, so it works
// over SSH and, wrapped for passthrough, inside tmux. Some terminals need it enabled (README).
// What is copied: the selected tool call (its command and output) or message, else the last
// answer; `/copy code` its last code block.
import { assertNever, type Block, type StoredMessage, type ToolUseBlock } from "../record/types.js";
import type { ToolCallState } from "./toolcall.js";

/** Terminals refuse (or cut) longer OSC 52 payloads: xterm's default is about 100,000 bytes of
 * base64; this many bytes of text encode within it. */
export const MAX_COPY_BYTES = 74_000;

/** The bytes that ask the terminal to put `text` on the clipboard; `tmux`: wrapped in tmux's
 * DCS passthrough (which needs `set -g allow-passthrough on`, or tmux's own set-clipboard). */
export function osc52(text: string, tmux: boolean): { bytes: string; cut: boolean } {
  let data = Buffer.from(text, "utf8");
  const cut = data.length > MAX_COPY_BYTES;
  if (cut) {
    data = data.subarray(0, MAX_COPY_BYTES);
    // a cut must not split a character
    data = Buffer.from(data.toString("utf8").replace(/\uFFFD+$/, ""), "utf8");
  }
  const seq = `\x1b]52;c;${data.toString("base64")}\x07`;
  return { bytes: tmux ? `\x1bPtmux;${seq.replaceAll("\x1b", "\x1b\x1b")}\x1b\\` : seq, cut };
}

/** the text of a message's text blocks (an answer's prose, a prompt) */
export function messageText(msg: StoredMessage): string {
  const parts: string[] = [];
  for (const b of msg.blocks) {
    const t = blockText(b);
    if (t !== undefined) parts.push(t);
  }
  return parts.join("\n\n");
}

function blockText(b: Block): string | undefined {
  switch (b.type) {
    case "text":
      return b.text;
    case "reasoning":
    case "tool_use":
    case "tool_result":
    case "image":
      return undefined;
    default:
      return assertNever(b, "block");
  }
}

/** a tool call as a person would paste it: the command (or input) and what it said */
export function toolCallText(b: ToolUseBlock, state: ToolCallState): string {
  const input = b.input && typeof b.input === "object" ? (b.input as Record<string, unknown>) : {};
  const head = typeof input.command === "string" ? `$ ${input.command}` : `${b.name} ${JSON.stringify(b.input)}`;
  return state.kind === "done" ? `${head}\n${state.output}` : head;
}

/** the last fenced code block of a markdown text, without its fences */
export function lastCodeBlock(text: string): string | undefined {
  const blocks = [...text.matchAll(/^ {0,3}(`{3,}|~{3,})[^\n]*\n([\s\S]*?)^ {0,3}\1[ \t]*$/gm)];
  const last = blocks[blocks.length - 1];
  return last ? last[2]!.replace(/\n$/, "") : undefined;
}
