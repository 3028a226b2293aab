// The V8 flags the bin sets at run time, before the bundle is compiled: the code cache's seal
// names them (code-cache.ts), since V8 keeps a cache only for the flags it was made with.
// They are set here, not on the bin's "#!" line, so every way of starting the CLI (the
// package's bin, `node dist/cli.js` in the tests and the benchmarks) runs with the same ones.
//
// --liftoff-only: undici parses HTTP with WebAssembly; V8's optimising tier compiles it with
// a ~30 MB native transient at the first request. The baseline tier is fast enough for a
// parser reading a few MB a minute, and keeps peak memory down (docs/performance.md, "What the
// gaps are made of").
//
// --semi-space-growth-factor=1: V8 doubles the young generation (up to 2 × 16 MB) whenever
// enough survives its collections, and a streamed answer is built a word at a time in three
// places. Kept at its first size, a 20,000-word stream peaks ~35 MB lower (~125 against
// ~160 MB, one paragraph of soft breaks) for the same CPU within the noise; what it costs is
// collecting more often where much survives: reading a 50,000-message record behind the first
// frame takes ~25% longer. It works ONLY at run time: on the command line (or a "#!" line)
// V8's heap set-up raises any factor below 2 back to 2 (Heap::ConfigureHeap), so
// `node --semi-space-growth-factor=1` changes nothing (test/unit/launch-flags.test.ts).
export const LAUNCH_FLAGS: readonly string[] = ["--liftoff-only", "--semi-space-growth-factor=1"];
