// The stored record: one history that every surface reads (docs/architecture.md,
// Design rules).
// Adding a Block kind must break compilation wherever blocks are projected:
// every switch over Block ends in assertNever.

export interface TextBlock {
  type: "text";
  text: string;
  /** OpenAI Responses: the message item's phase, resent with it in its own live round (the
   * SDK: dropping it degrades gpt-5.3-codex and later); never in replayed prose */
  phase?: TextPhase;
}

export type TextPhase = "commentary" | "final_answer";

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  name: string;
  output: string;
  isError: boolean;
}

/** An opaque provider body: a thinking signature, redacted thinking, encrypted reasoning. */
export interface OpaqueBody {
  kind: string;
  body: string;
}

export interface ReasoningBlock {
  type: "reasoning";
  text: string;
  opaque?: OpaqueBody;
}

export interface ImageBlock {
  type: "image";
  mediaType: string;
  /** base64, no data: prefix */
  data: string;
  /** decoded size in bytes */
  bytes: number;
  width?: number;
  height?: number;
  /** the provider refused this image once (its words): kept, and replayed as a marker saying so */
  refused?: string;
}

export type Block = TextBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock | ImageBlock;

export type Role = "user" | "assistant";
export type MessageStatus = "complete" | "interrupted";

/** The usage a provider reported for the request that brought an answer: its own count, not
 * an estimate. inputTokens leaves out cached input, so the whole prompt is input + cacheRead +
 * cacheWrite (provider/types.ts, Usage, has the same shape). */
export interface AnswerUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface StoredMessage {
  id: number;
  sessionId: string;
  seq: number;
  role: Role;
  blocks: Block[];
  status: MessageStatus;
  /** the model that wrote it (assistant messages) */
  model?: string;
  /** what the provider reported for the request that brought it (complete answers) */
  usage?: AnswerUsage;
  createdAt: string;
}

/** What a caller hands the store to append; id, seq and time are the store's. */
export interface NewMessage {
  role: Role;
  blocks: Block[];
  status: MessageStatus;
  model?: string;
  usage?: AnswerUsage;
}

export interface Session {
  id: string;
  title: string;
  workspace: string;
  createdAt: string;
  updatedAt: string;
  /** set when this session is a fork: its record is the other's up to (not including) that
   * prompt, counted from 1 as the screen counts prompts */
  forkedFrom?: { id: string; atPrompt: number };
}

/** A session as the lists show it: how much it holds and which model answered last. */
export interface SessionInfo extends Session {
  /** unknown when the messages could not be read (a damaged database still lists its sessions) */
  messages?: number;
  /** the model of the newest assistant message, when there is one */
  model?: string;
  /** the sessions forked from this one, oldest first */
  forks?: Array<{ id: string; atPrompt: number }>;
  /** open in another live process (session lists fill it in; the store does not) */
  open?: OpenPlace;
}

/** Where a session is open other than here: the process holding it, and whether its turn runs
 * on there after the terminal hung up (store/open-marks.ts). */
export interface OpenPlace {
  pid: number;
  /** the holder's host, when it is not this one */
  host?: string;
  detached: boolean;
}

export function assertNever(x: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(x)}`);
}
