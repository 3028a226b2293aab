// A link swapped between the permission check and the open: a second
// process flips links while read, grep, write and edit run; nothing outside is read,
// created or changed. Two ways to swap: a link flipped atomically between an inside and
// an outside target, and a real folder replaced for a moment by a link to a folder outside.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { PermissionRequest } from "../../src/tools/types.js";
import { openRegular, writeFileNoFollow } from "../../src/tools/files.js";
import { removeTempFolders } from "./tools-fixture.js";
import { call, contentEscapes, contextFor, makeLayout, OUTSIDE_MARK, startSwapper, type Layout } from "./tools-boundary-fixture.js";

const ROUNDS = 200;
let l: Layout;

beforeEach(async () => {
  l = await makeLayout();
  // the flipped link, and a real folder "d" with the same file names as outside/sub
  await fs.writeFile(path.join(l.ws, "target.txt"), "inside-line\n");
  await fs.symlink("target.txt", path.join(l.ws, "flip"));
  await fs.mkdir(path.join(l.ws, "d"));
  await fs.writeFile(path.join(l.ws, "d", "x.txt"), "inside-line\n");
  await fs.writeFile(path.join(l.outside, "sub", "x.txt"), `inside-line ${OUTSIDE_MARK}\n`);
  await fs.writeFile(path.join(l.outside, "target.txt"), `inside-line ${OUTSIDE_MARK}\n`);
});
afterAll(removeTempFolders);

const flipLink = () => startSwapper({ kind: "flip-link", at: path.join(l.ws, "flip"), a: path.join(l.ws, "target.txt"), b: path.join(l.outside, "target.txt") });
const swapDir = () => startSwapper({ kind: "swap-dir", dir: path.join(l.ws, "d"), to: path.join(l.outside, "sub") });

/** Everything under outside/, with contents: must not change while the tools race. */
async function outsideSnapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(l.outside, { recursive: true, withFileTypes: true })) {
    const full = path.join(e.parentPath, e.name);
    out[path.relative(l.outside, full)] = e.isFile() ? await fs.readFile(full, "utf8") : e.isDirectory() ? "(dir)" : "(other)";
  }
  return out;
}

/** Runs `one` ROUNDS times against a swapper; returns the escapes and proves the swapper ran. */
async function race(swapper: () => Promise<{ stop(): Promise<number> }>, one: (k: number) => Promise<string[]>): Promise<string[]> {
  const s = await swapper();
  const escapes: string[] = [];
  try {
    for (let k = 0; k < ROUNDS; k++) escapes.push(...(await one(k)));
  } finally {
    const swaps = await s.stop();
    expect(swaps).toBeGreaterThan(0);
  }
  return escapes;
}

describe.each(["read-only", "ask"] as const)("racing reads in %s mode", (policy) => {
  it("read through a link flipping between an inside and an outside file never shows the outside one", async () => {
    const escapes = await race(flipLink, async () => contentEscapes(await call("read", { path: "flip" }, contextFor(l.ws, policy).ctx)));
    expect(escapes).toEqual([]);
  });

  it("read through a folder swapped for a link never shows the outside file", async () => {
    const escapes = await race(swapDir, async () => contentEscapes(await call("read", { path: "d/x.txt" }, contextFor(l.ws, policy).ctx)));
    expect(escapes).toEqual([]);
  });

  it("grep over a folder swapped for a link never shows an outside line", async () => {
    const escapes = await race(swapDir, async () =>
      contentEscapes(await call("grep", { pattern: "inside-line", path: "d" }, contextFor(l.ws, policy).ctx)),
    );
    expect(escapes).toEqual([]);
  }, 60_000);

  it("grep naming the flipping link never shows an outside line", async () => {
    const escapes = await race(flipLink, async () => contentEscapes(await call("grep", { pattern: "inside", path: "flip" }, contextFor(l.ws, policy).ctx)));
    expect(escapes).toEqual([]);
  }, 60_000);
});

describe("racing writes (ask mode: inside changes approved, anything outside denied)", () => {
  const approveInside = (req: PermissionRequest) => (req.outsideWorkspace === undefined ? "once" : "deny");

  it("write through a flipping link or into a swapped folder creates and changes nothing outside", async () => {
    const before = await outsideSnapshot();
    await race(flipLink, async (k) => {
      await call("write", { path: "flip", content: `inside-line ${k}\n` }, contextFor(l.ws, "ask", approveInside).ctx);
      return [];
    });
    await race(swapDir, async (k) => {
      await call("write", { path: `d/new-${k}.txt`, content: "new\n" }, contextFor(l.ws, "ask", approveInside).ctx);
      await call("write", { path: "d/x.txt", content: `inside-line ${k}\n` }, contextFor(l.ws, "ask", approveInside).ctx);
      return [];
    });
    expect(await outsideSnapshot()).toEqual(before);
  }, 60_000);

  it("edit through a flipping link or a swapped folder changes nothing outside", async () => {
    const before = await outsideSnapshot();
    await race(flipLink, async (k) => {
      await call("edit", { path: "flip", old_string: "inside-line", new_string: `inside-line${k}` }, contextFor(l.ws, "ask", approveInside).ctx);
      return [];
    });
    await race(swapDir, async (k) => {
      await call("edit", { path: "d/x.txt", old_string: "inside-line", new_string: `inside-line${k}` }, contextFor(l.ws, "ask", approveInside).ctx);
      return [];
    });
    expect(await outsideSnapshot()).toEqual(before);
  }, 60_000);
});

// The last window: the path was resolved (and checked) and a link appears before the open.
// Simulated without a race: `real` is handed over with the swap already made.
describe("an open after the check follows no link swapped in since", () => {
  it("read: a folder on the way now a link, or the file itself now a link, is refused", async () => {
    const real = path.join(l.ws, "d", "x.txt");
    await fs.rename(path.join(l.ws, "d"), path.join(l.ws, "d.held"));
    await fs.symlink(path.join(l.outside, "sub"), path.join(l.ws, "d"));
    const viaFolder = await openRegular(real, "d/x.txt");
    expect(viaFolder).toEqual({ ok: false, error: "the folder of d/x.txt was replaced by a symbolic link; not followed" });

    const file = path.join(l.ws, "target.txt");
    await fs.rm(file);
    await fs.symlink(path.join(l.outside, "target.txt"), file);
    // stat follows the link, sees a regular file; the open must still not follow it
    expect(await openRegular(file, "target.txt")).toEqual({ ok: false, error: "target.txt was replaced by a symbolic link while being opened; not followed" });
  });

  it("write: into a folder now a link creates nothing outside; over a file now a link replaces the link, not its target", async () => {
    const before = await outsideSnapshot();
    await fs.rename(path.join(l.ws, "d"), path.join(l.ws, "d.held"));
    await fs.symlink(path.join(l.outside, "sub"), path.join(l.ws, "d"));
    expect(await writeFileNoFollow(path.join(l.ws, "d", "new.txt"), "x", "d/new.txt")).toBe(
      "the folder of d/new.txt was replaced by a symbolic link; not followed",
    );

    const file = path.join(l.ws, "target.txt");
    await fs.rm(file);
    await fs.symlink(path.join(l.outside, "target.txt"), file);
    expect(await writeFileNoFollow(file, "written\n", "target.txt")).toBeUndefined();
    expect((await fs.lstat(file)).isFile()).toBe(true);
    expect(await fs.readFile(file, "utf8")).toBe("written\n");
    expect(await outsideSnapshot()).toEqual(before);
  });

  it("write keeps the old file's permission bits and leaves no temporary file", async () => {
    const file = path.join(l.ws, "script.sh");
    await fs.writeFile(file, "old\n", { mode: 0o750 });
    await fs.chmod(file, 0o750);
    expect(await writeFileNoFollow(file, "new\n", "script.sh")).toBeUndefined();
    expect((await fs.stat(file)).mode & 0o777).toBe(0o750);
    expect((await fs.readdir(l.ws)).filter((n) => n.includes(".albedo-"))).toEqual([]);
  });
});

describe("writes make missing folders only inside", () => {
  it("a folder on the way swapped for a link gets no folder made outside", async () => {
    const before = await outsideSnapshot();
    // d/new/deeper/f.txt was resolved with d a real folder; d is now a link to outside/sub
    await fs.rename(path.join(l.ws, "d"), path.join(l.ws, "d.held"));
    await fs.symlink(path.join(l.outside, "sub"), path.join(l.ws, "d"));
    const r = await writeFileNoFollow(path.join(l.ws, "d", "new", "deeper", "f.txt"), "x", "d/new/deeper/f.txt");
    expect(r).toBe("the folder of d/new/deeper/f.txt was replaced by a symbolic link; not followed");
    expect(await outsideSnapshot()).toEqual(before);
  });

  it("makes the missing folders of a new file, and refuses a file it may not write", async () => {
    expect(await writeFileNoFollow(path.join(l.ws, "n1", "n2", "f.txt"), "x\n", "n1/n2/f.txt")).toBeUndefined();
    expect(await fs.readFile(path.join(l.ws, "n1", "n2", "f.txt"), "utf8")).toBe("x\n");
    const ro = path.join(l.ws, "ro.txt");
    await fs.writeFile(ro, "keep\n");
    await fs.chmod(ro, 0o444);
    // root may write anything; the refusal is only observable as another user
    if (process.getuid?.() !== 0) {
      expect(await writeFileNoFollow(ro, "changed\n", "ro.txt")).toBe("permission denied: ro.txt");
      expect(await fs.readFile(ro, "utf8")).toBe("keep\n");
    }
  });
});
