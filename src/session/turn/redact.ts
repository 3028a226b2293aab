// Cutting secrets out of what is stored and sent (pure). The turn stores blocks through
// redactBlocks, and sends (and captures) one request that went through redactRequest, so
// the provider and the inspector read the same redacted text and the record never holds
// a key. Both return their input unchanged (same objects) when nothing was found, so the
// common case costs one scan and no copies.
import type { Block, ReasoningBlock } from "../../record/types.js";
import { assertNever } from "../../record/types.js";
import type { ContextItem, ProseMessage, ProsePart, ReasoningPart, Request, ToolSchema, WireMessage, WirePart } from "../../provider/types.js";
import { keyHoldsSecret, type Redactor } from "../../config/secrets.js";

/** Every string inside a JSON value (a tool call's input), redacted. */
function redactJson(value: unknown, redact: Redactor): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) {
    const out = value.map((v) => redactJson(v, redact));
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const rk = redact(k);
      const rv = redactJson(v, redact);
      if (rk !== k || rv !== v) changed = true;
      out[rk] = rv;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * Reasoning, whose opaque body (a thinking signature, redacted thinking, a Responses reasoning
 * item with its summary in plain text) is the provider's own and cannot be edited: a signature
 * covers the thinking text and a reasoning item must go back verbatim. So when the redactor
 * would change the text or the body (a key, or a piece of one), the body is dropped whole and
 * the redacted text kept: the reasoning then crosses as prose, which every provider takes,
 * and nothing of the key is stored, captured or sent.
 */
function redactReasoning<R extends ReasoningBlock | ReasoningPart>(r: R, redact: Redactor): R {
  const text = redact(r.text);
  if (r.opaque === undefined || (text === r.text && !holdsKey(r.opaque.body, redact))) return text === r.text ? r : { ...r, text };
  const { opaque: _dropped, ...rest } = r;
  return { ...rest, text } as R;
}

/** Whether the redactor would change the body: as it is, and (a JSON body) in each of its
 * strings and keys once parsed, where an escape could hide a key from the plain scan. */
function holdsKey(body: string, redact: Redactor): boolean {
  if (redact(body) !== body) return true;
  if (!/^\s*[[{]/.test(body)) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  return redactJson(parsed, redact) !== parsed;
}

function redactBlock(b: Block, redact: Redactor): Block {
  switch (b.type) {
    case "text": {
      const text = redact(b.text);
      return text === b.text ? b : { ...b, text };
    }
    case "tool_use": {
      const input = redactJson(b.input, redact);
      return input === b.input ? b : { ...b, input };
    }
    case "tool_result": {
      const output = redact(b.output);
      return output === b.output ? b : { ...b, output };
    }
    case "reasoning":
      return redactReasoning(b, redact);
    case "image":
      return b;
    default:
      return assertNever(b, "block");
  }
}

export function redactBlocks(blocks: Block[], redact: Redactor): Block[] {
  const out = blocks.map((b) => redactBlock(b, redact));
  return out.some((b, i) => b !== blocks[i]) ? out : blocks;
}

function redactProsePart(p: ProsePart, redact: Redactor): ProsePart {
  switch (p.type) {
    case "text": {
      const text = redact(p.text);
      return text === p.text ? p : { ...p, text };
    }
    case "image":
      return p;
    default:
      return assertNever(p, "prose part");
  }
}

function redactPart<P extends WirePart>(p: P, redact: Redactor): P;
function redactPart(p: WirePart, redact: Redactor): WirePart {
  switch (p.type) {
    case "text":
    case "image":
      return redactProsePart(p, redact);
    case "tool_call": {
      const input = redactJson(p.input, redact);
      return input === p.input ? p : { ...p, input };
    }
    case "tool_result": {
      const output = redact(p.output);
      return output === p.output ? p : { ...p, output };
    }
    case "reasoning":
      return redactReasoning(p, redact);
    default:
      return assertNever(p, "wire part");
  }
}

// Each part keeps its kind, so a message keeps its type: prose stays prose.
function redactMessage<M extends WireMessage | ProseMessage>(m: M, redact: Redactor): M {
  const parts: readonly WirePart[] = m.content;
  const content = parts.map((p) => redactPart(p, redact));
  return content.some((p, i) => p !== parts[i]) ? { ...m, content } : m;
}

function redactMessages<M extends WireMessage | ProseMessage>(ms: M[], redact: Redactor): M[] {
  const out = ms.map((m) => redactMessage(m, redact));
  return out.some((m, i) => m !== ms[i]) ? out : ms;
}

function redactItem(c: ContextItem, redact: Redactor): ContextItem {
  const text = redact(c.text);
  return text === c.text ? c : { ...c, text };
}

/**
 * A tool as it may be sent: its description and every string of its input schema
 * (descriptions, defaults, enums, titles, examples, patterns) redacted. An MCP server writes
 * these, and they are cut here, as each request is built, rather than when the server sends
 * them: the secrets can change after (a /reload, an approved .mcp.json whose values another
 * server mentions), and each request is cut with the secrets the run knows then. A tool whose
 * name, or a key of whose schema, holds a secret is left out (undefined): a cut name is no
 * name the model could call, and providers refuse property names outside [A-Za-z0-9_.-] (the
 * manager refuses such a tool by name before this).
 */
function redactTool(t: ToolSchema, redact: Redactor): ToolSchema | undefined {
  if (redact(t.name) !== t.name || keyHoldsSecret(t.inputSchema, redact)) return undefined;
  const description = redact(t.description);
  const inputSchema = redactJson(t.inputSchema, redact) as Record<string, unknown>;
  return description === t.description && inputSchema === t.inputSchema ? t : { ...t, description, inputSchema };
}

function redactTools(tools: ToolSchema[], redact: Redactor): ToolSchema[] {
  const out = tools.map((t) => redactTool(t, redact));
  if (out.every((t, i) => t === tools[i])) return tools;
  return out.filter((t): t is ToolSchema => t !== undefined);
}

/**
 * The request as it may leave the process and enter the record. Everything in it was
 * already redacted where it entered (stored blocks, project context); this is the last
 * gate, so a path added later cannot carry a key into a capture. The tools are cut here
 * only (see redactTool).
 */
export function redactRequest(req: Request, redact: Redactor): Request {
  const system = redact(req.system);
  const context = req.context.map((c) => redactItem(c, redact));
  const history = redactMessages(req.history, redact);
  const live = req.live ? redactMessages(req.live, redact) : undefined;
  const tools = redactTools(req.tools, redact);
  const same = system === req.system && context.every((c, i) => c === req.context[i]) && history === req.history && live === req.live && tools === req.tools;
  if (same) return req;
  return live ? { ...req, system, context, history, live, tools } : { ...req, system, context, history, tools };
}
