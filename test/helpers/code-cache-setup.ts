// Global setup of the test run: one folder, new for the run (mkdtemp: no one else's, and not
// a name another user could take first), for V8's code cache of the CLI, which the suite's
// starts share as one person's starts do (test/helpers/cli.ts). Workers are forked after this
// runs and inherit the variable. Removed when the run ends.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let dir = "";

export function setup(): void {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-test-cache-"));
  process.env["ALBEDO_TEST_CODE_CACHE"] = dir;
}

export function teardown(): void {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
