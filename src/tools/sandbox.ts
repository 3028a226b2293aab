// The sandbox a command runs in, as data: which folders it may write, which it may not see,
// whether it has a network, which variables it gets. Pure: sandboxArgv turns the policy into
// bubblewrap's arguments, and spawn-command.ts is the one place that runs them. The policy
// and what it leaves open are described in docs/sandbox.md.
import path from "node:path";

/** what a sandboxed command may write: the workspace, or nothing outside a private /tmp */
export type SandboxMode = "workspace-write" | "read-only";
/** the `--sandbox` flag and the config's "sandbox" */
export type SandboxSetting = SandboxMode | "off";
export const SANDBOX_SETTINGS = ["workspace-write", "read-only", "off"] as const;

export interface SandboxPolicy {
  mode: SandboxMode;
  /** the folder the command works in; writable in workspace-write */
  workspace: string;
  /** more folders writable beside it (an MCP server's own folders) */
  writable?: readonly string[];
  /** the network is shared with the host (config "network": "on"); otherwise there is none */
  network: boolean;
  /** paths that must not be seen at all: albedo-tui's own folders and the history database
   * (credentialPaths adds the usual places of credentials) */
  hidden: readonly string[];
}

/** Where credentials usually live, under a home folder: hidden from every sandboxed command. */
export function credentialPaths(home: string): string[] {
  const h = (p: string) => path.join(home, p);
  return [
    ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".config/op",
    ".config/doctl", ".config/rclone", ".config/sops", ".config/age", ".kube", ".docker", ".netrc",
    ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".pip/pip.conf", ".config/pip", ".cargo/credentials",
    ".cargo/credentials.toml", ".gem/credentials", ".git-credentials", ".config/git/credentials",
    ".terraform.d/credentials.tfrc.json", ".vault-token", ".password-store", ".local/share/keyrings",
    ".mozilla", ".config/google-chrome", ".config/chromium", ".bash_history", ".zsh_history",
    ".python_history", ".psql_history", ".mysql_history", ".pgpass", ".my.cnf", ".s3cfg", ".boto",
    ".config/anthropic", ".config/openai", ".codex", ".claude", ".claude.json",
  ].map(h);
}

/** Variables a sandboxed command gets from albedo-tui's environment; everything else (the
 * user's shell variables, tokens, SSH_AUTH_SOCK, the provider keys) stays outside. */
export const SANDBOX_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "COLORTERM", "NO_COLOR"];
const LOCALE = /^LC_[A-Z]+$/;

/** The environment of a sandboxed command: the allowed variables of `from`, then `extra`. */
export function sandboxEnv(from: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(from)) {
    if (v === undefined) continue;
    if (SANDBOX_ENV.includes(k) || LOCALE.test(k)) env[k] = v;
  }
  env.TMPDIR = "/tmp";
  return { ...env, ...extra };
}

/** a path below (or equal to) a folder */
function within(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

export interface HiddenPath {
  path: string;
  /** a folder is covered by an empty tmpfs, anything else by /dev/null */
  dir: boolean;
}

/**
 * bubblewrap's arguments for the policy, up to and including `--`; the command follows.
 * `hidden` are the paths that exist on this machine (spawn-command.ts looks), with their
 * kind. Order matters: later mounts cover earlier ones, so the hidden paths come last and
 * stay hidden inside the workspace too.
 */
export function sandboxArgv(policy: SandboxPolicy, hidden: readonly HiddenPath[], cwd: string = policy.workspace): string[] {
  const a: string[] = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  // a writable folder under /tmp is bound into the fresh /tmp; anything else over the read-only root
  const rw = policy.mode === "workspace-write" ? [policy.workspace, ...(policy.writable ?? [])] : [...(policy.writable ?? [])];
  for (const w of rw) a.push("--bind", w, w);
  // read-only mode: the workspace under /tmp must still be there to be read
  if (policy.mode === "read-only" && within(policy.workspace, "/tmp")) a.push("--ro-bind", policy.workspace, policy.workspace);
  const applied = hidden.filter(
    (h) =>
      // a hidden folder that holds the workspace would take it away: the workspace wins
      !within(policy.workspace, h.path) &&
      // under the private /tmp and outside what was bound there, it is not visible anyway
      !(within(h.path, "/tmp") && !rw.some((w) => within(h.path, w)) && !within(h.path, policy.workspace)),
  );
  for (const h of applied) {
    // inside a folder that is hidden already (and read-only: nothing could be mounted there)
    if (applied.some((o) => o.dir && o.path !== h.path && within(h.path, o.path))) continue;
    if (h.dir) a.push("--tmpfs", h.path, "--remount-ro", h.path);
    else a.push("--ro-bind", "/dev/null", h.path);
  }
  // run by root, bubblewrap would leave the command its capabilities (a remount would undo
  // the read-only root): none are kept
  a.push("--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (!policy.network) a.push("--unshare-net");
  a.push("--die-with-parent", "--new-session", "--chdir", cwd, "--");
  return a;
}

/** Sockets of the user's session that would give a command more than its sandbox: the SSH
 * agent, the session bus, Docker (root). Folders of them are hidden like credentials. */
export function socketPaths(env: NodeJS.ProcessEnv, uid: number | undefined): string[] {
  const out = ["/run/docker.sock", "/var/run/docker.sock"];
  if (uid !== undefined) out.push(`/run/user/${uid}`);
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) out.push(env.XDG_RUNTIME_DIR);
  if (env.SSH_AUTH_SOCK && path.isAbsolute(env.SSH_AUTH_SOCK)) out.push(path.dirname(env.SSH_AUTH_SOCK));
  return out;
}

/** Words in a sandboxed command's output that say the sandbox stopped it: a write outside
 * (EROFS), the network. Only a hint for the question to run it outside; a person decides. */
const SANDBOX_SIGNS: readonly [RegExp, string][] = [
  [/Read-only file system/i, "write outside the workspace"],
  [/Network is unreachable|Temporary failure in name resolution|Could not resolve host|getaddrinfo E(AI_AGAIN|NOTFOUND)|ENETUNREACH|Couldn't connect to server|Connection refused/i, "use the network"],
];

/** what the sandbox seems to have refused the command, or undefined */
export function sandboxRefusal(output: string): string | undefined {
  const found = SANDBOX_SIGNS.filter(([re]) => re.test(output)).map(([, what]) => what);
  return found.length > 0 ? found.join(" and ") : undefined;
}
