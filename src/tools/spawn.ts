// The one door every shell command of the model or the person goes through (bash in the
// foreground or the background, `!command` from the prompt): `bash -c` in the workspace, in a
// process group of its own registered with processes.ts, stdin closed, stderr folded into
// stdout, the provider keys out of its environment. What confines a command is added here
// once, so it covers every way a command starts.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import { messageOf } from "../record/errors.js";
import type { ToolRun } from "./processes.js";
import { spawnCommand as spawnInDoor, type CommandSandbox } from "./spawn-command.js";

/** Variables the model's commands never see: the provider keys belong to albedo-tui alone. */
const HIDDEN_ENV = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

/** what an unsandboxed command starts from: albedo-tui's environment less the keys */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of HIDDEN_ENV) delete env[k];
  return env;
}

/**
 * A sandbox's PID namespace ends with its shell, taking along everything the command left
 * running. A background command owns what it starts until bash_stop or the session's end
 * (`nohup server &`, `setsid …`), as it does unsandboxed, so its shell waits on exit until it
 * is the only process left in the namespace besides bubblewrap's pid 1 (builtins only: the
 * count forks nothing), then exits with the command's status.
 */
const OUTLIVE_TRAP =
  "trap '__albedo_st=$?; while :; do __albedo_n=0; for __albedo_p in /proc/[0-9]*; do case ${__albedo_p#/proc/} in 1|$$) ;; *) __albedo_n=$((__albedo_n+1)) ;; esac; done; [ $__albedo_n -eq 0 ] && break; sleep 0.5; done; exit $__albedo_st' EXIT;";

const COMMAND_ENV = { PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };

/**
 * Starts `command` with bash in `cwd` as the leader of a new process group (inside bubblewrap
 * when `sandbox` is given: spawn-command.ts), its output on the child's stdout (stderr carries
 * only what bash says before the command runs). Throws when the spawn is refused at once; a
 * later failure comes as the child's 'error' event, so a caller listens for it first. The
 * run's group is set once the child has a pid.
 */
export function spawnCommand(
  command: string,
  cwd: string,
  run: ToolRun & { env(): Record<string, string> },
  sandbox?: CommandSandbox,
  background = false,
): ChildProcess {
  // One stream in true order: the shell points its own stderr at stdout before the command
  // runs (same line, so the command's line numbers in errors stay right).
  const keep = sandbox && background ? `${OUTLIVE_TRAP} ` : "";
  const child = spawnInDoor({
    file: "bash",
    args: ["-c", `exec 2>&1; ${keep}${command}`],
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...COMMAND_ENV, ...run.env() },
    baseEnv: childEnv(),
    sandbox,
  });
  run.pgid = child.pid;
  return child;
}

/** Why bash could not start, in words naming the cause (the workspace, PATH, descriptors…). */
export function spawnFailure(err: unknown, workspace: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const folderProblem = (): string | undefined => {
    try {
      if (!fs.statSync(workspace).isDirectory()) return `the workspace ${workspace} is not a folder`;
      fs.accessSync(workspace, fs.constants.X_OK);
      return undefined;
    } catch (e) {
      const c = (e as NodeJS.ErrnoException).code;
      if (c === "ENOENT") return `the workspace folder ${workspace} no longer exists`;
      if (c === "EACCES") return `the workspace folder ${workspace} cannot be entered (permission denied)`;
      return `the workspace folder ${workspace} cannot be used (${c ?? String(e)})`;
    }
  };
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
    case "EACCES":
      return (
        folderProblem() ??
        (code === "EACCES"
          ? "bash cannot be run (permission denied)"
          : `no bash found on PATH (${process.env.PATH === undefined ? "PATH is not set" : process.env.PATH})`)
      );
    case "EMFILE":
      return "too many open files (EMFILE): albedo-tui has no file descriptor left for the command's pipes; close other connections to it, or raise the limit (ulimit -n)";
    case "ENFILE":
      return "too many open files on this system (ENFILE): the system's file table is full";
    case "EAGAIN":
      return "too many processes (EAGAIN): the system refused to start another; try again when some have ended";
    case "ENOMEM":
      return "not enough memory to start a process (ENOMEM)";
    default:
      return messageOf(err);
  }
}
