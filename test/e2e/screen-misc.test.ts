// The built CLI on a real pseudo-terminal: terminals that cannot
// draw the screen are refused before anything is drawn; with --api the screen says where the
// API is (nothing is written under it), and what it says answers over real HTTP; Ctrl-O
// pressed while the session opens opens the pane with it. Against the strict fake provider on
// 127.0.0.1, with a real SQLite file.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { ptyFrame } from "../helpers/pty-frame.js";
import { CLI, runCli } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { lockBeforeLoad } from "../helpers/lock.js";
import { API_ROUTES } from "../../src/context/api/routes.js";

const KEY = "sk-test-screen-misc-1414";
const MODEL = "claude-sonnet-4-5";
/** generous: the machine is shared and busy */
const WAIT = 30_000;
const e2e = ptyFrame(KEY);

const ARGS = (): string[] => ["--provider", "anthropic", "--model", MODEL, "--base-url", e2e.fake.anthropicBase];

/** the CLI on a pty; `term` undefined runs it with TERM removed from its environment */
function tui(args: string[], opts: { term?: string | undefined; cols?: number; rows?: number } = { term: "xterm-256color" }): PtySession {
  const env = { ...e2e.home.env };
  // node-pty always sets TERM (from its `name`): `env -u TERM` takes it away again
  const [file, argv] = opts.term === undefined ? ["/usr/bin/env", ["-u", "TERM", process.execPath, CLI, ...args]] : [process.execPath, [CLI, ...args]];
  const s = spawnPty(file as string, argv as string[], { cols: opts.cols ?? 100, rows: opts.rows ?? 30, cwd: e2e.home.workspace, env: { ...env, TERM: opts.term ?? "xterm-256color" } });
  e2e.running.push(s);
  return s;
}

async function quit(s: PtySession): Promise<number> {
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit", WAIT);
  s.send(KEYS.ctrl("c"));
  return (await s.exited()).exitCode;
}

function get(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

describe("terminals that cannot draw the screen", () => {
  // glasstty is refused by its real terminfo entry (no cursor addressing), which Debian ships in
  // ncurses-term (.ci/run installs it); without the entry blessed draws it as xterm, so only
  // TERM=dumb is checked there
  const glasstty = ["/usr/share/terminfo/g/glasstty", "/lib/terminfo/g/glasstty", "/etc/terminfo/g/glasstty"].some((f) => fs.existsSync(f));
  it.each(glasstty ? ["dumb", "glasstty"] : ["dumb"])("TERM=%s: refused with a sentence pointing to -p, exit 2, nothing drawn, nothing opened", async (term) => {
    const s = tui(ARGS(), { term });
    const { exitCode } = await s.exited();
    expect(exitCode).toBe(2);
    // the bytes written, exactly (the screen wraps the sentence at its edge)
    const said = s.rawOutput();
    expect(said).toMatch(new RegExp(`^albedo-tui: this terminal \\(TERM=${term}\\) .*cannot move the cursor`));
    expect(said).toContain('albedo-tui -p "your request"');
    await s.waitFor(`TERM=${term}`);
    // no full screen's escape sequences: such a terminal shows them as garbage
    expect(s.rawOutput()).not.toContain("\x1b");
    expect(s.buffer()).toBe("normal");
    // refused before the store or a session was opened
    expect(fs.existsSync(e2e.home.db)).toBe(false);
  });

  it("-p still works on TERM=dumb", async () => {
    e2e.fake.script({ text: "Headless answer." });
    const r = await runCli(["-p", "hello", ...ARGS()], e2e.home, { TERM: "dumb" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Headless answer.");
  });

  it("an unset TERM draws the screen as xterm-256color (chosen: such terminals are nearly always xterm-likes)", async () => {
    const s = tui(ARGS(), { term: undefined });
    await s.waitFor("Type a request", WAIT);
    expect(s.buffer()).toBe("alternate");
    expect(await quit(s)).toBe(0);
  });
});

describe("with --api the screen says where the API is", () => {
  it("shows the address and token file at start, in /api and in /help; nothing is written under the screen; each route answers", async () => {
    e2e.fake.script({ text: "One answer to capture." });
    const s = tui([...ARGS(), "--api"], { term: "xterm-256color", cols: 160, rows: 120 });
    await s.waitFor("Type a request", WAIT);
    // not on stderr just before the screen: the screen would cover it
    expect(s.rawOutput()).not.toContain("albedo-tui: local API on");
    const start = /Local API on (http:\/\/127\.0\.0\.1:(\d+)) \(token in (\S+)\); \/api shows its routes\./.exec(s.screenText());
    expect(start, "the start notice").not.toBeNull();
    const [, url, port, tokenFile] = start!;
    expect(tokenFile).toBe(path.join(e2e.home.env.XDG_STATE_HOME as string, "albedo", `api-token-${port}`));
    const token = (await fsp.readFile(tokenFile!, "utf8")).trim();

    // one turn, so the context routes have a capture to serve
    s.send("capture this");
    await s.waitFor("› capture this");
    s.send(KEYS.enter);
    await s.waitFor("One answer to capture.", WAIT);
    await s.waitFor(/ idle /, WAIT);

    s.send("/api");
    await s.waitFor("› /api");
    s.send(KEYS.enter);
    await s.waitFor("address  http://127.0.0.1:", WAIT);
    const screen = s.screenText();
    expect(screen).toContain(`address  ${url}`);
    expect(screen).toContain(`token    ${tokenFile}`);
    const session = /curl -H .*\/sessions\/([A-Za-z0-9_-]+)\/context/.exec(screen)?.[1];
    expect(session, "the example names this session").toBeDefined();
    // every route the screen lists answers, filled in as it says
    for (const r of API_ROUTES) {
      expect(screen).toContain(r.path);
      const filled = r.path.replace("ID", session!).replace("SECTION", "0").replace("PAGE", "0");
      const res = await get(`${url}${filled}`, token);
      expect(res.status, `${filled}: ${res.body}`).toBe(200);
    }

    s.send("/help");
    await s.waitFor("› /help");
    s.send(KEYS.enter);
    await s.waitFor("Commands", WAIT);
    await s.waitFor(`address  ${url}`, WAIT);
    // it ends: the API server is closed with the session, screen-first too
    expect(await quit(s)).toBe(0);
    expect(fs.existsSync(tokenFile!)).toBe(false);
  });
});

describe("Ctrl-O while the session opens", () => {
  it("says the pane opens with the session, and it does", async () => {
    // a database that exists, locked by another process so that opening the session waits
    // for it (lockBeforeLoad: a lock alone stops no reader in WAL mode, and the test raced the load)
    expect((await runCli(["sessions", "--db", e2e.home.db], e2e.home)).code).toBe(0);
    const lock = await lockBeforeLoad(e2e.home.db);
    let released = false;
    try {
      const s = tui([...ARGS(), "--db", e2e.home.db], { term: "xterm-256color", cols: 140, rows: 30 });
      await s.waitFor("Starting…", WAIT);
      s.send(KEYS.ctrl("o"));
      // the key is not dropped while "opening the session"
      await s.waitFor("the context pane opens once the session is open", WAIT);
      await lock.release();
      released = true;
      await s.waitFor("Type a request", WAIT);
      // the pane is open: nothing was sent in this session yet, so it is pending
      await s.waitFor(/pending/, WAIT);
      expect(await quit(s)).toBe(0);
    } finally {
      if (!released) await lock.release();
    }
  });
});
