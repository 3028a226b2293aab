// The package as a person installs it: `npm pack`, then a global install of the tarball into
// a throw-away prefix (its dependencies come from the npm registry, as for anyone), then the
// installed `albedo-tui` answers --version and runs one headless turn against the local fake
// provider on 127.0.0.1. .ci/run calls this after the tests; it needs a built dist/.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeProvider } from "../test/helpers/fake-provider.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-pack-"));
const fail = (msg: string): never => {
  process.stderr.write(`check-pack: ${msg}\n`);
  process.exit(1);
};

try {
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: root, encoding: "utf8" })) as {
    filename: string;
    files: { path: string; mode: number }[];
  }[];
  const tarball = path.join(work, packed[0]!.filename);
  const files = packed[0]!.files;
  const cli = files.find((f) => f.path === "dist/cli.js");
  if (!cli) fail("dist/cli.js is not in the package");
  if (!files.some((f) => f.path.startsWith("keymaps/"))) fail("keymaps/ is not in the package");
  if (files.some((f) => f.path.startsWith("src/") || f.path.startsWith("test/"))) fail("sources or tests were packed");
  // the bin and the bundle it runs, not tsc's unbundled dist/ beside them
  if (!files.some((f) => f.path === "dist/bundle/cli.cjs")) fail("dist/bundle/cli.cjs is not in the package");
  const stray = files.filter((f) => f.path.startsWith("dist/") && f.path !== "dist/cli.js" && !f.path.startsWith("dist/bundle/"));
  if (stray.length) fail(`tsc's unbundled files were packed: ${stray.slice(0, 3).map((f) => f.path).join(", ")}…`);

  const prefix = path.join(work, "prefix");
  const install = spawnSync("npm", ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", tarball], { encoding: "utf8" });
  if (install.status !== 0) fail(`npm install of the tarball failed:\n${install.stderr}`);
  const bin = path.join(prefix, "bin", "albedo-tui");
  if (!fs.existsSync(bin)) fail(`no ${bin} after the install`);

  const home = path.join(work, "home");
  const ws = path.join(home, "work");
  fs.mkdirSync(ws, { recursive: true });
  const env = {
    PATH: `${path.join(prefix, "bin")}:${process.env.PATH ?? ""}`,
    HOME: home,
    XDG_DATA_HOME: path.join(home, "data"),
    XDG_STATE_HOME: path.join(home, "state"),
    XDG_CONFIG_HOME: path.join(home, "config"),
    LANG: "C.UTF-8",
  };
  const version = spawnSync("albedo-tui", ["--version"], { env, encoding: "utf8" });
  const want = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  if (version.status !== 0 || version.stdout.trim() !== want) fail(`albedo-tui --version said ${JSON.stringify(version.stdout)} (exit ${version.status}), expected ${want}`);

  const key = "sk-ant-pack-check-0123456789";
  const fake = await startFakeProvider({ key });
  try {
    fake.script({ text: "Installed and answering." });
    // asynchronous: the fake provider answers from this same process
    const turn = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "albedo-tui",
        ["-p", "are you installed?", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase],
        { env: { ...env, ANTHROPIC_API_KEY: key }, cwd: ws, encoding: "utf8", timeout: 60_000 },
        (err, stdout, stderr) => resolve({ status: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
    if (turn.status !== 0 || turn.stdout !== "Installed and answering.\n") fail(`the headless turn failed (exit ${turn.status}):\n${turn.stdout}\n${turn.stderr}`);
    if (fake.rejections().length > 0) fail(`the fake provider refused: ${fake.rejections().join("; ")}`);
  } finally {
    await fake.close();
  }
  process.stdout.write(`check-pack: ${packed[0]!.filename} (${files.length} files) installs, answers --version ${want} and runs a headless turn\n`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
