import { describe, expect, it } from "vitest";
import { completeCommand, matchingCommands, parseInput, unquotePath } from "../../src/ui/commands.js";
import { contextText } from "../../src/ui/status.js";

describe("slash commands", () => {
  it("parses commands with arguments, unknown ones, and //escaped prompts", () => {
    expect(parseInput("/model gpt-4o")).toEqual({ kind: "command", name: "model", arg: "gpt-4o" });
    expect(parseInput("/export")).toEqual({ kind: "command", name: "export", arg: "" });
    expect(parseInput("/nope x")).toEqual({ kind: "unknown", name: "nope" });
    expect(parseInput("//etc/hosts is odd")).toEqual({ kind: "prompt", text: "/etc/hosts is odd" });
    expect(parseInput("hello /model")).toEqual({ kind: "prompt", text: "hello /model" });
  });

  it("hints and completes while the name is typed", () => {
    expect(matchingCommands("/c").map((c) => c.name)).toEqual(["compact", "context", "cost", "copy", "clear-screen"]);
    expect(completeCommand("/co")).toBeUndefined(); // compact, context, cost and copy share only "co"
    expect(completeCommand("/cop")).toBe("/copy ");
    expect(completeCommand("/sh")).toBe("/shells ");
    expect(completeCommand("/cl")).toBe("/clear-screen");
    expect(completeCommand("/con")).toBe("/context");
    expect(completeCommand("/mo")).toBe("/model ");
    expect(completeCommand("/zzz")).toBeUndefined();
    expect(matchingCommands("/image ~/a.png").map((c) => c.name)).toEqual(["image"]);
  });

  it("unquotes image paths and expands ~", () => {
    expect(unquotePath('"/tmp/a b.png"', "/home/u")).toBe("/tmp/a b.png");
    expect(unquotePath("~/x.png", "/home/u")).toBe("/home/u/x.png");
  });
});

describe("status line context estimate", () => {
  it("shows the window when known, says unknown otherwise", () => {
    expect(contextText({ estimate: "≈ 12,400 tokens (chars/4)", figure: { basis: "last request", tokens: 12400, method: "chars/4" }, window: 200000, compaction: "" })).toBe("≈ 12,400 / 200,000 tokens (chars/4)");
    expect(contextText({ estimate: "≈ 12,400 tokens (chars/4)", figure: { basis: "last request", tokens: 12400, method: "chars/4" }, compaction: "" })).toBe("≈ 12,400 tokens (chars/4) · window unknown");
    // the estimate of the next request (the pane is pending) says so
    const next = { estimate: "next request ≈ 1,200 tokens (chars/4)", figure: { basis: "next request" as const, tokens: 1200, method: "chars/4" }, compaction: "" };
    expect(contextText({ ...next, window: 200000 })).toBe("next request ≈ 1,200 / 200,000 tokens (chars/4)");
    // not worked out yet: no figure rather than a wrong one
    expect(contextText({ estimate: "", compaction: "" })).toBeUndefined();
  });
});
