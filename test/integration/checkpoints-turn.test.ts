// A turn's file checkpoint, in the real app (real SQLite, real HTTP to the strict fake
// provider, real files and commands): what write and edit touch and what a bash command
// changes is recorded with what was there before, .gitignore is followed, and what cannot be
// restored (a special file, a file over the cap, a file outside reached through a link) is
// named in the turn's notice and its record, never silently skipped.
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";
import { tempDir } from "../helpers/tmp.js";
import { CheckpointFiles } from "../../src/session/checkpoints/record.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

describe("a turn's checkpoint", () => {
  it("records write, edit and bash changes with their before states, follows .gitignore, names what it cannot restore", async () => {
    const dir = await tempDir("albedo-cp-");
    const checkpointDir = path.join(dir, "state", "checkpoints");
    const outside = path.join(dir, "outside.txt");
    await fs.writeFile(outside, "outside\n");
    const outsideWritten = path.join(dir, "outside-written.txt");
    await fs.writeFile(outsideWritten, "before\n");
    // sandbox off: a command that writes through a link out of the workspace must be named
    const { app, workspace } = await makeApp(fake, { dir, checkpointDir, sandbox: "off" });
    const w = (p: string): string => path.join(workspace, p);
    await fs.writeFile(w(".gitignore"), "*.log\nbuild/\n");
    await fs.writeFile(w("edited.txt"), "alpha\nbeta\n");
    await fs.writeFile(w("kept.txt"), "kept\n");
    await fs.writeFile(w("gone.txt"), "gone\n");
    await fs.mkdir(w("build"));
    await fs.writeFile(w("build/out.js"), "built\n");
    execFileSync("mkfifo", [w("pipe")]);
    const big = await fs.open(w("big.bin"), "w");
    await big.truncate(1024 * 1024 * 1024); // sparse: 1 GB that takes no room
    await big.close();
    await fs.symlink(outside, w("link-out"));
    const notices: string[] = [];
    app.subscribe((e) => {
      if (e.type === "notice") notices.push(e.text);
    });

    fake.script(
      {
        toolCalls: [
          { name: "edit", input: { path: "edited.txt", old_string: "beta", new_string: "gamma" } },
          { name: "write", input: { path: "new/written.txt", content: "written\n" } },
          // allowed (auto), and out of a checkpoint's reach: named
          { name: "write", input: { path: outsideWritten, content: "changed outside\n" } },
          {
            name: "bash",
            input: { command: "echo made > created.txt; echo more >> kept.txt; rm gone.txt pipe; echo x > a.log; echo y >> build/out.js; echo z >> big.bin; echo w >> link-out" },
          },
        ],
      },
      { text: "Done." },
    );
    await app.submit("change things");
    expect(fake.rejections()).toEqual([]);
    const id = app.session().id;

    const { records, bad } = await new CheckpointFiles(checkpointDir).records(id);
    expect(bad).toEqual([]);
    expect(records).toHaveLength(1);
    const r = records[0]!;
    expect(r.prompt).toBe(1);
    expect(r.finishedAt).toBeDefined();
    expect(r.snapshot).toBeUndefined();
    const by = new Map(r.changes.map((c) => [c.path, c]));
    // file tools: the content before (edit), nothing before (write, with its new folder)
    expect(by.get("edited.txt")?.before).toMatchObject({ kind: "file", size: 11 });
    expect(by.get("edited.txt")?.by).toBe("edit");
    expect(by.get("new/written.txt")?.before).toEqual({ kind: "absent" });
    // bash: made, changed, removed
    expect(by.get("created.txt")?.before).toEqual({ kind: "absent" });
    expect(by.get("kept.txt")?.before).toMatchObject({ kind: "file", size: 5 });
    expect(by.get("gone.txt")?.before).toMatchObject({ kind: "file" });
    expect(by.get("gone.txt")?.after).toEqual({ kind: "absent" });
    expect(by.get("created.txt")?.by).toBe("bash");
    // ignored by .gitignore: not walked, not recorded
    expect(by.has("a.log")).toBe(false);
    expect(by.has("build/out.js")).toBe(false);
    // named: the FIFO, the file over the cap, the file outside reached through the link
    expect(by.get("pipe")?.before).toMatchObject({ kind: "uncopied", what: "a FIFO" });
    expect(by.get("big.bin")?.before).toMatchObject({ kind: "uncopied", what: "a file of 1.0 GB" });
    expect(by.get(outside)?.before).toMatchObject({ kind: "uncopied" });
    const warning = notices.find((n) => /a rewind cannot put back/.test(n));
    expect(warning).toMatch(/pipe: a FIFO/);
    expect(warning).toMatch(/big\.bin: a file of 1\.0 GB, over the 10\.0 MB per-file cap/);
    expect(warning).toContain(outside);
    expect(by.get(outsideWritten)).toMatchObject({ by: "write", before: { kind: "uncopied", why: "it is outside the workspace, where checkpoints do not reach" } });
    expect(warning).toContain(`${outsideWritten}: a file, it is outside the workspace, where checkpoints do not reach`);
    // the before contents are kept, outside the workspace
    const blobs = await fs.readdir(path.join(checkpointDir, "blobs"));
    expect(blobs.length).toBeGreaterThan(0);
    // the 1 GB file was never copied
    const sizes = await Promise.all((await fs.readdir(path.join(checkpointDir, "blobs"), { recursive: true })).map(async (f) => (await fs.stat(path.join(checkpointDir, "blobs", f))).size));
    expect(Math.max(...sizes)).toBeLessThan(1024 * 1024);
    await app.close();
  });

  it("a turn that changes nothing leaves no record; the next walk reuses its hashes and reads nothing unchanged", async () => {
    const dir = await tempDir("albedo-cp-");
    const checkpointDir = path.join(dir, "state", "checkpoints");
    const { app, workspace } = await makeApp(fake, { dir, checkpointDir });
    await fs.writeFile(path.join(workspace, "a.txt"), "a\n");
    // file times are coarse: a file changed within a second of a walk is read again (git's
    // "racy" rule); one older than that is known by its fingerprint alone
    await new Promise((r) => setTimeout(r, 1100));
    fake.script({ toolCalls: [{ name: "bash", input: { command: "true" } }] }, { text: "Nothing." });
    await app.submit("look");
    const files = new CheckpointFiles(checkpointDir);
    expect((await files.records(app.session().id)).records).toEqual([]);
    // the first walk copied a.txt; take the copy away: a walk that reads a.txt again puts it
    // back, one that trusts the fingerprint does not
    const index = await files.readSnapshot(files.indexFile(await fs.realpath(workspace)));
    const entry = index?.entries.get("a.txt")?.s;
    expect(entry?.kind).toBe("file");
    const hash = (entry as { hash: string }).hash;
    await fs.unlink(path.join(checkpointDir, "blobs", hash.slice(0, 2), hash));
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo b > b.txt" } }] }, { text: "Made b." });
    await app.submit("make b");
    const { records } = await files.records(app.session().id);
    expect(records.map((r) => r.prompt)).toEqual([2]);
    expect(records[0]!.changes.map((c) => c.path)).toEqual(["b.txt"]);
    expect(await fs.access(path.join(checkpointDir, "blobs", hash.slice(0, 2), hash)).then(() => true, () => false)).toBe(false);
    await app.close();
  });
});
