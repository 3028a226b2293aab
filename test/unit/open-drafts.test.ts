// The marks of new sessions open on a screen (no row yet), on real files: found by id or a
// unique start of one, a mark of a process gone from this host ignored and removed, and hostile
// marks (garbage, a link, another id inside, a name that is no id) never believed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { draftReason, draftsDir, findOpenDraft, markDraft, unmarkDraft, type DraftMark } from "../../src/session/store/open-drafts.js";
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
    markDraft(file, mark("3f9c2a1b7d0e"));
    expect(findOpenDraft(file, "3f9c2a1b7d0e")?.pid).toBe(process.pid);
    expect(findOpenDraft(file, "3f9c2a1b")?.id).toBe("3f9c2a1b7d0e");
    // under four characters a start names nothing, as for stored sessions
    expect(findOpenDraft(file, "3f9")).toBeUndefined();
    markDraft(file, mark("3f9c2a1bffff"));
    expect(findOpenDraft(file, "3f9c2a1b")).toBeUndefined();
    expect(findOpenDraft(file, "3f9c2a1bffff")?.id).toBe("3f9c2a1bffff");
    unmarkDraft(file, "3f9c2a1b7d0e");
    expect(findOpenDraft(file, "3f9c2a1b")?.id).toBe("3f9c2a1bffff");
    expect(fs.statSync(draftsDir(file)!).mode & 0o777).toBe(0o700);
  });

  it("ignores and removes the mark of a process gone from this host; believes one from another host", async () => {
    const file = await db();
    markDraft(file, mark("aaaaaaaaaaaa", { pid: deadPid() }));
    expect(findOpenDraft(file, "aaaaaaaaaaaa")).toBeUndefined();
    expect(fs.existsSync(path.join(draftsDir(file)!, "aaaaaaaaaaaa.json"))).toBe(false);
    markDraft(file, mark("bbbbbbbbbbbb", { pid: 1, host: "elsewhere.example" }));
    const far = findOpenDraft(file, "bbbbbbbbbbbb")!;
    expect(draftReason(far)).toContain("process 1 on elsewhere.example");
  });

  it("never believes a hostile mark: garbage, a link, another id inside, a name that is no id", async () => {
    const file = await db();
    const dir = draftsDir(file)!;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "cccccccccccc.json"), "{not json\u001b]0;x\u0007");
    fs.writeFileSync(path.join(dir, "dddddddddddd.json"), JSON.stringify(mark("eeeeeeeeeeee")));
    fs.writeFileSync(path.join(dir, "elsewhere.json"), JSON.stringify(mark("ffffffffffff")));
    fs.symlinkSync(path.join(dir, "elsewhere.json"), path.join(dir, "ffffffffffff.json"));
    fs.mkdirSync(path.join(dir, "abababababab.json"));
    fs.writeFileSync(path.join(dir, "121212121212.json"), JSON.stringify({ ...mark("121212121212"), pid: "1; rm -rf /" }));
    for (const id of ["cccccccccccc", "dddddddddddd", "eeeeeeeeeeee", "ffffffffffff", "abababababab", "121212121212", "elsewhere", "../x", "CCCCCCCCCCCC"]) {
      expect(findOpenDraft(file, id), id).toBeUndefined();
    }
    // nothing is marked for a database with no file, nor under an id that is not the store's
    expect(draftsDir(":memory:")).toBeUndefined();
    markDraft(file, mark("../../etc/passwd"));
    expect(fs.readdirSync(dir).some((n) => n.includes("passwd"))).toBe(false);
  });
});
