// The open lease and the fork, on real SQLite files with two connections (two processes' view):
// one holder at a time, a gone holder taken over (dead pid on this host, old heartbeat on
// another), and a fork that copies the record whole or not at all.
import path from "node:path";
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type SqliteStore } from "../../src/session/store/store.js";
import type { Opener } from "../../src/session/store/leases.js";
import { tempDir } from "../helpers/tmp.js";
import { rawAll, rawClose, rawExec, rawOpen, rawRun } from "../helpers/raw-sqlite.js";

let dir: string;
let db: string;
let one: SqliteStore;
let two: SqliteStore;

/** an opener whose pid liveness is that of real processes of this host */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};
const here = (pid: number): Opener => ({ pid, host: "this-host", pidAlive: alive });

/** a pid that ran and is gone: a child that exited */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((r) => child.on("exit", r));
  return child.pid!;
}

beforeEach(async () => {
  dir = await tempDir("albedo-leases-");
  db = path.join(dir, "history.sqlite");
  one = await openStore(db);
  two = await openStore(db);
});
afterEach(async () => {
  await one.close();
  await two.close();
});

describe("the open lease", () => {
  it("one holder at a time: the second opener is told who holds it (pid, host, since, alive)", async () => {
    const s = await one.createSession({ workspace: "/w" });
    expect(await one.takeLease(s.id, here(process.pid))).toEqual({ ok: true });
    // held by me: taking it again is fine
    expect(await one.takeLease(s.id, here(process.pid))).toEqual({ ok: true });
    const r = await two.takeLease(s.id, { pid: process.ppid, host: "this-host", pidAlive: alive });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.holder).toMatchObject({ pid: process.pid, host: "this-host", alive: true });
    expect(Date.parse(r.holder.since)).not.toBeNaN();
    // given back, the next opener takes it
    await one.releaseLease(s.id, here(process.pid));
    expect(await two.takeLease(s.id, here(process.ppid))).toEqual({ ok: true });
  });

  it("two openers at once: exactly one wins (BEGIN IMMEDIATE)", async () => {
    const s = await one.createSession({ workspace: "/w" });
    const [a, b] = await Promise.all([one.takeLease(s.id, here(process.pid)), two.takeLease(s.id, here(process.ppid))]);
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
  });

  it("a holder whose pid is gone on this host is taken over: a kill -9 locks nothing", async () => {
    const s = await one.createSession({ workspace: "/w" });
    const gone = await deadPid();
    expect(await one.takeLease(s.id, here(gone))).toEqual({ ok: true });
    const r = await two.takeLease(s.id, here(process.pid));
    expect(r).toMatchObject({ ok: true, tookOver: { pid: gone, alive: false } });
    // the one taken over finds it out at its next heartbeat
    expect(await one.heartbeat(s.id, here(gone))).toBe(false);
    expect(await two.heartbeat(s.id, here(process.pid))).toBe(true);
  });

  it("on another host the heartbeat decides: fresh is alive, older than the bound is gone", async () => {
    const s = await one.createSession({ workspace: "/w" });
    expect(await one.takeLease(s.id, { pid: 1, host: "other-host", pidAlive: () => true })).toEqual({ ok: true });
    // its pid cannot be checked from here: only its heartbeat's age counts
    const me: Opener = { pid: process.pid, host: "this-host", pidAlive: () => false, staleMs: 60_000 };
    expect((await two.takeLease(s.id, me)).ok).toBe(false);
    const raw = await rawOpen(db);
    try {
      await rawRun(raw, "UPDATE open_leases SET heartbeat_at = ? WHERE session_id = ?", [new Date(Date.now() - 120_000).toISOString(), s.id]);
    } finally {
      await rawClose(raw);
    }
    expect(await two.takeLease(s.id, me)).toMatchObject({ ok: true, tookOver: { host: "other-host", alive: false } });
  });

  it("a session created after holdNewSessions is held from its first statement", async () => {
    await one.holdNewSessions({ pid: process.pid, host: "this-host" });
    const s = await one.createSession({ workspace: "/w" });
    expect(await two.leaseOf(s.id)).toMatchObject({ pid: process.pid, host: "this-host" });
    expect((await two.takeLease(s.id, here(process.ppid))).ok).toBe(false);
    // the other connection's sessions are not
    const t = await two.createSession({ workspace: "/w" });
    expect(await two.leaseOf(t.id)).toBeUndefined();
  });
});

describe("the fork", () => {
  it("copies messages (seq, status, model, usage) and summaries into a new session linked to the old", async () => {
    const s = await one.createSession({ workspace: "/w", title: "talk" });
    await one.appendMessage(s.id, { role: "user", blocks: [{ type: "text", text: "q1" }], status: "complete" });
    await one.appendMessage(s.id, { role: "assistant", blocks: [{ type: "text", text: "a1" }], status: "complete", model: "m" });
    await one.saveSummary({ sessionId: s.id, fromSeq: 1, toSeq: 2, text: "sum", model: "m" });
    const f = await two.forkSession(s.id);
    expect(f.id).not.toBe(s.id);
    expect(f.title).toBe("talk");
    const strip = (ms: { seq: number; role: string; blocks: unknown; status: string; model?: string }[]) => ms.map((m) => [m.seq, m.role, m.blocks, m.status, m.model]);
    expect(strip((await one.loadHistory(f.id)).messages)).toEqual(strip((await one.loadHistory(s.id)).messages));
    expect((await one.loadSummaries(f.id)).map((x) => [x.fromSeq, x.toSeq, x.text])).toEqual([[1, 2, "sum"]]);
    expect(await one.forkedFrom(f.id)).toBe(s.id);
    // the fork lists first, and appending to it leaves the original as it was
    expect((await one.listSessions())[0]?.id).toBe(f.id);
    await one.appendMessage(f.id, { role: "user", blocks: [{ type: "text", text: "q2" }], status: "complete" });
    expect((await one.loadHistory(s.id)).messages).toHaveLength(2);
    expect((await one.loadHistory(f.id)).messages.map((m) => m.seq)).toEqual([1, 2, 3]);
  });

  it("a fork that fails midway leaves no session behind (one transaction)", async () => {
    const s = await one.createSession({ workspace: "/w" });
    await one.appendMessage(s.id, { role: "user", blocks: [{ type: "text", text: "q1" }], status: "complete" });
    const raw = await rawOpen(db);
    try {
      // the messages copy fails: the session row written before it rolls back
      await rawExec(raw, "CREATE TRIGGER no_copies BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'refused'); END");
      await expect(two.forkSession(s.id)).rejects.toThrow();
      expect(await rawAll(raw, "SELECT COUNT(*) AS n FROM sessions")).toEqual([{ n: 1 }]);
    } finally {
      await rawClose(raw);
    }
  });
});
