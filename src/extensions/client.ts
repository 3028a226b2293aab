// One running MCP server, through the official SDK: connect (initialize) within the startup
// timeout, list its tools (every page), call a tool with its own timeout and the turn's
// signal (the SDK sends notifications/cancelled on abort), and stop it. This module pulls in
// the SDK, so the manager imports it only when a server is configured.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../record/errors.js";
import type { ServerSpec } from "./config.js";
import { GroupStdioTransport } from "./stdio.js";

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface Connection {
  instructions: string | undefined;
  tools: McpTool[];
  pid: number | undefined;
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

export interface ConnectHooks {
  /** the server said its tools changed, and here they are */
  onTools(tools: McpTool[]): void;
  /** the connection ended without close() (a crash, a dropped link): why */
  onLost(reason: string): void;
}

const MAX_TOOLS = 500;
/** the most one HTTP response from a server may bring (stdio has its own bound per message) */
export const MAX_HTTP_RESPONSE_BYTES = 16 * 1024 * 1024;

/** fetch, with every response body cut off (as an error) past `max` bytes: a server must not
 * be able to fill memory with one answer */
export function boundedFetch(max = MAX_HTTP_RESPONSE_BYTES): typeof fetch {
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
  return list.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema }));
}

/** An SDK failure in words a person can act on. */
export function describeFailure(e: unknown, what: string, timeoutMs: number): string {
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) return `${what} got no answer within ${timeoutMs / 1000} s`;
  if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) return `${what} failed: the server closed the connection`;
  return `${what} failed: ${messageOf(e)}`;
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
    default: {
      const never: never = t;
      throw new Error(`unexpected transport ${JSON.stringify(never)}`);
    }
  }
  const client = new Client(
    { name: "albedo-tui", version: "0.1.0" },
    {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (err, tools) => {
            if (!err && tools) hooks.onTools(toolsOf(tools).slice(0, MAX_TOOLS));
          },
        },
      },
    },
  );
  let closing = false;
  const exitNote = (): string => {
    const ex = stdio?.exit;
    const how = ex ? (ex.signal ? ` (killed by ${ex.signal})` : ex.code !== null ? ` (exit code ${ex.code})` : "") : "";
    const err = stdio?.stderr().trim().split("\n").slice(-3).join(" | ");
    return `${how}${err ? `; its last words on stderr: ${err.slice(-300)}` : ""}`;
  };
  client.onclose = () => {
    if (closing) return;
    if (stdio?.fault) hooks.onLost(`${stdio.fault}${exitNote()}`);
    else hooks.onLost(`the server ${t.kind === "stdio" ? "exited" : "closed the connection"}${exitNote()}`);
  };
  const close = async (): Promise<void> => {
    closing = true;
    try {
      await client.close();
    } catch {
      // already gone
    }
    await stdio?.close();
  };
  const timeout = spec.startupTimeoutMs;
  try {
    const opts = { timeout, maxTotalTimeout: timeout, ...(signal ? { signal } : {}) };
    signal?.throwIfAborted();
    await client.connect(transport, opts);
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, opts);
      tools.push(...toolsOf(page.tools));
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS);
    return {
      instructions: client.getInstructions() || undefined,
      tools: tools.slice(0, MAX_TOOLS),
      pid: stdio?.pid,
      call: async (tool, args, signal) => {
        return client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: spec.toolTimeoutMs, maxTotalTimeout: spec.toolTimeoutMs });
      },
      close,
    };
  } catch (e) {
    const why = describeFailure(e, "initialize", timeout) + exitNote();
    await close();
    throw new Error(why);
  }
}
