// The marks of where sessions are open, on real files: a new session on a screen (no row yet)
// found by id or a unique start of one; a mark of a process gone from this host ignored and
// removed; hostile marks (garbage, a link, another id inside, a name that is no id) never
// believed; and, with a real SQLite store, each stored session's place: open elsewhere, its
// turn running detached there, or nowhere (its holder gone, or this process).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { draftReason, findOpenDraft, marksDir, removeMark, sessionPlaces, writeMark, type DraftMark } from "../../src/session/store/open-marks.js";
import { openStore } from "../../src/session/store/store.js";
import { thisProcess } from "../../src/session/controller/session-lease.js";
import { tempDir } from "../helpers/tmp.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function db(): Promise<string> {
  const dir = await tempDir("albedo-drafts-");
  dirs.push(dir);
  return path.join(dir, "history.sqlite");
}

const mark = (id: string, over: Partial<DraftMark> = {}): DraftMark => ({ id, pid: process.pid, host: os.hostname(), since: "2026-12-07T10:00:00.000Z", workspace: "/w", ...over });

/** a pid no process of this host has: a child that has exited */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(r.stdout.toString());
}

describe("open draft marks", () => {
  it("finds a live draft by its id or a unique start of it, and forgets it when unmarked", async () => {
    const file = await db();
    writeMark(file, "draft", mark("3f9c2a1b7d0e"));
    expect(findOpenDraft(file, "3f9c2a1b7d0e")?.pid).toBe(process.pid);
    expect(findOpenDraft(file, "3f9c2a1b")?.id).toBe("3f9c2a1b7d0e");
    // under four characters a start names nothing, as for stored sessions
    expect(findOpenDraft(file, "3f9")).toBeUndefined();
    writeMark(file, "draft", mark("3f9c2a1bffff"));
    expect(findOpenDraft(file, "3f9c2a1b")).toBeUndefined();
    expect(findOpenDraft(file, "3f9c2a1bffff")?.id).toBe("3f9c2a1bffff");
    removeMark(file, "draft", "3f9c2a1b7d0e");
    expect(findOpenDraft(file, "3f9c2a1b")?.id).toBe("3f9c2a1bffff");
    expect(fs.statSync(marksDir(file)!).mode & 0o777).toBe(0o700);
  });

  it("ignores and removes the mark of a process gone from this host; believes one from another host", async () => {
    const file = await db();
    writeMark(file, "draft", mark("aaaaaaaaaaaa", { pid: deadPid() }));
    expect(findOpenDraft(file, "aaaaaaaaaaaa")).toBeUndefined();
    expect(fs.existsSync(path.join(marksDir(file)!, "aaaaaaaaaaaa.draft.json"))).toBe(false);
    writeMark(file, "draft", mark("bbbbbbbbbbbb", { pid: 1, host: "elsewhere.example" }));
    const far = findOpenDraft(file, "bbbbbbbbbbbb")!;
    expect(draftReason(far)).toContain("process 1 on elsewhere.example");
  });

  it("never believes a hostile mark: garbage, a link, another id inside, a name that is no id", async () => {
    const file = await db();
    const dir = marksDir(file)!;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "cccccccccccc.draft.json"), "{not json\u001b]0;x\u0007");
    fs.writeFileSync(path.join(dir, "dddddddddddd.draft.json"), JSON.stringify(mark("eeeeeeeeeeee")));
    fs.writeFileSync(path.join(dir, "elsewhere.draft.json"), JSON.stringify(mark("ffffffffffff")));
    fs.symlinkSync(path.join(dir, "elsewhere.draft.json"), path.join(dir, "ffffffffffff.draft.json"));
    fs.mkdirSync(path.join(dir, "abababababab.draft.json"));
    fs.writeFileSync(path.join(dir, "121212121212.draft.json"), JSON.stringify({ ...mark("121212121212"), pid: "1; rm -rf /" }));
    for (const id of ["cccccccccccc", "dddddddddddd", "eeeeeeeeeeee", "ffffffffffff", "abababababab", "121212121212", "elsewhere", "../x", "CCCCCCCCCCCC"]) {
      expect(findOpenDraft(file, id), id).toBeUndefined();
    }
    // nothing is marked for a database with no file, nor under an id that is not the store's
    expect(marksDir(":memory:")).toBeUndefined();
    writeMark(file, "draft", mark("../../etc/passwd"));
    expect(fs.readdirSync(dir).some((n) => n.includes("passwd"))).toBe(false);
  });
});

describe("where stored sessions are open", () => {
  it("says open elsewhere for a live holder, running (detached) with its mark, nothing for a dead holder or this process", async () => {
    const file = await db();
    const store = await openStore(file);
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      const [open, detached, dead, mine, markedOnly] = await Promise.all([0, 1, 2, 3, 4].map(() => store.createSession({ workspace: "/w" })));
      const live = { pid: child.pid!, host: os.hostname(), pidAlive: thisProcess.pidAlive };
      expect((await store.takeLease(open!.id, live)).ok).toBe(true);
      expect((await store.takeLease(detached!.id, live)).ok).toBe(true);
      expect((await store.takeLease(dead!.id, { ...live, pid: deadPid() })).ok).toBe(true);
      expect((await store.takeLease(mine!.id, thisProcess)).ok).toBe(true);
      writeMark(file, "detached", mark(detached!.id, { pid: child.pid! }));
      // a detached mark with no live lease of the same process says nothing
      writeMark(file, "detached", mark(markedOnly!.id, { pid: child.pid! }));
      // another process's mark for a session this one holds is not believed either
      writeMark(file, "detached", mark(open!.id, { pid: process.pid }));
      const places = await sessionPlaces(store, thisProcess);
      expect(Object.fromEntries(places)).toEqual({
        [open!.id]: { pid: child.pid, detached: false },
        [detached!.id]: { pid: child.pid, detached: true },
      });
    } finally {
      child.kill();
      await store.close();
    }
  });
});
