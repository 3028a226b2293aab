// A key that straddles the point where a tool's output is cut to size is cut out whole, never
// kept in part: redaction runs before the cut.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
import { BASH_OUTPUT_MAX } from "../../src/tools/bash.js";
import { MAX_TOOL_OUTPUT } from "../../src/tools/cap.js";
import { KEY_PIECE, redactorFor, REDACTED } from "../../src/config/secrets.js";
import { makeContext, removeTempFolders, tempFolder, type TestContext } from "./tools-fixture.js";

const KEY = "sk-ant-straddle-SECRET-0123456789abcdef0123";
const tools = builtinTools();
let ws: string;
let t: TestContext;
beforeEach(async () => {
  ws = await tempFolder();
  t = makeContext(ws);
  t.ctx.redact = redactorFor(() => [KEY]);
});
afterAll(removeTempFolders);

/** every piece of the key of KEY_PIECE characters or more that the text still holds */
function pieces(text: string): string[] {
  const found: string[] = [];
  for (let len = KEY_PIECE; len <= KEY.length; len++) for (let at = 0; at + len <= KEY.length; at++) if (text.includes(KEY.slice(at, at + len))) found.push(KEY.slice(at, at + len));
  return found;
}

describe("keys at the cut", () => {
  for (const offset of [-30, -10, -1, 0, 5, 20]) {
    it(`bash output with a key across the head cut (offset ${offset}) keeps no piece of it`, async () => {
      await fs.writeFile(path.join(ws, "key.txt"), KEY);
      const before = BASH_OUTPUT_MAX / 2 + offset;
      const out = await runTool(tools, "bash", { command: `head -c ${before} /dev/zero | tr '\\0' a; cat key.txt; head -c ${BASH_OUTPUT_MAX * 2} /dev/zero | tr '\\0' b` }, t.ctx, new PermissionMemory());
      expect(out.output).toContain("bytes cut");
      expect(pieces(out.output)).toEqual([]);
    });
  }

  it("bash output with a key across the tail cut keeps no piece of it", async () => {
    await fs.writeFile(path.join(ws, "key.txt"), KEY);
    const after = BASH_OUTPUT_MAX / 2 - 10;
    const out = await runTool(tools, "bash", { command: `head -c ${BASH_OUTPUT_MAX * 2} /dev/zero | tr '\\0' a; cat key.txt; head -c ${after} /dev/zero | tr '\\0' b` }, t.ctx, new PermissionMemory());
    expect(pieces(out.output)).toEqual([]);
  });

  it("a grep whose output is cut to size keeps no piece of a key, wherever the cut falls", async () => {
    // a key all along every line: whatever the cut lands on, it lands inside a key
    const line = Array.from({ length: 8 }, () => KEY).join(" ");
    await fs.writeFile(path.join(ws, "keys.txt"), Array.from({ length: 400 }, () => line).join("\n"));
    const out = await runTool(tools, "grep", { pattern: "SECRET" }, t.ctx, new PermissionMemory());
    expect(pieces(out.output)).toEqual([]);
    expect(out.output).toContain(REDACTED);
  });

  it("the redactor cuts a key's start or end left by a cut, and leaves its shared public prefix alone", () => {
    const r = redactorFor(() => [KEY]);
    expect(r(`head ${KEY.slice(0, 20)}…`)).toBe(`head ${REDACTED}…`);
    expect(r(`… ${KEY.slice(-18)} tail`)).toBe(`… ${REDACTED} tail`);
    expect(r(`${KEY}${KEY.slice(0, 17)}`)).toBe(`${REDACTED}${REDACTED}`);
    expect(r("keys look like sk-ant-straddle… or sk-ant-api03-…")).toBe("keys look like sk-ant-straddle… or sk-ant-api03-…");
  });
});
