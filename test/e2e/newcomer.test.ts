// What a newcomer hit in a first day, on the built CLI in a real pty read by a headless xterm,
// against the strict fake provider on 127.0.0.1 and a real SQLite file: the status line keeps
// the session id and the token figure at 80, 90 and 120 columns and across a resize; Esc and
// a letter typed at once interrupt and keep the letter; Ctrl-D quits from the context pane;
// /api's example is one row that runs as pasted, and the API says pending (not 404) for the
// session the screen shows before its first request; ↑ brings a typed many-line prompt back as
// typed; an interrupted answer ends in a plain mark.
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ptyFrame } from "../helpers/pty-frame.js";
import { CLI, runCli } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-test-newcomer-2929";
const WAIT = 30_000;
const e2e = ptyFrame(KEY);
const ARGS = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", e2e.fake.anthropicBase];

function tui(opts: { cols?: number; rows?: number; args?: string[] } = {}): PtySession {
  const s = spawnPty(process.execPath, [CLI, ...ARGS(), ...(opts.args ?? [])], {
    cols: opts.cols ?? 80,
    rows: opts.rows ?? 30,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color" },
  });
  e2e.running.push(s);
  return s;
}

const statusRow = (s: PtySession): string => s.line(s.rows - 1);

async function ask(s: PtySession, text: string): Promise<void> {
  s.send(text);
  await s.waitFor(`› ${text.slice(0, 20)}`, WAIT);
  s.send(KEYS.enter);
}

describe("the status line keeps what fits", () => {
  it("at 80, 90 and 120 columns and across resizes: the session id and the next request's figure stay", async () => {
    const answer = Array.from({ length: 3000 }, (_, i) => `word${i % 50}`).join(" ");
    e2e.fake.script({ text: answer });
    const s = tui({ cols: 80 });
    await s.waitFor("Type a request", WAIT);
    await ask(s, "write a long answer");
    await s.waitFor(/^ idle · /m, WAIT);
    const list = JSON.parse((await runCli(["sessions", "--json"], e2e.home)).stdout) as { id: string }[];
    const id = list[0]!.id.slice(0, 8);
    for (const cols of [80, 90, 120, 80, 90]) {
      s.resize(cols, 30);
      // between turns the figure is the next request's, labelled
      await s.waitFor(new RegExp(`^ idle · .*${id}.*next .*≈ [\\d,.]+k?`, "m"), WAIT);
      const row = statusRow(s);
      expect(row, `${cols}`).toContain(id);
      expect(row, `${cols}`).toMatch(/next (request )?≈ /);
      expect(row, `${cols}`).toContain("context");
    }
  });
});

describe("keys a newcomer types", () => {
  it("Esc and a letter at once during a stream: the turn stops and the letter is kept ('think hard', not 'hink hard')", async () => {
    const long = Array.from({ length: 600 }, (_, i) => `w${i}`).join(" ");
    e2e.fake.script({ text: `Opening line. ${long}`, delayMs: 40, wordsPerEvent: 1 });
    const s = tui({ cols: 90 });
    await s.waitFor("Type a request", WAIT);
    await ask(s, "tell me everything");
    await s.waitFor("Opening line.", WAIT);
    s.send("\x1bthink hard");
    await s.waitFor("› think hard", WAIT);
    await s.waitFor("[interrupted]", WAIT);
    await s.waitFor(/^ idle · /m, WAIT);
    expect(s.screenText()).not.toContain("› hink hard");
  });

  it("Ctrl-D on an empty prompt quits while the context pane has the keys", async () => {
    const s = tui({ cols: 120 });
    await s.waitFor("Type a request", WAIT);
    s.send(KEYS.ctrl("o"));
    await s.waitFor("context pane · typing goes to the prompt", WAIT);
    s.send(KEYS.ctrl("d"));
    const { exitCode } = await s.exited();
    expect(exitCode).toBe(0);
  });

  it("↑ brings a typed 25-line prompt back as typed, not as a paste", async () => {
    e2e.fake.script({ text: "Noted." });
    const s = tui({ cols: 90, rows: 40 });
    await s.waitFor("Type a request", WAIT);
    const lines = Array.from({ length: 25 }, (_, i) => `typed line ${i + 1}`);
    s.send(lines.join(KEYS.altEnter));
    await s.waitFor("typed line 25", WAIT);
    s.send(KEYS.enter);
    await s.waitFor("Noted.", WAIT);
    await s.waitFor(/^ idle · /m, WAIT);
    s.send(KEYS.up);
    await s.waitFor(/› typed line \d+|^  typed line 25/m, WAIT);
    await s.settle(200);
    expect(s.screenText()).not.toContain("[pasted");
  });
});

describe("the local API from the screen", () => {
  it("/api's example is one row that runs as pasted, and says pending before the first request", async () => {
    const s = tui({ cols: 120, args: ["--api"] });
    await s.waitFor("Type a request", WAIT);
    s.send("/api");
    await s.waitFor("› /api", WAIT);
    s.send(KEYS.enter);
    await s.waitFor(/^ *curl -H "Authorization: Bearer \$\(cat/m, WAIT);
    const rows = s.screenText().split("\n").map((r) => r.trim());
    const one = rows.find((r) => r.startsWith("curl -H \"Authorization: Bearer $(cat"))!;
    // whole on its row: it ends with the route, and the next row is not its tail
    expect(one.trimEnd()).toMatch(/\/sessions\/[0-9a-f]{8}\/context$/);
    const two = rows.filter((r) => /^T=\$\(cat |^curl -H "Authorization: Bearer \$T"/.test(r));
    expect(two).toHaveLength(2);
    const run = async (cmd: string): Promise<Record<string, unknown>> => {
      const { stdout } = await promisify(execFile)("bash", ["-c", cmd], { env: { ...e2e.home.env }, cwd: e2e.home.workspace });
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    // the session the screen shows has no row yet: pending, with the reason, never 404
    const pending = await run(one.trimEnd());
    expect(pending).toMatchObject({ state: "pending" });
    expect(String(pending["reason"])).toContain("no request has been sent");
    expect(await run(two.map((r) => r.trimEnd()).join("\n"))).toMatchObject({ state: "pending" });
    // at 80 columns the two-command form still fits its rows
    s.resize(80, 30);
    await s.settle(300);
    for (const r of s.screenText().split("\n").map((x) => x.trim()).filter((x) => x.startsWith("T=$(cat ") || x.startsWith('curl -H "Authorization: Bearer $T"'))) {
      expect(r.trimEnd()).toMatch(/\)$|\/context$/);
    }
  });
});
