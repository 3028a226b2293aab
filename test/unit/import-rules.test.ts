// The layering check (.dependency-cruiser.cjs) is held to its word: the real tree passes it,
// and a copy of src/ with upward imports planted in it fails, each import named by the rule
// it breaks. The plants go into a copy in the OS temp folder, never into the tree, so a test
// that dies leaves nothing behind in src/.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { tempDir } from "../helpers/tmp.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DEPCRUISE = path.join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/**
 * Runs depcruise over `cwd`'s src/ as `npm run check:imports` does; its exit code and the
 * violations it reports, one line each: "error RULE: FROM → TO".
 */
function cruise(cwd: string): { status: number | null; violations: Violation[]; output: string } {
  const r = spawnSync(process.execPath, [DEPCRUISE, "src", "--config", ".dependency-cruiser.cjs"], { cwd, encoding: "utf8" });
  const output = r.stdout + r.stderr;
  const violations = [...output.matchAll(/^\s*error (\S+): (\S+) → (\S+)$/gm)].map((m) => ({ rule: m[1]!, from: m[2]!, to: m[3]! }));
  return { status: r.status, violations, output };
}

// each plant: a file written into the copy, the module it imports, the rule it must break
const PLANTS = [
  // the pure inspector reaches up into the store
  { file: "src/context/planted-store.ts", imports: "../session/store/store.js", to: "src/session/store/store.ts", rule: "no-upward-from-context" },
  // the pure inspector reaches up into its own API: context/api is a layer above context
  { file: "src/context/planted-api.ts", imports: "./api/routes.js", to: "src/context/api/routes.ts", rule: "no-upward-from-context" },
  // the store reaches up into the turn that runs on it
  { file: "src/session/store/planted.ts", imports: "../turn/events.js", to: "src/session/turn/events.ts", rule: "no-upward-from-session/store" },
  // the turn reaches up into the controller
  { file: "src/session/turn/planted.ts", imports: "../controller/types.js", to: "src/session/controller/types.ts", rule: "no-upward-from-session/turn" },
  // the controller and the API share a level and must not lean on each other
  { file: "src/session/controller/planted.ts", imports: "../../context/api/server.js", to: "src/context/api/server.ts", rule: "no-controller-api" },
  { file: "src/context/api/planted.ts", imports: "../../session/controller/types.js", to: "src/session/controller/types.ts", rule: "no-api-controller" },
  // so must the store and the MCP servers
  { file: "src/extensions/planted.ts", imports: "../session/store/types.js", to: "src/session/store/types.ts", rule: "no-store-extensions" },
  // the checkpoints sit below the turn that uses them, beside the store, leaning on neither
  { file: "src/session/checkpoints/planted-turn.ts", imports: "../turn/events.js", to: "src/session/turn/events.ts", rule: "no-upward-from-session/checkpoints" },
  { file: "src/session/checkpoints/planted-store.ts", imports: "../store/types.js", to: "src/session/store/types.ts", rule: "no-store-extensions" },
  // the leaf of terminal text imports nothing of the project
  { file: "src/text/planted.ts", imports: "../record/errors.js", to: "src/record/errors.ts", rule: "no-upward-from-text" },
];

describe("the import rules", () => {
  let copy = "";

  beforeAll(async () => {
    copy = await tempDir("albedo-import-rules-");
    await fs.cp(path.join(ROOT, "src"), path.join(copy, "src"), { recursive: true });
    for (const f of [".dependency-cruiser.cjs", "tsconfig.json"]) await fs.copyFile(path.join(ROOT, f), path.join(copy, f));
    // the package rules (sqlite3, blessed, undici) resolve packages as the tree does
    await fs.symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
    for (const p of PLANTS) await fs.writeFile(path.join(copy, p.file), `export * from "${p.imports}";\n`);
    await fs.writeFile(path.join(copy, "src/context/planted-sqlite.ts"), `export * from "sqlite3";\n`);
  });

  afterAll(async () => {
    if (copy) await fs.rm(copy, { recursive: true, force: true });
  });

  it("the real tree passes", () => {
    const r = cruise(ROOT);
    expect(r.violations).toEqual([]);
    expect(r.output).toContain("no dependency violations found");
    expect(r.status, r.output).toBe(0);
  });

  it("fails every planted upward import, naming the rule it breaks", () => {
    const r = cruise(copy);
    expect(r.status, r.output).not.toBe(0);
    for (const p of PLANTS) {
      const hit = r.violations.filter((v) => v.from === p.file && v.to === p.to).map((v) => v.rule);
      expect(hit, `${p.file} -> ${p.to}`).toContain(p.rule);
    }
    const sqlite = r.violations.filter((v) => v.from === "src/context/planted-sqlite.ts").map((v) => v.rule);
    expect(sqlite).toContain("sqlite-only-in-store");
    // nothing but the plants is flagged
    const planted = new Set([...PLANTS.map((p) => p.file), "src/context/planted-sqlite.ts"]);
    expect(r.violations.filter((v) => !planted.has(v.from))).toEqual([]);
  });
});
