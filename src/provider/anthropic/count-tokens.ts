// Exact token counts from Anthropic's POST /v1/messages/count_tokens (free, rate-limited;
// docs/providers.md, Exact counts): the request's own body, less what the endpoint does not
// take, and per inspector section by counting the body without that section. Asked for only
// on demand; never on every request unless the config's countTokens says so. Bounded like
// every read from outside: a time limit, a cap on the answer, zod on what it says.
import { z } from "zod";
import type { Json } from "../json.js";
import { ANTHROPIC_VERSION } from "./version.js";
import { userAgent } from "../user-agent.js";
import type { Request } from "../types.js";
import { isBlankText } from "./parts.js";

export const COUNT_METHOD = "count_tokens (anthropic)";

const COUNT_TIMEOUT_MS = 15_000;
const COUNT_MAX_BYTES = 64 * 1024;
const Answer = z.object({ input_tokens: z.number().int().nonnegative().max(1e9) });

export class CountError extends Error {}

/** The fields of a Messages body that count_tokens takes (the SDK's MessageCountTokensParams). */
const TAKES = ["model", "messages", "system", "tools", "tool_choice", "thinking", "output_config", "cache_control"] as const;

export function countBody(body: Json): Json {
  const out: Json = {};
  for (const k of TAKES) if (body[k] !== undefined) out[k] = body[k];
  return out;
}

interface CountOptions {
  baseUrl: string;
  apiKey: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The endpoint's count of one body (a Messages body; fields it does not take are left out). */
export async function countTokens(body: Json, o: CountOptions): Promise<number> {
  const url = `${o.baseUrl.replace(/\/+$/, "")}/v1/messages/count_tokens`;
  const where = new URL(url).origin;
  const timeout = AbortSignal.timeout(o.timeoutMs ?? COUNT_TIMEOUT_MS);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  let status: number;
  let text: string;
  try {
    const { request } = await import("undici");
    const res = await request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "anthropic-version": ANTHROPIC_VERSION,
        "x-api-key": o.apiKey,
        "user-agent": userAgent(),
      },
      body: JSON.stringify(countBody(body)),
      signal,
    });
    status = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > COUNT_MAX_BYTES) {
        res.body.destroy();
        throw new CountError(`${where} sent a token count larger than ${COUNT_MAX_BYTES / 1024} kB; it was not read`);
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString("utf8");
  } catch (e) {
    if (e instanceof CountError) throw e;
    if (timeout.aborted) throw new CountError(`${where} did not answer the token count within ${(o.timeoutMs ?? COUNT_TIMEOUT_MS) / 1000} s`);
    if (o.signal?.aborted) throw new CountError("the token count was cancelled");
    throw new CountError(`${where} could not be reached for a token count: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (status === 404) throw new CountError(`${where} does not count tokens (404)`);
  if (status < 200 || status >= 300) throw new CountError(`${where} answered the token count with status ${status}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CountError(`${where} sent a token count that is not JSON`);
  }
  const r = Answer.safeParse(json);
  if (!r.success) throw new CountError(`${where} sent a token count not in Anthropic's shape`);
  return r.data.input_tokens;
}

/** The names of the context items that became system blocks, in order: a blank item is left
 * out of the body (encode.ts), so it has no block to name. */
export function contextSourcesSent(req: Request): string[] {
  return req.context.filter((c) => !isBlankText(c.text)).map((c) => c.source);
}

/** One section's exact figure: the whole body's count less the count without the section. */
export interface SectionCount {
  /** the inspector's section, as it names it */
  source: string;
  tokens: number;
}

export interface ExactCounts {
  method: typeof COUNT_METHOD;
  /** when the counts were asked for (ISO 8601) */
  askedAt: string;
  total: number;
  sections: SectionCount[];
}

/**
 * The bodies to count, one per section: the system text and each context item (each a
 * system block, in order), the history (its messages replaced by one "." user message, the
 * least the endpoint takes: those few tokens stay out of the figure), the tools.
 * `contextSources` names the context items, in order.
 */
export function sectionBodies(body: Json, contextSources: readonly string[]): Array<{ source: string; body: Json }> {
  const out: Array<{ source: string; body: Json }> = [];
  const system = Array.isArray(body["system"]) ? (body["system"] as unknown[]) : [];
  const names = ["system", ...contextSources];
  system.forEach((_, i) => {
    const rest = system.filter((__, j) => j !== i);
    const without: Json = { ...body };
    if (rest.length > 0) without["system"] = rest;
    else delete without["system"];
    out.push({ source: names[i] ?? `system block ${i + 1}`, body: without });
  });
  out.push({ source: "history", body: { ...body, messages: [{ role: "user", content: "." }] } });
  if (Array.isArray(body["tools"]) && body["tools"].length > 0) {
    const without: Json = { ...body };
    delete without["tools"];
    delete without["tool_choice"];
    out.push({ source: "tools", body: without });
  }
  return out;
}

/** Counts the body and each section (sectionBodies), one request at a time (the endpoint is
 * rate-limited). */
export async function countSections(body: Json, contextSources: readonly string[], o: CountOptions, now: () => Date = () => new Date()): Promise<ExactCounts> {
  const askedAt = now().toISOString();
  const total = await countTokens(body, o);
  const sections: SectionCount[] = [];
  for (const s of sectionBodies(body, contextSources)) {
    sections.push({ source: s.source, tokens: Math.max(0, total - (await countTokens(s.body, o))) });
  }
  return { method: COUNT_METHOD, askedAt, total, sections };
}
