import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // clears the reliability figures before the run and prints their table after it
    // and gives the run one private folder for the CLI's code cache (test/helpers/cli.ts)
    globalSetup: ["test/reliability/summary-setup.ts", "test/helpers/code-cache-setup.ts"],
    // the JSON file lets .ci/run print the plain "N passed, N failed" line CI reads
    reporters: ["default", ["json", { outputFile: ".vitest-results.json" }]],
  },
});
