import { describe, expect, it } from "vitest";
import { builtinTools, toolSchemas } from "../../src/tools/run.js";
import { encodeAnthropicTool, encodeOpenAITool } from "../../src/provider/encode-tools.js";

describe("toolSchemas", () => {
  const schemas = toolSchemas(builtinTools());

  it("gives one schema per built-in tool, in order", () => {
    expect(schemas.map((s) => s.name)).toEqual(["read", "write", "edit", "bash", "bash_output", "bash_stop", "ls", "glob", "grep"]);
  });

  it.each(toolSchemas(builtinTools()).map((s) => [s.name, s] as const))("%s is a plain JSON object schema", (_name, s) => {
    const js = s.inputSchema;
    expect(js.$schema).toBeUndefined();
    expect(js.type).toBe("object");
    const props = js.properties as Record<string, Record<string, unknown>>;
    const required = js.required as string[];
    expect(typeof props).toBe("object");
    expect(Array.isArray(required)).toBe(true);
    for (const r of required) expect(Object.keys(props)).toContain(r);
    // models read the descriptions: every field has one, and every tool says what it does
    for (const [field, p] of Object.entries(props)) {
      expect(typeof p.description, `${s.name}.${field}`).toBe("string");
      expect(typeof p.type, `${s.name}.${field}`).toBe("string");
    }
    expect(s.description.length).toBeGreaterThan(20);
    // survives the trip into a request body unchanged
    expect(JSON.parse(JSON.stringify(js))).toEqual(js);
    expect(encodeAnthropicTool(s).input_schema).toBe(js);
    expect((encodeOpenAITool(s).function as Record<string, unknown>).parameters).toBe(js);
  });

  it("states requirements exactly", () => {
    const by = Object.fromEntries(schemas.map((s) => [s.name, s.inputSchema]));
    expect(by.read!.required).toEqual(["path"]);
    expect(by.edit!.required).toEqual(["path", "old_string", "new_string"]);
    expect(by.bash!.required).toEqual(["command"]);
    expect(by.ls!.required).toEqual([]);
    const bashProps = by.bash!.properties as Record<string, Record<string, unknown>>;
    expect(bashProps.timeout_ms).toMatchObject({ type: "integer", minimum: 1, maximum: 600_000 });
    // zod's ±2^53 integer bounds are noise and are dropped
    const readProps = by.read!.properties as Record<string, Record<string, unknown>>;
    expect(readProps.offset).toEqual({ type: "integer", minimum: 1, description: "First line to show, 1-based (default 1)" });
  });
});
