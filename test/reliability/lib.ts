// Shared pieces of the reliability suite: figures files for the summary, database checksums,
// a seeded PRNG, reading the record, the secret scan every file runs over its homes, and
// reading the local API a running CLI announced.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { expect, inject, it } from "vitest";
import sqlite3 from "sqlite3";
import { openStore } from "../../src/session/store/store.js";
import type { StoredMessage, Session } from "../../src/record/types.js";
import type { BadMessage } from "../../src/session/store/types.js";
import type { ChildProcess } from "node:child_process";
import { allFiles, type CliResult, type Home } from "../helpers/cli.js";
import type { FakeProvider } from "../helpers/fake-provider.js";

export const HERE = path.dirname(fileURLToPath(import.meta.url));

declare module "vitest" {
  // set by summary-setup.ts (declared there too, for the setup's own compile)
  export interface ProvidedContext {
    reliabilityFiguresDir: string;
  }
}

/**
 * Each test file writes its own figures into this run's folder (from the global setup, see
 * summary-setup.ts); the global teardown gathers them into one table. Without the setup (a
 * different config) they go to .figures/manual and are simply not summarised.
 */
export async function writeFigures(name: string, figures: Record<string, unknown>): Promise<void> {
  let dir: string;
  try {
    dir = inject("reliabilityFiguresDir") || path.join(HERE, ".figures", "manual");
  } catch {
    dir = path.join(HERE, ".figures", "manual");
  }
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, `${name}.json`), JSON.stringify(figures, null, 2) + "\n");
}

/**
 * Counts the cases of a file that ran to their end. A case registers itself when defined
 * and marks itself held as its last statement, so a failed assertion leaves it unheld.
 */
export class Tally {
  readonly tried = new Set<string>();
  readonly held = new Set<string>();
  add(name: string): string {
    this.tried.add(name);
    return name;
  }
  hold(name: string): void {
    this.held.add(name);
  }
  /** a test that counts as tried when declared and as held only when it passes */
  it(name: string, fn: () => Promise<void>, timeout: number): void {
    this.add(name);
    it(
      name,
      async () => {
        await fn();
        this.hold(name);
      },
      timeout,
    );
  }
  /** the figures every file reports: how many tried, how many held, which failed */
  figures(): { tried: number; held: number; failed: string[] } {
    return { tried: this.tried.size, held: this.held.size, failed: [...this.tried].filter((t) => !this.held.has(t)) };
  }
}

export const anthropicArgs = (fake: FakeProvider): string[] => [
  "--provider",
  "anthropic",
  "--model",
  "claude-sonnet-4-5",
  "--base-url",
  fake.anthropicBase,
];

export const openaiArgs = (fake: FakeProvider): string[] => ["--provider", "openai", "--model", "gpt-4o", "--base-url", fake.openaiBase];

/** sha256 of a file's bytes, or a marker when it does not exist. */
export async function sha256File(file: string): Promise<string> {
  try {
    return createHash("sha256").update(await fs.readFile(file)).digest("hex");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "(absent)";
    throw e;
  }
}

/**
 * The stored state of a database: the main file and its WAL (committed pages live there
 * until a checkpoint). The -shm index is left out: readers may rebuild it without any
 * change to the data.
 */
export async function dbChecksum(db: string): Promise<string> {
  return `${await sha256File(db)}/${await sha256File(`${db}-wal`)}`;
}

/** The open leases' heartbeats, read through a read-only connection (which checkpoints nothing). */
async function heartbeats(db: string): Promise<string> {
  const conn = await openReadOnly(db);
  try {
    return JSON.stringify(await allRows(conn, "SELECT session_id, heartbeat_at FROM open_leases ORDER BY session_id"));
  } finally {
    await new Promise<void>((resolve) => conn.close(() => resolve()));
  }
}

/** Every row of every table, the open leases' heartbeats left out. */
async function rowsWithoutHeartbeats(db: string): Promise<string> {
  const conn = await openReadOnly(db);
  try {
    const tables = await allRows(conn, "SELECT name, sql FROM sqlite_master ORDER BY type, name");
    const out: unknown[] = [tables];
    for (const t of tables) {
      if (!/^CREATE TABLE/i.test(String(t.sql ?? ""))) continue;
      const rows = await allRows(conn, `SELECT * FROM "${String(t.name).replace(/"/g, '""')}"`);
      out.push(t.name, t.name === "open_leases" ? rows.map(({ heartbeat_at: _beat, ...rest }) => rest) : rows);
    }
    return JSON.stringify(out);
  } finally {
    await new Promise<void>((resolve) => conn.close(() => resolve()));
  }
}

function openReadOnly(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const conn: sqlite3.Database = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(conn)));
  });
}
function allRows(conn: sqlite3.Database, sql: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => conn.all<Record<string, unknown>>(sql, [], (err, rows) => (err ? reject(err) : resolve(rows))));
}

/**
 * A database as a running app leaves it between turns. The open session's lease is beaten
 * every LEASE_STALE_MS / 4 by the app itself, whatever else happens, so the rows are compared
 * without the heartbeat, and the bytes (file and WAL) only when no beat came between.
 */
export interface DbState {
  bytes: string;
  rows: string;
  /** the heartbeats before and after the bytes were read */
  beats: string;
}
export async function dbState(db: string): Promise<DbState> {
  const first = await heartbeats(db);
  const bytes = await dbChecksum(db);
  const last = await heartbeats(db);
  return { bytes, rows: await rowsWithoutHeartbeats(db), beats: `${first}${last}` };
}
/** Nothing but the lease's heartbeat changed between `before` and `after`. */
export function expectUnchanged(before: DbState, after: DbState): void {
  expect(after.rows).toBe(before.rows);
  if (after.beats === before.beats) expect(after.bytes).toBe(before.bytes);
}

export { prng } from "../helpers/prng.js";

export interface StoredRecord {
  session: Session;
  messages: StoredMessage[];
  bad: BadMessage[];
}

/** The latest session of a database and its history, read through the product's own store. */
export async function readRecord(db: string): Promise<StoredRecord> {
  const store = await openStore(db);
  try {
    const [session] = await store.listSessions({ limit: 1 });
    if (!session) throw new Error(`no session in ${db}`);
    const h = await store.loadHistory(session.id);
    return { session, ...h };
  } finally {
    await store.close();
  }
}

/** Every place a secret must not be: files under the home (data, state, config, workspace). */
export async function secretHits(
  roots: string[],
  secrets: string[],
  opts: { except?: string[] } = {},
): Promise<string[]> {
  const hits: string[] = [];
  const except = new Set((opts.except ?? []).map((p) => path.resolve(p)));
  for (const root of roots) {
    for (const f of await allFiles(root)) {
      if (except.has(path.resolve(f))) continue;
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(f);
      } catch {
        continue; // a FIFO or a file removed meanwhile
      }
      for (const s of secrets) if (bytes.includes(Buffer.from(s))) hits.push(`${f} holds ${s.slice(0, 6)}…`);
    }
  }
  return hits;
}

/** Text that must carry no secret either: outputs, exports, pages, API bodies. */
export function textHits(label: string, text: string, secrets: string[]): string[] {
  return secrets.filter((s) => text.includes(s)).map((s) => `${label} holds ${s.slice(0, 6)}…`);
}

/** The local API a running CLI announced on stderr: its port and the token from its file. */
export async function localApi(stderr: string): Promise<{ port: number; token: string }> {
  const m = /local API on http:\/\/127\.0\.0\.1:(\d+) \(token in ([^)]+)\)/.exec(stderr);
  expect(m).not.toBeNull();
  return { port: Number(m![1]), token: (await fs.readFile(m![2]!, "utf8")).trim() };
}

export function apiGet(port: number, p: string, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: p, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => (body += d));
        res.on("end", () => resolve(body));
      })
      .on("error", reject);
  });
}

/** A session's context view from the local API, then every page of every section of it. */
export async function apiContextPages(api: { port: number; token: string }, id: string): Promise<string[]> {
  const view = await apiGet(api.port, `/sessions/${id}/context`, api.token);
  const pages = [view];
  for (const s of (JSON.parse(view) as { sections: { index: number; pages: number }[] }).sections) {
    for (let p = 0; p < s.pages; p++) pages.push(await apiGet(api.port, `/sessions/${id}/context/${s.index}/${p}`, api.token));
  }
  return pages;
}

/** A started CLI's result and the highest memory it was seen to use, in kB (VmHWM, the
 * kernel's own peak, or VmRSS), read from /proc until it exits. */
export async function doneWithPeak(run: { child: ChildProcess; done: Promise<CliResult> }): Promise<{ r: CliResult; peak: number }> {
  const pid = run.child.pid!;
  let peak = 0;
  let exited = false;
  const done = run.done.finally(() => (exited = true));
  // VmHWM only grows, so the last reading before exit is the peak; poll until then
  while (!exited) {
    peak = Math.max(peak, await peakKb(pid));
    await new Promise((r) => setTimeout(r, 20));
  }
  return { r: await done, peak };
}

async function peakKb(pid: number): Promise<number> {
  try {
    const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return Math.max(kb("VmHWM"), kb("VmRSS"));
  } catch {
    return 0; // gone already
  }
}

export async function removeHomes(homes: Home[]): Promise<void> {
  await Promise.all(homes.map((h) => fs.rm(h.root, { recursive: true, force: true }).catch(() => undefined)));
}

export async function writeConfig(home: Home, config: unknown): Promise<string> {
  const file = path.join(home.env.XDG_CONFIG_HOME as string, "albedo", "config.json");
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, typeof config === "string" ? config : JSON.stringify(config, null, 2));
  return file;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Text of the text blocks of a message. */
export function textOf(m: StoredMessage): string {
  return m.blocks.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/**
 * One row of the traps table: a single input that once broke a session for good, tried
 * through the built CLI. Held when the person was told, nothing known to be refused was sent,
 * the next turn worked and no stored message was lost or changed.
 */
export interface TrapFigure {
  trap: string;
  held: boolean;
  nextTurnWorks: boolean;
  /** stored messages from before the trap that the record no longer holds as they were */
  messagesLost: number;
  /** figures of the trap worth a look in the table ("largest request 9 kB, peak RSS 233 MB") */
  detail?: string;
}

/** Each file of traps writes its rows as traps-<name>.json; the summary gathers every such file. */
export async function writeTraps(name: string, traps: TrapFigure[]): Promise<void> {
  await writeFigures(`traps-${name}`, { traps });
}

/** Messages of `before` that `after` does not hold unchanged (same id, content and status). */
export function messagesLost(before: readonly StoredMessage[], after: readonly StoredMessage[]): number {
  const now = new Map(after.map((m) => [m.id, JSON.stringify(m)]));
  return before.filter((m) => now.get(m.id) !== JSON.stringify(m)).length;
}
