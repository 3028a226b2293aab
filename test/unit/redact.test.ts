import { describe, expect, it } from "vitest";
import { redactBlocks, redactRequest } from "../../src/session/turn/redact.js";
import { redactorFor, REDACTED, REDACT_MIN_KEY } from "../../src/config/secrets.js";
import type { Block } from "../../src/record/types.js";
import type { Request } from "../../src/provider/types.js";

const KEY = "sk-proj-unit-SECRET-abcdef012345";
const redact = redactorFor(() => [KEY, "short", undefined]);

describe("redaction of what is stored and sent", () => {
  it("cuts the key out of every text a block carries, images untouched", () => {
    const blocks: Block[] = [
      { type: "text", text: `key ${KEY} twice ${KEY}` },
      { type: "tool_use", id: "t1", name: "bash", input: { command: `curl -H 'x: ${KEY}'`, list: [KEY, 3, null], [KEY]: true } },
      { type: "tool_result", toolUseId: "t1", name: "bash", output: `ok ${KEY}`, isError: false },
      { type: "reasoning", text: `thinking of ${KEY}`, opaque: { kind: "signature", body: "sig" } },
      { type: "image", mediaType: "image/png", data: "AAAA", bytes: 3 },
    ];
    const out = redactBlocks(blocks, redact);
    const json = JSON.stringify(out);
    expect(json).not.toContain(KEY);
    expect((out[0] as { text: string }).text).toBe(`key ${REDACTED} twice ${REDACTED}`);
    expect(out[1]).toMatchObject({ input: { command: `curl -H 'x: ${REDACTED}'`, list: [REDACTED, 3, null], [REDACTED]: true } });
    // the signature covered the text that held the key: it goes with it (test/unit/redact-opaque.test.ts)
    expect(out[3]).toEqual({ type: "reasoning", text: `thinking of ${REDACTED}` });
    expect(out[4]).toBe(blocks[4]);
  });

  it("returns the very same objects when there is nothing to cut", () => {
    const blocks: Block[] = [
      { type: "text", text: "plain" },
      { type: "tool_use", id: "t1", name: "read", input: { path: "a.ts", nested: { x: [1, "y"] } } },
    ];
    expect(redactBlocks(blocks, redact)).toBe(blocks);
    const req: Request = {
      provider: "openai",
      model: "gpt-4o",
      system: "sys",
      context: [{ source: "AGENTS.md", text: "tabs" }],
      history: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      live: [{ role: "assistant", content: [{ type: "tool_call", id: "c", name: "ls", input: { path: "." } }] }],
      tools: [],
      maxOutputTokens: 100,
      reasoning: "off",
    };
    expect(redactRequest(req, redact)).toBe(req);
  });

  it("cuts the key out of every part of a request: system, context items, history, live tool calls and results", () => {
    const req: Request = {
      provider: "anthropic",
      model: "m",
      system: `s ${KEY}`,
      context: [{ source: "AGENTS.md", text: `a ${KEY}` }, { source: "workspace facts", text: "clean" }],
      history: [{ role: "user", content: [{ type: "text", text: `u ${KEY}` }] }],
      live: [
        { role: "assistant", content: [{ type: "tool_call", id: "c", name: "bash", input: { command: KEY } }, { type: "reasoning", text: KEY }] },
        { role: "user", content: [{ type: "tool_result", callId: "c", name: "bash", output: KEY, isError: false }] },
      ],
      tools: [],
      maxOutputTokens: 1,
      reasoning: "off",
    };
    const out = redactRequest(req, redact);
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(out.context[1]).toBe(req.context[1]);
    expect(JSON.stringify(req)).toContain(KEY); // the input is not changed in place
  });

  it("cuts the key out of the tools: descriptions and every string of a schema, nested; a tool named with a key is left out", () => {
    const plain = { name: "read", description: "reads", inputSchema: { type: "object", properties: { path: { type: "string" } } } };
    const req: Request = {
      provider: "anthropic",
      model: "m",
      system: "s",
      context: [],
      history: [],
      tools: [
        plain,
        {
          name: "mcp__srv__echo",
          description: `echoes ${KEY}`,
          inputSchema: {
            type: "object",
            title: KEY,
            properties: {
              a: { type: "string", description: `d ${KEY}`, default: KEY, enum: [KEY, "x"], examples: [`e ${KEY.slice(0, 20)}`], pattern: `^${KEY}$` },
              nested: { type: "object", properties: { deep: { type: "array", items: { type: "string", description: KEY } } } },
            },
          },
        },
        { name: `mcp__srv__t_${KEY}`, description: "named", inputSchema: { type: "object", properties: {} } },
        { name: "mcp__srv__keyed", description: "keyed", inputSchema: { type: "object", properties: { [`k_${KEY}`]: { type: "string" } } } },
      ],
      maxOutputTokens: 1,
      reasoning: "off",
    };
    const out = redactRequest(req, redact);
    expect(out.tools.map((t) => t.name)).toEqual(["read", "mcp__srv__echo"]);
    expect(out.tools[0]).toBe(plain);
    const json = JSON.stringify(out.tools);
    expect(json).not.toContain(KEY);
    expect(json).not.toContain(KEY.slice(0, 16)); // a piece at a cut too
    expect(out.tools[1]!.description).toBe(`echoes ${REDACTED}`);
    expect(JSON.stringify(out.tools[1]!.inputSchema)).toContain(`"enum":["${REDACTED}","x"]`);
  });

  it("leaves placeholder keys of local servers alone", () => {
    expect("short".length).toBeLessThan(REDACT_MIN_KEY);
    expect(redact("a short word")).toBe("a short word");
  });
});
