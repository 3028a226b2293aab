// Content-addressed copies of the workspace's files, in the state folder: one file per
// content, named by its sha256, so a file that stays the same across turns, sessions and
// workspaces is kept once. A copy is written under a temporary name and renamed, so a copy
// that exists is whole; it is checked against its name again before it is restored (no fsync
// per copy: a power loss may cost a copy, never a wrong restore).
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const HASH = /^[0-9a-f]{64}$/;

export class BlobStore {
  /** folders made already, so a copy costs no mkdir */
  private readonly made = new Set<string>();

  constructor(readonly dir: string) {}

  private file(hash: string): string {
    if (!HASH.test(hash)) throw new Error(`not a content hash: ${JSON.stringify(hash)}`);
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  async has(hash: string): Promise<boolean> {
    try {
      await fs.access(this.file(hash));
      return true;
    } catch {
      return false;
    }
  }

  /** Keeps `bytes` under its hash (once: a copy already there is left as it is). */
  async put(hash: string, bytes: Uint8Array): Promise<void> {
    const file = this.file(hash);
    if (await this.has(hash)) return;
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

  /** The copy, or why it cannot be had (missing, or not the content its name says). */
  async get(hash: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; error: string }> {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(this.file(hash));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return { ok: false, error: code === "ENOENT" ? "its checkpoint copy is gone from the state folder" : `its checkpoint copy cannot be read (${code ?? String(e)})` };
    }
    if (sha256(bytes) !== hash) return { ok: false, error: "its checkpoint copy is damaged (its content no longer matches its hash)" };
    return { ok: true, bytes };
  }

  /** Every copy's hash (for pruning). */
  async list(): Promise<string[]> {
    const out: string[] = [];
    let tops: string[];
    try {
      tops = await fs.readdir(this.dir);
    } catch {
      return out;
    }
    for (const top of tops) {
      if (!/^[0-9a-f]{2}$/.test(top)) continue;
      for (const name of await fs.readdir(path.join(this.dir, top)).catch(() => [] as string[])) if (HASH.test(name)) out.push(name);
    }
    return out;
  }

  async remove(hash: string): Promise<void> {
    await fs.unlink(this.file(hash)).catch(() => undefined);
  }
}
