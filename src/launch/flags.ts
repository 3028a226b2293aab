// The V8 flags the bin sets at run time, before the bundle is compiled: the code cache's seal
// names them (code-cache.ts), since V8 keeps a cache only for the flags it was made with.
//
// --liftoff-only: undici parses HTTP with WebAssembly; V8's optimising tier compiles it with
// a ~30 MB native transient at the first request. The baseline tier is fast enough for a
// parser reading a few MB a minute, and keeps peak memory down (docs/performance.md, "What the
// gaps are made of").
//
// --semi-space-growth-factor=1: V8 doubles the young generation (up to 2 × 16 MB) whenever
// enough survives its collections, and a streamed answer is built a word at a time in three
// places: left to grow, its peak RSS is ~119 MB against 90 MB before Enter. Kept at its first
// size (growth is the one young-generation setting V8 reads at run time, not only at
// start-up), the stream peaks at ~95 MB and the idle screen at ~79 MB for the same stream CPU
// within the noise; what it costs is collecting more often where much survives: reading a
// 50,000-message record behind the first frame takes ~25% longer.
export const LAUNCH_FLAGS: readonly string[] = ["--liftoff-only", "--semi-space-growth-factor=1"];
