// Provider keys given in the environment are read once, at start, and then taken out of it.
//
// Deleting them from process.env keeps them from every child process, but is not enough:
// /proc/<pid>/environ shows the environment block the process was started with, whatever
// process.env says later, to every process of the same user. A tool running
// `cat /proc/$PPID/environ` would read the key there. So on Linux the key's bytes in that block
// are overwritten in place through /proc/self/mem (a process may always write its own memory).
// This costs one small read and write at start and no second process; the alternative, a
// re-exec with the keys passed over a pipe, costs a second Node start and leaves the keys in
// the parent's block anyway. Elsewhere (no /proc) the block cannot be reached this way: the
// key stays out of process.env and of the tools' environment only.
import fs from "node:fs";
import { messageOf } from "../record/errors.js";
import { log } from "./log.js";

const KEY_VARS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"] as const;
type KeyVar = (typeof KEY_VARS)[number];
type EnvKeys = Readonly<Partial<Record<KeyVar, string>>>;

let taken: EnvKeys | undefined;

/**
 * Takes the provider keys out of the environment (process.env and, on Linux, the initial
 * environment block) and returns them. Once per process: later calls return the same keys,
 * so a /reload still sees them.
 */
export function takeEnvKeys(): EnvKeys {
  if (taken) return taken;
  const keys: Partial<Record<KeyVar, string>> = {};
  for (const name of KEY_VARS) {
    const v = process.env[name];
    if (v === undefined) continue;
    keys[name] = v;
    delete process.env[name]; // unsetenv: the block's copy is no longer referenced by environ
  }
  taken = Object.freeze(keys);
  if (Object.keys(keys).length > 0) {
    const scrubbed = scrubInitialEnvironment(Object.keys(keys));
    if (!scrubbed.ok) log("warning", `the API key could not be removed from /proc/${process.pid}/environ: ${scrubbed.reason}`);
  }
  return taken;
}

/** The environment settings are resolved from: process.env plus the keys taken at start. */
export function startEnv(): NodeJS.ProcessEnv {
  return { ...process.env, ...(taken ?? {}) };
}

/** The largest environment block we expect; anything else means the fields were misread. */
const MAX_ENV_BLOCK = 16 * 1024 * 1024;

/** Overwrites NAME=value entries of the process's initial environment block with NUL bytes. */
function scrubInitialEnvironment(names: readonly string[]): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== "linux") return { ok: false, reason: `no /proc/self/mem on ${process.platform}` };
  const prefixes = names.map((n) => Buffer.from(`${n}=`, "latin1"));
  const hasAny = (block: Buffer): boolean => {
    for (let off = 0; off < block.length; ) {
      let end = block.indexOf(0, off);
      if (end < 0) end = block.length;
      if (prefixes.some((p) => block.subarray(off, off + p.length).equals(p))) return true;
      off = end + 1;
    }
    return false;
  };
  try {
    const stat = fs.readFileSync("/proc/self/stat", "latin1");
    // fields after the command name, which is in parentheses and may hold spaces: fields[0] is
    // field 3 (state); env_start and env_end are fields 50 and 51 (proc(5), Linux 3.5 and later)
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > MAX_ENV_BLOCK) {
      return { ok: false, reason: "/proc/self/stat has no usable env_start/env_end" };
    }
    const fd = fs.openSync("/proc/self/mem", "r+");
    try {
      const block = Buffer.alloc(end - start);
      const n = fs.readSync(fd, block, 0, block.length, start);
      for (let off = 0; off < n; ) {
        let stop = block.indexOf(0, off);
        if (stop < 0 || stop > n) stop = n;
        if (prefixes.some((p) => block.subarray(off, off + p.length).equals(p))) {
          fs.writeSync(fd, Buffer.alloc(stop - off), 0, stop - off, start + off);
        }
        off = stop + 1;
      }
    } finally {
      fs.closeSync(fd);
    }
    // what other processes will read: checked, not assumed
    if (hasAny(fs.readFileSync("/proc/self/environ"))) return { ok: false, reason: "the key is still in /proc/self/environ after overwriting it" };
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: messageOf(e) };
  }
}
