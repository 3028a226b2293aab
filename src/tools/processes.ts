// The processes tools start, tracked until they are gone. A command may leave work behind
// (`server &`, nohup, disown, setsid); that work lives until its turn ends, then it is
// stopped, as is everything left when albedo-tui exits; after a SIGKILL of albedo-tui the
// guard below stops them.
//
// Two ways to find a run's processes, because one is not enough:
//  - its process group (the shell is started as a group leader): `&`, nohup and disown stay in
//    it; signalling the group also reaches a process forked a moment ago;
//  - a marker in the environment, ALBEDO_TOOL_RUN=<id>, inherited by every descendant: setsid
//    (a new session and group) keeps it. On Linux /proc/<pid>/environ shows the environment a
//    process was started with, so a scan finds them. A process started with a cleared
//    environment (env -i) in a new session escapes both, as does anything on a system
//    without /proc for its setsid part.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";

const RUN_MARKER_VAR = "ALBEDO_TOOL_RUN";
/** Between SIGTERM and SIGKILL: time for a process to clean up, not to keep running. */
const KILL_GRACE_MS = 2_000;
const POLL_MS = 50;

// One id per albedo-tui process, so two agents never match each other's runs.
const instance = `${process.pid}-${randomBytes(6).toString("hex")}`;
let counter = 0;

/** One tool call's processes. */
export interface ToolRun {
  /** the value of RUN_MARKER_VAR in the command's environment */
  readonly marker: string;
  /** the group of the shell, once it has started */
  pgid: number | undefined;
  /** who the run belongs to (the turn's AbortSignal): stopToolProcesses({ owner }) */
  readonly owner: object | undefined;
}

const live = new Set<ToolRun>();
let exitHookInstalled = false;

// The orphan guard: one small shell per albedo-tui process, in a group of its own, reading the
// groups of the live runs from a pipe. When the pipe reaches its end (albedo-tui is gone, by
// any way, SIGKILL included: the kernel closes the pipe) it SIGKILLs those groups, then every
// process carrying this instance's marker (setsid escapes the groups, not the marker), then
// removes the folders it was given (the background commands' logs).
const GUARD_SCRIPT = `trap '' HUP INT TERM PIPE QUIT
inst="$1"; declare -A g; declare -A rmd
while IFS= read -r l; do case "$l" in +*) g["\${l#+}"]=1;; -*) unset "g[\${l#-}]";; d*) rmd["\${l#d}"]=1;; k*) unset "rmd[\${l#k}]";; esac; done
for p in "\${!g[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done
for r in 1 2; do for d in /proc/[0-9]*; do
  [ "\${d#/proc/}" = "$$" ] && continue
  grep -qaz "^${RUN_MARKER_VAR}=$inst-" "$d/environ" 2>/dev/null && kill -KILL "\${d#/proc/}" 2>/dev/null
done; done
for f in "\${!rmd[@]}"; do rm -rf -- "$f"; done
exit 0`;
let guard: ChildProcess | undefined | null;

/** Tells the guard a group to stop (`+`) or to forget (`-`), a folder to remove (`d`) or to
 * leave (`k`); starts the guard at the first. */
function tellGuard(line: string): void {
  if (guard === null) return; // could not be started: the exit hook is all there is
  if (guard === undefined) {
    try {
      guard = spawn("bash", ["-c", GUARD_SCRIPT, "albedo-guard", instance], {
        detached: true, // its own group: a terminal's signal to ours does not reach it first
        stdio: ["pipe", "ignore", "ignore"],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
      });
      guard.on("error", () => (guard = null));
      guard.stdin?.on("error", () => (guard = null));
      guard.unref();
      (guard.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    } catch {
      guard = null;
      return;
    }
  }
  guard?.stdin?.write(`${line}\n`);
}

/** A folder of this process's (background commands' logs) the guard removes once albedo-tui
 * is gone, however it went; `keep`: it is gone already, forget it. */
export function removeAtExit(dir: string, keep = false): void {
  if (dir.includes("\n") || !dir.startsWith("/")) return;
  tellGuard(`${keep ? "k" : "d"}${dir}`);
}

/** Registers a run before its command starts; pass `env()` to the spawn. */
export function beginRun(owner?: object): ToolRun & { env(): Record<string, string> } {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // the last chance, whichever way the process ends (a signal handler's exit, process.exit
    // after a fatal error, or the loop running dry): only synchronous work happens here
    process.on("exit", () => killToolProcessesNow());
  }
  const marker = `${instance}-${++counter}`;
  let pgid: number | undefined;
  const run = {
    marker,
    owner,
    env: () => ({ [RUN_MARKER_VAR]: marker }),
    get pgid(): number | undefined {
      return pgid;
    },
    // the spawn sets it once the group exists: the guard learns of it then
    set pgid(v: number | undefined) {
      if (pgid !== undefined && live.has(run)) tellGuard(`-${pgid}`);
      pgid = v;
      if (v !== undefined && live.has(run)) tellGuard(`+${v}`);
    },
  };
  live.add(run);
  return run;
}

/** Forgets a run whose processes are known to be gone. */
export function endRun(run: ToolRun): void {
  if (live.delete(run) && run.pgid !== undefined) tellGuard(`-${run.pgid}`);
}

/** How many runs are tracked (tests and the status of a clean exit). */
export function trackedRuns(): number {
  return live.size;
}

const hasProc = ((): boolean => {
  try {
    return fs.statSync("/proc/self/environ").isFile();
  } catch {
    return false;
  }
})();

/**
 * The live (not zombie) pids belonging to these runs: members of their groups and carriers of
 * their markers. Without /proc, only whether each group still has members (pids unknown).
 */
function members(runs: ToolRun[]): { pids: Set<number>; groupsAlive: Set<number> } {
  const pids = new Set<number>();
  const groupsAlive = new Set<number>();
  const groups = new Set<number>();
  for (const r of runs) if (r.pgid !== undefined) groups.add(r.pgid);
  if (!hasProc) {
    for (const g of groups) if (signalGroup(g, 0)) groupsAlive.add(g);
    return { pids, groupsAlive };
  }
  const markers = runs.map((r) => Buffer.from(`${RUN_MARKER_VAR}=${r.marker}\0`));
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return { pids, groupsAlive };
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue; // not a pid
    const pid = Number(name);
    if (pid === process.pid) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so cut at the last ")"
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    if (state === "Z" || state === "X") continue; // runs nothing; its parent (or init) reaps it
    const pgrp = Number(fields[2]);
    if (groups.has(pgrp)) {
      pids.add(pid);
      groupsAlive.add(pgrp);
      continue;
    }
    let env: Buffer;
    try {
      env = fs.readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // another user's process, or gone
    }
    if (markers.some((m) => hasEntry(env, m))) pids.add(pid);
  }
  return { pids, groupsAlive };
}

/** environ is NUL-separated NAME=value entries; the marker must be a whole entry */
function hasEntry(env: Buffer, entry: Buffer): boolean {
  let at = env.indexOf(entry);
  while (at !== -1) {
    if (at === 0 || env[at - 1] === 0) return true;
    at = env.indexOf(entry, at + 1);
  }
  return false;
}

function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false; // no member left
  }
}

function signalAll(
  runs: ToolRun[],
  found: { pids: Set<number>; groupsAlive: Set<number> },
  sig: NodeJS.Signals,
  skip: Set<number> = new Set(),
): void {
  // the groups first: that reaches a member forked after the scan
  for (const r of runs) {
    if (r.pgid === undefined || skip.has(-r.pgid) || (hasProc && !found.groupsAlive.has(r.pgid))) continue;
    signalGroup(r.pgid, sig);
    if (sig === "SIGTERM") signalGroup(r.pgid, "SIGCONT");
    skip.add(-r.pgid);
  }
  for (const pid of found.pids) {
    if (skip.has(pid)) continue;
    try {
      process.kill(pid, sig);
      // a stopped process (Ctrl-Z, SIGSTOP) acts on SIGTERM only once it runs again
      if (sig === "SIGTERM") process.kill(pid, "SIGCONT");
    } catch {
      // gone meanwhile
    }
    skip.add(pid);
  }
}

/** Whether any process of the run is still alive. */
export function runAlive(run: ToolRun): boolean {
  const found = members([run]);
  return found.pids.size > 0 || found.groupsAlive.size > 0;
}

function select(owner: object | undefined): ToolRun[] {
  return [...live].filter((r) => owner === undefined || r.owner === owner);
}

/**
 * Stops the processes of the given runs (default: every run of this process, or those of one
 * owner): SIGTERM, up to `graceMs` for them to end, then SIGKILL. Resolves once none is left
 * (or, after SIGKILL, once the kernel has had a few rounds to finish them), with how many
 * processes were found running.
 */
export async function stopToolProcesses(opts: { owner?: object; runs?: ToolRun[]; graceMs?: number } = {}): Promise<number> {
  const runs = opts.runs ?? select(opts.owner);
  if (runs.length === 0) return 0;
  let found = members(runs);
  const count = found.pids.size || found.groupsAlive.size;
  const deadline = Date.now() + (opts.graceMs ?? KILL_GRACE_MS);
  // SIGTERM once to each process (one that is cleaning up must not be hurried by a second),
  // to newcomers as they appear; at the deadline SIGKILL to all, every round
  const termed = new Set<number>();
  for (let killRounds = 0; found.pids.size > 0 || found.groupsAlive.size > 0; ) {
    if (Date.now() < deadline) signalAll(runs, found, "SIGTERM", termed);
    else {
      signalAll(runs, found, "SIGKILL");
      if (++killRounds > 100) break; // unkillable (uninterruptible sleep): do not hang the turn
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
    found = members(runs);
  }
  for (const r of runs) endRun(r);
  return count;
}

/**
 * SIGKILLs every tracked process now, synchronously: for process exit, where nothing can be
 * awaited. A second round catches what the first one's victims forked meanwhile.
 */
function killToolProcessesNow(): void {
  const runs = [...live];
  if (runs.length === 0) return;
  for (let round = 0; round < 3; round++) {
    const found = members(runs);
    if (found.pids.size === 0 && found.groupsAlive.size === 0) break;
    signalAll(runs, found, "SIGKILL");
  }
  live.clear();
}
