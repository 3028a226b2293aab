// The code V8 optimizes for building, encoding and capturing a request survives a full
// collection: the classes the pipeline makes per request keep their hidden classes alive
// (WireWriter in src/provider/encoded.ts), so a request after a collection does not run
// deoptimized and compile again. Counted from V8's own trace, never timed.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const RUNNER = path.resolve(import.meta.dirname, "../helpers/capture-shapes-runner.ts");
// functions of the pipeline that read its per-request objects (names distinct enough that
// nothing else in the process shares them)
const PIPELINE = ["partAt", "paginate", "PiecedText", "textPart", "captureEncoded", "encodeMessage", "encodePart", "encodeUser", "encodeAssistant"];

function trace(): string {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", "--trace-opt", "--trace-deopt", RUNNER, "12"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`runner failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

describe("the request pipeline's optimized code", () => {
  it("is not thrown away by full collections between requests", () => {
    const out = trace();
    const optimized = new Set([...out.matchAll(/completed optimizing 0x[0-9a-f]+ <JSFunction ([^ >]+)/g)].map((m) => m[1]!));
    // the check means something only if the pipeline's functions were optimized at all
    expect(PIPELINE.filter((f) => optimized.has(f)).length).toBeGreaterThanOrEqual(3);
    const dropped = [...out.matchAll(/<SharedFunctionInfo ([^ >]+)>\) \(opt id \d+\) for deoptimization, reason: weak objects/g)]
      .map((m) => m[1]!)
      .filter((f) => PIPELINE.includes(f));
    expect(dropped).toEqual([]);
  }, 120_000);
});
