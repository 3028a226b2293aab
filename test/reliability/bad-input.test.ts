// Bad input from every side: config files, keymaps, databases, session ids, a huge paste, and
// files a tool should never read whole (binary, 50 MB, a FIFO, a symlink out of the
// workspace). Each must end in a sentence that names the problem, and change no stored data.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import sqlite3 from "sqlite3";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type CliResult, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { loadKeymap } from "../../src/ui/keymap.js";
import { LATEST_VERSION } from "../../src/session/store/migrations.js";
import { anthropicArgs, dbChecksum, readRecord, removeHomes, secretHits, sha256File, Tally, writeConfig, writeFigures } from "./lib.js";
import { holdWriteLock as holdLock } from "../helpers/lock.js";

const KEY = "sk-ant-reliability-BADINPUT-55e0b1";
let fake: FakeProvider;
const homes: Home[] = [];
const ptys: PtySession[] = [];
const tally = new Tally();

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});

afterAll(async () => {
  for (const p of ptys) p.kill();
  const hits = await secretHits(
    homes.map((h) => h.root),
    [KEY],
    // the config-file case puts the key in the config on purpose
    { except: homes.map((h) => path.join(h.env.XDG_CONFIG_HOME as string, "albedo", "config.json")) },
  );
  await fake.close();
  await writeFigures("bad-input", {
    ...tally.figures(),
    secretsFound: hits.length,
  });
  await removeHomes(homes);
  expect(hits).toEqual([]);
});

function bad(name: string, fn: () => Promise<void>, timeout = 45_000): void {
  tally.it(name, fn, timeout);
}

async function home(): Promise<Home> {
  const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
  homes.push(h);
  return h;
}

/** A home whose database already holds one whole turn, so "nothing changed" means something. */
async function homeWithHistory(): Promise<Home> {
  const h = await home();
  fake.script({ text: "first answer" });
  const r = await runCli(["-p", "first question", ...anthropicArgs(fake)], h);
  expect(r.code).toBe(0);
  return h;
}

/** Everything under the data folder, folders too (the open marks' beside the database), by
 * name and checksum: a refused run must leave all of it. */
async function dataState(h: Home, dir = path.dirname(h.db), out: Record<string, string> = {}): Promise<Record<string, string>> {
  for (const e of (await fs.readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name))) {
    // -shm is SQLite's shared-memory index, rebuilt by any reader; it holds no data
    if (e.name.endsWith("-shm")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      out[`${p}/`] = "folder";
      await dataState(h, p, out);
    } else {
      out[p] = await sha256File(p);
    }
  }
  return out;
}

function firstLine(r: CliResult): string {
  return r.stderr.split("\n")[0] ?? "";
}

describe("config files", () => {
  const cases: [string, string, RegExp][] = [
    ["not JSON", "{ provider: anthropic,", /config\.json is not valid JSON: /],
    ["a wrong field type", JSON.stringify({ compactionThreshold: "high" }), /config\.json: field "compactionThreshold": .*expected number, received string/],
    ["an unknown provider", JSON.stringify({ provider: "gemini" }), /config\.json: field "provider": Invalid option: expected one of "anthropic"\|"openai"/],
    ["an unknown field", JSON.stringify({ idleTimeoutSecs: 5 }), /config\.json: unknown field "idleTimeoutSecs"/],
  ];
  for (const [what, text, message] of cases) {
    bad(`a config file with ${what}: the file and field named, exit 1, nothing stored changed`, async () => {
      const h = await homeWithHistory();
      const file = await writeConfig(h, text);
      const before = await dataState(h);
      const configBefore = await sha256File(file);
      const n = fake.requests.length;
      const r = await runCli(["-p", "hello", "--continue", ...anthropicArgs(fake)], h);
      expect(r.code).toBe(1);
      expect(firstLine(r)).toMatch(/^albedo-tui: /);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(file);
      expect(r.stdout).toBe("");
      expect(fake.requests.length).toBe(n);
      expect(await dataState(h)).toEqual(before);
      expect(await sha256File(file)).toBe(configBefore);
    });
  }

  bad("--provider with an unknown name: refused before anything opens", async () => {
    const h = await homeWithHistory();
    const before = await dataState(h);
    const r = await runCli(["-p", "hello", "--provider", "gemini"], h);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/gemini/);
    expect(r.stderr).toMatch(/anthropic, openai|"anthropic", "openai"/);
    expect(await dataState(h)).toEqual(before);
  });
});

describe("keymaps", () => {
  const badMap = {
    "context.toggel": "C-o", // an action that does not exist
    "context.toggle": "Ctrl+Banana", // a key that does not exist
    "app.redraw": ["C-l", "hyper-x"],
    "input.submit": "enter",
  };

  bad("loadKeymap: an unknown action and an unknown key are warnings naming the file and the entry; defaults kept", async () => {
    const h = await home();
    const file = path.join(h.root, "my-keys.json");
    await fs.writeFile(file, JSON.stringify(badMap));
    const { keymap, warnings } = loadKeymap(file);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain(file);
    expect(warnings.join("\n")).toMatch(/unknown action "context\.toggel"/);
    expect(warnings.join("\n")).toMatch(/"context\.toggle": "Ctrl\+Banana" is not a key name.*keeping the default \(C-o\)/);
    expect(warnings.join("\n")).toMatch(/"app\.redraw": "hyper-x" is not a key name/);
    expect(keymap.bindings["context.toggle"]).toEqual(["C-o"]);
    expect(keymap.bindings["app.redraw"]).toEqual(["C-l"]);
    expect(keymap.bindings["input.submit"]).toEqual(["enter"]);
    // a file that is not JSON at all, and one that is missing: warnings, defaults
    await fs.writeFile(path.join(h.root, "broken.json"), "{ not json");
    const broken = loadKeymap(path.join(h.root, "broken.json"));
    expect(broken.warnings.join("\n")).toMatch(/broken\.json.*not valid JSON.*using the default keys/);
    expect(loadKeymap(path.join(h.root, "missing.json")).warnings.join("\n")).toMatch(/missing\.json \(no such file\)/);
    // bad entries in the config's "keys" are named as such
    const fromConfig = loadKeymap("default", { "nope.action": "C-x", "context.toggle": "" });
    expect(fromConfig.warnings.join("\n")).toMatch(/config keys: unknown action "nope\.action"/);
    expect(fromConfig.keymap.bindings["context.toggle"]).toEqual(["C-o"]);
  });

  bad("--keymap FILE in the TUI: the warning names the file and the entry, the default key still works", async () => {
    const h = await home();
    const file = path.join(h.root, "my-keys.json");
    await fs.writeFile(file, JSON.stringify(badMap));
    const t = spawnPty(process.execPath, [CLI, "--keymap", file, ...anthropicArgs(fake)], {
      cols: 160,
      rows: 40,
      cwd: h.workspace,
      env: { ...h.env, TERM: "xterm-256color" },
    });
    ptys.push(t);
    await t.waitFor("Type a request", 20_000);
    await t.waitFor(/unknown action "context\.toggel"/);
    const screen = t.screenText().replace(/\s+/g, " ");
    expect(screen).toContain("my-keys.json");
    expect(screen).toMatch(/Ctrl\+Banana/);
    // the bad binding fell back: ^O still opens the context pane
    t.send(KEYS.ctrl("o"));
    await t.waitFor("pending");
    t.send(KEYS.escape);
    // Esc then another key at once would read as Alt+key: wait for the pane to close
    await t.waitForGone("pending");
    t.send(KEYS.ctrl("c"));
    await t.waitFor("again to quit");
    t.send(KEYS.ctrl("c"));
    expect((await t.exited()).exitCode).toBe(0);
  });
});

describe("databases", () => {
  bad("--db pointing at a file that is not SQLite: refused, the file left byte for byte", async () => {
    const h = await home();
    const file = path.join(h.root, "notes.txt");
    await fs.writeFile(file, "these are my notes, not a database\n".repeat(100));
    const before = await sha256File(file);
    const r = await runCli(["-p", "hello", "--db", file, ...anthropicArgs(fake)], h);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`albedo-tui: ${file} is not an albedo-tui database (not an SQLite file)`);
    expect(await sha256File(file)).toBe(before);
    // SQLite never touched it: no journal files beside it
    expect((await fs.readdir(h.root)).filter((f) => f.startsWith("notes.txt"))).toEqual(["notes.txt"]);
    // the subcommands refuse it the same way
    const s = await runCli(["sessions", "--db", file], h);
    expect(s.code).toBe(1);
    expect(s.stderr).toContain("not an SQLite file");
    expect(await sha256File(file)).toBe(before);
  });

  bad("an SQLite database of another program: refused, unchanged", async () => {
    const h = await home();
    const file = path.join(h.root, "other.sqlite");
    await exec(file, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada');");
    const before = await dbChecksum(file);
    const r = await runCli(["-p", "hello", "--db", file, ...anthropicArgs(fake)], h);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is an SQLite database but not an albedo-tui one .*refusing to change it/);
    expect(await dbChecksum(file)).toBe(before);
  });

  bad(
    "a database locked by another process: waits, then says it is locked; nothing changed; usable afterwards",
    async () => {
      const h = await homeWithHistory();
      const before = await dataState(h);
      const holder = await holdLock(h.db);
      try {
        const n = fake.requests.length;
        const r = await runCli(["-p", "hello", "--continue", ...anthropicArgs(fake)], h);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/the database .*history\.sqlite is busy: it is locked by another process \(waited 5000 ms\)\. Close the other albedo-tui using it, or try again\./);
        expect(r.stderr).not.toMatch(/Internal error/);
        expect(fake.requests.length).toBe(n);
        // a new session needs the write lock too
        const r2 = await runCli(["-p", "hello", ...anthropicArgs(fake)], h);
        expect(r2.code).toBe(1);
        expect(r2.stderr).toMatch(/is busy: it is locked by another process/);
      } finally {
        await holder.release();
      }
      expect(await dataState(h)).toEqual(before);
      fake.script({ text: "unlocked now" });
      const r3 = await runCli(["-p", "hello", "--continue", ...anthropicArgs(fake)], h);
      expect(r3.code).toBe(0);
      expect(r3.stdout).toBe("unlocked now\n");
    },
    60_000,
  );

  bad("a database from a newer schema version: refused, version and bytes unchanged", async () => {
    const h = await homeWithHistory();
    await exec(h.db, `UPDATE schema_version SET version = ${LATEST_VERSION + 5};`);
    const before = await dataState(h);
    const r = await runCli(["-p", "hello", "--continue", ...anthropicArgs(fake)], h);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`was written by a newer albedo-tui (schema version ${LATEST_VERSION + 5}; this one knows up to ${LATEST_VERSION}); refusing to open it so nothing is downgraded`);
    for (const sub of [["sessions"], ["export", "abc"], ["context", "abc"]]) {
      const s = await runCli(sub, h);
      expect(s.code).toBe(1);
      expect(s.stderr).toContain("newer albedo-tui");
    }
    expect(await dataState(h)).toEqual(before);
    expect(await query(h.db, "SELECT version FROM schema_version")).toEqual([{ version: LATEST_VERSION + 5 }]);
  });

  bad("--resume with an unknown id: says which id and how to list them; nothing changed", async () => {
    const h = await homeWithHistory();
    const before = await dataState(h);
    const n = fake.requests.length;
    for (const id of ["0123456789ab", "../../etc/passwd", "x".repeat(300)]) {
      const r = await runCli(["-p", "hello", "--resume", id, ...anthropicArgs(fake)], h);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`no session with id "${id}"`);
      expect(r.stderr).toContain("albedo-tui sessions");
    }
    const e = await runCli(["export", "0123456789ab"], h);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain('no session with id "0123456789ab"');
    expect(fake.requests.length).toBe(n);
    expect(await dataState(h)).toEqual(before);
  });
});

describe("a 2 MB paste", () => {
  bad(
    "pasted into the TUI: the screen stays responsive, the text goes out whole",
    async () => {
      const h = await home();
      // ≈ 550,000 tokens: sent to a model whose window holds it (a larger paste is refused at
      // Enter: traps-window.test.ts)
      await writeConfig(h, { contextWindow: 1_000_000 });
      fake.script({ text: "Received the big paste." });
      const t = spawnPty(process.execPath, [CLI, ...anthropicArgs(fake)], { cols: 100, rows: 30, cwd: h.workspace, env: { ...h.env, TERM: "xterm-256color" } });
      ptys.push(t);
      await t.waitFor("Type a request", 20_000);
      const line = "the quick brown fox jumps over the lazy dog 0123456789 ~ PASTE-LINE\n";
      const big = line.repeat(Math.ceil((2 * 1024 * 1024) / line.length));
      const n = fake.requests.length;
      t.send(KEYS.paste(big));
      await t.waitFor(/\[pasted #1 · 2\.\d MB/, 30_000);
      // still taking keys after the paste: typed text shows up beside it
      t.send(" and-a-typed-tail");
      await t.waitFor("and-a-typed-tail", 15_000);
      t.send(KEYS.enter);
      await t.waitFor("Received the big paste.", 60_000);
      const sent = fake.requests[n]!;
      expect(sent.rejected).toBeUndefined();
      const user = JSON.stringify(sent.body.messages.at(-1));
      expect(user.split("PASTE-LINE").length - 1).toBe(big.split("PASTE-LINE").length - 1);
      expect(sent.rawBody.length).toBeGreaterThan(2 * 1024 * 1024);
      expect(user).toContain("and-a-typed-tail");
      // and it is stored whole
      const rec = await readRecord(h.db);
      const stored = JSON.stringify(rec.messages[0]!.blocks);
      expect(stored.split("PASTE-LINE").length - 1).toBe(big.split("PASTE-LINE").length - 1);
      t.send(KEYS.ctrl("c"));
      await t.waitFor("again to quit");
      t.send(KEYS.ctrl("c"));
      expect((await t.exited()).exitCode).toBe(0);
    },
    120_000,
  );
});

describe("files a tool should refuse", () => {
  bad("binary, 50 MB, a FIFO, a symlink out of the workspace: each a clear error to the model, nothing hangs", async () => {
    const h = await home();
    const ws = h.workspace;
    const bin = randomBytes(4096);
    bin[10] = 0;
    await fs.writeFile(path.join(ws, "image.bin"), bin);
    const bigLine = "a line of a very large log file, repeated to fifty megabytes\n";
    await fs.writeFile(path.join(ws, "huge.log"), Buffer.alloc(50 * 1024 * 1024, bigLine));
    execFileSync("mkfifo", [path.join(ws, "pipe")]);
    const outside = path.join(h.root, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "secret.txt"), "OUTSIDE-SECRET-CONTENT\n");
    await fs.symlink(outside, path.join(ws, "escape"));
    const hashes = { bin: await sha256File(path.join(ws, "image.bin")), huge: await sha256File(path.join(ws, "huge.log")) };

    fake.script(
      {
        toolCalls: [
          { name: "read", input: { path: "image.bin" } },
          { name: "read", input: { path: "huge.log" } },
          { name: "read", input: { path: "pipe" } },
          { name: "read", input: { path: "escape/secret.txt" } },
          { name: "grep", input: { pattern: "OUTSIDE|never-there" } },
          { name: "read", input: { path: "huge.log", offset: 400_000, limit: 2 } },
        ],
      },
      { text: "Done looking." },
    );
    const n = fake.requests.length;
    const t0 = Date.now();
    const r = await runCli(["-p", "look at these files", ...anthropicArgs(fake)], h);
    expect(Date.now() - t0).toBeLessThan(40_000); // "nothing hangs", generously
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Done looking.\n");
    const results = fake.requests[n + 1]!.body.messages.at(-1).content as { is_error?: boolean; content: unknown }[];
    const text = (i: number): string => JSON.stringify(results[i]!.content);
    expect(results).toHaveLength(6);
    expect(results[0]!.is_error).toBe(true);
    expect(text(0)).toMatch(/image\.bin: binary file, 4096 bytes; not shown/);
    expect(results[1]!.is_error).toBe(true);
    expect(text(1)).toMatch(/huge\.log is 50\.0 MB, over the 10\.0 MB limit for a whole read; give offset and limit/);
    expect(results[2]!.is_error).toBe(true);
    expect(text(2)).toMatch(/pipe is not a regular file \(a FIFO\)/);
    expect(results[3]!.is_error).toBe(true);
    expect(text(3)).toMatch(/outside the workspace/);
    expect(text(3)).toContain(path.join(outside, "secret.txt"));
    // the search walks past the FIFO and does not follow the link out
    expect(results[4]!.is_error).toBeFalsy();
    expect(text(4)).toMatch(/no matches/);
    // a range of the big file is fine
    expect(results[5]!.is_error).toBeFalsy();
    expect(text(5)).toMatch(/400000│ a line of a very large log file/);
    // the secret behind the link reached neither the model nor the record
    expect(fake.requests.map((q) => q.rawBody).join("")).not.toContain("OUTSIDE-SECRET-CONTENT");
    expect(JSON.stringify((await readRecord(h.db)).messages)).not.toContain("OUTSIDE-SECRET-CONTENT");
    expect({ bin: await sha256File(path.join(ws, "image.bin")), huge: await sha256File(path.join(ws, "huge.log")) }).toEqual(hashes);

    // read-only mode says why in its own words
    fake.script({ toolCalls: [{ name: "read", input: { path: "escape/secret.txt" } }] }, { text: "ok" });
    const m = fake.requests.length;
    const r2 = await runCli(["-p", "again", "--permission", "read-only", ...anthropicArgs(fake)], h);
    expect(r2.code).toBe(0);
    const denied = JSON.stringify(fake.requests[m + 1]!.body.messages.at(-1).content);
    expect(denied).toMatch(/denied: albedo-tui runs in read-only mode; .*secret\.txt is outside the workspace/);
    await fs.rm(path.join(ws, "huge.log"));
  });
});

// ------------------------------------------------------------------ sqlite from the test side

function exec(file: string, sql: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (err) => {
      if (err) return reject(err);
      db.exec(sql, (e) => db.close(() => (e ? reject(e) : resolve())));
    });
  });
}

function query(file: string, sql: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => {
      if (err) return reject(err);
      db.all(sql, (e, rows) => db.close(() => (e ? reject(e) : resolve(rows))));
    });
  });
}

