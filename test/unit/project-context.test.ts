// Project instruction files are read with no tool call and sent with every request, so they
// are a door into the request for a hostile repository. Each form below was tried.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { loadProjectContext, MAX_INSTRUCTION_BYTES, readInsideWorkspace } from "../../src/session/controller/project-context.js";
import { redactorFor, REDACTED } from "../../src/config/secrets.js";

const KEY = "sk-ant-unit-SECRET-0123456789ab";
let root: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "albedo-ctx-"));
  ws = path.join(root, "work");
  outside = path.join(root, "outside");
  await fs.mkdir(ws);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, "shadow"), "root:$6$SECRETHASH:19000:0:99999:7:::\n");
  await fs.writeFile(path.join(outside, ".env"), `ANTHROPIC_API_KEY=${KEY}\n`);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const redact = redactorFor(() => [KEY]);
const agents = async (): Promise<string | undefined> =>
  (await loadProjectContext(ws, redact)).find((c) => c.source === "AGENTS.md")?.text;

describe("instruction files stay inside the workspace", () => {
  it("reads a plain AGENTS.md and a link to a file inside the workspace", async () => {
    await fs.writeFile(path.join(ws, "AGENTS.md"), "Use tabs.\n");
    await fs.mkdir(path.join(ws, "docs"));
    await fs.writeFile(path.join(ws, "docs", "claude.md"), "Run npm test.\n");
    await fs.symlink("docs/claude.md", path.join(ws, "CLAUDE.md"));
    const items = await loadProjectContext(ws, redact);
    expect(items.map((i) => i.source)).toEqual(["AGENTS.md", "CLAUDE.md", "workspace facts"]);
    expect(items[0]!.text).toContain("Use tabs.");
    expect(items[1]!.text).toContain("Run npm test.");
  });

  it("refuses a link to a file outside (absolute, relative, through a linked folder, a chain), with a note", async () => {
    const forms: [string, () => Promise<void>][] = [
      ["absolute link", () => fs.symlink(path.join(outside, "shadow"), path.join(ws, "AGENTS.md"))],
      ["relative link", () => fs.symlink("../outside/shadow", path.join(ws, "AGENTS.md"))],
      [
        "linked folder",
        async () => {
          await fs.symlink(outside, path.join(ws, "out"));
          await fs.symlink("out/shadow", path.join(ws, "AGENTS.md"));
        },
      ],
      [
        "chain of links",
        async () => {
          await fs.symlink(path.join(outside, "shadow"), path.join(ws, "step2"));
          await fs.symlink("step2", path.join(ws, "step1"));
          await fs.symlink("step1", path.join(ws, "AGENTS.md"));
        },
      ],
    ];
    for (const [name, make] of forms) {
      await fs.rm(ws, { recursive: true, force: true });
      await fs.mkdir(ws);
      await make();
      const text = await agents();
      expect(text, name).toBe("[AGENTS.md was not read: it leads outside the workspace.]");
    }
  });

  it("never names the outside target to the model", async () => {
    await fs.symlink(path.join(outside, ".env"), path.join(ws, "CLAUDE.md"));
    const items = await loadProjectContext(ws, redact);
    const all = items.map((i) => i.text).join("\n");
    expect(all).not.toContain(outside);
    expect(all).not.toContain(KEY);
  });

  it("a link to a .env inside the workspace is read with the key cut out", async () => {
    await fs.writeFile(path.join(ws, ".env"), `ANTHROPIC_API_KEY=${KEY}\nPORT=8080\n`);
    await fs.symlink(".env", path.join(ws, "AGENTS.md"));
    const text = await agents();
    expect(text).toContain(`ANTHROPIC_API_KEY=${REDACTED}`);
    expect(text).toContain("PORT=8080");
    expect(text).not.toContain(KEY);
  });

  it("refuses special files without blocking: a named pipe, a folder, a dangling link, a loop", async () => {
    execFileSync("mkfifo", [path.join(ws, "AGENTS.md")]);
    expect(await agents()).toBe("[AGENTS.md was not read: it is a named pipe.]");
    await fs.rm(path.join(ws, "AGENTS.md"));
    await fs.mkdir(path.join(ws, "AGENTS.md"));
    expect(await agents()).toBe("[AGENTS.md was not read: it is a folder.]");
    await fs.rm(path.join(ws, "AGENTS.md"), { recursive: true });
    await fs.symlink("nothing-here", path.join(ws, "AGENTS.md"));
    expect(await agents()).toBe("[AGENTS.md was not read: it is a link to nothing.]");
    await fs.rm(path.join(ws, "AGENTS.md"));
    await fs.symlink("AGENTS.md", path.join(ws, "AGENTS.md"));
    expect(await agents()).toBe("[AGENTS.md was not read: it is a loop of links.]");
  });

  it("refuses a device linked in, even one that never ends", async () => {
    await fs.symlink("/dev/zero", path.join(ws, "AGENTS.md"));
    expect(await agents()).toBe("[AGENTS.md was not read: it leads outside the workspace.]");
  });

  it("reads at most 64 KB of an oversized file and says it was cut", async () => {
    const big = "x".repeat(3 * MAX_INSTRUCTION_BYTES);
    await fs.writeFile(path.join(ws, "AGENTS.md"), big);
    const r = await readInsideWorkspace(ws, "AGENTS.md");
    expect(r.kind).toBe("read");
    if (r.kind === "read") {
      expect(Buffer.byteLength(r.text)).toBe(MAX_INSTRUCTION_BYTES);
      expect(r.size).toBe(big.length);
    }
    expect(await agents()).toMatch(/\n\[AGENTS\.md cut at 64 KB of 196608 bytes\]$/);
  });

  it("a cut inside a multi-byte character leaves no replacement character", async () => {
    await fs.writeFile(path.join(ws, "AGENTS.md"), "a" + "é".repeat(MAX_INSTRUCTION_BYTES));
    const text = (await agents())!;
    expect(text).not.toContain("\uFFFD");
    expect(text).toMatch(/é\n\[AGENTS\.md cut at 64 KB/);
  });

  it("a link swapped back and forth while reading never lets the outside in", async () => {
    await fs.writeFile(path.join(ws, "inside.md"), "INSIDE\n");
    const link = path.join(ws, "AGENTS.md");
    let stop = false;
    const swapper = (async () => {
      let n = 0;
      while (!stop) {
        const tmp = path.join(ws, `.swap${n++ % 2}`);
        await fs.rm(tmp, { force: true });
        await fs.symlink(n % 2 ? path.join(outside, "shadow") : "inside.md", tmp);
        await fs.rename(tmp, link);
      }
    })();
    let escaped = 0;
    let read = 0;
    for (let i = 0; i < 1500; i++) {
      const r = await readInsideWorkspace(ws, "AGENTS.md");
      if (r.kind === "read") {
        read++;
        if (r.text.includes("SECRETHASH")) escaped++;
      }
    }
    stop = true;
    await swapper;
    expect(escaped).toBe(0);
    expect(read).toBeGreaterThan(0);
  });
});

describe("the workspace's git state in the workspace facts", () => {
  const run = (...args: string[]): string =>
    execFileSync("git", ["-c", "init.defaultBranch=trunk", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: ws, encoding: "utf8" });
  const facts = async (): Promise<string> => (await loadProjectContext(ws)).find((c) => c.source === "workspace facts")!.text;

  it("a repository made by git init, with no commit yet, is a repository on its branch", async () => {
    run("init", "-q");
    // rev-parse --abbrev-ref HEAD fails without a commit: that is not "not a repository"
    expect(await facts()).toContain("Git branch: trunk (no commits yet)");
    expect(await facts()).not.toContain("not a repository");
    run("commit", "-q", "--allow-empty", "-m", "first");
    expect(await facts()).toMatch(/^Git branch: trunk$/m);
    expect(await facts()).not.toContain("no commits yet");
  });

  it("a detached HEAD names its commit, not a branch called HEAD", async () => {
    run("init", "-q");
    run("commit", "-q", "--allow-empty", "-m", "first");
    run("checkout", "-q", "--detach");
    const short = run("rev-parse", "--short", "HEAD").trim();
    expect(await facts()).toContain(`Git: detached HEAD at ${short}`);
  });

  it("a folder outside any repository is not a repository", async () => {
    // the temporary folder must not sit inside a repository for this to hold
    expect(() => execFileSync("git", ["rev-parse", "--git-dir"], { cwd: ws, stdio: "ignore" })).toThrow();
    expect(await facts()).toContain("Git: not a repository");
  });

  it("without git on the PATH, the facts say git was not checked rather than that there is no repository", async () => {
    run("init", "-q");
    const before = process.env.PATH;
    process.env.PATH = path.join(root, "no-such-bin");
    try {
      expect(await facts()).toContain("Git: not checked (git is not installed)");
    } finally {
      process.env.PATH = before;
    }
  });
});
