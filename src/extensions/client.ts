// One running MCP server, through the official SDK: connect (initialize) within the startup
// timeout, list its tools (every page), call a tool with its own timeout and the turn's
// signal (the SDK sends notifications/cancelled on abort), and stop it. What the server sends
// unasked passes a NotificationGate first (notifications.ts): a flood is dropped before the
// SDK's protocol layer, and tools/list_changed becomes a coalesced refetch of ours. This
// module pulls in the SDK, so the manager imports it only when a server is configured.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type JSONRPCMessage, type MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../record/errors.js";
import { assertNever } from "../record/types.js";
import type { ServerSpec } from "./config.js";
import { Coalescer, NotificationGate, REFETCH_INTERVAL_MS } from "./notifications.js";
import { GroupStdioTransport, NOT_RUNNING } from "./stdio.js";

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface Connection {
  instructions: string | undefined;
  tools: McpTool[];
  /** what of the server's tool list was left out, when something was (see boundTools) */
  note: string | undefined;
  pid: number | undefined;
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

interface ConnectHooks {
  /** the server said its tools changed, and here they are */
  onTools(tools: McpTool[], note: string | undefined): void;
  /** the connection ended without close() (a crash, a dropped link): why */
  onLost(reason: string): void;
  /** the server misbehaves and is still connected (a flood of notifications): a sentence
   * whose subject is the server. May come while it starts, before connect() returns. */
  onWarning(text: string): void;
}

/**
 * A transport whose incoming messages pass the gate first: only what it lets pass reaches
 * the protocol layer (which sets onmessage here), and tools/list_changed goes to `changed`.
 * Our stdio transport asks the gate before it validates a message; others after.
 */
class GatedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: Transport,
    gate: NotificationGate,
    changed: () => void,
  ) {
    const admit = (message: object): boolean => {
      const verdict = gate.judge(message);
      switch (verdict) {
        case "pass":
          return true;
        case "drop":
          return false;
        case "tools changed":
          changed();
          return false;
        default:
          return assertNever(verdict, "verdict");
      }
    };
    if (inner instanceof GroupStdioTransport) {
      inner.screen = admit;
      inner.onmessage = (message) => this.onmessage?.(message);
    } else {
      inner.onmessage = (message, extra) => {
        if (admit(message)) this.onmessage?.(message, extra);
      };
    }
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

// A server's tool list joins every request: it is bounded like everything from outside.
const MAX_TOOLS = 500;
/** one tool's description (longer ones are cut, and say so) */
export const MAX_TOOL_DESCRIPTION = 10_000;
/** all of one server's tools, as JSON (name, description, schema) */
export const MAX_TOOLS_BYTES = 1024 * 1024;
/** the most one HTTP response from a server may bring (stdio has its own bound per message) */
const MAX_HTTP_RESPONSE_BYTES = 16 * 1024 * 1024;

/** fetch, with every response body cut off (as an error) past `max` bytes: a server must not
 * be able to fill memory with one answer */
function boundedFetch(max = MAX_HTTP_RESPONSE_BYTES): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > max) controller.error(new Error(`the server sent more than ${max / 1048576} MB in one response`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function toolsOf(list: ReadonlyArray<{ name: string; description?: string | undefined; inputSchema: Record<string, unknown> }>): McpTool[] {
  return list.map((t) => {
    const d = t.description ?? "";
    const description = d.length > MAX_TOOL_DESCRIPTION ? `${d.slice(0, MAX_TOOL_DESCRIPTION)} [… description cut at ${MAX_TOOL_DESCRIPTION} characters]` : d;
    return { name: t.name, description, inputSchema: t.inputSchema };
  });
}

/** The tools kept of a list, in its order, within MAX_TOOLS and MAX_TOOLS_BYTES, and a
 * sentence naming what was left out. */
function boundTools(all: readonly McpTool[]): { tools: McpTool[]; note: string | undefined } {
  const tools: McpTool[] = [];
  let bytes = 0;
  let over = 0;
  for (const t of all) {
    const size = Buffer.byteLength(JSON.stringify(t));
    if (tools.length >= MAX_TOOLS || bytes + size > MAX_TOOLS_BYTES) {
      over++;
      continue;
    }
    bytes += size;
    tools.push(t);
  }
  const note = over > 0 ? `${over} of its tools not offered: a server's tools are limited to ${MAX_TOOLS} and ${MAX_TOOLS_BYTES / 1048576} MB of names, descriptions and schemas` : undefined;
  return { tools, note };
}

/** An SDK failure in words a person can act on. */
export function describeFailure(e: unknown, what: string, timeoutMs: number): string {
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) return `${what} got no answer within ${timeoutMs / 1000} s`;
  if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) return `${what} failed: the server closed the connection`;
  // fetch says "fetch failed"; why (refused, no such host) is its cause
  const cause = e instanceof Error && e.cause !== undefined ? ` (${messageOf(e.cause)})` : "";
  return `${what} failed: ${messageOf(e)}${cause}`;
}

/** `signal` ends a start in progress (exit, /reload): the process goes at once instead of
 * when its startup timeout is up. */
export async function connect(spec: ServerSpec, owner: object, hooks: ConnectHooks, signal?: AbortSignal): Promise<Connection> {
  const t = spec.transport;
  if (!t) throw new Error(spec.problem ?? "no transport");
  let stdio: GroupStdioTransport | undefined;
  let transport: Transport;
  switch (t.kind) {
    case "stdio":
      stdio = new GroupStdioTransport(t, owner);
      transport = stdio;
      break;
    case "http":
      transport = new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: t.headers }, fetch: boundedFetch() });
      break;
    default:
      assertNever(t, "transport");
  }
  const client = new Client({ name: "albedo-tui", version: "0.1.0" }, { capabilities: {} });
  const timeout = spec.startupTimeoutMs;
  // ends a refetch in flight when the connection closes
  const life = new AbortController();
  /** every page of the tool list (bounded), all within one startup timeout */
  const readTools = async (deadline: number, signal?: AbortSignal): Promise<{ tools: McpTool[]; note: string | undefined }> => {
    const opts = (): { timeout: number; maxTotalTimeout: number; signal?: AbortSignal } => {
      const left = deadline - Date.now();
      if (left <= 0) throw new McpError(ErrorCode.RequestTimeout, "the start took too long");
      return { timeout: left, maxTotalTimeout: left, ...(signal ? { signal } : {}) };
    };
    const tools: McpTool[] = [];
    let bytes = 0;
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, opts());
      const got = toolsOf(page.tools);
      tools.push(...got);
      bytes += got.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS && bytes <= MAX_TOOLS_BYTES);
    const kept = boundTools(tools);
    // pages left unread are tools left out too
    const note = cursor ? `${kept.note ?? `its tools are limited to ${MAX_TOOLS} and ${MAX_TOOLS_BYTES / 1048576} MB`}; more pages of its tool list were not read` : kept.note;
    return { tools: kept.tools, note };
  };
  // a list that cannot be read keeps the one offered (a lost connection is onLost's)
  const refetch = new Coalescer(async () => {
    const r = await readTools(Date.now() + timeout, life.signal);
    if (!life.signal.aborted) hooks.onTools(r.tools, r.note);
  }, REFETCH_INTERVAL_MS);
  const gate = new NotificationGate((text) => hooks.onWarning(text));
  const gated = new GatedTransport(transport, gate, () => refetch.request());
  let closing = false;
  let started = false;
  // a connection lost while it starts fails the start (connect() throws why, or the start
  // sees lostEarly), never through onLost, whose caller cannot match the connection yet
  let lostEarly = false;
  const exitNote = (): string => {
    const ex = stdio?.exit ?? stdio?.exited;
    const how = ex ? (ex.signal ? ` (killed by ${ex.signal})` : ex.code !== null ? ` (exit code ${ex.code})` : "") : "";
    const err = stdio?.stderr().trim().split("\n").slice(-3).join(" | ");
    const left = stdio?.leftRunning ? "; a process it left running kept its output open, and was stopped" : "";
    return `${how}${left}${err ? `; its last words on stderr: ${err.slice(-300)}` : ""}`;
  };
  const lostReason = (): string => (stdio?.fault ? `${stdio.fault}${exitNote()}` : `the server ${t.kind === "stdio" ? "exited" : "closed the connection"}${exitNote()}`);
  client.onclose = () => {
    refetch.stop();
    life.abort();
    if (closing) return;
    if (!started) lostEarly = true;
    else hooks.onLost(lostReason());
  };
  const close = async (): Promise<void> => {
    closing = true;
    refetch.stop();
    life.abort();
    try {
      await client.close();
    } catch {
      // already gone
    }
    await stdio?.close();
  };
  let phase = "initialize";
  try {
    // the timeout is for the whole start (initialize and every page of tools/list), so a
    // server that pages forever cannot hold it
    const deadline = Date.now() + timeout;
    signal?.throwIfAborted();
    await client.connect(gated, { timeout, maxTotalTimeout: timeout, ...(signal ? { signal } : {}) });
    phase = "tools/list";
    const { tools, note } = await readTools(deadline, signal);
    // changes announced from here on (or during the listing) are fetched; a server that
    // does not declare them has its announcements ignored, as the SDK does
    if (client.getServerCapabilities()?.tools?.listChanged === true) refetch.enable();
    else refetch.stop();
    if (lostEarly) throw new McpError(ErrorCode.ConnectionClosed, "lost while it started");
    started = true;
    return {
      instructions: client.getInstructions() || undefined,
      tools,
      note,
      pid: stdio?.pid,
      call: async (tool, args, signal) => {
        try {
          return await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: spec.toolTimeoutMs, maxTotalTimeout: spec.toolTimeoutMs });
        } catch (e) {
          // the connection was ended for a reason of ours (a message over the bound): that
          // reason is the call's, not "connection closed"
          if (stdio?.fault) throw new Error(stdio.fault);
          throw e;
        }
      },
      close,
    };
  } catch (e) {
    // once closed, its exit code is known
    await close();
    // a connection we ended (a message over the bound), "connection closed", "not running":
    // how the server ended says more than the request
    const ended = stdio?.fault !== undefined || (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) || messageOf(e) === NOT_RUNNING;
    throw new Error(ended ? `${phase} failed: ${lostReason()}` : describeFailure(e, phase, timeout) + exitNote());
  }
}
