// Commands, skills, hooks and the task list in the screen, end to end on a real
// pseudo-terminal with the built CLI and the strict fake provider: a .claude/commands/review.md
// completes with Tab, is listed by /help, and sends its expanded text; /skills lists a skill;
// a workspace's hook is listed as not approved and runs only after /hooks approve; the model's
// task list shows in the status line and whole on Ctrl-T; /init's write asks with its diff.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { ptyFrame } from "../helpers/pty-frame.js";
import { CLI } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-test-screen-workflow-6262";
const MODEL = "claude-sonnet-4-5";
const WAIT = 30_000;
const e2e = ptyFrame(KEY);

function tui(): PtySession {
  const args = [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", e2e.fake.anthropicBase];
  const s = spawnPty(process.execPath, args, { cols: 160, rows: 40, cwd: e2e.home.workspace, env: { ...e2e.home.env, TERM: "xterm-256color" } });
  e2e.running.push(s);
  return s;
}

async function type(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(text, WAIT);
  s.send(KEYS.enter);
}

async function quit(s: PtySession): Promise<number> {
  // the answer's text is painted before the turn ends; Ctrl-C then would interrupt, not arm quitting
  await s.waitFor(/\n idle · /, WAIT);
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit", WAIT);
  s.send(KEYS.ctrl("c"));
  return (await s.exited()).exitCode;
}

async function put(file: string, text: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.writeFile(file, text);
}

const lastUserText = (): string => JSON.stringify(e2e.fake.requests.at(-1)!.body.messages.at(-1));

describe("workflow in the screen", () => {
  it("a custom command completes with Tab, is in /help, and sends its expanded text; /skills lists a skill", async () => {
    await put(path.join(e2e.home.workspace, ".claude/commands/review.md"), "---\ndescription: Review one file\nargument-hint: FILE\n---\nReview $ARGUMENTS closely (SCREEN-MARK).\n");
    await put(path.join(e2e.home.workspace, ".claude/skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: How to deploy SKILL-DESC\n---\nsecret steps\n");
    const s = tui();
    await s.waitFor("/help lists commands", WAIT);
    await type(s, "/help");
    await s.waitFor("Custom commands", WAIT);
    await s.waitFor(/\/review FILE\s+Review one file/, WAIT);
    await type(s, "/skills");
    await s.waitFor("deploy: How to deploy SKILL-DESC", WAIT);
    e2e.fake.script({ text: "Looked at it." });
    s.send("/rev");
    await s.waitFor("Review one file", WAIT);
    s.send(KEYS.tab);
    await s.waitFor("/review ", WAIT);
    await type(s, "src/x.ts");
    await s.waitFor("Looked at it.", WAIT);
    expect(lastUserText()).toContain("Review src/x.ts closely (SCREEN-MARK).");
    // "//" sends the text as written, never the command
    e2e.fake.script({ text: "Literal taken." });
    await type(s, "//review raw");
    await s.waitFor("Literal taken.", WAIT);
    expect(lastUserText()).toContain("/review raw");
    expect(lastUserText()).not.toContain("SCREEN-MARK");
    expect(await quit(s)).toBe(0);
  }, 90_000);

  it("a workspace hook runs only after /hooks approve", async () => {
    const marker = path.join(e2e.home.workspace, "HOOK-RAN");
    await put(path.join(e2e.home.workspace, ".albedo/settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "touch HOOK-RAN" }] }] } }));
    const s = tui();
    await s.waitFor("are not approved, so they do not run", WAIT);
    e2e.fake.script({ text: "First answer." }, { text: "Second answer." });
    await type(s, "one");
    await s.waitFor("First answer.", WAIT);
    expect(fs.existsSync(marker)).toBe(false);
    await type(s, "/hooks");
    await s.waitFor(/UserPromptSubmit hook: touch HOOK-RAN .*not approved, does not run/, WAIT);
    await type(s, "/hooks approve");
    await s.waitFor(/Approved the hooks of \.albedo\/settings\.json/, WAIT);
    await type(s, "two");
    await s.waitFor("Second answer.", WAIT);
    expect(fs.existsSync(marker)).toBe(true);
    expect(await quit(s)).toBe(0);
  }, 90_000);

  it("/init asks the model for AGENTS.md, and its write waits for approval with the diff shown", async () => {
    e2e.fake.script({ toolCalls: [{ name: "write", input: { path: "AGENTS.md", content: "# This project\nINIT-MARK: build with make\n" }, id: "toolu_w1" }] }, { text: "Wrote AGENTS.md." });
    const s = tui();
    await s.waitFor("/help lists commands", WAIT);
    await type(s, "/init");
    await s.waitFor("Permission needed", WAIT);
    await s.waitFor("+INIT-MARK: build with make", WAIT);
    expect(fs.existsSync(path.join(e2e.home.workspace, "AGENTS.md"))).toBe(false);
    expect(lastUserText()).toContain("write AGENTS.md at its root, or improve the one there");
    // the box takes keys once its footer offers them
    await s.waitFor("y allow once", WAIT);
    s.send("y");
    await s.waitFor("Wrote AGENTS.md.", WAIT);
    expect(await fsp.readFile(path.join(e2e.home.workspace, "AGENTS.md"), "utf8")).toContain("INIT-MARK");
    expect(await quit(s)).toBe(0);
  }, 90_000);

  it("the task list shows in the status line and whole on Ctrl-T", async () => {
    const items = [
      { content: "survey", status: "done" },
      { content: "patch the loop", status: "in_progress" },
      { content: "run the tests", status: "pending" },
    ];
    e2e.fake.script({ toolCalls: [{ name: "todo", input: { items }, id: "toolu_t1" }] }, { text: "Planned." });
    const s = tui();
    await s.waitFor("/help lists commands", WAIT);
    await type(s, "plan it");
    await s.waitFor("Planned.", WAIT);
    await s.waitFor("tasks 1/3 · now: patch the loop", WAIT);
    s.send(KEYS.ctrl("t"));
    await s.waitFor("[>] patch the loop", WAIT);
    expect(s.screenText()).toContain("[x] survey");
    expect(s.screenText()).toContain("[ ] run the tests");
    expect(await quit(s)).toBe(0);
  }, 90_000);
});
