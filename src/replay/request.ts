// How a request is built: the prepared prior history as prose, then the turn in progress
// natively (call ids kept, signed reasoning kept), so the provider's pairing rules hold
// inside the turn and never across it. Pure: no I/O; redaction is the caller's door.
import type { Block, StoredMessage } from "../record/types.js";
import type { ContextItem, ProviderName, ReasoningLevel, Request, ToolSchema, WireMessage, WirePart } from "../provider/types.js";
import { LEADING_USER_MARKER, replayMessage, replayMessages } from "./replay.js";

/** Everything of a request that is not its messages. */
export interface RequestSettings {
  provider: ProviderName;
  model: string;
  system: string;
  context: ContextItem[];
  tools: ToolSchema[];
  maxOutputTokens: number;
  reasoning: ReasoningLevel;
  /** whether the model can see images */
  vision: boolean;
}

type Replayable = { role: StoredMessage["role"]; blocks: Block[] };

/** The native wire form of this turn's own messages (call ids kept, signed reasoning kept). */
function nativeMessage(m: Replayable): WireMessage {
  const content: WirePart[] = [];
  for (const b of m.blocks) {
    switch (b.type) {
      case "text":
        if (b.text) content.push({ type: "text", text: b.text });
        break;
      case "tool_use":
        content.push({ type: "tool_call", id: b.id, name: b.name, input: b.input });
        break;
      case "tool_result":
        content.push({ type: "tool_result", callId: b.toolUseId, name: b.name, output: b.output, isError: b.isError });
        break;
      case "reasoning":
        content.push(b.opaque ? { type: "reasoning", text: b.text, opaque: b.opaque } : { type: "reasoning", text: b.text });
        break;
      case "image":
        content.push({ type: "image", mediaType: b.mediaType, data: b.data, bytes: b.bytes, ...(b.width ? { width: b.width } : {}), ...(b.height ? { height: b.height } : {}) });
        break;
      default: {
        const never: never = b;
        throw new Error(`unknown block ${JSON.stringify(never)}`);
      }
    }
  }
  return { role: m.role, content };
}

/**
 * The request for one model call of a turn. `prior` is the prepared history before the
 * turn; `live` is the turn's stored messages so far: its prompt, then each answer and its
 * tool results. Complete live messages cross natively; an interrupted one as prose.
 */
export function turnRequest(
  prior: ReadonlyArray<Replayable>,
  live: ReadonlyArray<Replayable & { status: StoredMessage["status"] }>,
  settings: RequestSettings,
): Request {
  const opts = { vision: settings.vision };
  const history: WireMessage[] = replayMessages(prior, opts);
  const [prompt, ...rounds] = live;
  if (prompt) history.push(replayMessage(prompt, opts));
  for (const m of rounds) history.push(m.status === "complete" ? nativeMessage(m) : replayMessage(m, opts));
  // A session's first stored message is its first prompt, unless that row could not be read
  // on load; a request opening with an assistant message is refused by Anthropic.
  if (history[0]?.role !== "user") history.unshift({ role: "user", content: [{ type: "text", text: LEADING_USER_MARKER }] });
  return {
    provider: settings.provider,
    model: settings.model,
    system: settings.system,
    context: settings.context,
    history,
    tools: settings.tools,
    maxOutputTokens: settings.maxOutputTokens,
    reasoning: settings.reasoning,
  };
}

/** The most a summary may take; a handover note is asked to stay under ~1,500 words. */
const SUMMARY_MAX_OUTPUT_TOKENS = 8192;

/**
 * The request that asks the model for a summary of `prefix`: the prefix as prose (images
 * blinded: the note is words), then the prompt. No project context, no tools, no reasoning.
 */
export function summaryRequest(
  prefix: ReadonlyArray<Replayable>,
  parts: { system: string; prompt: string },
  settings: { provider: ProviderName; model: string; maxOutputTokens: number },
): Request {
  const history = replayMessages(prefix, { vision: false });
  history.push({ role: "user", content: [{ type: "text", text: parts.prompt }] });
  if (history[0]?.role !== "user") history.unshift({ role: "user", content: [{ type: "text", text: LEADING_USER_MARKER }] });
  return {
    provider: settings.provider,
    model: settings.model,
    system: parts.system,
    context: [],
    history,
    tools: [],
    maxOutputTokens: Math.min(settings.maxOutputTokens, SUMMARY_MAX_OUTPUT_TOKENS),
    reasoning: "off",
  };
}
