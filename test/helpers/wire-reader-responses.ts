// An independent reader of an OpenAI Responses request body, as test/helpers/wire-reader.ts is
// for the other two shapes: the inspector's sections (items, content bytes, page text) from the
// body alone, by the Responses API's documented body shape and the inspector's documented page
// format (src/context/capture.ts, top). It shares no code with the adapter or the capture.
//
// Omitted bodies are written as the same tokens wire-reader.ts uses (`⟦image TYPE BYTES⟧`,
// `⟦KIND BYTES⟧`), so normalizeMarkers() from there applies to the pages.
import { message, Section, utf8, type ReadSection } from "./wire-reader.js";

type Obj = Record<string, any>;

/** A data: URL's image, counted as its base64 body */
function dataImage(s: Section, url: string): string {
  const m = /^data:([^;]+);base64,(.*)$/s.exec(url);
  if (!m) throw new Error("the reader expects images as data: URLs");
  return s.image(m[1]!, m[2]!);
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
              return dataImage(h, p["image_url"]);
            default:
              throw new Error(`the reader does not know a content part of type ${String(p["type"])}`);
          }
        });
        message(h, it["role"], blocks);
        break;
      }
      case "function_call":
        message(h, "assistant", [`tool_call id=${it["call_id"]} name=${it["name"]} arguments=${h.sent(it["arguments"])}`]);
        break;
      case "function_call_output":
        message(h, "tool", [`tool_result for id=${it["call_id"]}: ${h.sent(it["output"])}`]);
        break;
      case "reasoning":
        message(h, "assistant", [`reasoning ${h.opaque("openai encrypted reasoning", JSON.stringify(it))}`]);
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
