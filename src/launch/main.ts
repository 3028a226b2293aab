// The package's bin (dist/cli.js, built by scripts/bundle.mjs): V8's flags, then the bundled
// CLI through the code cache (code-cache.ts). The flags come first because V8 keeps a cache
// only for the flags it was made with.
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { cacheDir } from "../config/paths.js";
import { runWithCodeCache } from "./code-cache.js";
import { LAUNCH_FLAGS } from "./flags.js";

for (const flag of LAUNCH_FLAGS) v8.setFlagsFromString(flag);

function cacheFolder(): string | undefined {
  try {
    const dir = path.join(cacheDir(), "code");
    // never a folder relative to wherever the program was started (an empty HOME)
    return path.isAbsolute(dir) ? dir : undefined;
  } catch {
    // no home folder to put it in: compile from source every time
    return undefined;
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));
runWithCodeCache({
  file: path.join(here, "bundle", "cli.cjs"),
  cacheDir: cacheFolder(),
  flags: LAUNCH_FLAGS,
});
