// Runs the built CLI as a real child process with its own XDG folders, so tests never touch
// the user's files and can look at everything the program wrote.
import { spawn, type ChildProcess } from "node:child_process";
import fsSync from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export const CLI = path.resolve(import.meta.dirname, "../../dist/cli.js");

export interface Home {
  root: string;
  workspace: string;
  db: string;
  env: NodeJS.ProcessEnv;
}

/**
 * V8's code cache of the CLI (src/launch/code-cache.ts) is shared by the suite's starts, as
 * by one person's: each home would otherwise start cold and write its own. The folder is the
 * run's (code-cache-setup.ts); outside vitest, this process's own. Tests of the cache itself
 * point XDG_CACHE_HOME elsewhere.
 */
export const TEST_CODE_CACHE = process.env["ALBEDO_TEST_CODE_CACHE"] ?? ownCacheFolder();

function ownCacheFolder(): string {
  const dir = fsSync.mkdtempSync(path.join(os.tmpdir(), "albedo-test-cache-"));
  process.once("exit", () => fsSync.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A throw-away home: data, state and config folders, a workspace, and a clean environment. */
export async function makeHome(extraEnv: NodeJS.ProcessEnv = {}): Promise<Home> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "albedo-home-"));
  const workspace = path.join(root, "work");
  await fs.mkdir(workspace, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    XDG_DATA_HOME: path.join(root, "data"),
    XDG_STATE_HOME: path.join(root, "state"),
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_CACHE_HOME: TEST_CODE_CACHE,
    LANG: "C.UTF-8",
    ...extraEnv,
  };
  return { root, workspace, db: path.join(root, "data", "albedo", "history.sqlite"), env };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `input`: what the child reads on stdin (`-p -`); without it stdin is closed. */
export function startCli(
  args: string[],
  home: Home,
  env: NodeJS.ProcessEnv = {},
  input?: string,
): { child: ChildProcess; done: Promise<CliResult>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: home.workspace, env: { ...home.env, ...env }, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) {
    // a child that exits before reading all of it closes the pipe: not the test's failure
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(input);
  }
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

export function runCli(args: string[], home: Home, env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliResult> {
  return startCli(args, home, env, input).done;
}

/** Every file under a folder, recursively (for secret scans). */
export async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.push(p);
    }
  }
  await walk(dir);
  return out;
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = "condition"): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
