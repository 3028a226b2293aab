// The one door through which a command the model (or an MCP server's entry) names is started:
// inside bubblewrap when a sandbox is given, as it is otherwise. bubblewrap is looked for once
// a run (probeSandbox), by running it, because being installed is not being usable (a container
// without user namespaces refuses it).
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { credentialPaths, sandboxArgv, sandboxEnv, socketPaths, type HiddenPath, type SandboxPolicy } from "./sandbox.js";

/** Overrides where bubblewrap is looked for (a path, or a name on PATH): an install in an
 * odd place, and the tests that hide it. */
export const BWRAP_ENV = "ALBEDO_BWRAP";

/** bubblewrap's path: $ALBEDO_BWRAP, else `bwrap` found on PATH; undefined when not found */
export function bwrapPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env[BWRAP_ENV];
  if (named !== undefined && named !== "") return path.isAbsolute(named) ? (executable(named) ? named : undefined) : onPath(named, env.PATH);
  return onPath("bwrap", env.PATH);
}

function executable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string, PATH: string | undefined): string | undefined {
  for (const dir of (PATH ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const p = path.join(dir, name);
    if (executable(p)) return p;
  }
  return undefined;
}

/** whether commands can be sandboxed here, and if not, why in words */
export type SandboxProbe = { ok: true; bwrap: string } | { ok: false; why: string };

let probed: Promise<SandboxProbe> | undefined;

/**
 * Runs bubblewrap once with the namespaces a command gets, on `true`: ok only when that
 * works. Cached for the run (the tests reset it with `fresh`).
 */
export function probeSandbox(opts: { fresh?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<SandboxProbe> {
  if (probed && !opts.fresh) return probed;
  probed = (async (): Promise<SandboxProbe> => {
    const bwrap = bwrapPath(opts.env);
    if (!bwrap) return { ok: false, why: "bubblewrap (bwrap) is not installed" };
    const argv = sandboxArgv({ mode: "read-only", workspace: "/", network: false, hidden: [] }, []);
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      let err = "";
      let child: ChildProcess;
      try {
        child = spawn(bwrap, [...argv, "true"], { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
      } catch (e) {
        resolve({ code: null, err: e instanceof Error ? e.message : String(e) });
        return;
      }
      child.stderr?.on("data", (b: Buffer) => (err = (err + b.toString("utf8")).slice(-500)));
      child.on("error", (e) => resolve({ code: null, err: e.message }));
      child.on("close", (code) => resolve({ code, err }));
    });
    if (r.code === 0) return { ok: true, bwrap };
    const said = r.err.trim().split("\n")[0] ?? "";
    return { ok: false, why: `bubblewrap (${bwrap}) does not work here${said ? `: ${said}` : ""}` };
  })();
  return probed;
}

/** What a sandboxed spawn needs beyond the policy: bubblewrap's path from the probe. */
export interface CommandSandbox extends SandboxPolicy {
  bwrap: string;
}

/** The paths hidden from a command: the policy's own, the credentials under HOME, the
 * session's sockets; each only if it exists (bubblewrap cannot mount over nothing on a
 * read-only root), links resolved so the real place is covered too. */
export function hiddenPaths(policy: SandboxPolicy, env: NodeJS.ProcessEnv = process.env): HiddenPath[] {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const wanted = [...policy.hidden, ...credentialPaths(home), ...socketPaths(env, uid)];
  const seen = new Set<string>();
  const out: HiddenPath[] = [];
  const add = (p: string) => {
    if (seen.has(p)) return;
    try {
      const st = fs.statSync(p);
      seen.add(p);
      out.push({ path: p, dir: st.isDirectory() });
    } catch {
      // not there: nothing to hide
    }
  };
  for (const p of wanted) {
    add(p);
    try {
      const real = fs.realpathSync(p);
      if (real !== p) add(real);
    } catch {
      // not there
    }
  }
  // the workspace itself is never hidden whole (a person chose to work there)
  return out.filter((h) => h.path !== policy.workspace && h.path !== "/");
}

export interface CommandSpawn {
  file: string;
  args: string[];
  cwd: string;
  /** the command's own variables (the run marker, PAGER…); with a sandbox these are all it
   * gets beside the allowed few (sandbox.ts SANDBOX_ENV) */
  env: Record<string, string>;
  /** without a sandbox: the environment it starts from (default: albedo-tui's own) */
  baseEnv?: NodeJS.ProcessEnv;
  stdio: SpawnOptions["stdio"];
  sandbox?: CommandSandbox | undefined;
}

/** The program and arguments a spawn runs, bubblewrap's in front when sandboxed. */
export function commandLine(s: CommandSpawn): { file: string; args: string[]; env: Record<string, string> | NodeJS.ProcessEnv } {
  if (!s.sandbox) return { file: s.file, args: s.args, env: { ...(s.baseEnv ?? process.env), ...s.env } };
  const argv = sandboxArgv(s.sandbox, hiddenPaths(s.sandbox), s.cwd);
  return { file: s.sandbox.bwrap, args: [...argv, s.file, ...s.args], env: sandboxEnv(process.env, s.env) };
}

/** Starts the command as its own process group (detached), sandboxed when asked. Throws what
 * spawn throws; 'error' reports the rest, as with spawn. */
export function spawnCommand(s: CommandSpawn): ChildProcess {
  const line = commandLine(s);
  return spawn(line.file, line.args, { cwd: s.cwd, detached: true, stdio: s.stdio, env: line.env });
}
