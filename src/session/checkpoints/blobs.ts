// Content-addressed copies of the workspace's files, in the state folder, named by their
// sha256, so a file that stays the same across turns, sessions and workspaces is kept once.
// A few copies are files of their own ("loose"); a walk that finds many new contents (the
// first walk of a workspace) appends them to one pack file instead, with an index beside it:
// creating ten thousand files cost 8 s on a machine where one pack of them cost 85 ms.
// Everything is written under a temporary name and renamed (a pack's index last, so a pack
// without one is never read), and every copy is checked against its hash before it is
// restored: a power loss may cost a copy, never a wrong restore (no fsync per copy).
import { createHash, randomBytes } from "node:crypto";
import fsSync, { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const HASH = /^[0-9a-f]{64}$/;

const packIndexSchema = z.object({ v: z.literal(1), entries: z.array(z.tuple([z.string().regex(HASH), z.number().int().nonnegative(), z.number().int().nonnegative()])) });

/** Where a packed copy is. */
interface Packed {
  pack: string;
  offset: number;
  length: number;
}

/** A pack being written by one walk. */
export class PackWriter {
  private fd: number | undefined;
  private offset = 0;
  private readonly entries: Array<[string, number, number]> = [];
  private readonly added = new Set<string>();

  constructor(
    private readonly store: BlobStore,
    private readonly base: string,
  ) {}

  /** Appends a content (once per pack). */
  add(hash: string, bytes: Uint8Array): void {
    if (this.added.has(hash)) return;
    if (this.fd === undefined) {
      fsSync.mkdirSync(path.dirname(this.base), { recursive: true, mode: 0o700 });
      this.fd = fsSync.openSync(`${this.base}.pack`, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    }
    for (let at = 0; at < bytes.length; ) at += fsSync.writeSync(this.fd, bytes, at, bytes.length - at);
    this.entries.push([hash, this.offset, bytes.length]);
    this.added.add(hash);
    this.offset += bytes.length;
  }

  /** Closes the pack and writes its index: from then on its copies can be read. */
  finish(): void {
    if (this.fd === undefined) return;
    fsSync.closeSync(this.fd);
    this.fd = undefined;
    const idx = `${this.base}.idx`;
    const tmp = `${idx}.${randomBytes(6).toString("hex")}.tmp`;
    fsSync.writeFileSync(tmp, JSON.stringify({ v: 1, entries: this.entries }), { mode: 0o600, flag: "wx" });
    fsSync.renameSync(tmp, idx);
    this.store.learn(path.basename(this.base), this.entries);
  }
}

export class BlobStore {
  /** folders made already, so a copy costs no mkdir */
  private readonly made = new Set<string>();
  /** the packs' indexes read so far, by content */
  private readonly packed = new Map<string, Packed>();
  private readonly packsRead = new Set<string>();

  constructor(readonly dir: string) {}

  private file(hash: string): string {
    if (!HASH.test(hash)) throw new Error(`not a content hash: ${JSON.stringify(hash)}`);
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  private get packDir(): string {
    return path.join(this.dir, "packs");
  }

  /** A new pack for one walk's many new contents. */
  pack(): PackWriter {
    return new PackWriter(this, path.join(this.packDir, `${Date.now()}-${randomBytes(6).toString("hex")}`));
  }

  /** @internal a pack this process wrote */
  learn(pack: string, entries: ReadonlyArray<[string, number, number]>): void {
    this.packsRead.add(pack);
    for (const [hash, offset, length] of entries) this.packed.set(hash, { pack, offset, length });
  }

  /** Reads the indexes of packs not read yet (another process may have written some). */
  private readPacks(): void {
    let names: string[];
    try {
      names = fsSync.readdirSync(this.packDir);
    } catch {
      return;
    }
    for (const n of names) {
      if (!n.endsWith(".idx")) continue;
      const pack = n.slice(0, -".idx".length);
      if (this.packsRead.has(pack)) continue;
      this.packsRead.add(pack);
      try {
        const r = packIndexSchema.safeParse(JSON.parse(fsSync.readFileSync(path.join(this.packDir, n), "utf8")));
        if (r.success) this.learn(pack, r.data.entries);
      } catch {
        // a damaged index: its copies are unknown, and named as missing when wanted
      }
    }
  }

  hasSync(hash: string): boolean {
    return this.packed.has(hash) || fsSync.existsSync(this.file(hash));
  }

  async has(hash: string): Promise<boolean> {
    if (this.packed.has(hash)) return true;
    try {
      await fs.access(this.file(hash));
      return true;
    } catch {
      return false;
    }
  }

  /** Keeps `bytes` under its hash as a file of its own (once: a copy there is left as it is). */
  async put(hash: string, bytes: Uint8Array): Promise<void> {
    if (await this.has(hash)) return;
    const file = this.file(hash);
    const folder = path.dirname(file);
    if (!this.made.has(folder)) {
      await fs.mkdir(folder, { recursive: true, mode: 0o700 });
      this.made.add(folder);
    }
    const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await fh.writeFile(bytes);
    } finally {
      await fh.close();
    }
    try {
      await fs.rename(tmp, file);
    } catch (e) {
      await fs.unlink(tmp).catch(() => undefined);
      throw e;
    }
  }

  /** put() in synchronous calls, for a walk's slices */
  putSync(hash: string, bytes: Uint8Array): void {
    if (this.hasSync(hash)) return;
    const file = this.file(hash);
    const folder = path.dirname(file);
    if (!this.made.has(folder)) {
      fsSync.mkdirSync(folder, { recursive: true, mode: 0o700 });
      this.made.add(folder);
    }
    const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = fsSync.openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      for (let at = 0; at < bytes.length; ) at += fsSync.writeSync(fd, bytes, at, bytes.length - at);
    } finally {
      fsSync.closeSync(fd);
    }
    try {
      fsSync.renameSync(tmp, file);
    } catch (e) {
      fsSync.rmSync(tmp, { force: true });
      throw e;
    }
  }

  /** The copy, or why it cannot be had (missing, or not the content its name says). */
  async get(hash: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; error: string }> {
    let bytes: Buffer | undefined;
    try {
      bytes = await fs.readFile(this.file(hash));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") return { ok: false, error: `its checkpoint copy cannot be read (${code ?? String(e)})` };
    }
    if (bytes === undefined) {
      if (!this.packed.has(hash)) this.readPacks();
      const at = this.packed.get(hash);
      if (!at) return { ok: false, error: "its checkpoint copy is gone from the state folder" };
      try {
        const fh = await fs.open(path.join(this.packDir, `${at.pack}.pack`), constants.O_RDONLY | constants.O_NOFOLLOW);
        try {
          const buf = Buffer.alloc(at.length);
          const { bytesRead } = await fh.read(buf, 0, at.length, at.offset);
          bytes = buf.subarray(0, bytesRead);
        } finally {
          await fh.close();
        }
      } catch (e) {
        return { ok: false, error: `its checkpoint copy cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
      }
    }
    if (sha256(bytes) !== hash) return { ok: false, error: "its checkpoint copy is damaged (its content no longer matches its hash)" };
    return { ok: true, bytes };
  }
}
