// Prefix scoping of bash permissions: a rule matches a line only when it matches every command
// in it, and anything the scan is unsure of matches nothing (a person is asked).
import { describe, expect, it } from "vitest";
import { lineMatches, lineTouches, parseRule, sessionRules, simpleCommands, formatRule } from "../../src/tools/command-rules.js";
import { PermissionMemory, commandScope } from "../../src/tools/run.js";
import { decide, type PolicyFacts } from "../../src/tools/policy.js";

const npmTest = parseRule("npm test:*")!;
const gitDiff = parseRule("git diff:*")!;

describe("simple commands", () => {
  it("splits on ; && || | & and newlines", () => {
    expect(simpleCommands("npm test; rm -rf ~")).toEqual([["npm", "test"], ["rm", "-rf", "~"]]);
    expect(simpleCommands("a && b || c | d & e")).toEqual([["a"], ["b"], ["c"], ["d"], ["e"]]);
    expect(simpleCommands("npm test\nrm -rf ~")).toEqual([["npm", "test"], ["rm", "-rf", "~"]]);
    expect(simpleCommands('echo "a;b"')).toEqual([["echo", "a;b"]]);
  });
  it("is unsure of substitutions, redirections, subshells, heredocs, variables and assignments in front", () => {
    for (const line of [
      "npm test $(rm -rf ~)",
      "npm test `rm -rf ~`",
      "npm test > /etc/passwd",
      "npm test 2>&1",
      "(rm -rf ~)",
      "npm test <(rm x)",
      "cat <<EOF\nx\nEOF",
      "$CMD test",
      "${CMD} test",
      "LD_PRELOAD=/x.so npm test",
      'npm test "\nrm -rf ~"',
      "npm test \\\nrm",
      "npm test\x1b[2J",
      "*.sh",
    ]) {
      expect(simpleCommands(line), line).toBeUndefined();
    }
  });
});

describe("a prefix rule matches a line only when every command matches", () => {
  const cases: [string, boolean][] = [
    ["npm test", true],
    ["npm test -- --watch=false", true],
    ["npm testx", false],
    ["npm", false],
    ["npm test; rm -rf ~", false],
    ["npm test && rm -rf ~", false],
    ["npm test || rm -rf ~", false],
    ["npm test | sh", false],
    ["npm test & rm -rf ~", false],
    ["npm test\nrm -rf ~", false],
    ["npm test $(rm -rf ~)", false],
    ["npm test `rm -rf ~`", false],
    ["npm test && git diff", true],
    ["git diff | npm test", true],
    ["npm test # ; rm -rf ~", true],
  ];
  for (const [line, ok] of cases) {
    it(`${JSON.stringify(line)} ${ok ? "matches" : "does not match"}`, () => {
      expect(lineMatches(line, [npmTest, gitDiff])).toBe(ok);
    });
  }
  it("an exact rule matches only that command", () => {
    const exact = parseRule("git status")!;
    expect(lineMatches("git status", [exact])).toBe(true);
    expect(lineMatches("git status --porcelain", [exact])).toBe(false);
  });
  it("a wrapper alone is never a prefix: bash:* does not allow bash -c anything", () => {
    expect(lineMatches("bash -c 'rm -rf ~'", [parseRule("bash:*")!])).toBe(false);
    expect(lineMatches("xargs rm", [parseRule("xargs:*")!])).toBe(false);
  });
  it("deny rules match when any command matches, and an unsure line by its words", () => {
    const rm = parseRule("rm:*")!;
    expect(lineTouches("ls; rm -rf x", [rm])).toBe(true);
    expect(lineTouches("ls $(rm -rf x)", [rm])).toBe(true);
    expect(lineTouches("ls", [rm])).toBe(false);
  });
});

describe("allow for this session", () => {
  it("grants the commands' prefixes, and says so", () => {
    expect(sessionRules("npm test")!.map(formatRule)).toEqual(["npm test:*"]);
    expect(sessionRules("git diff HEAD~1 && ls -la")!.map(formatRule)).toEqual(["git diff:*", "ls:*"]);
    expect(commandScope("npm test")).toBe("commands starting with: npm test");
    expect(commandScope("npm test $(x)")).toBe("this exact command only");
    expect(commandScope("bash -c 'x'")).toBe("this exact command only");
  });
  it("'echo one' for the session does not allow rm -rf later (the old whole-tool grant)", () => {
    const m = new PermissionMemory();
    m.rememberCommand("echo one");
    expect(lineMatches("echo two", m.commandRules())).toBe(true);
    expect(lineMatches("rm -rf ~", m.commandRules())).toBe(false);
    expect(lineMatches("echo two; rm -rf ~", m.commandRules())).toBe(false);
    expect(m.allowsTool("bash")).toBe(false);
    expect(m.grants()).toEqual(["bash(echo:*)"]);
    expect(m.revoke("bash(echo:*)")).toBe(true);
    expect(m.grants()).toEqual([]);
  });
  it("an unsure line is remembered exactly", () => {
    const m = new PermissionMemory();
    m.rememberCommand("make $(nproc)");
    expect(m.allowsLine("make $(nproc)")).toBe(true);
    expect(m.allowsLine("make $(rm -rf ~)")).toBe(false);
    expect(m.grants()).toEqual(["bash(make $(nproc))"]);
  });
});

describe("the policy", () => {
  const base = (over: Partial<PolicyFacts>): PolicyFacts => ({
    mode: "ask",
    workspace: "/w",
    tool: { name: "bash", kind: "exec" },
    command: "npm test",
    outside: [],
    sandboxed: false,
    toolAllowed: false,
    allow: [],
    deny: [],
    ...over,
  });
  it("ask: a sandboxed command runs; unsandboxed asks unless a rule allows every part", () => {
    expect(decide(base({ sandboxed: true })).act).toBe("run");
    expect(decide(base({})).act).toBe("ask");
    expect(decide(base({ allow: [npmTest] })).act).toBe("run");
    expect(decide(base({ allow: [npmTest], command: "npm test; rm -rf ~" })).act).toBe("ask");
  });
  it("deny rules win over the sandbox and over auto", () => {
    const rm = parseRule("rm:*")!;
    expect(decide(base({ sandboxed: true, command: "ls && rm x", deny: [rm] })).act).toBe("deny");
    expect(decide(base({ mode: "auto", command: "rm x", deny: [rm] })).act).toBe("deny");
  });
  it("accept-edits runs edits inside the workspace, asks outside and for commands", () => {
    const edit = { name: "edit", kind: "write" as const };
    expect(decide(base({ mode: "accept-edits", tool: edit })).act).toBe("run");
    expect(decide(base({ mode: "accept-edits", tool: edit, outside: [{ real: "/etc/x", allowed: false }] })).act).toBe("ask");
    expect(decide(base({ mode: "accept-edits" })).act).toBe("ask");
    expect(decide(base({ mode: "ask", tool: edit })).act).toBe("ask");
  });
  it("plan and read-only: reads only", () => {
    for (const mode of ["plan", "read-only"] as const) {
      expect(decide(base({ mode, sandboxed: true })).act).toBe("deny");
      expect(decide(base({ mode, tool: { name: "read", kind: "read" } })).act).toBe("run");
    }
  });
});
