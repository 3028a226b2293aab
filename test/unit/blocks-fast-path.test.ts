// Loading the record checks the common stored blocks and the usage by hand instead of a zod
// parse per message. zod stays the definition: on seeded random and damaged rows the
// hand check and zod accept and refuse the same rows, give equal values, and a refused row
// gets zod's sentence; through a real SQLite file, loadHistory refuses the same rows.
import fs from "node:fs/promises";
import path from "node:path";
import sqlite3 from "sqlite3";
import type { Database } from "sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { blocksSchema, parseBlocks } from "../../src/record/schema.js";
import { parseUsage, usageSchema } from "../../src/session/store/messages.js";
import { openStore } from "../../src/session/store/store.js";
import { prng } from "../helpers/prng.js";
import { tempDir } from "../helpers/tmp.js";

const RUNS = 6000;

/** parseBlocks as it was: zod alone, with its sentence */
function zodBlocks(json: string): ReturnType<typeof parseBlocks> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `blocks are not valid JSON (${(e as Error).message})` };
  }
  const r = blocksSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first ? first.path.join(".") : "";
    return { ok: false, error: `blocks fail validation at ${where || "(root)"}: ${first?.message ?? "invalid"}` };
  }
  return { ok: true, blocks: r.data as never };
}

/** parseUsage as it was: zod alone */
function zodUsage(json: string): ReturnType<typeof parseUsage> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `usage is not JSON: ${(e as Error).message}` };
  }
  const r = usageSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    return { ok: false, error: `usage: ${issue?.path.join(".") || "value"}: ${issue?.message ?? "invalid"}` };
  }
  const u: Record<string, number> = { inputTokens: r.data.inputTokens, outputTokens: r.data.outputTokens };
  if (r.data.cacheReadTokens !== undefined) u["cacheReadTokens"] = r.data.cacheReadTokens;
  if (r.data.cacheWriteTokens !== undefined) u["cacheWriteTokens"] = r.data.cacheWriteTokens;
  return { ok: true, usage: u as never };
}

function hostile(r: () => number): unknown {
  const values: unknown[] = [null, 0, -1, 1.5, 2 ** 53, 2 ** 53 - 1, -0, 7, "", "x", true, false, [], {}, [1], { kind: "k" }, "text", undefined];
  return values[Math.floor(r() * values.length)];
}

function mutate(r: () => number, v: unknown, depth = 0): unknown {
  if (typeof v !== "object" || v === null) return r() < 0.2 ? hostile(r) : v;
  if (Array.isArray(v)) {
    const a = v.map((x) => (r() < 0.4 ? mutate(r, x, depth + 1) : x));
    if (r() < 0.05) a.push(hostile(r));
    return r() < 0.02 ? hostile(r) : a;
  }
  const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const k of Object.keys(o)) {
    const x = r();
    if (x < 0.08) o[k] = hostile(r);
    else if (x < 0.12) delete o[k];
    else if (x < 0.5 && depth < 3) o[k] = mutate(r, o[k], depth + 1);
  }
  if (r() < 0.08) o["extra"] = hostile(r);
  return o;
}

const BLOCKS: unknown[] = [
  { type: "text", text: "hello" },
  { type: "tool_use", id: "t1", name: "bash", input: { command: "ls", n: [1, null] } },
  { type: "tool_use", id: "t2", name: "ls" },
  { type: "tool_result", toolUseId: "t1", name: "bash", output: "a\nb", isError: false },
  { type: "reasoning", text: "hm" },
  { type: "reasoning", text: "hm", opaque: { kind: "anthropic-thinking", body: "sig" } },
  { type: "image", mediaType: "image/png", data: "AAAA", bytes: 3, width: 1, height: 1 },
];

/** a row's JSON, sometimes damaged as text: cut short, an own "__proto__", or not JSON at all */
function rowJson(r: () => number, v: unknown): string {
  const text = JSON.stringify(v) ?? "null";
  const x = r();
  if (x < 0.03) return text.slice(0, Math.floor(r() * text.length));
  if (x < 0.06 && text.startsWith("[{")) return `[{"__proto__":{"type":"text","text":"p"},${text.slice(2)}`;
  if (x < 0.07) return "";
  return text;
}

describe("stored blocks: the hand check agrees with zod", () => {
  it("on random and damaged rows: the same rows accepted, equal values, the same sentence for the rest", () => {
    const r = prng(19_010);
    let accepted = 0;
    for (let n = 0; n < RUNS; n++) {
      const blocks = Array.from({ length: 1 + Math.floor(r() * 4) }, () => BLOCKS[Math.floor(r() * BLOCKS.length)]);
      const json = rowJson(r, r() < 0.6 ? mutate(r, blocks) : blocks);
      const got = parseBlocks(json);
      expect(got, json).toStrictEqual(zodBlocks(json));
      if (got.ok) accepted++;
    }
    expect(accepted).toBeGreaterThan(RUNS / 4);
    expect(accepted).toBeLessThan(RUNS);
  });

  it("the usage: the same rows accepted, equal values, the same sentence", () => {
    const r = prng(19_011);
    const seeds = [
      { inputTokens: 12, outputTokens: 340 },
      { inputTokens: 0, outputTokens: 1, cacheReadTokens: 9000, cacheWriteTokens: 800 },
      { inputTokens: 5, outputTokens: 6, cacheReadTokens: 0 },
    ];
    for (let n = 0; n < RUNS; n++) {
      const json = rowJson(r, mutate(r, seeds[n % seeds.length]));
      expect(parseUsage(json), json).toStrictEqual(zodUsage(json));
    }
  });
});

describe("loadHistory through a real SQLite file", () => {
  let dir = "";
  afterEach(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("refuses the same damaged rows with zod's sentences and loads the rest equal to zod's values", async () => {
    dir = await tempDir("albedo-blocks-");
    const dbPath = path.join(dir, "albedo.db");
    const store = await openStore(dbPath);
    const session = await store.createSession({ workspace: "/w" });
    const r = prng(19_012);
    const rows: string[] = [];
    for (let n = 0; n < 300; n++) {
      const blocks = Array.from({ length: 1 + Math.floor(r() * 3) }, () => BLOCKS[Math.floor(r() * BLOCKS.length)]);
      rows.push(rowJson(r, r() < 0.5 ? mutate(r, blocks) : blocks));
      await store.appendMessage(session.id, { role: "user", blocks: [{ type: "text", text: "placeholder" }], status: "complete" });
    }
    // damage the rows from another connection, as a broken writer or a disk would
    const db: Database = await new Promise((res, rej) => {
      const d = new sqlite3.Database(dbPath, (e) => (e ? rej(e) : res(d)));
    });
    for (let i = 0; i < rows.length; i++) {
      await new Promise<void>((res, rej) =>
        db.run("UPDATE messages SET blocks_json = ? WHERE session_id = ? AND seq = ?", [rows[i], session.id, i + 1], (e) => (e ? rej(e) : res())),
      );
    }
    await new Promise<void>((res) => db.close(() => res()));

    const { messages, bad } = await store.loadHistory(session.id);
    await store.close();
    const expected = rows.map((json, i) => ({ seq: i + 1, r: zodBlocks(json) }));
    expect(bad.map((b) => [b.seq, b.error])).toEqual(expected.filter((e) => !e.r.ok).map((e) => [e.seq, e.r.ok ? "" : e.r.error]));
    expect(messages.map((m) => [m.seq, m.blocks])).toStrictEqual(expected.filter((e) => e.r.ok).map((e) => [e.seq, e.r.ok ? e.r.blocks : []]));
    expect(bad.length).toBeGreaterThan(0);
    expect(messages.length).toBeGreaterThan(0);
  }, 120_000);
});
