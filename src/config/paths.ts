// Where albedo keeps its data, state and config (XDG base directories).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function xdg(varName: string, fallback: string): string {
  const v = process.env[varName];
  return v && path.isAbsolute(v) ? v : path.join(home(), fallback);
}

/** the home folder: HOME, else the account's; never a relative one (files would land in the working folder) */
function home(): string {
  const h = os.homedir();
  if (path.isAbsolute(h)) return h;
  let account: string | undefined;
  try {
    account = os.userInfo().homedir;
  } catch {
    // no account entry (a container's arbitrary uid)
  }
  if (account && path.isAbsolute(account)) return account;
  throw new Error(`HOME is ${h ? `"${h}", not an absolute path` : "empty"} and the account has no home folder: set HOME (or XDG_DATA_HOME, XDG_STATE_HOME and XDG_CONFIG_HOME)`);
}

export function dataDir(): string {
  return path.join(xdg("XDG_DATA_HOME", ".local/share"), "albedo");
}

export function stateDir(): string {
  return path.join(xdg("XDG_STATE_HOME", ".local/state"), "albedo");
}

export function configDir(): string {
  return path.join(xdg("XDG_CONFIG_HOME", ".config"), "albedo");
}

/** what can be thrown away and made again (V8's compiled code of the CLI) */
export function cacheDir(): string {
  return path.join(xdg("XDG_CACHE_HOME", ".cache"), "albedo");
}

export function defaultDbPath(): string {
  return path.join(dataDir(), "history.sqlite");
}

export function defaultConfigPath(): string {
  return path.join(configDir(), "config.json");
}

/**
 * Removes the group and other permission bits of a file or folder that this user owns
 * (history, log and keys are nobody else's to read). Never fails: a file we do not own, a
 * symlink (not followed) or a chmod the system refuses is left as it is.
 */
export function tightenMode(p: string): void {
  try {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return;
    const mode = st.mode & 0o7777;
    if ((mode & 0o077) !== 0) fs.chmodSync(p, mode & ~0o077);
  } catch {
    // not ours to change, or gone: leave it
  }
}

/**
 * True when `dir` is a real folder (not a link) of this user's that no one else can write to,
 * after tightenMode has taken the group and other bits off one of ours: code read from it
 * runs as this user (launch/code-cache.ts).
 */
export function isPrivateDir(dir: string): boolean {
  tightenMode(dir);
  try {
    const st = fs.lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (typeof process.getuid !== "function") return true;
    return st.uid === process.getuid() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** A file's mode tightened to owner-only (see tightenMode). */
export const tightenFile = tightenMode;

/**
 * Makes a folder of ours: missing folders (and parents) are created 0700, as the XDG base
 * directory spec asks; with `tighten`, an existing folder with looser bits is made 0700 too.
 * Only albedo's own folders are tightened: never a folder a person pointed --db into.
 */
export function ensurePrivateDir(dir: string, opts: { tighten: boolean }): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (opts.tighten) tightenMode(dir);
}
