import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { captureRequest, imageMarker, MARKER_RE, opaqueMarker, sectionBytes } from "../../src/context/capture.js";
import { PAGE_CHARS, type Capture } from "../../src/context/types.js";
import { encodeTool } from "../../src/provider/encode-tools.js";
import type { ProseMessage, ProviderName, Request, ToolSchema, WireMessage } from "../../src/provider/types.js";

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");
const at = "2026-01-02T03:04:05.000Z";

const tools: ToolSchema[] = [
  {
    name: "read",
    description: "Read a file — with ünïcödé",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  { name: "bash", description: "Run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
];

/** A request whose messages are all in the live round (the capture reads them the same way
 * wherever they sit; the test below checks that). */
function request(provider: ProviderName, messages: WireMessage[], extra: Partial<Request> = {}): Request {
  return {
    provider,
    model: provider === "openai" ? "gpt-4o" : "claude-sonnet-4-5",
    system: "You are albedo. 日本語 and 😀 count as UTF-8 bytes.",
    context: [
      { source: "AGENTS.md", text: "# Rules\nKeep it tidy. ✓" },
      { source: "workspace facts", text: "cwd: /home/u/proj\nos: linux" },
    ],
    history: [],
    live: messages,
    tools,
    maxOutputTokens: 4096,
    reasoning: "off",
    ...extra,
  };
}

function joined(c: Capture, i: number): string {
  return (c.pages[i] ?? []).join("");
}

function section(c: Capture, kind: string) {
  const s = c.sections.find((x) => x.kind === kind);
  if (!s) throw new Error(`no ${kind} section`);
  return s;
}

const b64 = (n: number): string => randomBytes(n).toString("base64");

const mixedHistory = (): WireMessage[] => [
  { role: "user", content: [{ type: "text", text: "Fix the bug in naïve.ts 🐛" }] },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Look at the file first." },
      { type: "tool_call", id: "c1", name: "read", input: { path: "naïve.ts", lines: [1, 20] } },
    ],
  },
  {
    role: "user",
    content: [{ type: "tool_result", callId: "c1", name: "read", output: "const x = 'é';\n", isError: false }],
  },
  {
    role: "user",
    content: [{ type: "tool_result", callId: "c2", name: "bash", output: "command not found", isError: true }],
  },
];

describe("captureRequest: sections and exact bytes", () => {
  for (const provider of ["anthropic", "openai"] as const) {
    it(`counts the exact UTF-8 bytes of each section (${provider})`, () => {
      const req = request(provider, mixedHistory());
      const c = captureRequest(req, { iteration: 2, capturedAt: at });

      expect(c.sections.map((s) => `${s.kind}:${s.source}`)).toEqual([
        "system:system",
        "context:AGENTS.md",
        "context:workspace facts",
        "history:history",
        "tools:tools",
      ]);
      expect(c.sections.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
      expect(c.sections.map((s) => s.items)).toEqual([1, 1, 1, 4, 2]);

      expect(section(c, "system").bytes).toBe(bytes(req.system));
      expect(c.sections[1]?.bytes).toBe(bytes("# Rules\nKeep it tidy. ✓"));
      expect(c.sections[2]?.bytes).toBe(bytes("cwd: /home/u/proj\nos: linux"));

      const historyBytes =
        bytes("Fix the bug in naïve.ts 🐛") +
        // unsigned reasoning: labelled prose on Anthropic, reasoning_content on OpenAI
        bytes(provider === "anthropic" ? "[Reasoning]: Look at the file first." : "Look at the file first.") +
        bytes(JSON.stringify({ path: "naïve.ts", lines: [1, 20] })) +
        bytes("const x = 'é';\n") +
        // OpenAI's tool messages carry no error flag: the adapter says it in the text, and that is counted
        bytes(provider === "openai" ? "Error: command not found" : "command not found");
      expect(section(c, "history").bytes).toBe(historyBytes);

      const toolBytes = tools.reduce((n, t) => n + bytes(JSON.stringify(encodeTool(provider, t))), 0);
      expect(section(c, "tools").bytes).toBe(toolBytes);

      expect(c.meta.totalBytes).toBe(c.sections.reduce((n, s) => n + s.bytes, 0));
      expect(c.meta).toMatchObject({ provider, model: req.model, capturedAt: at, iteration: 2 });
      expect(c.meta.contextWindow).toBeUndefined();
      for (const [i, s] of c.sections.entries()) {
        expect(s.chars).toBe(joined(c, i).length);
        expect(s.pages).toBe(c.pages[i]?.length);
        expect(s.deltaBytes).toBeNull();
      }
    });
  }

  it("shows system and context text verbatim and tools as the encoded schema", () => {
    const req = request("openai", []);
    const c = captureRequest(req, { iteration: 1, capturedAt: at });
    expect(joined(c, 0)).toBe(req.system);
    expect(joined(c, 1)).toBe("# Rules\nKeep it tidy. ✓");
    const toolText = joined(c, 4);
    for (const t of tools) {
      expect(toolText).toContain(JSON.stringify(encodeTool("openai", t), null, 2));
    }
    expect(toolText).toContain('"type": "function"');
    expect(section(c, "tools").preview).toBe("read, bash");
  });

  it("shows the live round's native parts as what they are, with their ids (anthropic)", () => {
    const c = captureRequest(request("anthropic", mixedHistory()), { iteration: 1, capturedAt: at });
    expect(section(c, "history").shape).toBe("3 user, 1 assistant messages");
    expect(joined(c, 3)).toBe(
      [
        "── 1 · user ──",
        "Fix the bug in naïve.ts 🐛",
        "",
        "── 2 · assistant ──",
        "[Reasoning]: Look at the file first.",
        'tool_use id=c1 name=read input={"path":"naïve.ts","lines":[1,20]}',
        "",
        "── 3 · user ──",
        "tool_result for id=c1: const x = 'é';\n",
        "",
        "── 4 · user ──",
        "tool_result for id=c2 is_error: command not found",
      ].join("\n"),
    );
  });

  it("shows OpenAI's messages as sent: calls on the assistant, one tool message per result, Error: in the text", () => {
    const c = captureRequest(request("openai", mixedHistory()), { iteration: 1, capturedAt: at });
    expect(section(c, "history").items).toBe(4);
    expect(section(c, "history").shape).toBe("1 user, 1 assistant, 2 tool messages");
    expect(joined(c, 3)).toBe(
      [
        "── 1 · user ──",
        "Fix the bug in naïve.ts 🐛",
        "",
        "── 2 · assistant ──",
        'tool_call id=c1 name=read arguments={"path":"naïve.ts","lines":[1,20]}',
        "reasoning_content: Look at the file first.",
        "",
        "── 3 · tool ──",
        "tool_result for id=c1: const x = 'é';\n",
        "",
        "── 4 · tool ──",
        "tool_result for id=c2: Error: command not found",
      ].join("\n"),
    );
  });

  it("shows replayed prose as prose", () => {
    const prose: ProseMessage[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "text", text: 'Tool use: read({"path":"a"})' }] },
      { role: "user", content: [{ type: "text", text: "Error (read): no such file" }] },
    ];
    for (const provider of ["anthropic", "openai"] as const) {
      const c = captureRequest(request(provider, [], { history: prose, live: [] }), { iteration: 1, capturedAt: at });
      expect(joined(c, 3)).toBe(
        ["── 1 · user ──", "go", "", "── 2 · assistant ──", 'Tool use: read({"path":"a"})', "", "── 3 · user ──", "Error (read): no such file"].join("\n"),
      );
    }
  });

  it("counts bodies in full: base64 data, signatures, redacted thinking; a tool input as its JSON on the wire", () => {
    const data = b64(3000);
    const sig = b64(400);
    const live: WireMessage[] = [
      { role: "user", content: [{ type: "image", mediaType: "image/png", data, bytes: 3000 }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "héllo", opaque: { kind: "thinking_signature", body: sig } },
          { type: "reasoning", text: "", opaque: { kind: "redacted_thinking", body: "RED+/=" } },
          // Anthropic wants an object: a bare value crosses wrapped, and that is what is counted
          { type: "tool_call", id: "x", name: "n", input: "ü" },
        ],
      },
      { role: "user", content: [{ type: "tool_result", callId: "x", name: "n", output: "☃", isError: false }] },
    ];
    const c = captureRequest(request("anthropic", live), { iteration: 1, capturedAt: at });
    expect(section(c, "history").bytes).toBe(data.length + bytes("héllo") + sig.length + 6 + bytes('{"value":"ü"}') + 3);
    expect([...joined(c, 3).matchAll(MARKER_RE)].map((m) => m[0])).toEqual([
      "[image omitted: image/png, 3,000 bytes]",
      `[thinking signature omitted: ${sig.length} bytes]`,
      "[redacted thinking omitted: 6 bytes]",
    ]);
  });

  it("does not count what is not sent: a blank system text, blank context, blank reasoning, OpenAI's opaque bodies", () => {
    const live: WireMessage[] = [
      { role: "user", content: [{ type: "text", text: "q" }] },
      // unsigned blank reasoning crosses as nothing; the message then says it was empty
      { role: "assistant", content: [{ type: "reasoning", text: " \n " }] },
    ];
    const a = captureRequest(request("anthropic", live, { system: "  ", context: [{ source: "AGENTS.md", text: "\n" }] }), {
      iteration: 1,
      capturedAt: at,
    });
    expect(a.sections.map((s) => [s.source, s.items, s.bytes])).toEqual([
      ["system", 0, 0],
      ["AGENTS.md", 0, 0],
      ["history", 2, bytes("q") + bytes("(empty message)")],
      ["tools", 2, tools.reduce((n, t) => n + bytes(JSON.stringify(encodeTool("anthropic", t))), 0)],
    ]);
    expect(joined(a, 2)).toBe("── 1 · user ──\nq\n\n── 2 · assistant ──\n(empty message)");

    // OpenAI carries reasoning as text only: a signature is not sent, so not counted or shown
    const o = captureRequest(
      request("openai", [{ role: "assistant", content: [{ type: "reasoning", text: "r", opaque: { kind: "thinking_signature", body: "SIG" } }] }]),
      { iteration: 1, capturedAt: at },
    );
    expect(section(o, "history").bytes).toBe(bytes("") + bytes("r"));
    expect(joined(o, 3)).toBe("── 1 · assistant ──\n\nreasoning_content: r");
  });

  it("numbers context items that share a source so each section keeps its own key", () => {
    const req = request("anthropic", [], {
      context: [
        { source: "AGENTS.md", text: "root" },
        { source: "AGENTS.md", text: "sub" },
      ],
    });
    const c = captureRequest(req, { iteration: 1, capturedAt: at });
    expect(c.sections.map((s) => s.source)).toEqual(["system", "AGENTS.md", "AGENTS.md (2)", "history", "tools"]);
    expect(sectionBytes(c.sections).size).toBe(5);
  });
});

describe("captureRequest: omissions", () => {
  it("replaces three images and two signed thinking blocks by markers, in place", () => {
    const img = [b64(4000), b64(5000), b64(6000)];
    const sig = [b64(700), b64(900)];
    const history: WireMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "AAA look at these" },
          { type: "image", mediaType: "image/png", data: img[0]!, bytes: 4000, width: 800, height: 600 },
          { type: "text", text: "BBB and this" },
          { type: "image", mediaType: "image/jpeg", data: img[1]!, bytes: 5000 },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "CCC thinking one", opaque: { kind: "thinking_signature", body: sig[0]! } },
          { type: "text", text: "DDD answer" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "EEE thinking two", opaque: { kind: "thinking_signature", body: sig[1]! } },
          { type: "image", mediaType: "image/webp", data: img[2]!, bytes: 6000, width: 10, height: 20 },
          { type: "text", text: "FFF end" },
        ],
      },
    ];
    const c = captureRequest(request("anthropic", history), { iteration: 1, capturedAt: at });
    const text = joined(c, 3);

    for (const body of [...img, ...sig]) {
      // no fragment of any body, on any page
      for (let i = 0; i + 24 <= body.length; i += 500) {
        for (const page of c.pages.flat()) expect(page).not.toContain(body.slice(i, i + 24));
      }
    }

    const markers = [...text.matchAll(MARKER_RE)].map((m) => m[0]);
    expect(markers).toEqual([
      imageMarker("image/png", 4000, 800, 600),
      imageMarker("image/jpeg", 5000),
      opaqueMarker("thinking_signature", sig[0]!.length),
      opaqueMarker("thinking_signature", sig[1]!.length),
      imageMarker("image/webp", 6000, 10, 20),
    ]);
    expect(markers[0]).toBe("[image omitted: image/png, 4,000 bytes, 800×600]");
    expect(markers[1]).toBe("[image omitted: image/jpeg, 5,000 bytes]");
    expect(markers[2]).toBe(`[thinking signature omitted: ${sig[0]!.length.toLocaleString("en-US")} bytes]`);

    // each marker sits between the parts around it
    const order = ["AAA", markers[0]!, "BBB", markers[1]!, "CCC", markers[2]!, "DDD", "EEE", markers[3]!, markers[4]!, "FFF"];
    let last = -1;
    for (const piece of order) {
      const i = text.indexOf(piece, last + 1);
      expect(i, piece).toBeGreaterThan(last);
      last = i;
    }

    // bytes still count every body in full
    const expected =
      bytes("AAA look at these") +
      bytes("BBB and this") +
      bytes("CCC thinking one") +
      bytes("DDD answer") +
      bytes("EEE thinking two") +
      bytes("FFF end") +
      img.reduce((n, d) => n + d.length, 0) +
      sig.reduce((n, d) => n + d.length, 0);
    expect(section(c, "history").bytes).toBe(expected);
  });

  it("keeps hostile kinds and media types from breaking the marker shape", () => {
    const history: WireMessage[] = [
      { role: "user", content: [{ type: "image", mediaType: "image/png]\n[x", data: "QUJD", bytes: 3 }] },
    ];
    const c = captureRequest(request("anthropic", history), { iteration: 1, capturedAt: at });
    const markers = [...joined(c, 3).matchAll(MARKER_RE)].map((m) => m[0]);
    expect(markers).toEqual(["[image omitted: image/pngx, 3 bytes]"]);
    // an opaque body is shown only when it is sent (Anthropic's own kinds), but its kind is
    // made safe all the same
    expect(opaqueMarker("]\n[evil_KIND]", 4)).toBe("[evil kind omitted: 4 bytes]");
  });
});

describe("captureRequest: large history and pages", () => {
  it("pages a ~3 MB history completely; the pages re-join to the inspectable text", () => {
    const history: WireMessage[] = [];
    const expectedParts: string[] = [];
    const line = "résumé 😀 naïve [not a marker] ";
    for (let i = 0; i < 600; i++) {
      const role = i % 2 === 0 ? "user" : "assistant";
      const text = `${i}:`.padEnd(10, ".") + line.repeat(160);
      history.push({ role, content: [{ type: "text", text }] });
      expectedParts.push(`── ${i + 1} · ${role} ──\n${text}`);
    }
    const expected = expectedParts.join("\n\n");
    expect(expected.length).toBeGreaterThan(2_900_000);

    const c = captureRequest(request("openai", history), { iteration: 3, capturedAt: at });
    const h = section(c, "history");
    const pages = c.pages[h.index]!;
    expect(pages.join("")).toBe(expected);
    expect(h.chars).toBe(expected.length);
    expect(h.pages).toBe(pages.length);
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(expected.length / PAGE_CHARS));
    for (const p of pages) expect(p.length).toBeLessThanOrEqual(PAGE_CHARS);
    expect(h.bytes).toBe(history.reduce((n, m) => n + bytes((m.content[0] as { text: string }).text), 0));
    expect(h.preview.length).toBeLessThanOrEqual(200);
    expect(h.preview).not.toMatch(/\n/);
    expect(h.preview.endsWith("…")).toBe(true);
  });

  it("handles an empty history: no items, no bytes, one empty page", () => {
    const c = captureRequest(request("anthropic", [], { tools: [] }), { iteration: 1, capturedAt: at });
    const h = section(c, "history");
    expect(h).toMatchObject({ items: 0, bytes: 0, chars: 0, pages: 1, preview: "" });
    expect(c.pages[h.index]).toEqual([""]);
    expect(h.estimate.tokens).toBe(0);
    const t = section(c, "tools");
    expect(t).toMatchObject({ items: 0, bytes: 0, pages: 1 });
  });
});

describe("captureRequest: change since last, estimates, metadata", () => {
  it("gives deltaBytes against the previous capture's section bytes", () => {
    const first = captureRequest(request("anthropic", mixedHistory()), { iteration: 1, capturedAt: at });
    const more: WireMessage[] = [...mixedHistory(), { role: "assistant", content: [{ type: "text", text: "Done ✓" }] }];
    const req2 = request("anthropic", more, {
      context: [
        { source: "AGENTS.md", text: "# Rules\nKeep it tidy. ✓" },
        { source: "CLAUDE.md", text: "new file" },
      ],
    });
    const second = captureRequest(req2, {
      iteration: 2,
      capturedAt: at,
      previousBytes: sectionBytes(first.sections),
    });
    const by = new Map(second.sections.map((s) => [s.source, s.deltaBytes]));
    expect(by.get("system")).toBe(0);
    expect(by.get("AGENTS.md")).toBe(0);
    expect(by.get("CLAUDE.md")).toBeNull();
    expect(by.get("history")).toBe(bytes("Done ✓"));
    expect(by.get("tools")).toBe(0);
  });

  it("labels every estimate with its method, images included", () => {
    const history: WireMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "hello there" },
          { type: "image", mediaType: "image/png", data: "QUJD", bytes: 3, width: 750, height: 100 },
        ],
      },
    ];
    const a = captureRequest(request("anthropic", history), { iteration: 1, capturedAt: at });
    for (const s of a.sections) expect(s.estimate.method.startsWith("chars/4")).toBe(true);
    expect(section(a, "history").estimate.method).toBe("chars/4 + images by size");
    // 750×100/750 = 100 tokens for the image, plus the text
    expect(section(a, "history").estimate.tokens).toBe(100 + Math.ceil("hello there".length / 4));
    expect(section(a, "system").estimate.tokens).toBeGreaterThan(0);

    const o = captureRequest(request("openai", history), { iteration: 1, capturedAt: at });
    expect(section(o, "system").estimate.method).toBe("o200k tokenizer");
    expect(section(o, "history").estimate.method).toBe("o200k tokenizer + images by size");

    const unknownSize: WireMessage[] = [
      { role: "user", content: [{ type: "image", mediaType: "image/png", data: "QUJD", bytes: 3 }] },
    ];
    const u = captureRequest(request("anthropic", unknownSize), { iteration: 1, capturedAt: at });
    expect(section(u, "history").estimate).toEqual({ tokens: 1600, method: "chars/4 + images at a flat 1,600 (size unknown)" });
  });

  it("carries window, provider usage and compaction into the metadata", () => {
    const c = captureRequest(request("openai", []), {
      iteration: 4,
      capturedAt: at,
      contextWindow: 128_000,
      providerUsage: { inputTokens: 1200, outputTokens: 80 },
      compaction: "microcompact: 3 old tool outputs blurred",
    });
    expect(c.meta).toEqual({
      provider: "openai",
      model: "gpt-4o",
      capturedAt: at,
      iteration: 4,
      contextWindow: 128_000,
      totalBytes: c.sections.reduce((n, s) => n + s.bytes, 0),
      providerUsage: { inputTokens: 1200, outputTokens: 80 },
      compaction: "microcompact: 3 old tool outputs blurred",
    });
  });

  it("previews are single-line and bounded", () => {
    const long = "line one\n\tline two\u001b[31m red " + "x".repeat(5000);
    const c = captureRequest(request("anthropic", [], { system: long }), { iteration: 1, capturedAt: at });
    const p = c.sections[0]!.preview;
    expect(p.length).toBeLessThanOrEqual(200);
    expect(p).toMatch(/^line one line two \[31m red x+…$/);
  });
});
