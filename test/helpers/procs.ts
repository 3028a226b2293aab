// Finding the processes a test started, by a marker it put in their environment: a test gives
// every command it has the agent run `export <VAR>=<unique>`, and anything still carrying it
// afterwards is a process the agent left behind. Linux only (/proc).
import { randomBytes } from "node:crypto";
import fs from "node:fs";

export const TEST_MARK_VAR = "ALBEDO_TEST_MARK";

/** a marker no other test or run shares */
export function newMark(label: string): string {
  return `${label}-${process.pid}-${randomBytes(6).toString("hex")}`;
}

/** pids of live (not zombie) processes for which `test` holds, given a reader of their /proc files */
function livePids(test: (read: (file: string) => Buffer) => boolean): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
      if (state === "Z" || state === "X") continue;
      if (test((file) => fs.readFileSync(`/proc/${name}/${file}`))) out.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

/** pids of live (not zombie) processes whose environment holds TEST_MARK_VAR=mark */
export function markedPids(mark: string): number[] {
  const needle = Buffer.from(`\0${TEST_MARK_VAR}=${mark}\0`);
  const first = Buffer.from(`${TEST_MARK_VAR}=${mark}\0`);
  return livePids((read) => {
    const env = read("environ");
    return env.includes(needle) || env.subarray(0, first.length).equals(first);
  });
}

/** pids of live (not zombie) processes one of whose arguments is exactly `arg` */
export function pidsWithArg(arg: string): number[] {
  return livePids((read) => read("cmdline").toString("utf8").split("\0").includes(arg));
}

/** the command line of a pid, for failure messages */
export function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "(gone)";
  }
}

/** SIGKILLs whatever still carries the marker, so a failed test leaves nothing running */
export function killMarked(mark: string): number {
  const pids = markedPids(mark);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return pids.length;
}

/**
 * A command that leaves one process of each background form running (all marked), then waits
 * in the foreground: `&`, `nohup`, `setsid` (a new session and group), `disown`.
 * `fg` false: the command ends at once, leaving only the background ones.
 */
export function backgroundForms(mark: string, fg = true): string {
  return [
    `export ${TEST_MARK_VAR}=${mark}`,
    "sleep 1000 &",
    "setsid sleep 1000 > /dev/null 2>&1 < /dev/null &",
    "nohup sleep 1000 > /dev/null 2>&1 &",
    "sleep 1000 > /dev/null 2>&1 & disown",
    fg ? "sleep 1000" : "echo started",
  ].join("\n");
}

/** how many marked processes backgroundForms starts (the foreground sleep included) */
export const BACKGROUND_FORMS = 4;
