// Loading a history in chunks: loadHistory reads LOAD_CHUNK rows per statement
// inside one read transaction, asking for the next chunk while it checks the current one.
// Through a real SQLite file these tests hold it to what the one-statement load gave (that
// load is kept here, verbatim, as the reference): the same messages with equal values, the
// same damaged rows with the same sentences, in seq order (a seq of any stored type), whole or
// as a tail of any length; what was appended is what loads; one snapshot while another
// connection writes; and a load that fails midway ends its transaction.
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnswerUsage, Block, NewMessage, Session, StoredMessage } from "../../src/record/types.js";
import { parseBlocks, roleSchema, statusSchema } from "../../src/record/schema.js";
import { LOAD_CHUNK, parseUsage } from "../../src/session/store/messages.js";
import { openStore, type SqliteStore } from "../../src/session/store/store.js";
import type { BadMessage, LoadedHistory } from "../../src/session/store/types.js";
import type { StoreError } from "../../src/session/store/sqlite.js";
import { corruptPageHolding } from "../helpers/fs-faults.js";
import { prng } from "../helpers/prng.js";
import { tempDir } from "../helpers/tmp.js";
import { rawAll, rawClose, rawExec, rawOpen, rawRun } from "../helpers/raw-sqlite.js";

// --- the reference: the load as it was before the chunks, one statement ------------------

interface OldRow {
  id: number;
  session_id: string;
  seq: number;
  role: string;
  status: string;
  model: string | null;
  blocks_json: string;
  usage_json: string | null;
  created_at: string;
}
const OLD_COLS = "id, session_id, seq, role, status, model, blocks_json, usage_json, created_at";
const ROLES: readonly unknown[] = roleSchema.options;
const STATUSES: readonly unknown[] = statusSchema.options;

async function oldLoad(file: string, sessionId: string, opts?: { last?: number }): Promise<LoadedHistory> {
  const db = await rawOpen(file);
  try {
    const rows =
      opts?.last !== undefined
        ? await rawAll<OldRow>(
            db,
            `SELECT ${OLD_COLS} FROM (SELECT ${OLD_COLS} FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
            [sessionId, Math.max(0, Math.floor(opts.last))],
          )
        : await rawAll<OldRow>(db, `SELECT ${OLD_COLS} FROM messages WHERE session_id = ? ORDER BY seq`, [sessionId]);
    const messages: StoredMessage[] = [];
    const bad: BadMessage[] = [];
    for (const r of rows) {
      const fail = (error: string) => bad.push({ id: r.id, seq: r.seq, role: String(r.role), error });
      if (!ROLES.includes(r.role)) {
        fail(`unknown role ${JSON.stringify(r.role)}`);
        continue;
      }
      if (!STATUSES.includes(r.status)) {
        fail(`unknown status ${JSON.stringify(r.status)}`);
        continue;
      }
      const blocks = parseBlocks(r.blocks_json);
      if (!blocks.ok) {
        fail(blocks.error);
        continue;
      }
      const m: StoredMessage = {
        id: r.id,
        sessionId: r.session_id,
        seq: r.seq,
        role: r.role as StoredMessage["role"],
        blocks: blocks.blocks,
        status: r.status as StoredMessage["status"],
        createdAt: r.created_at,
      };
      if (r.model !== null) m.model = r.model;
      if (r.usage_json !== null) {
        const u = parseUsage(r.usage_json);
        if (u.ok) m.usage = u.usage;
      }
      messages.push(m);
    }
    return { messages, bad };
  } finally {
    await rawClose(db);
  }
}

// --- seeded random blocks ---------------------------------------------------------------

// what JSON and SQLite's text must carry unchanged: lone surrogates (JSON.stringify escapes
// them), the line and paragraph separators, NUL and other control characters, astral
// characters, a BOM, quotes and backslashes, and the odd long run
const PIECES = [
  "plain words",
  "\ud800",
  "\udfff",
  "a\ud83dz",
  "\u2028",
  "\u2029",
  "\0",
  "\x01\x1f\x7f",
  "😀",
  "👩‍👩‍👧",
  "𝔘𝔫𝔦",
  "\ufeff",
  "\uffff",
  '"\\/',
  "\n\r\t",
  "e\u0301",
  "</script>",
  "ünïcødé",
  "日本語",
];
const NUMBERS = [0, 1, -1, 0.1, 1e308, -1e308, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2, 2 ** 64, -(2 ** 63), 123456789.123456789];

function gen(r: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const str = (): string => {
    if (r() < 0.01) return "x".repeat(20_000 + Math.floor(r() * 40_000)) + pick(PIECES);
    let s = "";
    for (let i = Math.floor(r() * 6); i >= 0; i--) s += pick(PIECES);
    return s;
  };
  const value = (depth: number): unknown => {
    const x = r();
    if (depth > 4 || x < 0.3) return pick<unknown>([null, true, false, ...NUMBERS, str()]);
    if (x < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(r() * 4); i > 0; i--) o[str()] = value(depth + 1);
    return o;
  };
  const block = (): Block => {
    switch (Math.floor(r() * 6)) {
      case 0:
        return { type: "text", text: str() };
      case 1:
        return { type: "tool_use", id: `call_${str()}`, name: pick(["bash", "read", "mcp__x__y"]), input: value(0) };
      case 2:
        return { type: "tool_result", toolUseId: str(), name: "bash", output: str(), isError: r() < 0.3 };
      case 3:
        return r() < 0.5 ? { type: "reasoning", text: str() } : { type: "reasoning", text: str(), opaque: { kind: "anthropic-thinking", body: str() } };
      case 4: {
        const img: Block = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=", bytes: Math.floor(r() * 1e9) };
        if (r() < 0.5) Object.assign(img, { width: 1 + Math.floor(r() * 4000), height: 1 + Math.floor(r() * 4000) });
        return img;
      }
      default:
        return { type: "text", text: "" };
    }
  };
  const message = (): NewMessage => {
    const assistant = r() < 0.5;
    const m: NewMessage = {
      role: assistant ? "assistant" : "user",
      blocks: Array.from({ length: Math.floor(r() * 4) }, block),
      status: r() < 0.1 ? "interrupted" : "complete",
    };
    if (assistant) m.model = pick(["claude-sonnet-4-5", "gpt-5 😀", "m"]);
    if (assistant && r() < 0.5) {
      const u: AnswerUsage = { inputTokens: Math.floor(r() * 1e6), outputTokens: Math.floor(r() * 1e4) };
      if (r() < 0.5) u.cacheReadTokens = Math.floor(r() * 1e6);
      m.usage = u;
    }
    return m;
  };
  return { message };
}

// --- the tests ---------------------------------------------------------------------------

let dir = "";
let dbPath = "";
const open: SqliteStore[] = [];
beforeEach(async () => {
  dir = await tempDir("albedo-load-");
  dbPath = path.join(dir, "albedo.sqlite");
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  await fs.rm(dir, { recursive: true, force: true });
});
async function openTracked(): Promise<SqliteStore> {
  const s = await openStore(dbPath);
  open.push(s);
  return s;
}

/** one session of 2½ chunks of user messages, each starting with a marker a test can find on disk; the store closed */
async function seedMarkedRows(): Promise<string[]> {
  const markers: string[] = [];
  const seed = await openStore(dbPath);
  const s = await seed.createSession({ workspace: "/w", title: "seeded" });
  for (let i = 0; i < 2 * LOAD_CHUNK + 100; i++) {
    const m = `MARKER-${i}-${crypto.randomBytes(4).toString("hex")}`;
    markers.push(m);
    await seed.appendMessage(s.id, { role: "user", blocks: [{ type: "text", text: `${m} ${"words ".repeat(40)}` }], status: "complete" });
  }
  await seed.close(); // the last close checkpoints the WAL into the main file
  return markers;
}

/** loads the store's one session, which is expected to fail: the session, and the error */
async function loadFailing(store: SqliteStore): Promise<{ session: Session; error: StoreError | undefined }> {
  const [session] = await store.listSessions({ includeEmpty: true });
  const error = await store.loadHistory(session!.id).then(
    () => undefined,
    (x: unknown) => x as StoreError,
  );
  return { session: session!, error };
}

describe("loadHistory in chunks, through a real SQLite file", () => {
  it("loads what was appended, equal to the one-statement load, damaged rows reported the same, whole and as any tail", async () => {
    const store = await openTracked();
    const session = await store.createSession({ workspace: "/w" });
    const other = await store.createSession({ workspace: "/w" });
    const r = prng(19_190);
    const { message } = gen(r);
    const total = 2 * LOAD_CHUNK + 37; // three chunks, the last one short
    const appended: StoredMessage[] = [];
    for (let i = 0; i < total; i++) {
      appended.push(await store.appendMessage(session.id, message()));
      // another session's rows interleave with this one's in the table
      if (i % 97 === 0) await store.appendMessage(other.id, message());
    }

    // damage rows from another connection, as a broken writer or a disk would, some of them
    // the last row of a chunk (its id keys the next chunk)
    const db = await rawOpen(dbPath);
    const set = (seq: number, sql: string, params: unknown[] = []) =>
      rawRun(db, `UPDATE messages SET ${sql} WHERE session_id = ? AND seq = ?`, [...params, session.id, seq]);
    const damaged = new Set<number>();
    const damage = async (seq: number, sql: string, params: unknown[] = []) => {
      damaged.add(seq);
      await set(seq, sql, params);
    };
    await damage(3, "blocks_json = '{not json'");
    await damage(LOAD_CHUNK, `blocks_json = '[{"type":"text","txt":"typo"}]'`);
    await damage(LOAD_CHUNK + 1, "role = 'system'");
    await damage(2 * LOAD_CHUNK, "status = 'done'");
    await damage(2 * LOAD_CHUNK + 1, "blocks_json = ''");
    await damage(77, `blocks_json = '[{"type":"image","mediaType":"image/png","data":"x","bytes":-1}]'`);
    // a usage that cannot be read costs only the figure; other types load as they always did
    await damage(10, `usage_json = '{"inputTokens":-1,"outputTokens":2}'`);
    await damage(11, "model = x'6869'");
    await damage(12, "blocks_json = CAST('[{\"type\":\"text\",\"text\":\"blob\"}]' AS BLOB)");
    // the small columns cross packed in one JSON array by SQLite: text JSON must escape or
    // carry as it is (NUL, separators, quotes, control and astral characters, bytes that are
    // not UTF-8), as the plain columns did
    await damage(20, "model = ?", ['q"\\\0\u2028\u2029\x01\x7f😀日本\ufeff']);
    await damage(21, "created_at = CAST(x'41ff42e282' AS TEXT)");
    await damage(22, "role = ?", ["us\0er"]);
    await damage(23, "usage_json = ?", ['{"inputTokens":1,"outputTokens":2,"cacheReadTokens":3,"x":"\u2028"}']);
    await damage(24, "model = CAST(x'c0af' AS TEXT), status = 'interrupted'");
    // seqs of other stored types sort after (text, blob) or between (real) the integers
    const sql = "INSERT INTO messages (session_id, seq, role, status, model, blocks_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)";
    const blocks = JSON.stringify([{ type: "text", text: "odd seq" }]);
    await rawRun(db, sql, [session.id, 2.5, "user", "complete", null, blocks, "2026-01-01T00:00:00.000Z"]);
    await rawRun(db, sql, [session.id, "zz", "assistant", "complete", "m", blocks, "2026-01-01T00:00:00.000Z"]);
    await rawRun(db, sql, [session.id, Buffer.from([1]), "user", "complete", null, "[]", "2026-01-01T00:00:00.000Z"]);
    // an id and a seq past 2^53, which a JS number cannot hold exactly: the next chunk is
    // keyed on that id, so it must cross as SQLite wrote it; it sits on a chunk's last place
    // for the tail of LOAD_CHUNK + 2 (it is the third newest)
    await rawExec(
      db,
      "INSERT INTO messages (id, session_id, seq, role, status, model, blocks_json, created_at) VALUES " +
        `(4611686018427387905, '${session.id}', 9007199254740993, 'user', 'complete', NULL, '[]', 'x')`,
    );
    await rawClose(db);

    const whole = await store.loadHistory(session.id);
    const reference = await oldLoad(dbPath, session.id);
    expect(whole).toStrictEqual(reference);
    expect(whole.messages.length + whole.bad.length).toBe(total + 4);
    expect(whole.bad.map((b) => [b.seq, b.error])).toEqual([
      [3, expect.stringMatching(/^blocks are not valid JSON/)],
      [22, 'unknown role "us\\u0000er"'],
      [77, "blocks fail validation at 0.bytes: Too small: expected number to be >=0"],
      [LOAD_CHUNK, "blocks fail validation at 0.text: Invalid input: expected string, received undefined"],
      [LOAD_CHUNK + 1, 'unknown role "system"'],
      [2 * LOAD_CHUNK, 'unknown status "done"'],
      [2 * LOAD_CHUNK + 1, expect.stringMatching(/^blocks are not valid JSON/)],
    ]);
    expect(whole.messages.slice(-4).map((m) => m.seq)).toStrictEqual([total, 2 ** 53, "zz", Buffer.from([1])]);
    expect(whole.messages.find((m) => m.seq === 20)?.model).toBe('q"\\\0\u2028\u2029\x01\x7f😀日本\ufeff');
    expect(whole.messages.find((m) => m.seq === 21)?.createdAt).toBe("A\ufffdB\ufffd");
    expect(whole.messages[2]?.seq).toBe(2.5);

    // every row left alone loads exactly as it was appended: text, numbers and nesting
    const loaded = new Map(whole.messages.map((m) => [m.seq, m]));
    const kept = appended.filter((m) => !damaged.has(m.seq));
    expect(kept.length).toBe(total - damaged.size);
    for (const m of kept) expect(loaded.get(m.seq)).toStrictEqual(m);
    const { usage: _gone, ...noUsage } = appended[9]!;
    expect(loaded.get(10)).toStrictEqual(noUsage);

    // tails of every length around the chunk edges, and past the whole history
    for (const last of [1, 2, 3, 4, 5, LOAD_CHUNK - 1, LOAD_CHUNK + 2, LOAD_CHUNK + 3, LOAD_CHUNK, LOAD_CHUNK + 1, 2 * LOAD_CHUNK + 5, total + 3, total + 4, total + 50, 2.7, 0, -4]) {
      expect(await store.loadHistory(session.id, { last }), `last ${last}`).toStrictEqual(await oldLoad(dbPath, session.id, { last }));
    }
    // the other session is untouched by this one's chunks
    expect(await store.loadHistory(other.id)).toStrictEqual(await oldLoad(dbPath, other.id));
    expect(await store.loadHistory("no-such-session")).toStrictEqual({ messages: [], bad: [] });
  }, 120_000);

  it("a tail longer than any history is the whole history; NaN is refused by name (SQLite said 'datatype mismatch')", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    for (let i = 0; i < 5; i++) await store.appendMessage(s.id, { role: "user", blocks: [{ type: "text", text: `m${i}` }], status: "complete" });
    const whole = await store.loadHistory(s.id);
    expect(whole.messages).toHaveLength(5);
    for (const last of [Infinity, 1e20, 2 ** 63, Number.MAX_SAFE_INTEGER]) {
      expect(await store.loadHistory(s.id, { last }), `last ${last}`).toStrictEqual(whole);
    }
    await expect(store.loadHistory(s.id, { last: NaN })).rejects.toThrow("loadHistory: last must be a number of messages, not NaN");
  });

  it("reads one snapshot: a transaction of another connection that changes the first and the last message is seen whole or not at all", async () => {
    const store = await openTracked();
    const s = await store.createSession({ workspace: "/w" });
    const count = 3 * LOAD_CHUNK; // the first and last message are three statements apart
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      ids.push((await store.appendMessage(s.id, { role: "user", blocks: [{ type: "text", text: "v0" }], status: "complete" })).id);
    }
    const writer = await rawOpen(dbPath);
    await rawExec(writer, "PRAGMA busy_timeout = 10000");
    let done = false;
    const writes = (async () => {
      try {
        for (let v = 1; v <= 150; v++) {
          const json = JSON.stringify([{ type: "text", text: `v${v}` }]).replaceAll("'", "''");
          await rawExec(
            writer,
            `BEGIN IMMEDIATE; UPDATE messages SET blocks_json = '${json}' WHERE id = ${ids[0]}; ` +
              `UPDATE messages SET blocks_json = '${json}' WHERE id = ${ids[count - 1]}; COMMIT`,
          );
        }
      } finally {
        done = true;
      }
    })();
    const seen = new Set<string>();
    let loads = 0;
    while (!done || loads < 5) {
      const h = await store.loadHistory(s.id);
      const first = h.messages[0]?.blocks[0];
      const last = h.messages[count - 1]?.blocks[0];
      expect(h.messages).toHaveLength(count);
      expect(last, `load ${loads}`).toStrictEqual(first);
      if (first?.type === "text") seen.add(first.text);
      loads++;
    }
    await writes;
    await rawClose(writer);
    // the loads ran while the writes did (not all before or after them)
    expect(seen.size).toBeGreaterThan(1);
  }, 120_000);

  it("a page that breaks in a later chunk: the load names the damage and its transaction ends, so the store still writes", async () => {
    const markers = await seedMarkedRows();
    corruptPageHolding(dbPath, markers[2 * LOAD_CHUNK + 50]!);
    const store = await openTracked();
    // the first two chunks read; the third meets the broken page
    const { session, error: e } = await loadFailing(store);
    expect(e?.kind).toBe("corrupt");
    expect(e?.message).toMatch(/is damaged: a page of it is corrupt/);
    // a read transaction left open would refuse this one ("cannot start a transaction within a transaction")
    await store.setTitle(session.id, "still writes");
    expect((await store.getSession(session.id))?.title).toBe("still writes");
  }, 120_000);

  it("the broken page is met while a row of the chunk before is read again whole: still one error, never an unhandled one", async () => {
    const markers = await seedMarkedRows();
    // rows of the second chunk that a JSON array cannot carry (a blob model): each is read
    // again whole, with the third chunk already asked for
    const db = await rawOpen(dbPath);
    await rawRun(db, "UPDATE messages SET model = ? WHERE seq BETWEEN ? AND ?", [Buffer.from([1, 2]), LOAD_CHUNK + 1, 2 * LOAD_CHUNK - 1]);
    await rawClose(db);
    corruptPageHolding(dbPath, markers[2 * LOAD_CHUNK + 50]!);
    const unhandled: unknown[] = [];
    const onUnhandled = (r: unknown) => unhandled.push(r);
    process.on("unhandledRejection", onUnhandled);
    try {
      const { error: e } = await loadFailing(await openTracked());
      expect(e?.kind).toBe("corrupt");
      // let any stray rejection surface
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  }, 120_000);
});
