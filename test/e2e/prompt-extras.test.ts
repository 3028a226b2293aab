// The prompt's extras through the built CLI in a real pty and the strict fake provider:
// `@path` completes from the workspace's files and sends the file as its own block; `!cmd`
// adds its output to the next request, `!!cmd` does not; /copy sends OSC 52 with the answer.
// Hostile: a link out of the workspace is neither offered nor read, a 1 MB file is cut, and
// file names and output with control characters stay inert.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { CLI, runCli } from "../helpers/cli.js";
import { readRecord } from "../reliability/lib.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { ptyFrame } from "../helpers/pty-frame.js";
import { MAX_MENTION_BYTES } from "../../src/ui/mentions.js";

const KEY = "sk-test-prompt-extras-7171";
const MODEL = "claude-sonnet-4-5";
// a fresh home and fake per test; ptys killed after it
const e2e = ptyFrame(KEY);

function tui(args: string[] = [], env: NodeJS.ProcessEnv = {}): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", e2e.fake.anthropicBase, "--permission", "auto", ...args], {
    cols: 110,
    rows: 30,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color", ...env },
  });
  e2e.running.push(s);
  return s;
}

async function quit(s: PtySession): Promise<number> {
  s.send("/quit");
  await s.waitFor("/quit");
  s.send(KEYS.enter);
  return (await s.exited()).exitCode;
}

/** the user messages of a recorded Anthropic request, each as its list of text parts */
function userTexts(body: any): string[][] {
  return (body.messages as any[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? [m.content] : (m.content as any[]).filter((p) => p.type === "text").map((p) => p.text as string)));
}

function write(rel: string, content: string | Buffer): void {
  const p = path.join(e2e.home.workspace, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

describe("@ mentions", () => {
  it("completes a path from the workspace's files and sends the file as a block of its own; ignored files, links out and hostile names stay out", async () => {
    write("src/deep/widget-factory.ts", "export const WIDGET_MARK = 42;\n");
    write("src/other.ts", "other\n");
    write("node_modules/pkg/widget-factory-ignored.js", "ignored\n");
    write(".gitignore", "node_modules/\n");
    write("evil\u001b]0;PWNED-NAME\u0007.ts", "hostile name\n");
    const outside = fs.mkdtempSync(path.join(path.dirname(e2e.home.workspace), "outside-"));
    fs.writeFileSync(path.join(outside, "secret-widget.txt"), "OUTSIDE-SECRET\n");
    fs.symlinkSync(path.join(outside, "secret-widget.txt"), path.join(e2e.home.workspace, "widget-link.txt"));
    fs.symlinkSync(outside, path.join(e2e.home.workspace, "widget-dir-link"));
    e2e.fake.script({ text: "Read it." }, { text: "Not read." });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    s.send("look at @wdgfac");
    // the candidates show in the hint line once the walk is in
    await s.waitFor("@src/deep/widget-factory.ts", 20_000);
    expect(s.screenText()).not.toContain("widget-factory-ignored");
    expect(s.screenText()).not.toContain("widget-link");
    s.send(KEYS.tab);
    await s.waitFor("look at @src/deep/widget-factory.ts", 20_000);
    s.send("please");
    await s.waitFor("widget-factory.ts please");
    s.send(KEYS.enter);
    await s.waitFor("Read it.", 20_000);
    await s.waitFor(/ idle · /, 20_000);
    const texts = userTexts(e2e.fake.requests[0]!.body).at(-1)!;
    expect(texts[0]).toBe("look at @src/deep/widget-factory.ts please");
    expect(texts[1]).toBe('<file path="src/deep/widget-factory.ts">\nexport const WIDGET_MARK = 42;\n</file>');
    // a link out of the workspace, typed by hand, is refused by name and never read
    s.send("and @widget-link.txt too");
    await s.waitFor("widget-link.txt too");
    s.send(KEYS.enter);
    await s.waitFor("Not read.", 20_000);
    await s.waitFor("is outside the workspace");
    expect(JSON.stringify(e2e.fake.requests[1]!.body)).not.toContain("OUTSIDE-SECRET");
    expect(s.rawOutput()).not.toContain("PWNED-NAME\u0007");
    expect(await quit(s)).toBe(0);
    // the inspector shows the file's block in the history it captured, and counts it
    const id = (await readRecord(e2e.home.db)).session.id;
    const view = await runCli(["context", id, "--json"], e2e.home);
    expect(view.code, view.stderr).toBe(0);
    const sections = (JSON.parse(view.stdout) as { sections: { index: number; kind: string; pages: number; bytes: number }[] }).sections;
    const history = sections.find((x) => x.kind === "history");
    expect(history, view.stdout).toBeDefined();
    let shown = "";
    for (let p = 1; p <= history!.pages; p++) {
      const page = await runCli(["context", id, "--section", String(history!.index + 1), "--page", String(p), "--json"], e2e.home);
      shown += (JSON.parse(page.stdout) as { text: string }).text;
    }
    expect(shown).toContain("export const WIDGET_MARK = 42;");
    expect(history!.bytes).toBeGreaterThan(Buffer.byteLength("export const WIDGET_MARK = 42;"));
  }, 60_000);

  it("a 1 MB file joins the prompt cut to its bound, and says so", async () => {
    write("big.txt", `${"0123456789abcdef".repeat(64 * 1024)}`);
    e2e.fake.script({ text: "Big one seen." });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    s.send("summarize @big.txt");
    await s.waitFor("summarize @big.txt");
    s.send(KEYS.enter);
    await s.waitFor("Big one seen.", 20_000);
    await s.waitFor("only the first");
    const texts = userTexts(e2e.fake.requests[0]!.body).at(-1)!;
    expect(texts).toHaveLength(2);
    expect(texts[1]!.length).toBeLessThan(MAX_MENTION_BYTES + 500);
    expect(texts[1]).toContain("[cut: the first 262,144 bytes of 1,048,576; the read tool has the rest]");
    expect(await quit(s)).toBe(0);
  }, 60_000);
});

describe("! commands", () => {
  it("!cmd's output joins the next request as the person's; !!cmd's does not", async () => {
    e2e.fake.script({ text: "Saw it." });
    const s = tui();
    await s.waitFor("Type a request", 20_000);
    s.send("!echo bang-added-$((6*7))");
    await s.waitFor("!echo bang-added");
    s.send(KEYS.enter);
    await s.waitFor("bang-added-42", 20_000);
    await s.waitFor(/ idle · /, 20_000);
    s.send("!!echo bang-hidden-$((7*7)); printf 'x\\033]0;PWNED-BANG\\007y\\n'");
    await s.waitFor("!!echo bang-hidden");
    s.send(KEYS.enter);
    await s.waitFor("bang-hidden-49", 20_000);
    await s.waitFor("not added to the conversation");
    await s.waitFor(/ idle · /, 20_000);
    s.send("what did it say?");
    await s.waitFor("what did it say?");
    s.send(KEYS.enter);
    await s.waitFor("Saw it.", 20_000);
    const body = JSON.stringify(e2e.fake.requests[0]!.body);
    expect(body).toContain("bang-added-42");
    expect(body).toContain("$ echo bang-added-$((6*7))");
    expect(body).not.toContain("bang-hidden");
    expect(s.rawOutput()).not.toContain("\u001b]0;PWNED-BANG");
    expect(await quit(s)).toBe(0);
    // stored: a new start with --continue shows it
    const again = tui(["--continue"]);
    await again.waitFor("bang-added-42", 20_000);
    expect(await quit(again)).toBe(0);
  }, 60_000);
});

describe("/copy", () => {
  it("sends the last answer as OSC 52, and wrapped for tmux's passthrough inside tmux", async () => {
    const answer = "Copy me: ünïcode and `code`.\n\n```sh\necho from-a-block\n```";
    e2e.fake.script({ text: answer }, { text: answer });
    const b64 = (t: string): string => Buffer.from(t, "utf8").toString("base64");
    for (const tmux of [false, true]) {
      e2e.fake.requests.length = 0;
      const s = tui([], tmux ? { TMUX: "/tmp/tmux-test/default,1,0" } : {});
      await s.waitFor("Type a request", 20_000);
      s.send("say something");
      await s.waitFor("say something");
      s.send(KEYS.enter);
      await s.waitFor("from-a-block", 20_000);
      await s.waitFor(/ idle · /, 20_000);
      s.send("/copy");
      await s.waitFor("/copy");
      s.send(KEYS.enter);
      await s.waitFor("copied the answer", 20_000);
      const raw = s.rawOutput();
      if (tmux) expect(raw).toContain(`\u001bPtmux;\u001b\u001b]52;c;${b64(answer)}\u0007\u001b\\`);
      else expect(raw).toContain(`\u001b]52;c;${b64(answer)}\u0007`);
      s.send("/copy code");
      await s.waitFor("/copy code");
      s.send(KEYS.enter);
      await s.waitFor("copied the last code block", 20_000);
      expect(s.rawOutput()).toContain(b64("echo from-a-block"));
      expect(await quit(s)).toBe(0);
    }
  }, 90_000);
});
