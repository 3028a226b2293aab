// Events a session emits for every step of a turn; the screen and headless mode render them.
import { EventEmitter } from "node:events";
import type { StoredMessage } from "../record/types.js";
import type { Usage } from "../provider/types.js";
import type { PermissionRequest, PermissionAnswer } from "../tools/types.js";

export type TurnState = "idle" | "streaming" | "tool" | "permission" | "compacting";

export interface SessionEvents {
  /** a message was appended or updated in place (checkpoint, completion) */
  message: [msg: StoredMessage];
  text_delta: [text: string];
  reasoning_delta: [text: string];
  state: [state: TurnState, detail?: string];
  tool_start: [call: { id: string; name: string; input: unknown }];
  tool_end: [result: { id: string; name: string; output: string; isError: boolean; ms: number; diff?: string }];
  permission: [req: PermissionRequest, answer: (a: PermissionAnswer) => void];
  retry: [info: { attempt: number; delayMs: number; reason: string }];
  usage: [usage: Usage];
  /** the inspector stored a new capture for this session */
  capture: [];
  /** something the person should read: failures, with what to do */
  notice: [n: { level: "error" | "warning" | "info"; text: string }];
  turn_end: [r: { ok: boolean; error?: string; interrupted?: boolean }];
  /** the current session changed (/new, /sessions); the screen redraws from history() */
  session: [];
  /** model, provider, key, or context status changed */
  info: [];
}

export class SessionEmitter extends EventEmitter<SessionEvents> {}

