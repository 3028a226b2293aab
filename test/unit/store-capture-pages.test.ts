// A capture writes only the pages that differ from the capture written before it: a request
// carries the whole history, so consecutive captures share all but their last pages, and
// rewriting them all made each turn's write grow with the session. Real SQLite files; what a
// save wrote is read from the WAL (frames appended), not from a clock.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type SqliteStore } from "../../src/session/store/store.js";
import type { Capture, SectionSummary } from "../../src/context/types.js";
import { tempDir } from "../helpers/tmp.js";
import { rawAll, rawClose, rawOpen, rawRun } from "../helpers/raw-sqlite.js";

const PAGE = 8000;

function section(index: number, kind: SectionSummary["kind"], pages: string[]): SectionSummary {
  const bytes = pages.join("").length;
  return { index, kind, source: kind, items: 1, bytes, estimate: { tokens: Math.ceil(bytes / 4), method: "chars/4" }, preview: "", chars: bytes, pages: pages.length, deltaBytes: null };
}

function capture(stamp: number, sections: string[][]): Capture {
  const kinds: SectionSummary["kind"][] = ["system", "history", "tools", "context"];
  return {
    meta: { provider: "anthropic", model: "m", capturedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, stamp)).toISOString(), iteration: 1, totalBytes: sections.flat().join("").length },
    sections: sections.map((pages, i) => section(i, kinds[i % kinds.length]!, pages)),
    pages: sections,
  };
}

/** n pages of the history, page i its own text */
function history(n: number, salt = ""): string[] {
  return Array.from({ length: n }, (_, i) => `${salt}page ${i} `.padEnd(PAGE, String.fromCharCode(97 + (i % 26))));
}

let dir: string;
let db: string;
const open: SqliteStore[] = [];

async function store(): Promise<SqliteStore> {
  const s = await openStore(db);
  open.push(s);
  return s;
}

/** folds the WAL into the database and empties it: the frames after this are the next write's */
async function emptyWal(): Promise<void> {
  const raw = await rawOpen(db);
  await rawAll(raw, "PRAGMA wal_checkpoint(TRUNCATE)");
  await rawClose(raw);
}

/** the WAL's frames (database pages written) since emptyWal */
async function walFrames(): Promise<number> {
  return (await fs.stat(`${db}-wal`)).size > 0 ? ((await fs.stat(`${db}-wal`)).size - 32) / (4096 + 24) : 0;
}

async function pagesOf(s: SqliteStore, id: string, c: Capture): Promise<void> {
  for (const [i, pages] of c.pages.entries()) {
    for (const [p, text] of pages.entries()) expect((await s.capturePage(id, i, p))?.text).toBe(text);
    expect(await s.capturePage(id, i, pages.length)).toBeUndefined();
  }
  expect(await s.capturePage(id, c.pages.length, 0)).toBeUndefined();
}

beforeEach(async () => {
  dir = await tempDir("albedo-capture-pages-");
  db = path.join(dir, "history.sqlite");
});

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("capture pages", () => {
  it("writes only the pages that changed: a turn's capture costs what it added, not the history", async () => {
    const s = await store();
    const session = await s.createSession({ workspace: "/w" });
    const first = capture(1, [["You are albedo."], history(40)]);
    await emptyWal();
    await s.saveCapture(session.id, first);
    const whole = await walFrames();
    // each 8,000-character page is a row of two or three database pages
    expect(whole).toBeGreaterThanOrEqual(80);
    await pagesOf(s, session.id, first);

    // the next turn: the last page grew and one more follows
    const next = history(41);
    const second = capture(2, [["You are albedo."], next]);
    await emptyWal();
    await s.saveCapture(session.id, second);
    const changed = await walFrames();
    expect(changed).toBeLessThanOrEqual(20);
    expect(changed * 4).toBeLessThan(whole);
    await pagesOf(s, session.id, second);
    // what another connection reads is the same capture
    await pagesOf(await store(), session.id, second);
  });

  it("drops the pages and sections a shorter capture no longer has", async () => {
    const s = await store();
    const session = await s.createSession({ workspace: "/w" });
    await s.saveCapture(session.id, capture(1, [["sys"], history(6), ["tool a", "tool b"]]));
    const shorter = capture(2, [["sys"], history(3)]);
    await s.saveCapture(session.id, shorter);
    await pagesOf(s, session.id, shorter);
    const raw = await rawOpen(db);
    const [n] = await rawAll<{ n: number }>(raw, "SELECT COUNT(*) AS n FROM capture_pages WHERE session_id = ?", [session.id]);
    await rawClose(raw);
    expect(n?.n).toBe(4);
    // and grows back, the same pages changed where they differ
    const longer = capture(3, [["sys 2"], history(5, "x"), ["tool c"]]);
    await s.saveCapture(session.id, longer);
    await pagesOf(s, session.id, longer);
  });

  it("writes every page when another connection wrote the session's capture since", async () => {
    const a = await store();
    const b = await store();
    const session = await a.createSession({ workspace: "/w" });
    const mine = history(4);
    await a.saveCapture(session.id, capture(1, [["sys"], mine]));
    // another process's capture of the same session, every page its own
    await b.saveCapture(session.id, capture(2, [["sys"], history(4, "other ")]));
    // the same pages as this store wrote last: they must be written again, not assumed
    const again = capture(3, [["sys"], mine]);
    await a.saveCapture(session.id, again);
    await pagesOf(a, session.id, again);
    await pagesOf(b, session.id, again);
  });

  it("writes every page when the capture row was changed under it", async () => {
    const s = await store();
    const session = await s.createSession({ workspace: "/w" });
    const pages = history(3);
    await s.saveCapture(session.id, capture(1, [["sys"], pages]));
    const raw = await rawOpen(db);
    await rawRun(raw, "UPDATE capture_pages SET text = 'changed' WHERE session_id = ?", [session.id]);
    await rawRun(raw, "UPDATE captures SET meta_json = '{}' WHERE session_id = ?", [session.id]);
    await rawClose(raw);
    const again = capture(2, [["sys"], pages]);
    await s.saveCapture(session.id, again);
    await pagesOf(s, session.id, again);
  });
});
