// A pattern from the model that takes exponential time: grep's regex
// and glob's extglobs run in a worker, so the process stays responsive, the time limit
// ends a runaway search with a clear error, and aborting (Esc) ends it at once.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REGEX_TIME_LIMIT_MS } from "../../src/tools/search-worker.js";
import { removeTempFolders, tempFolder } from "./tools-fixture.js";
import { call, contextFor } from "./tools-boundary-fixture.js";

let ws: string;
/** ^(a+)+$ backtracks 2^40 ways on this line before it fails */
const EVIL_LINE = "a".repeat(40) + "!";
/** an extglob picomatch compiles to nested stars; a long name of a's makes it explode */
const EVIL_GLOB = "*(a)*(a)*(a)*(a)*(a)*(a)*(a)*(a)b";

beforeAll(async () => {
  ws = await tempFolder("albedo-regex-");
  await fs.writeFile(path.join(ws, "a.txt"), `aaa\n${EVIL_LINE}\n`);
  await fs.writeFile(path.join(ws, "a".repeat(200)), "x\n");
});
afterAll(removeTempFolders);

/** Counts event-loop turns while `p` runs: a blocked loop counts none. */
async function ticksDuring<T>(p: Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  try {
    return { value: await p, ticks };
  } finally {
    clearInterval(timer);
  }
}

/** Resolves after the event loop has turned `n` times (proof it is not blocked), then aborts. */
function abortAfterTicks(controller: AbortController, n: number): Promise<number> {
  return new Promise((resolve) => {
    let ticks = 0;
    const timer = setInterval(() => {
      if (++ticks < n) return;
      clearInterval(timer);
      controller.abort();
      resolve(ticks);
    }, 20);
  });
}

describe("grep with a catastrophic regex", () => {
  it(
    "stops at the time limit with an error naming it, keeps the matches found, and the loop keeps turning",
    async () => {
      const { ctx } = contextFor(ws, "ask");
      const { value: r, ticks } = await ticksDuring(call("grep", { pattern: "^(a+)+$" }, ctx));
      expect(r.isError).toBe(true);
      expect(r.output).toBe(
        [
          `grep stopped: the regular expression ran for over ${REGEX_TIME_LIMIT_MS / 1000} s on a.txt without finishing. ` +
            "Nested repetition such as (a+)+ or (a|a)* can take exponential time; simplify the pattern.",
          "Matches found before it stopped (0 file(s) searched in full):",
          "a.txt:1: aaa",
        ].join("\n"),
      );
      // the 20 ms timer ran all through the search (a frozen loop would count 0)
      expect(ticks).toBeGreaterThan(5);
    },
    60_000,
  );

  it("ends at once when the signal aborts (Esc)", async () => {
    const controller = new AbortController();
    const { ctx } = contextFor(ws, "ask", () => "deny", controller.signal);
    const [r, ticks] = await Promise.all([call("grep", { pattern: "^(a+)+$", glob: "*.txt" }, ctx), abortAfterTicks(controller, 5)]);
    expect(ticks).toBe(5);
    expect(r).toEqual({ output: "interrupted", isError: true });
  }, 30_000);
});

describe("glob and grep with a catastrophic extglob", () => {
  it("glob keeps the loop turning and ends when aborted", async () => {
    const controller = new AbortController();
    const { ctx } = contextFor(ws, "read-only", () => "deny", controller.signal);
    const [r, ticks] = await Promise.all([call("glob", { pattern: EVIL_GLOB }, ctx), abortAfterTicks(controller, 5)]);
    expect(ticks).toBe(5);
    expect(r).toEqual({ output: "interrupted", isError: true });
  }, 30_000);

  it("grep's glob too", async () => {
    const controller = new AbortController();
    const { ctx } = contextFor(ws, "read-only", () => "deny", controller.signal);
    const [r, ticks] = await Promise.all([call("grep", { pattern: "x", glob: EVIL_GLOB }, ctx), abortAfterTicks(controller, 5)]);
    expect(ticks).toBe(5);
    expect(r).toEqual({ output: "interrupted", isError: true });
  }, 30_000);
});

describe("an ordinary search", () => {
  it("is not slowed into an error by the worker", async () => {
    const r = await call("grep", { pattern: "^a+$" }, contextFor(ws, "read-only").ctx);
    expect(r).toEqual({ output: "a.txt:1: aaa", isError: false });
  });
});
