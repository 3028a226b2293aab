// One start of a program through the code cache, in a process of its own (as the bin runs):
// V8 keeps what a process compiled and would answer a second compile of the same source from
// memory, so only a fresh process shows whether it took the saved code. Prints one JSON line.
import { runWithCodeCache } from "../../src/launch/code-cache.js";

const opts = JSON.parse(process.argv[2]!) as { file: string; cacheDir: string | null; save: boolean };
let out: Record<string, unknown>;
try {
  const r = runWithCodeCache({ file: opts.file, cacheDir: opts.cacheDir ?? undefined });
  out = { cache: r.cache, saved: opts.save ? r.save() : null, savedAgain: opts.save ? r.save() : null };
} catch (e) {
  out = { threw: (e as Error).stack };
}
out["result"] = (globalThis as Record<string, unknown>)["__albedoCodeCacheTest"] ?? null;
process.stdout.write(JSON.stringify(out) + "\n");
