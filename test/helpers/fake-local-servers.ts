// The strict fake's Chat Completions endpoint, made to behave like the OpenAI-compatible
// servers people run locally: startFakeProvider({ local: "ollama" }).
// The request must still pass the strict OpenAI checks; then the server's own refusals apply,
// and its answer is rendered with its quirks. Each profile holds the quirks reported for some
// release of that server (docs/providers.md, "Local servers"); a profile is not a claim that
// every release does all of them.
//
//   ollama   ignores stream_options (no usage in the stream), sends each answer's tool calls
//            whole in one delta, ends a tool-call answer with finish_reason "stop", streams
//            reasoning as `reasoning`; ignores fields it does not know
//   lmstudio streams reasoning as `reasoning_content`; errors are `{"error": "text"}`; a field
//            it refuses is named in zod's words ("Unrecognized key(s) in object: 'x'")
//   vllm     a build that forbids fields it does not know (pydantic's extra_forbidden, as
//            vLLM did before 0.6.5), top-level and on messages; streams reasoning as `reasoning`
//   llamacpp no usage in the stream (builds before it always sent one), reasoning as
//            `reasoning_content`, "Unsupported param: x" for a refused field
//
// No profile wants a key. `refuse` adds fields a server refuses (a stricter build, a proxy in
// front of it); `finish` makes every answer end without a finish_reason ("missing": the
// stream still ends with [DONE]) or with "length" (cut at the output limit).
export type LocalServer = "ollama" | "lmstudio" | "vllm" | "llamacpp";

export interface LocalOptions {
  server: LocalServer;
  /** fields refused besides the server's own: top-level names, or "reasoning_content" on a message */
  refuse?: string[];
  finish?: "missing" | "length";
}

interface Profile {
  /** what it does with stream_options.include_usage */
  usage: "honours" | "never";
  /** tool calls as OpenAI streams them, or all of an answer's calls whole in one delta */
  toolCalls: "streamed" | "whole";
  /** the finish_reason of an answer that calls tools */
  toolFinish: "tool_calls" | "stop";
  reasoningField: "reasoning_content" | "reasoning";
  /** the fields it refuses on its own, given the body */
  refuses(body: Record<string, unknown>): Refused[];
  /** its error response naming the refused fields */
  refusal(fields: Refused[]): { status: number; body: unknown };
}

/** A refused field: top-level, or on the message at `message`. */
interface Refused {
  name: string;
  message?: number;
  value: unknown;
}

// what a Chat request may carry for a vLLM build that forbids the rest (its ChatCompletionRequest)
const VLLM_FIELDS = new Set([
  "model",
  "messages",
  "tools",
  "tool_choice",
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "n",
  "stop",
  "seed",
  "user",
]);
const VLLM_MESSAGE_FIELDS = new Set(["role", "content", "name", "tool_calls", "tool_call_id"]);

const py = (v: unknown): string => (typeof v === "string" ? `'${v}'` : JSON.stringify(v) ?? "None");

const PROFILES: Record<LocalServer, Profile> = {
  ollama: {
    usage: "never",
    toolCalls: "whole",
    toolFinish: "stop",
    reasoningField: "reasoning",
    refuses: () => [],
    refusal: (fields) => ({
      status: 400,
      body: { error: { message: `json: unknown field "${fields[0]!.name}"`, type: "invalid_request_error", param: null, code: null } },
    }),
  },
  lmstudio: {
    usage: "honours",
    toolCalls: "streamed",
    toolFinish: "tool_calls",
    reasoningField: "reasoning_content",
    refuses: () => [],
    refusal: (fields) => ({ status: 400, body: { error: `Unrecognized key(s) in object: ${fields.map((f) => `'${f.name}'`).join(", ")}` } }),
  },
  vllm: {
    usage: "honours",
    toolCalls: "streamed",
    toolFinish: "tool_calls",
    reasoningField: "reasoning",
    refuses: (body) => {
      const out: Refused[] = Object.keys(body)
        .filter((k) => !VLLM_FIELDS.has(k))
        .map((k) => ({ name: k, value: body[k] }));
      const messages = Array.isArray(body["messages"]) ? body["messages"] : [];
      messages.forEach((m, i) => {
        if (typeof m !== "object" || m === null) return;
        for (const k of Object.keys(m)) if (!VLLM_MESSAGE_FIELDS.has(k)) out.push({ name: k, message: i, value: (m as Record<string, unknown>)[k] });
      });
      return out;
    },
    refusal: (fields) => ({
      status: 400,
      body: {
        object: "error",
        message: `[${fields
          .map((f) => {
            const loc = f.message === undefined ? `('body', '${f.name}')` : `('body', 'messages', ${f.message}, 'typed-dict', '${f.name}')`;
            return `{'type': 'extra_forbidden', 'loc': ${loc}, 'msg': 'Extra inputs are not permitted', 'input': ${py(f.value)}}`;
          })
          .join(", ")}]`,
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    }),
  },
  llamacpp: {
    usage: "never",
    toolCalls: "streamed",
    toolFinish: "tool_calls",
    reasoningField: "reasoning_content",
    refuses: () => [],
    refusal: (fields) => ({
      status: 400,
      body: { error: { code: 400, message: `Unsupported param: ${fields[0]!.name}`, type: "invalid_request_error" } },
    }),
  },
};

export function localOptions(local: LocalServer | LocalOptions): LocalOptions {
  return typeof local === "string" ? { server: local } : local;
}

/** The server's refusal of a request the strict checks passed, or undefined when it takes it. */
export function localRefusal(
  local: LocalServer | LocalOptions,
  body: Record<string, unknown>,
): { status: number; body: unknown; message: string } | undefined {
  const o = localOptions(local);
  const profile = PROFILES[o.server];
  const fields = profile.refuses(body);
  for (const name of o.refuse ?? []) {
    if (fields.some((f) => f.name === name)) continue;
    if (name in body) fields.push({ name, value: body[name] });
    const messages = Array.isArray(body["messages"]) ? body["messages"] : [];
    messages.forEach((m, i) => {
      if (typeof m === "object" && m !== null && name in m) fields.push({ name, message: i, value: (m as Record<string, unknown>)[name] });
    });
  }
  if (fields.length === 0) return undefined;
  const r = profile.refusal(fields);
  return { ...r, message: `${o.server} refused ${fields.map((f) => f.name).join(", ")}` };
}

type Chunk = { choices?: { delta?: Record<string, unknown>; finish_reason?: string | null }[]; usage?: unknown } & Record<string, unknown>;
type CallDelta = { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } };

/** The strict fake's OpenAI frames of one answer, as this server streams them. */
export function localFrames(local: LocalServer | LocalOptions, body: Record<string, unknown>, frames: string[]): string[] {
  const o = localOptions(local);
  const profile = PROFILES[o.server];
  const so = body["stream_options"];
  const wantsUsage = typeof so === "object" && so !== null && (so as Record<string, unknown>)["include_usage"] === true;
  const out: string[] = [];
  const whole = new Map<number, { id: string; type: string; function: { name: string; arguments: string } }>();
  let template: Chunk | undefined;
  for (const f of frames) {
    const data = f.startsWith("data: ") ? f.slice("data: ".length).trim() : undefined;
    if (data === undefined || data === "[DONE]") {
      out.push(f);
      continue;
    }
    const chunk = JSON.parse(data) as Chunk;
    const choice = chunk.choices?.[0];
    if (!choice) {
      // the usage chunk: sent by a server that honours include_usage and was asked
      if (profile.usage === "honours" && wantsUsage) out.push(f);
      continue;
    }
    const delta = choice.delta ?? {};
    if ("reasoning_content" in delta && profile.reasoningField !== "reasoning_content") {
      delta[profile.reasoningField] = delta["reasoning_content"];
      delete delta["reasoning_content"];
    }
    const calls = delta["tool_calls"] as CallDelta[] | undefined;
    if (calls && profile.toolCalls === "whole") {
      // gathered, and sent whole together just before the answer's end
      for (const c of calls) {
        const i = c.index ?? 0;
        const acc = whole.get(i) ?? { id: "", type: "function", function: { name: "", arguments: "" } };
        if (c.id) acc.id = c.id;
        if (c.function?.name) acc.function.name = c.function.name;
        acc.function.arguments += c.function?.arguments ?? "";
        whole.set(i, acc);
      }
      template ??= chunk;
      continue;
    }
    if (choice.finish_reason) {
      if (template && whole.size > 0) {
        const all = [...whole.entries()].sort((a, b) => a[0] - b[0]).map(([index, c]) => ({ index, ...c }));
        out.push(frame({ ...template, choices: [{ index: 0, delta: { tool_calls: all }, finish_reason: null }] }));
      }
      if (choice.finish_reason === "tool_calls") choice.finish_reason = profile.toolFinish;
      if (o.finish === "length") choice.finish_reason = "length";
      if (o.finish === "missing") choice.finish_reason = null;
    }
    out.push(frame(chunk));
  }
  return out;
}

function frame(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
