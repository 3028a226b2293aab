// A plain append-only log under the state directory, for what a person may want later
// (ignored stream events, retries). Never given a secret: callers log messages, not requests.
import fs from "node:fs";
import path from "node:path";
import { ensurePrivateDir, stateDir, tightenMode } from "./paths.js";

let file: string | undefined;
let prepared = false;

function logFile(): string {
  file ??= path.join(stateDir(), "albedo.log");
  return file;
}

const { O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = fs.constants;
/** O_NONBLOCK: a FIFO planted at the log's path fails the open (ENXIO) instead of blocking the
 * turn until a reader comes; O_NOFOLLOW: a symlink there is not written through */
const FLAGS = O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW;

export function log(level: "info" | "warning" | "error", text: string): void {
  try {
    const f = logFile();
    if (!prepared) {
      // once per run: the state folder 0700 and the log 0600, also when an older version made them looser
      prepared = true;
      ensurePrivateDir(path.dirname(f), { tighten: true });
      tightenMode(f);
    }
    const fd = fs.openSync(f, FLAGS, 0o600);
    try {
      if (!fs.fstatSync(fd).isFile()) return; // a device or FIFO with a reader: not a log
      fs.writeSync(fd, `${new Date().toISOString()} ${level} ${text.replace(/\n/g, "\\n")}\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // logging must never break a turn
  }
}
