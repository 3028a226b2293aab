// A plain append-only log under the state directory, for what a person may want later
// (ignored stream events, retries). Never given a secret: callers log messages, not requests.
import fs from "node:fs";
import path from "node:path";
import { stateDir } from "./paths.js";

let file: string | undefined;

export function logFile(): string {
  file ??= path.join(stateDir(), "albedo.log");
  return file;
}

export function log(level: "info" | "warning" | "error", text: string): void {
  try {
    const f = logFile();
    fs.mkdirSync(path.dirname(f), { recursive: true, mode: 0o700 });
    fs.appendFileSync(f, `${new Date().toISOString()} ${level} ${text.replace(/\n/g, "\\n")}\n`, { mode: 0o600 });
  } catch {
    // logging must never break a turn
  }
}
