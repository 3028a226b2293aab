// How a stored part crosses to Anthropic, shared by the body, its cache marks and the stream
// parser: which reasoning is native thinking (an opaque body this adapter wrote), and which
// parts are blank (the API refuses blank text blocks, so those are not sent).
import { assertNever } from "../../record/types.js";
import type { ReasoningPart, WirePart } from "../types.js";

/** Opaque kinds this adapter writes and reads back. */
export const OPAQUE_THINKING_SIGNATURE = "thinking_signature";
export const OPAQUE_REDACTED_THINKING = "redacted_thinking";

/** Parts that would cross as a blank text block. */
export function isBlank(part: WirePart): boolean {
  switch (part.type) {
    case "text":
      return isBlankText(part.text);
    case "reasoning":
      return !nativeThinking(part) && isBlankText(part.text);
    case "image":
    case "tool_call":
    case "tool_result":
      return false;
    default:
      return assertNever(part, "wire part");
  }
}

/** Empty or whitespace only (the characters trim() removes), without copying the text. */
export function isBlankText(s: string): boolean {
  return !/\S/.test(s);
}

export function nativeThinking(part: ReasoningPart): boolean {
  return part.opaque?.kind === OPAQUE_THINKING_SIGNATURE || part.opaque?.kind === OPAQUE_REDACTED_THINKING;
}
