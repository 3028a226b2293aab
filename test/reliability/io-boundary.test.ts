// The edge between the program and its files: a damaged, read-only or full
// history database, the files read on start pointed at devices and FIFOs, the modes of what
// the program writes, and the keys in the agent's own /proc/<pid>/environ. Real files, real
// mounts where this machine allows them (as root), a real unprivileged user where it does not
// change what is tested, the built CLI. Each failure must be one sentence naming the file and
// the cause; nothing may hang.
import { afterAll, beforeAll, describe, expect } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type CliResult, type Home } from "../helpers/cli.js";
import { spawnPty, type PtySession } from "../helpers/pty.js";
import { readableCopy } from "../helpers/cli-copy.js";
import { chownTree, corruptPageHolding, fillDisk, isRoot, nobody, readOnlyView, skipped, smallDisk, sqliteGeometry } from "../helpers/fs-faults.js";
import { anthropicArgs, dbChecksum, removeHomes, secretHits, Tally, writeFigures } from "./lib.js";

const KEY = "sk-ant-reliability-IOBOUNDARY-9c2e77";
let fake: FakeProvider;
const homes: Home[] = [];
const ptys: PtySession[] = [];
const tally = new Tally();
const skips: string[] = [];
/** figures beyond held/tried */
const fig = { storeFaultsNamed: 0, storeFaultsTried: 0, startFilesRefused: 0, startFilesTried: 0, keysInEnviron: 0, environsRead: 0, looseModesLeft: 0 };

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
});

afterAll(async () => {
  for (const p of ptys) p.kill();
  const hits = await secretHits(
    homes.map((h) => h.root),
    [KEY],
  );
  await fake.close();
  await writeFigures("io-boundary", { ...tally.figures(), ...fig, skipped: skips, secretsFound: hits.length });
  await removeHomes(homes);
  if (copy) await fs.rm(copy, { recursive: true, force: true });
  expect(hits).toEqual([]);
});

function check(name: string, fn: () => Promise<void>, timeout = 60_000): void {
  tally.it(name, fn, timeout);
}

async function home(): Promise<Home> {
  const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
  homes.push(h);
  return h;
}

async function homeWithHistory(turns = 1): Promise<Home> {
  const h = await home();
  for (let i = 0; i < turns; i++) {
    fake.script({ text: `answer ${i} ${"with some words ".repeat(40)}` });
    const r = await runCli(["-p", `question ${i} MARK-Q${i}`, ...(i > 0 ? ["--continue"] : []), ...anthropicArgs(fake)], h);
    expect(r.code, r.stderr).toBe(0);
  }
  return h;
}

async function sessionId(h: Home, db = h.db): Promise<string> {
  const r = await runCli(["sessions", "--json", "--db", db], h);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { id: string }[])[0]!.id;
}

/** one line, "albedo-tui: " and the sentence; counted as a store fault named when it matches */
function named(r: CliResult, sentence: RegExp | string): void {
  fig.storeFaultsTried++;
  expect(r.code).toBe(1);
  const line = r.stderr.trim().split("\n").at(-1) ?? "";
  if (typeof sentence === "string") expect(line).toContain(sentence);
  else expect(line).toMatch(sentence);
  expect(line).not.toMatch(/SQLITE_|Internal error/);
  fig.storeFaultsNamed++;
}

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The package copied where another user can read it: the checkout may sit in a folder only
 * its owner can enter (a home folder of mode 0700). Made once, when first needed.
 */
let copy: string | undefined;

/** Runs the CLI as another user (root only): the home is given to that user first. */
function runAs(user: { uid: number; gid: number }, args: string[], h: Home): Promise<CliResult> {
  copy ??= readableCopy();
  const child = spawn(process.execPath, [path.join(copy, "dist", "cli.js"), ...args], { cwd: h.workspace, env: h.env, uid: user.uid, gid: user.gid, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe("a damaged history database", () => {
  check("truncated: every command names the file and 'truncated'; the file is left as it was", async () => {
    const h = await homeWithHistory(3);
    const { pageSize, pages } = sqliteGeometry(h.db);
    await fs.truncate(h.db, Math.max(1, Math.floor(pages / 2)) * pageSize);
    const before = await dbChecksum(h.db);
    const sentence = new RegExp(`^albedo-tui: the database ${esc(h.db)} is truncated: it is \\d+ bytes but its header counts ${pages} pages of ${pageSize} bytes .*its end is missing\\. Keep a copy of it`);
    named(await runCli(["-p", "more", "--continue", ...anthropicArgs(fake)], h), sentence);
    named(await runCli(["sessions"], h), sentence);
    expect(await dbChecksum(h.db)).toBe(before);
  });

  check("a corrupt page: sessions still lists; export and --continue name the damage", async () => {
    const h = await homeWithHistory(3);
    const id = await sessionId(h);
    corruptPageHolding(h.db, "MARK-Q1");
    const listed = await runCli(["sessions"], h);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(id);
    const sentence = `albedo-tui: the database ${h.db} is damaged: a page of it is corrupt (SQLite: database disk image is malformed). Keep a copy of it; sqlite3's .recover command can save what is still readable.`;
    named(await runCli(["export", id], h), sentence);
    const n = fake.requests.length;
    named(await runCli(["-p", "more", "--continue", ...anthropicArgs(fake)], h), sentence);
    expect(fake.requests.length).toBe(n);
  });
});

describe("a read-only history database", () => {
  async function readersWork(h: Home, db: string, id: string, as?: { uid: number; gid: number }): Promise<void> {
    const run = (args: string[]): Promise<CliResult> => (as ? runAs(as, args, h) : runCli(args, h));
    const s = await run(["sessions", "--db", db]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain(id);
    const e = await run(["export", id, "--db", db]);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toContain("MARK-Q0");
    const c = await run(["context", id, "--db", db]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/history/);
  }

  check("as root, on a read-only mount: sessions, export and context read it; a turn says why it cannot write", async () => {
    const h = await homeWithHistory(2);
    const id = await sessionId(h);
    const view = await readOnlyView(path.dirname(h.db));
    if (skipped(view)) {
      skips.push(`read-only mount: ${view.skip}`);
      return;
    }
    try {
      const db = path.join(view.path, path.basename(h.db));
      await readersWork(h, db, id);
      const n = fake.requests.length;
      const why = isRoot ? "it is on a read-only file system" : "is read-only for this user";
      named(await runCli(["-p", "more", "--continue", "--db", db, ...anthropicArgs(fake)], h), `albedo-tui: cannot write to the database ${db}: ${why}`);
      named(await runCli(["-p", "new", "--db", db, ...anthropicArgs(fake)], h), "the reading commands (albedo-tui sessions, export, context) still work on it");
      expect(fake.requests.length).toBe(n);
    } finally {
      await view.release();
    }
  });

  check("as a user without root's override: a read-only file, then a read-only folder", async () => {
    const user = nobody();
    if (skipped(user)) {
      skips.push(`unprivileged user: ${user.skip}`);
      return;
    }
    const h = await homeWithHistory(2);
    const id = await sessionId(h);
    chownTree(h.root, user.uid, user.gid);
    const dir = path.dirname(h.db);
    // the file without write bits
    await fs.chmod(h.db, 0o400);
    await readersWork(h, h.db, id, user);
    named(await runAs(user, ["-p", "more", "--continue", ...anthropicArgs(fake)], h), `albedo-tui: cannot write to the database ${h.db}: the file is read-only for this user (mode 0400)`);
    // the folder without write bits (SQLite cannot make its -shm file there): read through SQLite's immutable mode
    await fs.chmod(h.db, 0o600);
    for (const side of ["-wal", "-shm"]) await fs.rm(h.db + side, { force: true });
    await fs.chmod(dir, 0o500);
    try {
      await readersWork(h, h.db, id, user);
      named(await runAs(user, ["-p", "more", "--continue", ...anthropicArgs(fake)], h), `albedo-tui: cannot write to the database ${h.db}: its folder ${dir} is read-only for this user (mode 0500)`);
    } finally {
      await fs.chmod(dir, 0o700);
    }
  });
});

describe("a full disk", () => {
  check("the answer cannot be stored: the turn ends with 'the disk is full', named; what was stored before is kept", async () => {
    const disk = await smallDisk(4 * 1024 * 1024);
    if (skipped(disk)) {
      skips.push(`full disk: ${disk.skip}`);
      return;
    }
    const h = await home();
    try {
      const db = path.join(disk.path, "history.sqlite");
      fake.script({ text: "the first answer" });
      expect((await runCli(["-p", "first MARK-FIRST", "--db", db, ...anthropicArgs(fake)], h)).code).toBe(0);
      const filler = await fillDisk(disk.path, 96 * 1024);
      const big = "a long answer that will not fit on this disk ".repeat(12_000); // ~540 kB
      fake.script({ text: big });
      const r = await runCli(["-p", "second MARK-SECOND", "--continue", "--db", db, ...anthropicArgs(fake)], h);
      named(r, new RegExp(`^albedo-tui: cannot write to the database ${esc(db)}: the disk is full \\(\\d+ bytes free\\)\\. What was stored before is kept; free some space and try again\\.$`));
      await fs.rm(filler);
      const id = await sessionId(h, db);
      const ex = await runCli(["export", id, "--format", "json", "--db", db], h);
      expect(ex.code, ex.stderr).toBe(0);
      const rec = JSON.parse(ex.stdout) as { messages: { role: string; status: string; blocks: { text?: string }[] }[] };
      const texts = rec.messages.map((m) => `${m.role}:${m.status}:${m.blocks[0]?.text?.slice(0, 20)}`);
      // the first turn and the second prompt are complete; the answer that did not fit is not there whole
      expect(texts.slice(0, 3)).toEqual(["user:complete:first MARK-FIRST", "assistant:complete:the first answer", "user:complete:second MARK-SECOND"]);
      expect(rec.messages.some((m) => m.status === "complete" && m.blocks[0]?.text === big)).toBe(false);
    } finally {
      await disk.release();
    }
  }, 120_000);
});

describe("files read on start that are not files", () => {
  async function refused(h: Home, args: string[], sentence: string): Promise<void> {
    fig.startFilesTried++;
    const r = await runCli(args, h);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`albedo-tui: ${sentence}`);
    fig.startFilesRefused++;
  }

  check("--config, --db and --image at a device or a FIFO: refused by name at once (no hang, no endless read)", async () => {
    const h = await home();
    const fifo = path.join(h.root, "a.fifo");
    execFileSync("mkfifo", [fifo]);
    const p = ["-p", "hi", ...anthropicArgs(fake)];
    await refused(h, [...p, "--config", "/dev/zero"], "the config file /dev/zero is not a regular file (a character device); refusing to read it");
    await refused(h, [...p, "--config", fifo], `the config file ${fifo} is not a regular file (a FIFO); refusing to read it`);
    await refused(h, [...p, "--db", fifo], `${fifo} is not a regular file (a FIFO); it cannot be an albedo-tui database`);
    await refused(h, [...p, "--db", "/dev/zero"], "/dev/zero is not a regular file (a character device); it cannot be an albedo-tui database");
    await refused(h, ["sessions", "--db", fifo], `${fifo} is not a regular file (a FIFO); it cannot be an albedo-tui database`);
    await refused(h, [...p, "--image", "/dev/zero"], "image /dev/zero is not a regular file (a character device); refusing to read it");
    await refused(h, [...p, "--image", fifo], `image ${fifo} is not a regular file (a FIFO); refusing to read it`);
    // a config file with a byte-order mark is fine
    const cfg = path.join(h.root, "bom.json");
    await fs.writeFile(cfg, "\uFEFF" + JSON.stringify({ provider: "anthropic" }));
    fake.script({ text: "bom ok" });
    const ok = await runCli([...p, "--config", cfg], h);
    expect(ok.code, ok.stderr).toBe(0);
  });

  check("--keymap /dev/zero in the screen: a warning naming it, the default keys, the screen usable", async () => {
    const h = await home();
    fig.startFilesTried++;
    const t = spawnPty(process.execPath, [CLI, "--keymap", "/dev/zero", ...anthropicArgs(fake)], { cols: 160, rows: 40, cwd: h.workspace, env: { ...h.env, TERM: "xterm-256color" } });
    ptys.push(t);
    await t.waitFor("Type a request", 20_000);
    await t.waitFor("keymap /dev/zero is not a regular file (a character device)", 20_000);
    // the screen-first start path takes the keys out of the environment too
    const environ = await fs.readFile(`/proc/${t.pid}/environ`);
    fig.environsRead++;
    if (environ.includes(Buffer.from(KEY))) fig.keysInEnviron++;
    expect(environ.includes(Buffer.from(KEY))).toBe(false);
    t.send("\x03");
    await t.waitFor("again to quit");
    t.send("\x03");
    expect((await t.exited()).exitCode).toBe(0);
    fig.startFilesRefused++;
  });
});

describe("the modes of what the program writes", () => {
  check("a new home: data and state folders 0700; database, log 0600; an older, looser home is tightened", async () => {
    const h = await home();
    const mode = async (p: string): Promise<number> => (await fs.stat(p)).mode & 0o777;
    const dataDir = path.dirname(h.db);
    const stateDir = path.join(h.env.XDG_STATE_HOME as string, "albedo");
    const log = path.join(stateDir, "albedo.log");
    const expected = { [dataDir]: 0o700, [h.db]: 0o600, [stateDir]: 0o700, [log]: 0o600 };
    const verify = async (): Promise<void> => {
      for (const [p, m] of Object.entries(expected)) {
        const got = await mode(p);
        if (got !== m) fig.looseModesLeft++;
        expect(got.toString(8), p).toBe(m.toString(8));
      }
    };
    // a retry is logged, so the run writes the log too
    fake.script({ fault: "reset_before" }, { text: "after a retry" });
    const r1 = await runCli(["-p", "first", ...anthropicArgs(fake)], h);
    expect(r1.code, r1.stderr).toBe(0);
    await verify();
    // loosened as an older version left them, then one more run
    await fs.chmod(dataDir, 0o755);
    await fs.chmod(h.db, 0o644);
    await fs.chmod(stateDir, 0o755);
    await fs.chmod(log, 0o644);
    fake.script({ fault: "reset_before" }, { text: "after a retry" });
    const r2 = await runCli(["-p", "again", "--continue", ...anthropicArgs(fake)], h);
    expect(r2.code, r2.stderr).toBe(0);
    await verify();
  });
});
