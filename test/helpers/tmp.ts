// A fresh temporary folder per test, under the OS temp dir. Callers remove it if they care;
// the OS temp dir is cleaned eventually either way.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export async function tempDir(prefix = "albedo-test-"): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}
