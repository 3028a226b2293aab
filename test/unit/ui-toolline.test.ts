import { describe, expect, it } from "vitest";
import { formatDuration, formatToolLine, toolSummary } from "../../src/ui/toolline.js";
import { lineText } from "../../src/ui/style.js";
import { lineWidth } from "../../src/ui/text.js";

describe("tool lines", () => {
  it("one line with name, summary and result", () => {
    const ok = formatToolLine({ name: "bash", summary: "npm test", state: "ok", ms: 2100, expanded: false, width: 60 });
    expect(lineText(ok)).toBe("▸ bash  npm test   ✓ 2.1s");
    const bad = formatToolLine({ name: "read", summary: "a.txt", state: "error", ms: 40, expanded: true, width: 60 });
    expect(lineText(bad)).toBe("▾ read  a.txt   ✗ 40ms");
    expect(bad.find((s) => s.t.startsWith("✗"))?.s).toBe("err");
  });

  it("cuts a long summary so the line fits, keeping the result", () => {
    const l = formatToolLine({ name: "bash", summary: "x".repeat(200), state: "running", ms: 61_000, expanded: false, width: 40 });
    expect(lineWidth(l)).toBeLessThanOrEqual(40);
    expect(lineText(l)).toContain("…");
    expect(lineText(l)).toContain("running 1m 01s");
  });

  it("summaries show what matters per tool, on one inert line", () => {
    expect(toolSummary("bash", { command: "echo a\necho b" })).toBe("echo a ⏎ echo b");
    expect(toolSummary("read", { path: "src/x.ts", offset: 10, limit: 5 })).toBe("src/x.ts:10-14");
    expect(toolSummary("grep", { pattern: "TODO", glob: "*.ts", path: "src" })).toBe("TODO (*.ts) in src");
    expect(toolSummary("glob", { pattern: "**/*.md" })).toBe("**/*.md");
    expect(toolSummary("ls", {})).toBe(".");
    expect(toolSummary("mystery", { a: 1 })).toBe('{"a":1}');
    expect(toolSummary("bash", { command: "printf '\x1b]52;c;AAAA\x07'" })).not.toContain("\x1b");
  });

  it("durations", () => {
    expect(formatDuration(5)).toBe("5ms");
    expect(formatDuration(2100)).toBe("2.1s");
    expect(formatDuration(125_000)).toBe("2m 05s");
  });
});
