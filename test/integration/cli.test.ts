// The command line (README, Using it) on the built CLI and a real store: help, version, the
// subcommands that read the record, and their errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type Home } from "../helpers/cli.js";
import { spawn } from "node:child_process";
import { spawnPty } from "../helpers/pty.js";
import sqlite3 from "sqlite3";

const KEY = "sk-cli-test-5150";
let fake: FakeProvider;
let home: Home;
let id: string;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  await fs.writeFile(path.join(home.workspace, "a.txt"), "alpha\n");
  fake.script({ toolCalls: [{ name: "read", input: { path: "a.txt" } }] }, { text: "It says **alpha**." });
  const r = await runCli(["-p", "what is in a.txt?", "--base-url", fake.anthropicBase, "--model", "claude-sonnet-4-5"], home);
  expect(r.code).toBe(0);
  const list = await runCli(["sessions", "--json"], home);
  id = (JSON.parse(list.stdout) as { id: string }[])[0]!.id;
});
afterAll(() => fake.close());

describe("albedo-tui command line", () => {
  it("--help declares every option and subcommand of the spec", async () => {
    const r = await runCli(["--help"], home);
    expect(r.code).toBe(0);
    for (const opt of [
      "--provider", "--model", "--base-url", "--db", "--workspace", "--continue", "--resume", "--permission",
      "--compaction", "--keymap", "--api", "--api-port", "--print", "--image", "--reasoning", "--version", "--help",
    ]) {
      expect(r.stdout, opt).toContain(opt);
    }
    for (const sub of ["sessions", "export", "context"]) expect(r.stdout).toMatch(new RegExp(`^\\s+${sub}\\b`, "m"));
  });

  it("--version prints the package version", async () => {
    const pkg = JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as { version: string };
    const r = await runCli(["--version"], home);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("sessions lists newest first, as text and JSON", async () => {
    const json = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string; title: string; workspace: string }[];
    expect(json[0]).toMatchObject({ id, title: "what is in a.txt?", workspace: home.workspace });
    const text = (await runCli(["sessions"], home)).stdout;
    expect(text).toContain(id);
    expect(text).toContain("what is in a.txt?");
  });

  it("export prints Markdown and JSON from the record", async () => {
    const md = await runCli(["export", id, "--format", "md"], home);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("what is in a.txt?");
    expect(md.stdout).toContain("It says **alpha**.");
    expect(md.stdout).toContain("read");
    const js = await runCli(["export", id, "--format", "json"], home);
    const parsed = JSON.parse(js.stdout) as { session: { id: string }; messages: { role: string }[] };
    expect(parsed.session.id).toBe(id);
    expect(parsed.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(js.stdout).not.toContain(KEY);
  });

  it("export of an unknown id names it and exits 1", async () => {
    const r = await runCli(["export", "nosuchsession"], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no session with id "nosuchsession"');
    expect(r.stdout).toBe("");
  });

  it("context prints the summary, a page, and JSON; bad section/page ids are errors", async () => {
    const sum = await runCli(["context", id], home);
    expect(sum.code).toBe(0);
    expect(sum.stdout).toMatch(/system/);
    expect(sum.stdout).toMatch(/workspace facts/);
    expect(sum.stdout).toMatch(/history/);
    expect(sum.stdout).toMatch(/tools/);
    expect(sum.stdout).toMatch(/chars\/4/);
    const view = JSON.parse((await runCli(["context", id, "--json"], home)).stdout) as { state: string; numbering: string; sections: { index: number; source: string; pages: number }[] };
    expect(view.state).toBe("current");
    // JSON counts from 0, as the API does, and says so
    expect(view.numbering).toBe("zero-based");
    expect(view.sections[0]).toMatchObject({ index: 0, source: "system" });
    const hist = view.sections.findIndex((s) => s.source === "history");
    // people count from 1: the summary's numbers are the ones --section takes
    const n = hist + 1;
    expect(sum.stdout).toMatch(/^1\s+system\s/m);
    expect(sum.stdout).toMatch(new RegExp(`^${n}\\s+history\\s`, "m"));
    const page = await runCli(["context", id, "--section", String(n), "--page", "1"], home);
    expect(page.code, page.stderr).toBe(0);
    expect(page.stdout.split("\n")[0]).toBe(`section ${n} (history), page 1 of 1`);
    // the history's text: the prompt and the tool call with its input
    expect(page.stdout).toContain("what is in a.txt?");
    expect(page.stdout).toContain('{"path":"a.txt"}');
    // --page defaults to the first page
    expect((await runCli(["context", id, "--section", String(n)], home)).stdout).toBe(page.stdout);
    const pj = JSON.parse((await runCli(["context", id, "--section", String(n), "--page", "1", "--json"], home)).stdout) as { section: number; page: number; numbering: string };
    expect(pj).toMatchObject({ section: hist, page: 0, numbering: "zero-based" });
    const last = view.sections.length;
    const bad: [string[], string][] = [
      [["--section", "99"], `there is no section 99: sections are 1–${last}`],
      [["--section", "0"], `there is no section 0: sections are 1–${last}`],
      [["--section", String(n), "--page", "7"], `there is no page 7 in section ${n} (history): its pages are 1`],
      [["--section", String(n), "--page", "0"], `there is no page 0 in section ${n} (history): its pages are 1`],
      [["--section", "-1"], `--section must be a section number (sections are 1–${last}); got "-1"`],
      [["--section", "x"], `--section must be a section number (sections are 1–${last}); got "x"`],
      [["--section", "1", "--page", "1.5"], `--page must be a page number, from 1; got "1.5"`],
      [["--page", "1"], "--page needs --section"],
    ];
    for (const [args, message] of bad) {
      const r = await runCli(["context", id, ...args], home);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr, args.join(" ")).toContain(message);
      expect(r.stdout, args.join(" ")).toBe("");
    }
  });
});

// --- the prompt from stdin, and what reaches a terminal --------------------------------------

const anthropicArgs = (): string[] => ["--base-url", fake.anthropicBase, "--model", "claude-sonnet-4-5"];

/** Runs the CLI with stdin a pipe: `input` is written and stdin closed, or left open when null. */
function runWithStdin(args: string[], input: Buffer | null): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: home.workspace, env: home.env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdin.on("error", () => undefined); // a refused prompt closes stdin early
  if (input) child.stdin.end(input);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      child.stdin.destroy();
      resolve({ code, stdout, stderr });
    }),
  );
}

describe("-p - reads the prompt from stdin", () => {
  it("a prompt of several MB (over the argument limit) arrives whole, is answered and stored", async () => {
    const line = "a line of a very long prompt that no command line would take ~ STDIN-LINE\n";
    const prompt = line.repeat(Math.ceil((6 * 1024 * 1024) / line.length)) + "the end ✓";
    // ≈ 1.6 M tokens: sent to a model whose window holds it (a larger prompt is refused before
    // it is sent: traps-window.test.ts)
    const config = path.join(home.env.XDG_CONFIG_HOME as string, "albedo", "config.json");
    await fs.mkdir(path.dirname(config), { recursive: true });
    await fs.writeFile(config, JSON.stringify({ contextWindow: 2_000_000 }));
    fake.script({ text: "Read all of it." });
    const n = fake.requests.length;
    const r = await runWithStdin(["-p", "-", ...anthropicArgs()], Buffer.from(prompt)).finally(() => fs.rm(config));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("Read all of it.\n");
    const sent = fake.requests[n]!;
    expect(sent.rejected).toBeUndefined();
    const user = JSON.stringify(sent.body.messages.at(-1));
    expect(user.split("STDIN-LINE").length - 1).toBe(prompt.split("STDIN-LINE").length - 1);
    expect(user).toContain("the end ✓");
    const list = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string }[];
    const js = JSON.parse((await runCli(["export", list[0]!.id, "--format", "json"], home)).stdout) as { messages: { blocks: { text?: string }[] }[] };
    expect(js.messages[0]!.blocks[0]!.text).toBe(prompt);
  }, 120_000);

  it("an empty stdin is 'needs a prompt'; bytes that are not UTF-8 are named; nothing is sent", async () => {
    const n = fake.requests.length;
    const empty = await runWithStdin(["-p", "-", ...anthropicArgs()], Buffer.alloc(0));
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe("albedo-tui: -p needs a prompt\n");
    const binary = await runWithStdin(["-p", "-", ...anthropicArgs()], Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]));
    expect(binary.code).toBe(1);
    expect(binary.stderr).toBe("albedo-tui: the prompt on stdin is not UTF-8 text\n");
    expect(fake.requests.length).toBe(n);
  });

  it("-p TEXT never reads stdin: an open pipe that never closes does not hold the run", async () => {
    fake.script({ text: "Answered without stdin." });
    const r = await runWithStdin(["-p", "explain", ...anthropicArgs()], null);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("Answered without stdin.\n");
  }, 60_000);

  it("-p - with a terminal on stdin is refused with what to do instead", async () => {
    const t = spawnPty(process.execPath, [CLI, "-p", "-", ...anthropicArgs()], { cwd: home.workspace, env: home.env });
    const { exitCode } = await t.exited();
    expect(exitCode).toBe(1);
    expect(t.rawOutput()).toContain("albedo-tui: -p - reads the prompt from stdin, but stdin is a terminal; pipe the prompt in (cat prompt.txt | albedo-tui -p -)");
  }, 30_000);
});

// What a model or a prompt can put into the record that a terminal would act on.
const HOSTILE = "Answer start \x1b]52;c;cHduZWQ=\x07 clipboard \x1b[2J cleared \x1b]0;retitled\x07 \u009b31m C1 \u202e bidi end";
const ACTS = ["\x1b]52", "\x1b[2J", "\x1b]0;", "\u009b", "\u202e"];

/** every terminal-acting sequence of HOSTILE that reached the output */
const leaks = (raw: string): string[] => ACTS.filter((a) => raw.includes(a));

describe("output from the record is inert on a terminal and exact when piped", () => {
  let hostileHome: Home;
  let sid: string;
  const hostilePrompt = "title \x1b]0;pwned\x07 with \u009b2J controls";

  beforeAll(async () => {
    hostileHome = await makeHome({ ANTHROPIC_API_KEY: KEY });
    // the workspace's own name carries an escape sequence too
    const ws = path.join(hostileHome.root, "work-\x1b[31mred");
    await fs.mkdir(ws);
    hostileHome = { ...hostileHome, workspace: ws };
    fake.script({ text: HOSTILE });
    const r = await runCli(["-p", hostilePrompt, ...anthropicArgs()], hostileHome);
    expect(r.code, r.stderr).toBe(0);
    // piped: the answer exactly as the model sent it
    expect(r.stdout).toBe(HOSTILE + "\n");
    sid = (JSON.parse((await runCli(["sessions", "--json"], hostileHome)).stdout) as { id: string }[])[0]!.id;
  });

  async function onTerminal(args: string[]): Promise<string> {
    const t = spawnPty(process.execPath, [CLI, ...args], { cols: 200, rows: 50, cwd: hostileHome.workspace, env: hostileHome.env });
    const { exitCode } = await t.exited();
    expect(exitCode, t.rawOutput()).toBe(0);
    return t.rawOutput();
  }

  it("-p: the answer on a terminal keeps its text and loses every control sequence", async () => {
    fake.script({ text: HOSTILE });
    const raw = await onTerminal(["-p", "again", ...anthropicArgs()]);
    expect(leaks(raw)).toEqual([]);
    expect(raw).toContain("Answer start");
    expect(raw).toContain("bidi end");
  }, 60_000);

  it("sessions: titles and folders inert on a terminal (also --json), exact when piped", async () => {
    const raw = await onTerminal(["sessions"]);
    expect(raw).not.toContain("\x1b]0;pwned");
    expect(raw).not.toContain("\x1b[31m");
    expect(raw).not.toContain("\u009b");
    expect(raw).toContain(sid);
    expect(raw).toContain("title");
    const rawJson = await onTerminal(["sessions", "--json"]);
    expect(rawJson).not.toContain("\u009b");
    expect(rawJson).toContain("\\u009b2J"); // escaped: the same JSON value
    const piped = await runCli(["sessions"], hostileHome);
    expect(piped.stdout).toContain("\x1b]0;pwned\x07");
    expect(piped.stdout).toContain("work-\x1b[31mred");
  }, 60_000);

  it("export: Markdown inert either way; JSON escaped on a terminal, exact when piped", async () => {
    const md = await onTerminal(["export", sid]);
    expect(leaks(md)).toEqual([]);
    expect(md).toContain("Answer start");
    const js = await onTerminal(["export", sid, "--format", "json"]);
    expect(leaks(js)).toEqual([]);
    const piped = await runCli(["export", sid, "--format", "json"], hostileHome);
    const parsed = JSON.parse(piped.stdout) as { messages: { blocks: { text?: string }[] }[] };
    expect(parsed.messages[1]!.blocks[0]!.text).toBe(HOSTILE);
    expect(piped.stdout).toContain("\u009b31m");
    // what the terminal got parses to the very same record
    const fromTerminal = js.slice(js.indexOf("{"), js.lastIndexOf("}") + 1).replace(/\r\n/g, "\n");
    expect(JSON.parse(fromTerminal)).toEqual(parsed);
  }, 60_000);

  it("context: the summary and a page inert on a terminal, exact when piped", async () => {
    // the inspector already shows controls as visible text (^[ and \u009b), so this holds
    // without the sanitizer too; the terminal path passes it all the same, as the screen does
    const view = JSON.parse((await runCli(["context", sid, "--json"], hostileHome)).stdout) as { sections: { source: string }[] };
    // --section counts from 1, the JSON's index from 0
    const hist = String(view.sections.findIndex((s) => s.source === "history") + 1);
    const page = await onTerminal(["context", sid, "--section", hist]);
    expect(page).not.toContain("\x1b]0;pwned");
    expect(page).not.toContain("\u009b");
    expect(page).toContain("title ^[]0;pwned^G");
    // JSON writes the C1 CSI of the stored prompt raw: on a terminal it goes out as \u009b
    const pageJson = await onTerminal(["context", sid, "--section", hist, "--json"]);
    expect(leaks(pageJson)).toEqual([]);
    expect(pageJson).toContain("\\u009b2J");
    const summary = await onTerminal(["context", sid]);
    expect(leaks(summary)).toEqual([]);
    // nothing left to take out: the terminal got exactly what a pipe gets
    const piped = await runCli(["context", sid, "--section", hist], hostileHome);
    expect(page.replace(/\r\n/g, "\n")).toBe(piped.stdout);
  }, 60_000);
});

describe("a stored row that cannot be read is quoted inertly", () => {
  it("-p --continue and export warn about the row without passing its control sequences to stderr", async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
    fake.script({ text: "first" });
    expect((await runCli(["-p", "first", ...anthropicArgs()], h)).code).toBe(0);
    // a row whose JSON is broken around a title-change sequence: JSON.parse quotes it in its error
    await new Promise<void>((resolve, reject) => {
      const db = new sqlite3.Database(h.db, (err) => {
        if (err) return reject(err);
        db.run("UPDATE messages SET blocks_json = ? WHERE seq = 2", ['[{"type":"text","text": \x1b]0;pwned\x07 }]'], (e) => db.close(() => (e ? reject(e) : resolve())));
      });
    });
    fake.script({ text: "second" });
    const r = await runCli(["-p", "second", "--continue", ...anthropicArgs()], h);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: message #2 \(assistant, id \d+\) could not be read: blocks are not valid JSON/);
    expect(r.stderr).not.toContain("\x1b");
    const id = (JSON.parse((await runCli(["sessions", "--json"], h)).stdout) as { id: string }[])[0]!.id;
    const t = spawnPty(process.execPath, [CLI, "export", id], { cwd: h.workspace, env: h.env });
    expect((await t.exited()).exitCode).toBe(0);
    expect(t.rawOutput()).toMatch(/warning: message #2 could not be read: blocks are not valid JSON/);
    expect(t.rawOutput()).not.toContain("\x1b]0;pwned");
    await fs.rm(h.root, { recursive: true, force: true });
  }, 60_000);
});
