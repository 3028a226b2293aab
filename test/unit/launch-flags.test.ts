// The bin's V8 flags (src/launch/flags.ts) set as the bin sets them, at run time, do what
// their comment says; the young-generation one on the command line does nothing, which is
// why they are not on the bin's "#!" line.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { LAUNCH_FLAGS } from "../../src/launch/flags.js";

// Churns through objects of which many survive a scavenge, which is what makes V8 grow the
// young generation, then prints the young generation's size in bytes.
const CHURN = `
const v8 = require("node:v8");
for (const f of JSON.parse(process.argv[1])) v8.setFlagsFromString(f);
const keep = [];
for (let i = 0; i < 2e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 2e5) keep.splice(0, 1e5); }
process.stdout.write(String(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size));
`;

function youngGeneration(nodeArgs: readonly string[], runtimeFlags: readonly string[]): number {
  const r = spawnSync(process.execPath, [...nodeArgs, "-e", CHURN, JSON.stringify(runtimeFlags)], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout);
}

const MB = 1024 * 1024;

describe("the launcher's V8 flags", () => {
  it("keep the young generation at its first size when set at run time, as the bin sets them", () => {
    expect(youngGeneration([], LAUNCH_FLAGS)).toBeLessThanOrEqual(4 * MB);
  });

  it("do not when given on the command line: V8 raises a growth factor below 2 to 2", () => {
    const growth = LAUNCH_FLAGS.filter((f) => f.startsWith("--semi-space-growth-factor"));
    expect(growth).toHaveLength(1);
    expect(youngGeneration(growth, [])).toBeGreaterThanOrEqual(16 * MB);
  });

  it("the bin sets them before the bundle runs (and not on its #! line)", async () => {
    const fs = await import("node:fs");
    const { CLI } = await import("../helpers/cli.js");
    const bin = fs.readFileSync(CLI, "utf8");
    expect(bin.split("\n")[0]).toBe("#!/usr/bin/env node");
    const setAt = bin.indexOf("setFlagsFromString(flag)");
    expect(setAt).toBeGreaterThan(0);
    expect(setAt).toBeLessThan(bin.indexOf("runWithCodeCache({"));
  });
});
