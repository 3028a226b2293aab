// An independent reader of an OpenAI Responses request body, as test/helpers/wire-reader.ts is
// for the other two shapes: the inspector's sections (items, content bytes, page text) from the
// body alone, by the Responses API's documented body shape and the inspector's documented page
// format (src/inspector/capture.ts, top). It shares no code with the adapter or the capture.
//
// Omitted bodies are written as the same tokens wire-reader.ts uses (`⟦image TYPE BYTES⟧`,
// `⟦KIND BYTES⟧`), so normalizeMarkers() from there applies to the pages.
import type { ReadSection } from "./wire-reader.js";

type Obj = Record<string, any>;

const utf8 = (s: string): number => Buffer.byteLength(s, "utf8");
const grouped = (n: number): string => n.toLocaleString("en-US");

class Section {
  items = 0;
  bytes = 0;
  readonly shown: string[] = [];
  readonly bodies: string[] = [];
  constructor(readonly source: string) {}
  sent(s: string): string {
    this.bytes += utf8(s);
    return s;
  }
  image(url: string): string {
    const m = /^data:([^;]+);base64,(.*)$/s.exec(url);
    if (!m) throw new Error("the reader expects images as data: URLs");
    this.bytes += utf8(m[2]!);
    this.bodies.push(m[2]!);
    return `⟦image ${m[1]} ${grouped(Buffer.from(m[2]!, "base64").length)}⟧`;
  }
  opaque(words: string, body: string): string {
    this.bytes += utf8(body);
    this.bodies.push(body);
    return `⟦${words} ${grouped(utf8(body))}⟧`;
  }
  item(role: string, blocks: string[]): void {
    this.items++;
    this.shown.push(`── ${this.items} · ${role} ──\n${blocks.join("\n")}`);
  }
  done(separator: string): ReadSection {
    return { source: this.source, items: this.items, bytes: this.bytes, text: this.shown.join(separator), bodies: this.bodies };
  }
}

/** Sections of a Responses body: system (`instructions`), one per context source (the leading
 * system messages of `input`, all non-blank), history (the rest of `input`), tools. */
export function readResponsesBody(body: Obj, contextSources: string[]): ReadSection[] {
  const input = body["input"] as Obj[];
  const system = new Section("system");
  if (typeof body["instructions"] === "string") {
    system.items = 1;
    system.shown.push(system.sent(body["instructions"]));
  }
  const lead = input.slice(0, contextSources.length);
  const context = contextSources.map((source, i) => {
    const s = new Section(source);
    const m = lead[i];
    if (!m || m["role"] !== "system" || typeof m["content"] !== "string") throw new Error(`the reader expects context item ${i} as a system message`);
    s.items = 1;
    s.shown.push(s.sent(m["content"]));
    return s.done("\n");
  });
  const h = new Section("history");
  for (const it of input.slice(contextSources.length)) {
    switch (it["type"]) {
      case "message": {
        const parts = it["content"] as Obj[];
        const blocks = parts.map((p): string => {
          switch (p["type"]) {
            case "input_text":
            case "output_text":
              return h.sent(p["text"]);
            case "input_image":
              return h.image(p["image_url"]);
            default:
              throw new Error(`the reader does not know a content part of type ${String(p["type"])}`);
          }
        });
        h.item(it["role"], blocks);
        break;
      }
      case "function_call":
        h.item("assistant", [`tool_call id=${it["call_id"]} name=${it["name"]} arguments=${h.sent(it["arguments"])}`]);
        break;
      case "function_call_output":
        h.item("tool", [`tool_result for id=${it["call_id"]}: ${h.sent(it["output"])}`]);
        break;
      case "reasoning":
        h.item("assistant", [`reasoning ${h.opaque("openai encrypted reasoning", JSON.stringify(it))}`]);
        break;
      default:
        throw new Error(`the reader does not know an input item of type ${String(it["type"])}`);
    }
  }
  const tools = new Section("tools");
  for (const t of (body["tools"] ?? []) as unknown[]) {
    tools.items++;
    tools.bytes += utf8(JSON.stringify(t));
    tools.shown.push(JSON.stringify(t, null, 2));
  }
  return [system.done("\n"), ...context, h.done("\n\n"), tools.done("\n\n")];
}
