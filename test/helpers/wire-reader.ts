// An independent reader of a request body as a provider receives it: the inspector's
// sections (items, content bytes, page text) computed from the body alone, by the providers'
// documented body shapes (Anthropic Messages, OpenAI Chat Completions) and the inspector's
// documented page format (src/context/capture.ts, top). It shares no code with the
// adapters or the capture, so a test that compares the two checks one against the other.
//
// Omitted bodies are written as tokens `⟦image MEDIA_TYPE BYTES⟧` / `⟦KIND BYTES⟧`;
// normalizeMarkers() turns the inspector's markers into the same tokens.

export interface ReadSection {
  source: string;
  items: number;
  /** UTF-8 bytes of the content as sent */
  bytes: number;
  /** the page text, omitted bodies as tokens */
  text: string;
  /** the omitted bodies (base64 images, signatures, redacted thinking) in this section */
  bodies: string[];
}

type Obj = Record<string, any>;

export const utf8 = (s: string): number => Buffer.byteLength(s, "utf8");
const grouped = (n: number): string => n.toLocaleString("en-US");

/** One section as the reader counts and shows it (wire-reader-responses.ts reads with it too). */
export class Section {
  items = 0;
  bytes = 0;
  readonly shown: string[] = [];
  readonly bodies: string[] = [];
  constructor(readonly source: string) {}

  /** content as sent: counted and shown */
  sent(s: string): string {
    this.bytes += utf8(s);
    return s;
  }
  image(mediaType: string, base64: string): string {
    this.bytes += utf8(base64);
    this.bodies.push(base64);
    return `⟦image ${mediaType} ${grouped(Buffer.from(base64, "base64").length)}⟧`;
  }
  opaque(words: string, body: string): string {
    this.bytes += utf8(body);
    this.bodies.push(body);
    return `⟦${words} ${grouped(utf8(body))}⟧`;
  }
  done(separator: string): ReadSection {
    return { source: this.source, items: this.items, bytes: this.bytes, text: this.shown.join(separator), bodies: this.bodies };
  }
}

export function message(s: Section, role: string, blocks: string[]): void {
  s.items++;
  s.shown.push(`── ${s.items} · ${role} ──\n${blocks.join("\n")}`);
}

function toolsSection(tools: unknown[] | undefined): ReadSection {
  const s = new Section("tools");
  for (const t of tools ?? []) {
    // a cache breakpoint on a definition is a mark in the body, not the definition's content
    const { cache_control: _mark, ...def } = t as Obj;
    s.items++;
    s.bytes += utf8(JSON.stringify(def));
    s.shown.push(JSON.stringify(def, null, 2) + breakpoint(t as Obj));
  }
  return s.done("\n\n");
}

/** The page's marker for a block's cache_control (Anthropic): on its own line after the
 * block, no content bytes; a mark without a ttl is the API's default, 5 minutes. */
function breakpoint(block: Obj): string {
  const c = block["cache_control"];
  if (c === undefined) return "";
  if (c["type"] !== "ephemeral") throw new Error(`the reader does not know a cache_control of type ${String(c["type"])}`);
  return `\n[cache breakpoint: ${c["ttl"] ?? "5m"}]`;
}

/** How many blocks of an Anthropic body carry cache_control (tools, system, messages). */
export function countBreakpoints(body: Obj): number {
  const marked = (xs: unknown): number => (Array.isArray(xs) ? xs.filter((b: Obj) => b["cache_control"] !== undefined).length : 0);
  let n = marked(body["tools"]) + marked(body["system"]);
  for (const m of body["messages"] as Obj[]) n += marked(m["content"]);
  return n;
}

/** Sections of a body: system, one per context source (all non-blank), history, tools. */
export function readAnthropicBody(body: Obj, contextSources: string[]): ReadSection[] {
  const system = (body["system"] ?? []) as Obj[];
  const fixed = ["system", ...contextSources].map((source, i) => {
    const s = new Section(source);
    const block = system[i];
    if (block) {
      s.items = 1;
      s.shown.push(s.sent(block["text"]) + breakpoint(block));
    }
    return s.done("\n");
  });
  const h = new Section("history");
  for (const m of body["messages"] as Obj[]) {
    const content: Obj[] = typeof m["content"] === "string" ? [{ type: "text", text: m["content"] }] : m["content"];
    const blocks = content.map((b): string => shown(b) + breakpoint(b));
    message(h, m["role"], blocks);
  }
  return [...fixed, h.done("\n\n"), toolsSection(body["tools"])];

  function shown(b: Obj): string {
    switch (b["type"]) {
      case "text":
        return h.sent(b["text"]);
      case "image":
        return h.image(b["source"]["media_type"], b["source"]["data"]);
      case "tool_use":
        return `tool_use id=${b["id"]} name=${b["name"]} input=${h.sent(JSON.stringify(b["input"]))}`;
      case "tool_result": {
        const c = b["content"];
        const text = c === undefined ? undefined : typeof c === "string" ? c : (c as Obj[]).map((x) => x["text"]).join("");
        return `tool_result for id=${b["tool_use_id"]}${b["is_error"] ? " is_error" : ""}${text !== undefined ? `: ${h.sent(text)}` : ""}`;
      }
      case "thinking":
        return `thinking: ${h.sent(b["thinking"])} ${h.opaque("thinking signature", b["signature"])}`;
      case "redacted_thinking":
        return h.opaque("redacted thinking", b["data"]);
      default:
        throw new Error(`the reader does not know an Anthropic block of type ${String(b["type"])}`);
    }
  }
}

export function readOpenAIBody(body: Obj, contextSources: string[]): ReadSection[] {
  const messages = body["messages"] as Obj[];
  const systems = messages.filter((m) => m["role"] === "system");
  const fixed = ["system", ...contextSources].map((source, i) => {
    const s = new Section(source);
    const m = systems[i];
    if (m) {
      s.items = 1;
      s.shown.push(s.sent(m["content"]));
    }
    return s.done("\n");
  });
  const h = new Section("history");
  for (const m of messages) {
    const role = m["role"];
    if (role === "system") continue;
    const blocks: string[] = [];
    switch (role) {
      case "user": {
        const c = m["content"];
        if (typeof c === "string") blocks.push(h.sent(c));
        else {
          for (const p of c as Obj[]) {
            if (p["type"] === "text") blocks.push(h.sent(p["text"]));
            else if (p["type"] === "image_url") {
              const url = /^data:([^;]+);base64,(.*)$/s.exec(p["image_url"]["url"]);
              if (!url) throw new Error("the reader expects images as data: URLs");
              blocks.push(h.image(url[1]!, url[2]!));
            } else throw new Error(`the reader does not know a user part of type ${String(p["type"])}`);
          }
        }
        break;
      }
      case "assistant":
        // the fields in the order the body has them
        for (const key of Object.keys(m)) {
          const v = m[key];
          if (key === "content") {
            if (v !== null) blocks.push(h.sent(v));
          } else if (key === "tool_calls") {
            for (const c of v as Obj[]) {
              blocks.push(`tool_call id=${c["id"]} name=${c["function"]["name"]} arguments=${h.sent(c["function"]["arguments"])}`);
            }
          } else if (key === "reasoning_content") {
            blocks.push(`reasoning_content: ${h.sent(v)}`);
          } else if (key !== "role") throw new Error(`the reader does not know an assistant field ${key}`);
        }
        break;
      case "tool":
        blocks.push(`tool_result for id=${m["tool_call_id"]}: ${h.sent(m["content"])}`);
        break;
      default:
        throw new Error(`the reader does not know the role ${String(role)}`);
    }
    message(h, role, blocks);
  }
  return [...fixed, h.done("\n\n"), toolsSection(body["tools"])];
}

export function readBody(shape: "anthropic" | "openai", body: Obj, contextSources: string[]): ReadSection[] {
  return shape === "anthropic" ? readAnthropicBody(body, contextSources) : readOpenAIBody(body, contextSources);
}

/** The inspector's omission markers as the reader's tokens: `[image omitted: image/png,
 * 1,234 bytes, 2×2]` → `⟦image image/png 1,234⟧`, `[thinking signature omitted: 12 bytes]` →
 * `⟦thinking signature 12⟧`. Returns the text and how many markers it held. */
export function normalizeMarkers(text: string): { text: string; markers: number } {
  let markers = 0;
  const out = text.replace(/\[([a-z0-9][a-z0-9 .-]{0,39}) omitted: ([^[\]\n]{1,120})\]/g, (_m, kind: string, rest: string) => {
    markers++;
    if (kind === "image") {
      const m = /^([^,]+), ([\d,]+) bytes(?:, \d+×\d+)?$/.exec(rest);
      if (!m) throw new Error(`not an image marker: ${rest}`);
      return `⟦image ${m[1]} ${m[2]}⟧`;
    }
    const m = /^([\d,]+) bytes$/.exec(rest);
    if (!m) throw new Error(`not an opaque-body marker: ${rest}`);
    return `⟦${kind} ${m[1]}⟧`;
  });
  return { text: out, markers };
}
