// A private sshd on 127.0.0.1 with throw-away keys, and the OpenSSH client's command line to
// reach it: used by the SSH walk-through (test/e2e/ssh.test.ts), the test over a slow link
// (test/e2e/ssh-latency.test.ts) and the benchmark over one (bench/ssh.ts).
//
// startSshd() never throws for a machine that cannot run sshd: it says why, so a caller can
// skip with the reason. `.ci/run` installs openssh-server when missing.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { tempDir } from "./tmp.js";

export interface Sshd {
  ok: true;
  port: number;
  pid: number;
  dir: string;
  userKey: string;
  user: string;
  log: string;
}
export type SshdResult = Sshd | { ok: false; reason: string };

export function onPath(cmd: string): string | undefined {
  for (const d of (process.env.PATH ?? "").split(path.delimiter)) {
    const p = path.join(d || ".", cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect({ host: "127.0.0.1", port });
    c.once("connect", () => {
      c.destroy();
      resolve(true);
    });
    c.once("error", () => resolve(false));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function tail(file: string, n = 6): string {
  try {
    return fs.readFileSync(file, "utf8").trim().split("\n").slice(-n).join(" | ");
  } catch {
    return "(no log)";
  }
}

/** starts sshd in the foreground (-D) so a failed start shows up as an exit and its pid is ours */
export async function startSshd(): Promise<SshdResult> {
  // sshd re-executes itself and insists on an absolute path
  const sshd = ["/usr/sbin/sshd", onPath("sshd")].find((p): p is string => !!p && fs.existsSync(p));
  if (!sshd) return { ok: false, reason: "sshd is not installed (no /usr/sbin/sshd; .ci/run installs openssh-server)" };
  for (const tool of ["ssh", "ssh-keygen"]) {
    if (!onPath(tool)) return { ok: false, reason: `${tool} is not on PATH (it comes with openssh-client)` };
  }
  try {
    fs.mkdirSync("/run/sshd", { recursive: true }); // privilege separation dir; sshd refuses to start without it
  } catch (e) {
    if (!fs.existsSync("/run/sshd")) return { ok: false, reason: `cannot create /run/sshd: ${(e as Error).message}` };
  }
  const dir = await tempDir("albedo-sshd-");
  const hostKey = path.join(dir, "host_ed25519");
  const userKey = path.join(dir, "user_ed25519");
  for (const k of [hostKey, userKey]) {
    const r = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "albedo-e2e", "-f", k], { encoding: "utf8" });
    if (r.status !== 0) return { ok: false, reason: `ssh-keygen failed: ${r.stderr || r.error?.message}` };
  }
  const user = os.userInfo().username;
  const log = path.join(dir, "sshd.log");
  // a port picked free a moment ago can be taken before sshd binds it: then try another
  let lastReason = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const pidFile = path.join(dir, "sshd.pid");
    const config = path.join(dir, "sshd_config");
    fs.writeFileSync(
      config,
      [
        `Port ${port}`,
        "ListenAddress 127.0.0.1",
        `HostKey ${hostKey}`,
        `AuthorizedKeysFile ${userKey}.pub`,
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes",
        "UsePAM no",
        "StrictModes no",
        `AllowUsers ${user}`,
        `PidFile ${pidFile}`,
        "",
      ].join("\n"),
    );
    fs.rmSync(pidFile, { force: true });
    fs.rmSync(log, { force: true });
    const child: ChildProcess = spawn(sshd, ["-D", "-f", config, "-E", log], { stdio: "ignore" });
    let exited: string | undefined;
    child.once("exit", (code, sig) => (exited = `exited with ${code ?? sig}`));
    child.once("error", (e) => (exited = e.message));
    const end = Date.now() + 10_000;
    // sshd writes its PidFile once it listens; the connect proves it
    while (Date.now() < end && exited === undefined) {
      if (fs.existsSync(pidFile) && (await canConnect(port))) {
        const pid = child.pid!;
        child.unref();
        return { ok: true, port, pid, dir, userKey, user, log };
      }
      await sleep(50);
    }
    if (exited === undefined) child.kill("SIGKILL");
    lastReason = `sshd did not start (${exited ?? "not listening after 10 s"}): ${tail(log)}`;
    if (!/bind|address already in use/i.test(lastReason)) break; // only a lost port race is worth a retry
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return { ok: false, reason: lastReason };
}

/** ends the sshd (its sessions' children get their hang-up) and removes its folder */
export function stopSshd(s: SshdResult, removeDir = true): void {
  if (!s.ok) return;
  try {
    process.kill(s.pid, "SIGTERM");
  } catch {
    // already gone
  }
  if (removeDir) fs.rmSync(s.dir, { recursive: true, force: true });
}

/** POSIX shell single quotes: the remote command line goes through the login shell */
export const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The remote command line: in `cwd`, with exactly `env`, exec `argv`. With `pidFile` the
 * remote shell writes its pid there first, and as it then execs, that pid is the program's.
 */
export function remoteCommand(cwd: string, env: Record<string, string>, argv: readonly string[], pidFile?: string): string {
  return (
    `cd ${sq(cwd)} && ${pidFile !== undefined ? `echo $$ > ${sq(pidFile)} && ` : ""}exec env ` +
    `${Object.entries(env).map(([k, v]) => sq(`${k}=${v}`)).join(" ")} ${argv.map(sq).join(" ")}`
  );
}

/** `ssh -tt` arguments reaching `s` (at `port`, e.g. a relay in front of it) to run `remote` */
export function sshArgs(s: Sshd, remote: string, port = s.port): string[] {
  return [
    "-tt", // a real tty on the far side even though ours is node-pty
    "-F", "/dev/null", // no user ssh config (ControlMaster, ProxyJump…) can change the path
    "-i", s.userKey,
    "-o", "IdentitiesOnly=yes",
    "-o", "BatchMode=yes", // fail instead of asking for a password
    "-o", "StrictHostKeyChecking=no",
    "-o", "UserKnownHostsFile=/dev/null",
    "-o", "LogLevel=ERROR",
    "-p", String(port),
    `${s.user}@127.0.0.1`,
    remote,
  ];
}

/** whether a process of that pid runs (the remote app's, on this same machine) */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** the pid the remote command wrote to `file` (remoteCommand's pidFile), once it is there */
export async function readPid(file: string, waitMs: number): Promise<number> {
  const end = Date.now() + waitMs;
  while (Date.now() < end) {
    const n = Number.parseInt(await fsp.readFile(file, "utf8").catch(() => ""), 10);
    if (n > 0) return n;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the remote side never wrote ${file}`);
}
