// Each tool call's one state as the transcript shows it, and the calls by their id. A call is
// known from the first thing said about it, whichever comes first: its tool_use block in a
// message, its start or end as the turn runs it, or its result read from the record. Pure:
// a change to a call's state returns the uid of the item that shows it (undefined until its
// message is in), which the transcript lays out again.
import { assertNever, type ToolResultBlock } from "../record/types.js";

export type ToolCallState =
  /** the running turn made the call and has not started it */
  | { kind: "queued" }
  /** `tail`: the newest output of a command so far, and `bytes` of it in all */
  | { kind: "running"; startedAt: number; tail?: string; bytes?: number }
  | {
      kind: "done";
      output: string;
      isError: boolean;
      /** how long it ran: only a call seen ending here has it (a result read from the record has
       * none), and a result read from the record never replaces what the run said */
      ms?: number;
      /** the change an edit or write made, as its run reported it */
      diff?: string;
    }
  /** nothing ran it: the turn that made it ended first, or the record holds no result */
  | { kind: "noResult" };

interface Call {
  state: ToolCallState;
  /** the item that shows the call's tool_use block */
  owner: number | undefined;
}

const NO_RESULT: ToolCallState = { kind: "noResult" };

export class ToolCalls {
  private readonly calls = new Map<string, Call>();

  /** forgets every call (the transcript shows another record) */
  clear(): void {
    this.calls.clear();
  }

  state(id: string): ToolCallState {
    return this.calls.get(id)?.state ?? NO_RESULT;
  }

  /** a message's tool_use block, shown by item `owner`; `queued`: the running turn just made it */
  shown(id: string, owner: number, queued: boolean): void {
    const c = this.call(id);
    c.owner = owner;
    if (queued && c.state.kind === "noResult") c.state = { kind: "queued" };
  }

  /** a tool_result block from the record */
  result(b: ToolResultBlock): number | undefined {
    const c = this.call(b.toolUseId);
    if (!ranHere(c.state)) c.state = { kind: "done", output: b.output, isError: b.isError };
    return c.owner;
  }

  started(id: string, now: number): number | undefined {
    const c = this.call(id);
    c.state = { kind: "running", startedAt: now };
    return c.owner;
  }

  /** a running command's newest output */
  output(id: string, tail: string, bytes: number): number | undefined {
    const c = this.call(id);
    if (c.state.kind !== "running") return undefined;
    c.state = { ...c.state, tail, bytes };
    return c.owner;
  }

  ended(r: { id: string; output: string; isError: boolean; ms: number; diff?: string | undefined }): number | undefined {
    const c = this.call(r.id);
    c.state = { kind: "done", output: r.output, isError: r.isError, ms: r.ms, ...(r.diff !== undefined ? { diff: r.diff } : {}) };
    return c.owner;
  }

  /** the turn ended: what it made and never started did not run */
  turnEnded(): void {
    for (const c of this.calls.values()) if (c.state.kind === "queued") c.state = NO_RESULT;
  }

  /** the items showing a call that is running (its line shows the time so far) */
  runningOwners(): number[] {
    const out: number[] = [];
    for (const c of this.calls.values()) if (c.state.kind === "running" && c.owner !== undefined) out.push(c.owner);
    return out;
  }

  /** whether any call runs, shown or not */
  anyRunning(): boolean {
    for (const c of this.calls.values()) if (c.state.kind === "running") return true;
    return false;
  }

  private call(id: string): Call {
    let c = this.calls.get(id);
    if (!c) {
      c = { state: NO_RESULT, owner: undefined };
      this.calls.set(id, c);
    }
    return c;
  }
}

/** the call is running here, or ended here: what the run says stands over the record */
function ranHere(s: ToolCallState): boolean {
  switch (s.kind) {
    case "running":
      return true;
    case "done":
      return s.ms !== undefined;
    case "queued":
    case "noResult":
      return false;
    default:
      return assertNever(s, "tool call state");
  }
}
