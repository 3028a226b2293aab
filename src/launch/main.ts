// The package's bin (dist/cli.js, built by scripts/bundle.mjs): V8's flags, then the bundled
// CLI through the code cache (code-cache.ts). The flags come first because V8 keeps a cache
// only for the flags it was made with.
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { cacheDir } from "../config/paths.js";
import { runWithCodeCache } from "./code-cache.js";

// undici parses HTTP with WebAssembly; V8's optimising tier compiles it with a ~30 MB
// native transient at the first request. The baseline tier is fast enough for a parser
// reading a few MB a minute, and keeps peak memory down (docs/performance.md, "What the gaps
// are made of").
const FLAGS = ["--liftoff-only", "--semi-space-growth-factor=1"];
v8.setFlagsFromString(FLAGS[0]!);
// V8 doubles the young generation (up to 2 × 16 MB) whenever enough survives its collections,
// and a streamed answer is built a word at a time in three places: its peak RSS went from
// 90 MB before Enter to ~119 MB. Kept at its first size (growth is the one young-generation
// setting V8 reads at run time, not only at start-up), the stream peaks at ~95 MB and the idle
// screen at ~79 MB for the same stream CPU within the noise; what it costs is collecting more
// often where much survives: reading a 50,000-message record behind the first frame took
// ~25% longer.
v8.setFlagsFromString(FLAGS[1]!);

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
  // by then a screen has shown its session and loaded the turn's code, so that code is in the cache
  saveAfterMs: 2000,
  flags: FLAGS,
});
