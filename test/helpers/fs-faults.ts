// Real file-system faults for store tests: a read-only place (a read-only bind mount as root,
// where chmod does not stop writes; chmod as anyone else), a small tmpfs that really fills up,
// a truncated copy, a corrupt page, and running a child as an unprivileged user. Each returns a
// stated reason instead when this machine cannot provide it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { tempDir } from "./tmp.js";

export const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

export interface Place {
  path: string;
  release(): Promise<void>;
}
export type Maybe<T> = T | { skip: string };

export function skipped<T extends object>(x: Maybe<T>): x is { skip: string } {
  return "skip" in x;
}

function tryMount(args: string[]): string | undefined {
  try {
    execFileSync("mount", args, { stdio: ["ignore", "ignore", "pipe"] });
    return undefined;
  } catch (e) {
    return String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim() || "mount failed";
  }
}

async function unmount(dir: string): Promise<void> {
  try {
    execFileSync("umount", [dir], { stdio: "ignore" });
  } catch {
    execFileSync("umount", ["-l", dir], { stdio: "ignore" });
  }
}

/**
 * `dir` seen through a read-only view. As root a read-only bind mount (root writes through any
 * mode bits); otherwise the folder and its files lose their write bits, which is what a
 * non-root user meets.
 */
export async function readOnlyView(dir: string): Promise<Maybe<Place>> {
  if (!isRoot) {
    const files = await fsp.readdir(dir);
    for (const f of files) await fsp.chmod(path.join(dir, f), 0o444);
    await fsp.chmod(dir, 0o555);
    return {
      path: dir,
      release: async () => {
        await fsp.chmod(dir, 0o755);
        for (const f of files) await fsp.chmod(path.join(dir, f), 0o644).catch(() => undefined);
      },
    };
  }
  const view = await tempDir("albedo-ro-view-");
  const bind = tryMount(["--bind", dir, view]);
  if (bind) return { skip: `a read-only bind mount is not possible here (${bind})` };
  const ro = tryMount(["-o", "remount,bind,ro", view]);
  if (ro) {
    await unmount(view);
    return { skip: `remounting the bind read-only is not possible here (${ro})` };
  }
  return {
    path: view,
    release: async () => {
      await unmount(view);
      await fsp.rm(view, { recursive: true, force: true });
    },
  };
}

/** A tmpfs of `bytes`: a disk that really fills up (ENOSPC). Root only. */
export async function smallDisk(bytes: number): Promise<Maybe<Place>> {
  if (!isRoot) return { skip: "mounting a small tmpfs needs root; the max_page_count case covers a full database here" };
  const dir = await tempDir("albedo-small-disk-");
  const err = tryMount(["-t", "tmpfs", "-o", `size=${bytes},mode=0755`, "tmpfs", dir]);
  if (err) return { skip: `mounting a tmpfs is not possible here (${err})` };
  return {
    path: dir,
    release: async () => {
      await unmount(dir);
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the file system holding `dir` until fewer than `leave` bytes are free; returns the filler. */
export async function fillDisk(dir: string, leave: number): Promise<string> {
  const filler = path.join(dir, "filler.bin");
  const fd = fs.openSync(filler, "w");
  try {
    const chunk = Buffer.alloc(64 * 1024, 0x5a);
    for (;;) {
      const st = fs.statfsSync(dir);
      const free = st.bavail * st.bsize;
      if (free <= leave) break;
      const n = Math.min(chunk.length, free - leave);
      try {
        fs.writeSync(fd, chunk, 0, Math.max(n, 1));
      } catch {
        break;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** Page size and page count from an SQLite file's header. */
export function sqliteGeometry(file: string): { pageSize: number; pages: number } {
  const head = Buffer.alloc(100);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, 100, 0);
  } finally {
    fs.closeSync(fd);
  }
  const raw = head.readUInt16BE(16);
  return { pageSize: raw === 1 ? 65536 : raw, pages: head.readUInt32BE(28) };
}

/**
 * Breaks the b-tree page that holds `marker` (a unique text stored in one row): its page-type
 * byte becomes one SQLite does not know, as a flipped bit on disk would. Returns the page number.
 */
export function corruptPageHolding(file: string, marker: string): number {
  const bytes = fs.readFileSync(file);
  const at = bytes.indexOf(Buffer.from(marker));
  if (at < 0) throw new Error(`${marker} is not in ${file} (checkpoint the WAL first)`);
  const { pageSize } = sqliteGeometry(file);
  const page = Math.floor(at / pageSize);
  if (page === 0) throw new Error("the marker is on page 1, which holds the schema");
  const fd = fs.openSync(file, "r+");
  try {
    fs.writeSync(fd, Buffer.from([0x00, 0xff, 0xff, 0xff]), 0, 4, page * pageSize);
  } finally {
    fs.closeSync(fd);
  }
  return page + 1;
}

/** The uid and gid of "nobody", for running a child as a user without root's override. */
export function nobody(): Maybe<{ uid: number; gid: number }> {
  if (!isRoot) return { skip: "the tests already run as a non-root user" };
  try {
    const uid = Number(execFileSync("id", ["-u", "nobody"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "nobody"]).toString().trim());
    if (!Number.isInteger(uid) || !Number.isInteger(gid)) return { skip: "no user nobody" };
    return { uid, gid };
  } catch {
    return { skip: "no user nobody" };
  }
}

/** Gives a folder tree to a user (root only), so a child running as that user owns it. */
export function chownTree(dir: string, uid: number, gid: number): void {
  execFileSync("chown", ["-R", `${uid}:${gid}`, dir]);
}
