// Benchmark 6: the history store. Appending messages one transaction each (as a turn commits
// every message the moment it is complete) and loading them back, against the same bytes
// written and read with one bare prepared statement on the same kind of database: the same
// schema and pragmas (the floor database is created by openStore, then closed), so the
// difference is only what the store does around the statement.
import path from "node:path";
import sqlite3 from "sqlite3";
import type { Database, Statement } from "sqlite3";
import { openStore } from "../src/session/store/store.js";
import type { NewMessage } from "../src/record/types.js";
import { makeHistory } from "./history.js";
import { fmtMs, median, now, removeDir, tempDir, type Row } from "./lib.js";

function open(file: string): Promise<Database> {
  return new Promise((resolve, reject) => {
    const db: Database = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
  });
}
function exec(db: Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}
function prepare(db: Database, sql: string): Promise<Statement> {
  return new Promise((resolve, reject) => {
    const st: Statement = db.prepare(sql, (err: Error | null) => (err ? reject(err) : resolve(st)));
  });
}
function run(st: Statement, params: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => st.run(params, (err: Error | null) => (err ? reject(err) : resolve())));
}
function all<T>(st: Statement, params: unknown[]): Promise<T[]> {
  return new Promise((resolve, reject) => st.all<T>(params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))));
}
function close(db: Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}

export async function benchStore(quick: boolean): Promise<Row[]> {
  const count = quick ? 400 : 10_000;
  // appends alternate between the two databases in blocks, so drift hits both alike
  const blocks = quick ? 4 : 50;
  const loads = quick ? 3 : 9;
  const msgs: NewMessage[] = makeHistory({ messages: count, images: quick ? 1 : 4, seed: 23 }).map((m) => ({
    role: m.role,
    blocks: m.blocks,
    status: m.status,
    ...(m.model !== undefined ? { model: m.model } : {}),
  }));

  const dir = await tempDir("store");
  try {
    const store = await openStore(path.join(dir, "albedo.sqlite"));
    const session = await store.createSession({ workspace: "/bench" });

    // the floor: same schema and pragmas, then only a bare statement per message
    const floorFile = path.join(dir, "floor.sqlite");
    const seed = await openStore(floorFile);
    const floorSession = await seed.createSession({ workspace: "/bench" });
    await seed.close();
    const db = await open(floorFile);
    await exec(db, "PRAGMA journal_mode = WAL");
    const insert = await prepare(
      db,
      "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const select = await prepare(
      db,
      "SELECT id, session_id, seq, role, status, model, blocks_json, created_at FROM messages WHERE session_id = ? ORDER BY seq",
    );

    const per = Math.ceil(count / blocks);
    const appendA: number[] = [];
    const appendF: number[] = [];
    for (let b = 0; b < blocks; b++) {
      const slice = msgs.slice(b * per, (b + 1) * per);
      const first = b * per;
      let t = now();
      for (const m of slice) await store.appendMessage(session.id, m);
      appendA.push(now() - t);
      t = now();
      for (const [i, m] of slice.entries()) {
        // the floor pays for the same serialisation: the bytes must be produced either way
        await run(insert, [floorSession.id, first + i + 1, m.role, m.status, m.model ?? null, JSON.stringify(m.blocks), new Date().toISOString()]);
      }
      appendF.push(now() - t);
    }
    const sumA = appendA.reduce((a, b) => a + b, 0);
    const sumF = appendF.reduce((a, b) => a + b, 0);
    const appendRatio = median(appendA.map((a, i) => a / appendF[i]!));

    const loadA: number[] = [];
    const loadF: number[] = [];
    // not the floor, but it tells how much of the difference is JSON.parse, which any reader
    // of the stored blocks pays, and how much is the store's own validation
    const loadParse: number[] = [];
    let loaded = 0;
    for (let i = 0; i < loads + 1; i++) {
      let t = now();
      const h = await store.loadHistory(session.id);
      const ta = now() - t;
      loaded = h.messages.length;
      t = now();
      await all(select, [floorSession.id]);
      const tf = now() - t;
      t = now();
      for (const row of await all<{ blocks_json: string }>(select, [floorSession.id])) JSON.parse(row.blocks_json);
      const tp = now() - t;
      if (i === 0) continue; // warm-up: the first read pulls pages into the cache
      loadA.push(ta);
      loadF.push(tf);
      loadParse.push(tp);
    }
    const loadRatio = median(loadA.map((a, i) => a / loadF[i]!));
    if (loaded !== count) throw new Error(`loaded ${loaded} of ${count} messages`);

    await new Promise<void>((resolve) => insert.finalize(() => resolve()));
    await new Promise<void>((resolve) => select.finalize(() => resolve()));
    await close(db);
    await store.close();

    return [
      {
        benchmark: `store: append ${count.toLocaleString("en-US")} messages, 1 tx each`,
        albedo: `${fmtMs(sumA)} (${((sumA / count) * 1000).toFixed(0)} µs/msg)`,
        floor: `${fmtMs(sumF)} bare INSERT`,
        ratio: appendRatio,
        target: "≤ 1.5×",
        met: appendRatio <= 1.5,
        raw: { count, blocks, appendMs: appendA, floorMs: appendF },
        note: "the floor is one autocommit INSERT per message (one fsync'd transaction each, like the store)",
      },
      {
        benchmark: `store: load ${count.toLocaleString("en-US")} messages`,
        albedo: fmtMs(median(loadA)),
        floor: `${fmtMs(median(loadF))} bare SELECT`,
        ratio: loadRatio,
        target: "≤ 1.5×",
        met: loadRatio <= 1.5,
        raw: { count, loadMs: loadA, floorMs: loadF, selectAndJsonParseMs: loadParse },
        note: `bare SELECT + JSON.parse of every row, one statement, takes ${fmtMs(median(loadParse))}; the store reads in chunks of 500 in one read transaction, SQLite stepping the next while this thread checks the last, small columns packed as one JSON array`,
      },
    ];
  } finally {
    await removeDir(dir);
  }
}
