// Custom commands, skills and hooks through the built CLI (-p), against the strict fake
// provider over loopback, with real files, real hook processes and a real SQLite file: the
// fake sees a command's expanded text; a skill's description is its own context section and
// its body crosses only when the skill tool asks; a PreToolUse hook that exits 2 blocks bash
// with its reason in the tool result; a UserPromptSubmit hook's context is a named section;
// a workspace's hooks do not run until approved.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { approveHooks, loadHooks } from "../../src/extensions/hooks.js";
import { killMarked, markedPids, newMark, TEST_MARK_VAR } from "../helpers/procs.js";

const T = 90_000;
const KEY = "sk-test-albedo-WORKFLOW-4471";
let fake: FakeProvider;
let home: Home;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  fake.requests.length = 0;
});

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];
const configDir = (h: Home): string => path.join(h.root, "config", "albedo");

async function put(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

async function writeConfig(h: Home, config: unknown): Promise<void> {
  await put(path.join(configDir(h), "config.json"), JSON.stringify(config));
}

/** the system blocks of a recorded Anthropic request, as text */
const systemTexts = (i: number): string[] => ((fake.requests[i]!.body.system ?? []) as Array<{ text: string }>).map((b) => b.text);
const userTexts = (i: number): string => JSON.stringify(fake.requests[i]!.body.messages);

async function sessionId(h: Home): Promise<string> {
  const list = await runCli(["sessions", "--json"], h);
  return (JSON.parse(list.stdout) as { id: string }[])[0]!.id;
}

async function sections(h: Home): Promise<string[]> {
  const view = JSON.parse((await runCli(["context", await sessionId(h), "--json"], h)).stdout) as { sections: { source: string }[] };
  return view.sections.map((s) => s.source);
}

describe("custom commands from -p", () => {
  it("expands .claude/commands/review.md with $ARGUMENTS and a namespaced one with $1 $2; the fake sees the expanded text", async () => {
    await put(
      path.join(home.workspace, ".claude/commands/review.md"),
      "---\ndescription: Review a file\nargument-hint: FILE\nallowed-tools: Bash(git diff:*), Read\nmodel: claude-opus-4\n---\nReview the file $ARGUMENTS for bugs; REVIEW-MARK.\n",
    );
    await put(path.join(home.workspace, ".agents/commands/team/ship.md"), "Ship $1 to $2 (SHIP-MARK).");
    fake.script({ text: "reviewed" });
    const r = await runCli(["-p", "/review src/x.ts", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("reviewed");
    expect(userTexts(0)).toContain("Review the file src/x.ts for bugs; REVIEW-MARK.");
    expect(userTexts(0)).not.toContain("/review");
    // the model it asks for is said, not applied; allowed-tools grant nothing
    expect(r.stderr).toContain("asks for the model claude-opus-4; the model in use is kept");
    expect(r.stderr).toContain("they still go through the permission mode in force");
    expect(fake.requests[0]!.body.model).toBe("claude-sonnet-4-5");

    fake.requests.length = 0;
    fake.script({ text: "shipped" });
    const s = await runCli(["-p", '/team:ship "build 7" staging', ...anthropic()], home);
    expect(s.code, s.stderr).toBe(0);
    expect(userTexts(0)).toContain("Ship build 7 to staging (SHIP-MARK).");
  }, T);

  it("a command's allowed-tools widens nothing: bash is still refused in ask mode", async () => {
    await put(path.join(home.workspace, ".claude/commands/wipe.md"), "---\nallowed-tools: Bash\n---\nRun the command $ARGUMENTS.");
    fake.script({ toolCalls: [{ name: "bash", input: { command: "touch WIPED" }, id: "toolu_w1" }] }, { text: "could not" });
    // in the sandbox, ask mode runs commands unasked; without it, a command needs a yes that
    // allowed-tools must not give
    const r = await runCli(["-p", "/wipe now", "--sandbox", "off", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    await expect(fs.stat(path.join(home.workspace, "WIPED"))).rejects.toThrow();
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("denied: albedo-tui runs headless (-p) with --permission ask and no one can be asked");
  }, T);

  it("reads the config folder's commands/ too, and /init asks for AGENTS.md", async () => {
    await put(path.join(configDir(home), "commands/mine.md"), "My own command: $ARGUMENTS");
    fake.script({ text: "ok" }, { text: "ok" });
    expect((await runCli(["-p", "/mine hello", ...anthropic()], home)).code).toBe(0);
    expect(userTexts(0)).toContain("My own command: hello");
    expect((await runCli(["-p", "/init", ...anthropic()], home)).code).toBe(0);
    expect(userTexts(1)).toContain("write AGENTS.md at its root, or improve the one there");
  }, T);

  it("hostile files: a link out of the workspace, control characters, a 10 MB file and a built-in's name are refused by name; the others still work", async () => {
    const outside = path.join(home.root, "secret.md");
    await put(outside, "OUTSIDE-SECRET $ARGUMENTS");
    await fs.mkdir(path.join(home.workspace, ".claude/commands"), { recursive: true });
    await fs.symlink(outside, path.join(home.workspace, ".claude/commands/leak.md"));
    await put(path.join(home.workspace, ".claude/commands/big.md"), "x".repeat(10 * 1024 * 1024));
    await put(path.join(home.workspace, ".claude/commands/bad\u001b[31mname.md"), "never");
    await put(path.join(home.workspace, ".claude/commands/model.md"), "never either");
    await put(path.join(home.workspace, ".claude/commands/ok.md"), "---\ndescription: \"evil\\e]0;title\\a\\u009b31m\"\nmodel: [unclosed\n---\nOK-MARK $ARGUMENTS");
    fake.script({ text: "fine" }, { text: "plain" });
    const r = await runCli(["-p", "/ok go", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(userTexts(0)).toContain("OK-MARK go");
    expect(r.stderr).toMatch(/leak\.md was not read: it leads outside the workspace/);
    expect(r.stderr).toMatch(/big\.md is 10\.0 MB, over the limit/);
    expect(r.stderr).toMatch(/a command's name takes letters, digits/);
    expect(r.stderr).toMatch(/\/model is a built-in command/);
    expect(r.stderr).toMatch(/ok\.md: its front matter is not valid YAML/);
    // nothing a terminal would act on reaches stderr
    expect(r.stderr).not.toMatch(/[\u001b\u009b\u0007]/);
    // the linked file is not a command: its text is sent as typed, never the file's
    const leak = await runCli(["-p", "//leak now", ...anthropic()], home);
    expect(leak.code).toBe(0);
    expect(JSON.stringify(fake.requests.map((q) => q.body))).not.toContain("OUTSIDE-SECRET");
  }, T);
});

describe("skills", () => {
  it("sends each skill's name and description as one named section and the body only when the skill tool asks", async () => {
    await put(path.join(home.workspace, ".claude/skills/pdf-tools/SKILL.md"), "---\nname: pdf-tools\ndescription: Fill PDF forms DESC-MARK\n---\nStep one: BODY-MARK.\n");
    await put(path.join(configDir(home), "skills/notes/SKILL.md"), "---\nname: notes\ndescription: Keep notes NOTES-DESC\n---\nNOTES-BODY\n");
    await put(path.join(home.workspace, ".agents/skills/nodesc/SKILL.md"), "---\nname: nodesc\n---\nno description here\n");
    fake.script({ text: "hello" });
    const r = await runCli(["-p", "hi", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    const sys = systemTexts(0);
    const skills = sys.filter((t) => t.includes("DESC-MARK"));
    expect(skills).toHaveLength(1);
    expect(skills[0]).toContain("NOTES-DESC");
    expect(JSON.stringify(fake.requests[0]!.body)).not.toContain("BODY-MARK");
    expect(JSON.stringify(fake.requests[0]!.body)).not.toContain("NOTES-BODY");
    expect((fake.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("skill");
    expect(r.stderr).toContain("nodesc/SKILL.md was skipped: it has no description");
    expect(await sections(home)).toContain("skills");

    fake.requests.length = 0;
    fake.script({ toolCalls: [{ name: "skill", input: { name: "pdf-tools" }, id: "toolu_sk1" }] }, { text: "done" });
    const t = await runCli(["-p", "fill the form", "--continue", ...anthropic()], home);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.stringify(fake.requests[0]!.body)).not.toContain("BODY-MARK");
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("Step one: BODY-MARK.");
  }, T);
});

describe("hooks", () => {
  it("a PreToolUse hook that exits 2 blocks bash, and the model reads its reason in the tool result", async () => {
    await writeConfig(home, { permission: "auto" });
    await put(
      path.join(configDir(home), "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat > \"$CLAUDE_PROJECT_DIR/event.json\"; echo 'no shell here: POLICY-7' >&2; exit 2" }] }] } }),
    );
    fake.script({ toolCalls: [{ name: "bash", input: { command: "touch RAN" }, id: "toolu_b1" }] }, { text: "blocked then" });
    const r = await runCli(["-p", "make a file", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    await expect(fs.stat(path.join(home.workspace, "RAN"))).rejects.toThrow();
    const result = JSON.stringify(fake.requests[1]!.body.messages);
    expect(result).toContain("blocked by a PreToolUse hook: no shell here: POLICY-7");
    // the event on stdin, in Claude Code's shape
    const event = JSON.parse(await fs.readFile(path.join(home.workspace, "event.json"), "utf8")) as Record<string, unknown>;
    expect(event).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "bash", tool_input: { command: "touch RAN" }, cwd: home.workspace });
  }, T);

  it("a UserPromptSubmit hook's added context is a section named for the hook; a PostToolUse hook's follows the output", async () => {
    await writeConfig(home, { permission: "auto" });
    const ctx = JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "CTX-MARK from the hook" } });
    await put(
      path.join(configDir(home), "settings.json"),
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: "command", command: `printf '%s' '${ctx}'` }] }],
          PostToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: "printf '%s' '{\"additionalContext\":\"POST-MARK\"}'" }] }],
        },
      }),
    );
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo hi" }, id: "toolu_b2" }] }, { text: "ok" });
    const r = await runCli(["-p", "go", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(systemTexts(0).filter((t) => t === "CTX-MARK from the hook")).toHaveLength(1);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("POST-MARK");
    const names = await sections(home);
    expect(names.some((n) => /^UserPromptSubmit hook: printf/.test(n))).toBe(true);
  }, T);

  it("SessionStart's output is a named section; a UserPromptSubmit exit 2 sends nothing; continue:false stops the turn; Stop runs at the end", async () => {
    await writeConfig(home, { permission: "auto" });
    const stopFile = path.join(home.root, "stop.json");
    await put(
      path.join(configDir(home), "settings.json"),
      JSON.stringify({
        hooks: {
          SessionStart: [{ hooks: [{ type: "command", command: "echo START-MARK" }] }],
          UserPromptSubmit: [{ hooks: [{ type: "command", command: "grep -q forbidden && { echo 'not that: RULE-3' >&2; exit 2; }; exit 0" }] }],
          PreToolUse: [{ matcher: "ls", hooks: [{ type: "command", command: "printf '%s' '{\"continue\":false,\"stopReason\":\"HALT-MARK\"}'" }] }],
          Stop: [{ hooks: [{ type: "command", command: `cat > ${stopFile}` }] }],
        },
      }),
    );
    const blocked = await runCli(["-p", "do the forbidden thing", ...anthropic()], home);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain("A UserPromptSubmit hook blocked this prompt: not that: RULE-3");
    expect(fake.requests).toHaveLength(0);

    fake.script({ toolCalls: [{ name: "ls", input: {}, id: "toolu_ls1" }] });
    const r = await runCli(["-p", "list", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("A hook stopped the turn: HALT-MARK");
    // one request: the turn ended after the tool's result was stored
    expect(fake.requests).toHaveLength(1);
    expect(systemTexts(0)).toContain("START-MARK");
    expect((await sections(home)).some((n) => /^SessionStart hook: echo START-MARK/.test(n))).toBe(true);
    expect(JSON.parse(await fs.readFile(stopFile, "utf8"))).toMatchObject({ hook_event_name: "Stop" });
  }, T);

  it("a Stop hook's block sends the model on with its reason (told stop_hook_active), at most five times in a row", async () => {
    await writeConfig(home, { permission: "auto" });
    const log = path.join(home.root, "stops.jsonl");
    // blocks the first stop only (reading stop_hook_active, as Claude Code's docs ask)
    const once = `cat >> ${log}; echo >> ${log}; grep -q '"stop_hook_active":true' ${log} || printf '%s' '{"decision":"block","reason":"run the tests first: GO-ON-MARK"}'`;
    await put(path.join(configDir(home), "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: once }] }] } }));
    fake.script({ text: "First answer." }, { text: "Tests run, all green." });
    const r = await runCli(["-p", "fix it", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("A Stop hook sends the model on: run the tests first: GO-ON-MARK");
    expect(fake.requests).toHaveLength(2);
    // the reason is the model's next instruction, after its first answer
    expect(userTexts(1)).toContain("A Stop hook asked you to go on: run the tests first: GO-ON-MARK");
    expect(userTexts(1)).toContain("First answer.");
    const events = (await fs.readFile(log, "utf8")).trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { stop_hook_active: boolean });
    expect(events.map((e) => e.stop_hook_active)).toEqual([false, true]);

    // a hook that blocks every stop: the model goes on five times, then it stops, said so
    fake.requests.length = 0;
    await put(path.join(configDir(home), "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "printf '%s' '{\"decision\":\"block\",\"reason\":\"never done\"}'" }] }] } }));
    fake.script(...Array.from({ length: 6 }, (_, i) => ({ text: `round ${i}` })));
    const again = await runCli(["-p", "and again", ...anthropic()], home);
    expect(again.code, again.stderr).toBe(0);
    expect(fake.requests).toHaveLength(6);
    expect(again.stderr).toContain("after 5 times in a row it stops here");
  }, T);

  it("a PreToolUse hook's updatedInput runs the call with that input, through the permission policy, and the result says so", async () => {
    await writeConfig(home, { permission: "auto", sandbox: "off" });
    const swap = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: `echo SWAPPED-MARK > swapped.txt; echo ${KEY}` } } });
    await put(path.join(configDir(home), "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: `printf '%s' '${swap}'` }] }] } }));
    fake.script({ toolCalls: [{ name: "bash", input: { command: "touch ORIGINAL" }, id: "toolu_u1" }] }, { text: "done" });
    const r = await runCli(["-p", "make a file", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    await expect(fs.stat(path.join(home.workspace, "ORIGINAL"))).rejects.toThrow();
    expect(await fs.readFile(path.join(home.workspace, "swapped.txt"), "utf8")).toBe("SWAPPED-MARK\n");
    const result = userTexts(1);
    expect(result).toContain("[a PreToolUse hook changed the input to: {");
    expect(result).toContain("SWAPPED-MARK");
    // the key in the hook's input and in the command's output is cut before the model sees it
    expect(result).not.toContain(KEY);

    // in read-only mode the changed call is judged as any call: a write is refused
    fake.requests.length = 0;
    await fs.rm(path.join(home.workspace, "swapped.txt"));
    fake.script({ toolCalls: [{ name: "bash", input: { command: "ls" }, id: "toolu_u2" }] }, { text: "refused" });
    const ro = await runCli(["-p", "look", "--permission", "read-only", ...anthropic()], home);
    expect(ro.code, ro.stderr).toBe(0);
    expect(userTexts(1)).toMatch(/denied|refused|not allowed/i);
    await expect(fs.stat(path.join(home.workspace, "swapped.txt"))).rejects.toThrow();
  }, T);

  it("a workspace's hooks do not run until approved (per content); then they do", async () => {
    const settings = JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "touch \"$CLAUDE_PROJECT_DIR/HOOK-RAN\"" }] }] } });
    await put(path.join(home.workspace, ".claude/settings.json"), settings);
    fake.script({ text: "one" }, { text: "two" });
    const r = await runCli(["-p", "hi", ...anthropic()], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("hooks (.claude/settings.json) are not approved, so they do not run");
    await expect(fs.stat(path.join(home.workspace, "HOOK-RAN"))).rejects.toThrow();
    // approved for this content (the screen's /hooks approve writes the same record)
    const hash = loadHooks(home.workspace, undefined).workspaceHash!;
    approveHooks(home.workspace, hash, path.join(home.root, "state", "albedo", "hook-approvals.json"));
    const again = await runCli(["-p", "hi again", ...anthropic()], home);
    expect(again.code, again.stderr).toBe(0);
    await fs.stat(path.join(home.workspace, "HOOK-RAN"));
  }, T);

  it("a hook that floods, hangs with children, or echoes a key: bounded, stopped with its children, the key cut", async () => {
    await writeConfig(home, { permission: "auto" });
    const mark = newMark("hook");
    await put(
      path.join(configDir(home), "settings.json"),
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [
            { hooks: [{ type: "command", command: "head -c 5000000 /dev/zero | tr '\\0' a" }] },
            { hooks: [{ type: "command", command: "echo \"key: $LEAK\"" }] },
            { hooks: [{ type: "command", command: `export ${TEST_MARK_VAR}=${mark}; (sleep 300 &); setsid sleep 301 & sleep 302`, timeout: 1 }] },
          ],
        },
      }),
    );
    fake.script({ text: "survived" });
    const r = await runCli(["-p", "go", ...anthropic()], home, { LEAK: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("survived");
    expect(r.stderr).toMatch(/did not finish within 1 s; it was stopped/);
    const body = JSON.stringify(fake.requests[0]!.body);
    expect(body).not.toContain(KEY);
    // the flood is cut to the hook's bound, not sent whole
    expect(body.length).toBeLessThan(200_000);
    // what it forked, in its group or a session of its own, went with it
    const left = markedPids(mark);
    killMarked(mark);
    expect(left).toEqual([]);
  }, T);
});
