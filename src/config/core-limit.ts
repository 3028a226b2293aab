// No core files: a crash must not write albedo-tui's memory (the provider key with it) into
// the working folder. Node has no setrlimit, so util-linux's prlimit sets this process's
// RLIMIT_CORE to 0, soft and hard (a command it starts cannot raise it again). It runs once,
// in the background, after the screen's first frame; where prlimit is missing nothing
// changes, and docs/sandbox.md says so.
import { spawn } from "node:child_process";

let done = false;

export function limitCoreDumps(): void {
  if (done || process.platform !== "linux") return;
  done = true;
  try {
    const child = spawn("prlimit", ["--pid", String(process.pid), "--core=0:0"], { stdio: "ignore" });
    child.on("error", () => undefined); // not installed: nothing to do
    child.unref();
  } catch {
    // no process could be started: the limit stays as it was
  }
}
