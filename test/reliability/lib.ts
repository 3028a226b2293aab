// Shared pieces of the reliability suite: figures files for the summary, database checksums,
// a seeded PRNG, reading the record, and the secret scan every file runs over its homes.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inject, it } from "vitest";
import { openStore } from "../../src/session/store/store.js";
import type { StoredMessage, Session } from "../../src/record/types.js";
import type { BadMessage } from "../../src/session/store/types.js";
import { allFiles, type Home } from "../helpers/cli.js";
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
