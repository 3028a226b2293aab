// What a session tells its front ends (the screen, headless mode, tests): one union, read by
// exhaustive switches, through subscribe(). A streamed answer has its identity (AnswerId)
// from before its first delta; the message events of its checkpoints and of the complete
// answer carry the same id, so a front end never has to guess which live item a stored
// message is.
import type { StoredMessage } from "../../record/types.js";
import { assertNever } from "../../record/types.js";
import type { Usage } from "../../provider/types.js";
import type { PermissionRequest, PermissionAnswer } from "../../tools/types.js";

export type TurnState = "idle" | "streaming" | "tool" | "permission" | "compacting";

/** One streamed answer of the model, numbered within the process. */
export type AnswerId = number;

interface ToolEnd {
  id: string;
  name: string;
  output: string;
  isError: boolean;
  ms: number;
  diff?: string;
}

export type SessionEvent =
  /** a message was appended or updated in place; `answer` when it is (a checkpoint of) a streamed answer */
  | { type: "message"; msg: StoredMessage; answer?: AnswerId }
  /** a new answer starts streaming; its deltas and its stored message carry this id */
  | { type: "answer_start"; answer: AnswerId }
  | { type: "text_delta"; answer: AnswerId; text: string }
  | { type: "reasoning_delta"; answer: AnswerId; text: string }
  /** the model is writing a tool call's input: how much has arrived so far */
  | { type: "tool_input"; answer: AnswerId; index: number; name: string; bytes: number }
  | { type: "state"; state: TurnState; detail?: string }
  | { type: "tool_start"; id: string; name: string; input: unknown }
  /** a running command's output so far: its last lines (redacted, bounded), at most a few
   * times a second, however fast it writes */
  | { type: "tool_output"; id: string; tail: string; bytes: number }
  | ({ type: "tool_end" } & ToolEnd)
  /** a tool needs a person's yes or no; `answer` must be called exactly once */
  | { type: "permission"; req: PermissionRequest; answer: (a: PermissionAnswer) => void }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "usage"; usage: Usage }
  /** the inspector stored a new capture for this session */
  | { type: "capture" }
  /** something the person should read: failures, with what to do */
  | { type: "notice"; level: "error" | "warning" | "info"; text: string }
  | { type: "turn_end"; ok: boolean; error?: string; interrupted?: boolean }
  /** the current session changed (/new, /sessions, the rest of a resumed record): redraw from history() */
  | { type: "session" }
  /** model, provider, key, or context status changed */
  | { type: "info" };

type SessionEventType = SessionEvent["type"];
export type Listener = (e: SessionEvent) => void;

export interface SubscribeOptions {
  /** this subscriber answers permission questions (a screen); without one, tools that
   * need a yes are refused */
  answersPermissions?: boolean;
}

/** The one channel from a session to its front ends. What it carries of text from outside
 * that no other gate has cut (notices, which quote provider and server errors; retry reasons;
 * a turn's error) passes `redact` here, so no front end, and no log a front end writes, shows
 * a secret or a piece of one. */
export class EventHub {
  private readonly listeners = new Map<Listener, SubscribeOptions>();
  private nextAnswer = 1;

  constructor(private readonly redact: (text: string) => string = (t) => t) {}

  subscribe(fn: Listener, opts: SubscribeOptions = {}): () => void {
    this.listeners.set(fn, opts);
    return () => {
      this.listeners.delete(fn);
    };
  }

  emit(event: SessionEvent): void {
    const e = this.cut(event);
    // a copy: a listener may unsubscribe (or subscribe another) while being told
    for (const fn of [...this.listeners.keys()]) fn(e);
  }

  private cut(e: SessionEvent): SessionEvent {
    switch (e.type) {
      case "notice": {
        const text = this.redact(e.text);
        return text === e.text ? e : { ...e, text };
      }
      case "retry": {
        const reason = this.redact(e.reason);
        return reason === e.reason ? e : { ...e, reason };
      }
      case "turn_end": {
        if (e.error === undefined) return e;
        const error = this.redact(e.error);
        return error === e.error ? e : { ...e, error };
      }
      // stored messages and tool output are cut where they are made; the rest is the model's
      // own stream (a delta may hold any part of a word) or carries no text
      case "message":
      case "answer_start":
      case "text_delta":
      case "reasoning_delta":
      case "tool_input":
      case "state":
      case "tool_start":
      case "tool_end":
      case "tool_output":
      case "permission":
      case "usage":
      case "capture":
      case "session":
      case "info":
        return e;
      default:
        return assertNever(e, "session event");
    }
  }

  /** whether anyone is there to answer a permission question */
  canAsk(): boolean {
    for (const o of this.listeners.values()) if (o.answersPermissions) return true;
    return false;
  }

  newAnswer(): AnswerId {
    return this.nextAnswer++;
  }
}

/** Resolves with the first event of the given type (tests and one-shot waits). */
export function nextEvent<T extends SessionEventType>(hub: Pick<EventHub, "subscribe">, type: T): Promise<Extract<SessionEvent, { type: T }>> {
  return new Promise((resolve) => {
    const off = hub.subscribe((e) => {
      if (e.type !== type) return;
      off();
      resolve(e as Extract<SessionEvent, { type: T }>);
    });
  });
}
