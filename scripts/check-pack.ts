// The package as a newcomer installs it. First what `npm pack` puts in it (the bin, the bundle
// and the keymaps; no sources, tests or tsc output). Then the README's first command, read
// out of the README itself, on a fresh clone in a new folder with a new HOME: its install
// part runs there (its dependencies come from the npm registry, as for anyone), the clone is
// moved away, and the installed `albedo-tui`, at the path the README's command runs it by,
// must still answer --version and run one headless turn against the local fake provider on
// 127.0.0.1. .ci/run calls this after the tests; it needs a built dist/ and takes a few
// minutes (SQLite compiles from source where no prebuilt binary is reachable).
import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeProvider } from "../test/helpers/fake-provider.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-pack-"));
class CheckFailed extends Error {}
/** stops the check; the work folder is still removed (process.exit here would skip that) */
const fail = (msg: string): never => {
  throw new CheckFailed(msg);
};

/**
 * The README's first command: the first line of its first ```sh block that is not a comment,
 * split into the install (every step before the one that runs albedo-tui) and that run's path.
 */
function readmeFirstCommand(readme: string): { install: string; bin: string } {
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) fail("the README has no ```sh block");
  const line = block!.split("\n").find((l) => l.trim() !== "" && !l.trim().startsWith("#"));
  if (line === undefined) fail("the README's first ```sh block has no command");
  const steps = line!.split("&&").map((s) => s.trim());
  const run = steps.at(-1)!;
  if (!/(^|\/)albedo-tui$/.test(run)) fail(`the README's first command does not end by running albedo-tui: ${line}`);
  if (steps.length < 2) fail(`the README's first command installs nothing before running albedo-tui: ${line}`);
  return { install: steps.slice(0, -1).join(" && "), bin: run };
}

/** A fresh clone of the repository (its HEAD); outside a git checkout, a copy of the tree without what a build or an install adds. */
function freshClone(to: string): string {
  const inGit = spawnSync("git", ["-C", root, "rev-parse", "--is-inside-work-tree"], { encoding: "utf8" });
  if (inGit.status === 0 && inGit.stdout.trim() === "true") {
    execFileSync("git", ["clone", "--quiet", "--no-local", root, to], { stdio: ["ignore", "ignore", "inherit"] });
    return `a clone of ${execFileSync("git", ["-C", to, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()}`;
  }
  const skip = new Set(["node_modules", "dist", ".git"].map((d) => path.join(root, d)));
  fs.cpSync(root, to, { recursive: true, filter: (src) => !skip.has(src) });
  return "a copy of the tree (not a git checkout)";
}

function checkPackedFiles(): void {
  const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: root, encoding: "utf8" })) as { filename: string; files: { path: string }[] }[];
  const files = packed[0]!.files;
  if (!files.some((f) => f.path === "dist/cli.js")) fail("dist/cli.js is not in the package");
  if (!files.some((f) => f.path.startsWith("keymaps/"))) fail("keymaps/ is not in the package");
  if (files.some((f) => f.path.startsWith("src/") || f.path.startsWith("test/"))) fail("sources or tests were packed");
  // the bin, the bundle it runs and blessed's terminfo entries the bundled blessed reads (a
  // TERM the system has none for), not tsc's unbundled dist/ nor the readable dist/graph beside them
  if (!files.some((f) => f.path === "dist/bundle/cli.cjs")) fail("dist/bundle/cli.cjs is not in the package");
  if (!files.some((f) => f.path === "dist/usr/xterm")) fail("dist/usr/xterm (blessed's own terminfo entry) is not in the package");
  const stray = files.filter((f) => f.path.startsWith("dist/") && f.path !== "dist/cli.js" && !f.path.startsWith("dist/bundle/") && !f.path.startsWith("dist/usr/"));
  if (stray.length) fail(`unbundled or unshipped build output was packed: ${stray.slice(0, 3).map((f) => f.path).join(", ")}…`);
  process.stdout.write(`check-pack: ${packed[0]!.filename} holds ${files.length} files: the bin, the bundle, blessed's terminfo entries and the keymaps\n`);
}

function run(cmd: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // asynchronous: the fake provider answers from this same process
  return new Promise((resolve) => {
    execFile(cmd, args, { ...opts, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

try {
  checkPackedFiles();

  const { install, bin: binAsWritten } = readmeFirstCommand(fs.readFileSync(path.join(root, "README.md"), "utf8"));
  const clone = path.join(work, "albedo-tui");
  const what = freshClone(clone);
  const home = path.join(work, "home");
  fs.mkdirSync(home);
  // a new user: a new HOME (npm's cache and config with it), nothing of this run's npm settings
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && !k.startsWith("XDG_")));
  Object.assign(env, { HOME: home, XDG_DATA_HOME: path.join(home, "data"), XDG_STATE_HOME: path.join(home, "state"), XDG_CONFIG_HOME: path.join(home, "config"), XDG_CACHE_HOME: path.join(home, "cache"), LANG: "C.UTF-8" });

  const started = Date.now();
  const inst = spawnSync("sh", ["-c", install], { cwd: clone, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 30 * 60_000 });
  const took = Math.round((Date.now() - started) / 1000);
  if (inst.status !== 0) fail(`the README's install (${install}) failed in ${what} (exit ${inst.status ?? inst.signal}):\n${inst.stdout}\n${inst.stderr}`);
  process.stdout.write(`check-pack: the README's install (${install}) took ${took} s in ${what}\n`);

  // the test-only native module was not compiled to build (it is downloaded with the devDependencies)
  if (fs.existsSync(path.join(clone, "node_modules", "node-pty", "build"))) fail("the install compiled node-pty, a test-only dependency");

  const bin = binAsWritten.replace(/^~(?=\/)/, home);
  if (!path.isAbsolute(bin)) fail(`the README runs albedo-tui as ${binAsWritten}, a path that depends on the current folder`);
  const installed = path.dirname(fs.realpathSync(bin));
  if (installed.startsWith(clone + path.sep)) fail(`${binAsWritten} is a link into the clone (${installed})`);
  const pkgDir = path.resolve(installed, "..");
  for (const dev of ["node-pty", "vitest", "typescript", "esbuild"]) {
    if (fs.existsSync(path.join(pkgDir, "node_modules", dev))) fail(`the installed package holds the devDependency ${dev}`);
  }

  // the clone can go: move it away, and run the installed command from another folder
  fs.renameSync(clone, path.join(work, "moved-away"));
  const ws = path.join(home, "work");
  fs.mkdirSync(ws);
  const want = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  const version = await run(bin, ["--version"], { env, cwd: ws });
  if (version.status !== 0 || version.stdout.trim() !== want) fail(`after the clone moved, ${binAsWritten} --version said ${JSON.stringify(version.stdout)} (exit ${version.status}): ${version.stderr}`);

  const key = "sk-ant-pack-check-0123456789";
  const fake = await startFakeProvider({ key });
  try {
    fake.script({ text: "Installed and answering." });
    const turn = await run(bin, ["-p", "are you installed?", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase], { env: { ...env, ANTHROPIC_API_KEY: key }, cwd: ws });
    if (turn.status !== 0 || turn.stdout !== "Installed and answering.\n") fail(`after the clone moved, the headless turn failed (exit ${turn.status}):\n${turn.stdout}\n${turn.stderr}`);
    if (fake.rejections().length > 0) fail(`the fake provider refused: ${fake.rejections().join("; ")}`);
  } finally {
    await fake.close();
  }
  process.stdout.write(`check-pack: after the clone moved away, ${binAsWritten} answers --version ${want} and runs a headless turn\n`);
} catch (e) {
  if (!(e instanceof CheckFailed)) throw e;
  process.stderr.write(`check-pack: ${e.message}\n`);
  process.exitCode = 1;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
