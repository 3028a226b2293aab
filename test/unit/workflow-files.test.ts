// The pure parts of commands, skills, hooks and the task list: substitution, front matter
// (hostile YAML included), matchers, how a hook's exit is read, the list in the record, and
// how many messages a summary note stands in for. Skills are read from real files.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { expandCommand, loadCommands, matchCommand, splitArguments, type CustomCommand } from "../../src/extensions/commands.js";
import { listField, plainLine, splitFrontMatter } from "../../src/extensions/workflow-files.js";
import { matches, readExit, type Hook, type HookVerdict } from "../../src/extensions/hooks.js";
import { loadSkills, readSkillBody, skillsItem } from "../../src/extensions/skills.js";
import { latestTodoList, todoItems, todoSummary } from "../../src/tools/todo-list.js";
import { summarisedCount } from "../../src/session/turn/task-list.js";
import { summaryText } from "../../src/compaction/summary.js";

describe("command substitution", () => {
  it("puts in $ARGUMENTS and $1…$9, quotes kept together; without either the arguments follow", () => {
    expect(expandCommand("Review $ARGUMENTS now", "src/a.ts src/b.ts")).toBe("Review src/a.ts src/b.ts now");
    expect(expandCommand("Move $1 to $2 ($3)", `"a file.txt" dest`)).toBe("Move a file.txt to dest ()");
    expect(expandCommand("$10 stays", "x")).toBe("$10 stays\n\nx");
    expect(expandCommand("No placeholders.", "extra words")).toBe("No placeholders.\n\nextra words");
    expect(expandCommand("No placeholders.", "")).toBe("No placeholders.");
    // what is put in is not expanded again
    expect(expandCommand("$ARGUMENTS", "$1 $ARGUMENTS")).toBe("$1 $ARGUMENTS");
    expect(splitArguments(`a 'b c' "d \\"e\\""`)).toEqual(["a", "b c", 'd "e"']);
  });

  it("matches a typed command by name, case-insensitively, namespaces included", () => {
    const cmd = (name: string): CustomCommand => ({ name, description: "", argumentHint: "", allowedTools: [], body: "", file: name });
    const list = [cmd("review"), cmd("team:ship")];
    expect(matchCommand("/Review src/x.ts", list)).toMatchObject({ command: { name: "review" }, args: "src/x.ts" });
    expect(matchCommand("/team:ship\nnow", list)).toMatchObject({ command: { name: "team:ship" }, args: "now" });
    expect(matchCommand("/reviewer", list)).toBeUndefined();
    expect(matchCommand("review", list)).toBeUndefined();
  });
});

describe("front matter", () => {
  it("reads fields and body; refuses a YAML alias bomb and a non-mapping by name", () => {
    expect(splitFrontMatter("---\ndescription: hi\nallowed-tools: Bash(git add:*), Read\n---\nbody")).toEqual({
      fields: { description: "hi", "allowed-tools": "Bash(git add:*), Read" },
      body: "body",
    });
    expect(listField("Bash(git add:*), Read Write")).toEqual(["Bash(git add:*)", "Read", "Write"]);
    const bomb = ["---", "a: &a [x,x,x,x,x,x,x,x,x,x]", ...Array.from({ length: 9 }, (_, i) => `${"bcdefghij"[i]}: &${"bcdefghij"[i]} [${Array(10).fill(`*${i === 0 ? "a" : "bcdefghij"[i - 1]}`).join(",")}]`), "---", "body"].join("\n");
    const r = splitFrontMatter(bomb);
    expect(r.problem).toMatch(/not valid YAML/);
    expect(r.body).toBe("body");
    expect(splitFrontMatter("---\n- a\n- b\n---\nx").problem).toMatch(/not a mapping/);
    expect(splitFrontMatter("no front matter")).toEqual({ fields: {}, body: "no front matter" });
  });

  it("makes every text from a file plain: no controls, no bidi overrides, bounded", () => {
    expect(plainLine("a\u001b]0;title\u0007b\u009b31m\u202ec\r\nd")).toBe("a ]0;title b 31m c d");
    expect(plainLine("x".repeat(400))).toHaveLength(300);
    expect(plainLine({ not: "a string" })).toBe("");
  });
});

describe("skills from files", () => {
  it("lists name and description only; the body is read on request; hostile fields are plain or skipped", () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-skills-"));
    const put = (rel: string, text: string): void => {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    };
    put(".claude/skills/a/SKILL.md", "---\nname: alpha\ndescription: \"does \\e[2J alpha\"\n---\nALPHA BODY");
    put(".agents/skills/b/SKILL.md", "---\nname: \"bad\\u0007name\"\ndescription: d\n---\nx");
    put(".agents/skills/c/SKILL.md", `---\nname: c\ndescription: ${"y".repeat(300_000)}\n---\nx`);
    fs.mkdirSync(path.join(ws, ".claude/skills/out"), { recursive: true });
    fs.symlinkSync("/etc/hostname", path.join(ws, ".claude/skills/out/SKILL.md"));
    const { skills, problems } = loadSkills(ws, undefined);
    expect(skills.map((s) => [s.name, s.description])).toEqual([["alpha", "does [2J alpha"]]);
    expect(problems.join("\n")).toMatch(/a skill's name takes letters/);
    expect(problems.join("\n")).toMatch(/c\/SKILL\.md is .*over the limit/);
    expect(problems.join("\n")).toMatch(/out\/SKILL\.md was not read: it leads outside the workspace/);
    expect(skillsItem(skills)!.text).not.toContain("ALPHA BODY");
    expect(readSkillBody(skills[0]!)).toMatchObject({ text: expect.stringContaining("ALPHA BODY") });
    fs.rmSync(ws, { recursive: true, force: true });
  });
});

describe("command files from a hostile workspace", () => {
  it("a FIFO, a linked commands folder and a folder linked out are refused by name; nothing blocks", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-cmds-"));
    const ws = path.join(root, "ws");
    const outside = path.join(root, "outside");
    fs.mkdirSync(path.join(ws, ".claude/commands"), { recursive: true });
    fs.mkdirSync(path.join(outside, "commands"), { recursive: true });
    fs.writeFileSync(path.join(outside, "commands/stolen.md"), "STOLEN");
    execFileSync("mkfifo", [path.join(ws, ".claude/commands/pipe.md")]);
    // the whole folder a link out, and a sub-folder a link out
    fs.mkdirSync(path.join(ws, ".agents"), { recursive: true });
    fs.symlinkSync(path.join(outside, "commands"), path.join(ws, ".agents/commands"));
    fs.symlinkSync(path.join(outside, "commands"), path.join(ws, ".claude/commands/sub"));
    fs.writeFileSync(path.join(ws, ".claude/commands/fine.md"), "FINE $ARGUMENTS");
    const { commands, problems } = loadCommands(ws, undefined, ["help"]);
    expect(commands.map((c) => c.name)).toEqual(["fine"]);
    const said = problems.join("\n");
    expect(said).toMatch(/pipe\.md was not read: it is not a regular file/);
    expect(said).toMatch(/\.agents\/commands was not read: it is a link/);
    expect(JSON.stringify(commands)).not.toContain("STOLEN");
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe("hooks", () => {
  const hook = (event: Hook["event"]): Hook => ({ event, matcher: "", command: "x", timeoutMs: 1000, file: "f", workspace: false });
  const verdict = (): HookVerdict => ({ context: [], notes: [] });
  const exit = (code: number | null, stdout = "", stderr = "", extra: Partial<{ timedOut: boolean; signal: NodeJS.Signals }> = {}) => ({ code, stdout, stderr, signal: extra.signal ?? null, timedOut: extra.timedOut ?? false });

  it("matches albedo-tui's tool names and Claude Code's, by name or pattern", () => {
    expect(matches("Bash", "bash")).toBe(true);
    expect(matches("Edit|Write", "write")).toBe(true);
    expect(matches("", "grep")).toBe(true);
    expect(matches("*", "grep")).toBe(true);
    expect(matches("Read", "bash")).toBe(false);
    expect(matches("mcp__.*", "mcp__srv__tool")).toBe(true);
    // a pattern that is no regular expression is compared as a name
    expect(matches("(", "bash")).toBe(false);
  });

  it("reads exits as Claude Code does: 2 blocks with stderr, JSON decides, other codes warn", () => {
    let v = verdict();
    readExit(hook("PreToolUse"), exit(2, "", "no: reason\n"), v);
    expect(v.block).toBe("no: reason");
    v = verdict();
    readExit(hook("PreToolUse"), exit(0, JSON.stringify({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "R" } })), v);
    expect(v.block).toBe("R");
    v = verdict();
    readExit(hook("PostToolUse"), exit(0, JSON.stringify({ continue: false, stopReason: "S", additionalContext: "C" })), v);
    expect(v).toMatchObject({ stop: "S", context: [{ text: "C" }] });
    v = verdict();
    readExit(hook("UserPromptSubmit"), exit(0, "plain text\n"), v);
    expect(v.context).toEqual([{ source: "UserPromptSubmit hook: x", text: "plain text" }]);
    v = verdict();
    readExit(hook("PreToolUse"), exit(0, "plain text"), v);
    expect(v).toEqual(verdict());
    v = verdict();
    readExit(hook("Stop"), exit(1, "", "boom"), v);
    expect(v.notes).toEqual(["Stop hook: x exited with 1: boom"]);
    v = verdict();
    readExit(hook("Stop"), exit(null, "", "", { timedOut: true }), v);
    expect(v.notes[0]).toMatch(/did not finish within 1 s/);
  });
});

describe("the task list", () => {
  const call = (items: unknown) => ({ role: "assistant", blocks: [{ type: "tool_use", name: "todo", input: { items } }] });

  it("is the last valid todo call's list; a damaged one is passed over", () => {
    const a = [{ content: "one", status: "done" }];
    const b = [{ content: "two", status: "in_progress" as const }, { content: "three", status: "pending" as const }];
    expect(latestTodoList([call(a), call(b), call([{ content: 5, status: "done" }])])).toEqual(b);
    expect(latestTodoList([{ role: "user", blocks: [{ type: "text" }] }])).toBeUndefined();
    expect(todoItems({ items: [{ content: "x", status: "completed" }] })).toEqual([{ content: "x", status: "done" }]);
    expect(todoSummary(b)).toBe("tasks 0/2 · now: two");
  });

  it("knows how many messages a summary note stands in for", () => {
    const note = (n: number) => [{ role: "user", blocks: [{ type: "text", text: summaryText({ text: "s", model: "m" }, n) }] }];
    expect(summarisedCount(note(1))).toBe(1);
    expect(summarisedCount(note(1234))).toBe(1234);
    expect(summarisedCount([{ role: "user", blocks: [{ type: "text", text: "hello" }] }])).toBe(0);
    expect(summarisedCount([])).toBe(0);
  });
});
