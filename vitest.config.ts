import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // clears the reliability figures before the run and prints their table after it
    globalSetup: ["test/reliability/summary-setup.ts"],
    // the JSON file lets .ci/run print the plain "N passed, N failed" line CI reads
    reporters: ["default", ["json", { outputFile: ".vitest-results.json" }]],
  },
});
