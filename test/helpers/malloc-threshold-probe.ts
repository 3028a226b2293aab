// Run in a process of its own (`node --import tsx --expose-gc --no-concurrent-array-buffer-sweeping`):
// reads a large file one way, lets it go, then tells whether glibc's mmap threshold moved.
// glibc maps a block above its threshold on its own and raises the threshold to the size of
// any such block freed, so after a freed 24 MB block a 12 MB one comes from a heap instead of
// a mapping of its own: new anonymous address space of the probe's size says the threshold
// is still below it. Prints one JSON line.
import fs from "node:fs";
import { readWhole } from "../../src/launch/read-whole.js";
import { runWithCodeCache } from "../../src/launch/code-cache.js";

const [how, file, cacheDir] = process.argv.slice(2) as [string, string, string | undefined];
const PROBE = 12 * 1024 * 1024;

/** the address space of anonymous mappings, [heap] (the main arena's) left out */
function anonymousBytes(): number {
  let total = 0;
  for (const l of fs.readFileSync("/proc/self/maps", "utf8").split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ 0\s*$/.exec(l);
    if (m) total += parseInt(m[2]!, 16) - parseInt(m[1]!, 16);
  }
  return total;
}

let read = 0;
let cache: string | undefined;
/** the bytes' length: they are let go when it returns (a value in the module's own frame would stay alive) */
function readAndDrop(): number {
  const fd = fs.openSync(file, "r");
  const bytes = how === "readWhole" ? readWhole(fd, fs.fstatSync(fd).size) : fs.readFileSync(fd);
  fs.closeSync(fd);
  return bytes.length;
}
if (how === "readWhole" || how === "readFileSync") {
  read = readAndDrop();
} else if (how === "launch") {
  cache = runWithCodeCache({ file, cacheDir }).cache;
}
const gc = (globalThis as { gc?: () => void }).gc!;
gc();
gc();
// a mapping of its own adds exactly the probe and glibc's page (it may merge with a neighbour,
// so it is counted by the space it adds); a heap grown by mmap adds its padding besides
Buffer.allocUnsafeSlow(16);
const before = anonymousBytes();
const probe = Buffer.allocUnsafeSlow(PROBE);
const ownMapping = anonymousBytes() - before === PROBE + 4096;
process.stdout.write(JSON.stringify({ read, cache: cache ?? null, ownMapping, probe: probe.length }) + "\n");
