// The sandbox policy as bubblewrap's arguments (pure): what is writable, hidden, shared.
import { describe, expect, it } from "vitest";
import { sandboxArgv, sandboxEnv, sandboxRefusal } from "../../src/tools/sandbox.js";

const base = { mode: "workspace-write" as const, workspace: "/home/u/proj", network: false, hidden: [] };

/** the pairs of a mount option: ["--bind", src, dst] → "src" */
function mounts(argv: string[], opt: string): string[] {
  const out: string[] = [];
  argv.forEach((a, i) => {
    if (a === opt) out.push(argv[i + (opt === "--ro-bind" ? 2 : opt === "--bind" ? 2 : 1)]!);
  });
  return out;
}

describe("sandboxArgv", () => {
  it("binds the root read-only, the workspace writable, /tmp private, drops capabilities, no network", () => {
    const a = sandboxArgv(base, []);
    expect(a.slice(0, 3)).toEqual(["--ro-bind", "/", "/"]);
    expect(mounts(a, "--bind")).toEqual(["/home/u/proj"]);
    expect(mounts(a, "--tmpfs")).toContain("/tmp");
    expect(a).toEqual(expect.arrayContaining(["--cap-drop", "ALL", "--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"]));
    expect(a.at(-1)).toBe("--");
  });
  it("read-only binds nothing writable; network on shares the network; cwd is chdir'ed", () => {
    expect(mounts(sandboxArgv({ ...base, mode: "read-only" }, []), "--bind")).toEqual([]);
    expect(sandboxArgv({ ...base, network: true }, [])).not.toContain("--unshare-net");
    const a = sandboxArgv(base, [], "/home/u/proj/sub");
    expect(a[a.indexOf("--chdir") + 1]).toBe("/home/u/proj/sub");
  });
  it("hides folders with a read-only tmpfs and files with /dev/null, after the binds; never the workspace's own parent; nothing under a hidden folder twice", () => {
    const a = sandboxArgv(base, [
      { path: "/home/u/.ssh", dir: true },
      { path: "/home/u/.netrc", dir: false },
      { path: "/home/u", dir: true }, // holds the workspace: dropped
      { path: "/home/u/.ssh/id_rsa", dir: false }, // inside a hidden folder: dropped
      { path: "/tmp/elsewhere", dir: true }, // under the private /tmp: not visible anyway
      { path: "/home/u/proj/.env.secret", dir: false }, // inside the workspace: hidden there too
    ]);
    expect(mounts(a, "--tmpfs")).toEqual(["/tmp", "/home/u/.ssh"]);
    const files = a.flatMap((x, i) => (x === "--ro-bind" && a[i + 1] === "/dev/null" ? [a[i + 2]] : []));
    expect(files).toEqual(["/home/u/.netrc", "/home/u/proj/.env.secret"]);
    expect(a.indexOf("--tmpfs", a.indexOf("--bind"))).toBeGreaterThan(a.indexOf("--bind"));
  });
});

describe("sandboxEnv", () => {
  it("keeps the allow-list and LC_*, drops the rest (keys, tokens, the agent socket)", () => {
    const env = sandboxEnv({ PATH: "/usr/bin", HOME: "/h", LC_ALL: "C", ANTHROPIC_API_KEY: "k", GITHUB_TOKEN: "t", SSH_AUTH_SOCK: "/s", MY_VAR: "x" }, { ALBEDO_TOOL_RUN: "m" });
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/h", LC_ALL: "C", TMPDIR: "/tmp", ALBEDO_TOOL_RUN: "m" });
  });
});

describe("sandboxRefusal", () => {
  it("names a write outside and the network, and nothing for other failures", () => {
    expect(sandboxRefusal("bash: /etc/x: Read-only file system")).toBe("write outside the workspace");
    expect(sandboxRefusal("curl: (6) Could not resolve host: example.com")).toBe("use the network");
    expect(sandboxRefusal("npm ERR! Test failed")).toBeUndefined();
  });
});
