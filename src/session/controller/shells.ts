// Where this process's background commands keep their logs: the state folder, never the
// workspace, one private folder per albedo-tui process so two never mix.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { stateDir } from "../../config/paths.js";

export function shellsFolder(): string {
  return path.join(stateDir(), "shells", `${process.pid}-${randomBytes(4).toString("hex")}`);
}
