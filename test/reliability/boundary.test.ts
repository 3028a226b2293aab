// The workspace boundary of the file tools: every spelling a glob pattern can use
// to climb out, every kind of link that leads out, and links swapped by a second process
// while reads run, through the real tools (runTool, as the turn calls it) in read-only and
// ask modes, and once end to end through the built CLI against the fake provider. Also the
// bound on a runaway regex: a clear error at the time limit, a responsive process, and an
// abort that ends it.
import { afterAll, beforeAll, expect } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import type { PermissionPolicy } from "../../src/tools/types.js";
import { REGEX_TIME_LIMIT_MS } from "../../src/tools/search-worker.js";
import { call, contentEscapes, contextFor, escapeForms, escapesIn, makeLayout, OUTSIDE_FILE, OUTSIDE_MARK, startSwapper, type Layout } from "../unit/tools-boundary-fixture.js";
import { removeTempFolders } from "../unit/tools-fixture.js";
import { anthropicArgs, readRecord, removeHomes, Tally, writeFigures } from "./lib.js";

const POLICIES: PermissionPolicy[] = ["read-only", "ask"];
const KEY = "sk-ant-boundary-SECRET-4d3c2b1a";
const RACING_READS = 1500;

let l: Layout;
let fake: FakeProvider;
const homes: Home[] = [];
const tally = new Tally();
/** calls tried: each form through each tool and mode */
let formsTried = 0;
/** the distinct forms among them (a pattern spelling or a link call) */
const distinct = new Set<string>();
const escapes: string[] = [];
let racingReadsTried = 0;
let racingEscapes = 0;
let regexBound = { stopped: false, responsive: false, aborted: false };

beforeAll(async () => {
  l = await makeLayout();
  fake = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await fake?.close();
  await writeFigures("boundary", {
    ...tally.figures(),
    formsTried,
    distinctForms: distinct.size,
    escaped: escapes.length,
    escapes,
    regexBoundHeld: regexBound.stopped && regexBound.responsive && regexBound.aborted,
    racingReadsTried,
    racingEscapes,
  });
  await removeHomes(homes);
  await removeTempFolders();
});

/** Everything under outside/, with contents: no call may change it. */
async function outsideSnapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(e.parentPath, e.name);
    out[path.relative(dir, full)] = e.isFile() ? await fs.readFile(full, "utf8") : e.isDirectory() ? "(dir)" : "(other)";
  }
  return out;
}

tally.it(
  "pattern forms: glob and grep list and read nothing outside, in read-only and ask modes",
  async () => {
    const found: string[] = [];
    for (const policy of POLICIES) {
      for (const f of escapeForms(l)) {
        for (const [tool, input] of [
          ["glob", { pattern: f.pattern }],
          ["grep", { pattern: "SECRET|inside", glob: f.pattern }],
        ] as const) {
          formsTried++;
          distinct.add(`pattern ${f.pattern}`);
          const { ctx, asked } = contextFor(l.ws, policy);
          const r = await call(tool, input, ctx);
          for (const e of await escapesIn(r, l)) found.push(`${policy} ${tool} ${f.pattern}: ${e}`);
          if (asked.length > 0) found.push(`${policy} ${tool} ${f.pattern}: asked a person about an inside search`);
        }
      }
    }
    escapes.push(...found);
    expect(found).toEqual([]);
  },
  120_000,
);

tally.it(
  "link forms: links to files and folders outside, dangling and chained, through every file tool",
  async () => {
    // more links of the kinds a hostile repository ships
    await fs.symlink(path.join(l.outside, "not-yet.txt"), path.join(l.ws, "dangling"));
    await fs.symlink("linkfile.txt", path.join(l.ws, "chain"));
    await fs.symlink("../outside", path.join(l.ws, "relup"));
    const before = await outsideSnapshot(l.outside);
    const calls: [string, unknown][] = [
      ["read", { path: "linkfile.txt" }],
      ["read", { path: "chain" }],
      ["read", { path: `linkdir/${OUTSIDE_FILE}` }],
      ["read", { path: `relup/${OUTSIDE_FILE}` }],
      ["read", { path: `../outside/${OUTSIDE_FILE}` }],
      ["read", { path: path.join(l.outside, OUTSIDE_FILE) }],
      ["read", { path: "dangling" }],
      ["ls", { path: "linkdir" }],
      ["ls", { path: "relup" }],
      ["glob", { pattern: "*", path: "linkdir" }],
      ["glob", { pattern: "**/*" }],
      ["glob", { pattern: "relup/*" }],
      ["grep", { pattern: "SECRET", path: "linkdir" }],
      ["grep", { pattern: "SECRET", path: "chain" }],
      ["grep", { pattern: "SECRET" }],
      ["grep", { pattern: "SECRET", glob: "relup/*" }],
      ["write", { path: "dangling", content: "x" }],
      ["write", { path: "linkdir/new.txt", content: "x" }],
      ["write", { path: "linkfile.txt", content: "x" }],
      ["edit", { path: "linkfile.txt", old_string: OUTSIDE_MARK, new_string: "changed" }],
      ["edit", { path: "relup/sub/x.txt", old_string: OUTSIDE_MARK, new_string: "changed" }],
    ];
    const found: string[] = [];
    for (const policy of POLICIES) {
      for (const [tool, input] of calls) {
        formsTried++;
        distinct.add(`${tool} ${JSON.stringify(input)}`);
        const r = await call(tool, input, contextFor(l.ws, policy).ctx);
        for (const e of await escapesIn(r, l)) found.push(`${policy} ${tool} ${JSON.stringify(input)}: ${e}`);
      }
    }
    const after = await outsideSnapshot(l.outside);
    if (JSON.stringify(after) !== JSON.stringify(before)) found.push(`the outside folder changed: ${JSON.stringify(after)}`);
    escapes.push(...found);
    expect(found).toEqual([]);
  },
  120_000,
);

tally.it(
  "end to end: the model's escaping globs through the built CLI reach neither the model nor the record",
  async () => {
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
    homes.push(h);
    const outside = path.join(h.root, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, OUTSIDE_FILE), `${OUTSIDE_MARK}\n`);
    await fs.writeFile(path.join(h.workspace, "in.txt"), "inside text\n");
    await fs.symlink(outside, path.join(h.workspace, "linkdir"));
    const patterns = [".\\./outside/*", "\\.\\./outside/*", "@(..)/outside/*", "[.][.]/outside/*", "linkdir/*", `${outside}/*`];
    for (const policy of POLICIES) {
      fake.script(
        {
          toolCalls: patterns.flatMap((p) => [
            { name: "glob", input: { pattern: p } },
            { name: "grep", input: { pattern: "SECRET", glob: p } },
          ]),
        },
        { text: "Looked." },
      );
      formsTried += patterns.length * 2;
      const n = fake.requests.length;
      const r = await runCli(["-p", "look around", "--permission", policy, ...anthropicArgs(fake)], h);
      expect(r.code, r.stderr).toBe(0);
      const sent = fake.requests.slice(n).map((q) => q.rawBody).join("");
      const record = JSON.stringify((await readRecord(h.db)).messages);
      for (const [where, text] of [
        ["requests", sent],
        ["record", record],
        ["output", r.stdout + r.stderr],
      ] as const) {
        if (text.includes(OUTSIDE_MARK) || text.includes(OUTSIDE_FILE)) escapes.push(`${policy} CLI: the outside file reached the ${where}`);
      }
    }
    expect(escapes.filter((e) => e.includes("CLI"))).toEqual([]);
  },
  120_000,
);

tally.it(
  `racing reads: ${RACING_READS} reads while a second process swaps links, none shows the outside file`,
  async () => {
    await fs.writeFile(path.join(l.ws, "target.txt"), "inside-line\n");
    await fs.symlink("target.txt", path.join(l.ws, "flip"));
    await fs.mkdir(path.join(l.ws, "d"));
    await fs.writeFile(path.join(l.ws, "d", "x.txt"), "inside-line\n");
    await fs.writeFile(path.join(l.outside, "target.txt"), `inside-line ${OUTSIDE_MARK}\n`);
    const swappers = [
      {
        start: () => startSwapper({ kind: "flip-link", at: path.join(l.ws, "flip"), a: path.join(l.ws, "target.txt"), b: path.join(l.outside, "target.txt") }),
        path: "flip",
      },
      { start: () => startSwapper({ kind: "swap-dir", dir: path.join(l.ws, "d"), to: path.join(l.outside, "sub") }), path: "d/x.txt" },
    ];
    const perRun = RACING_READS / (swappers.length * POLICIES.length);
    for (const s of swappers) {
      for (const policy of POLICIES) {
        const swapper = await s.start();
        try {
          for (let k = 0; k < perRun; k++) {
            racingReadsTried++;
            const r = await call("read", { path: s.path }, contextFor(l.ws, policy).ctx);
            if (contentEscapes(r).length > 0) racingEscapes++;
          }
        } finally {
          expect(await swapper.stop()).toBeGreaterThan(0);
        }
      }
    }
    expect(racingEscapes).toBe(0);
  },
  180_000,
);

tally.it(
  "runaway regex: ^(a+)+$ over 40 a's and a ! stops at the time limit with the loop turning, and an abort ends it",
  async () => {
    const evil = path.join(l.ws, "evil");
    await fs.mkdir(evil);
    await fs.writeFile(path.join(evil, "a.txt"), "a".repeat(40) + "!\n");
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const r = await call("grep", { pattern: "^(a+)+$", path: "evil" }, contextFor(l.ws, "ask").ctx).finally(() => clearInterval(timer));
    regexBound.stopped = r.isError && r.output.startsWith(`grep stopped: the regular expression ran for over ${REGEX_TIME_LIMIT_MS / 1000} s on evil/a.txt`);
    regexBound.responsive = ticks > 5;

    const controller = new AbortController();
    const aborting = new Promise<void>((resolve) => {
      let n = 0;
      const t = setInterval(() => {
        if (++n < 5) return;
        clearInterval(t);
        controller.abort();
        resolve();
      }, 20);
    });
    const [r2] = await Promise.all([call("grep", { pattern: "^(a+)+$", path: "evil" }, contextFor(l.ws, "ask", () => "deny", controller.signal).ctx), aborting]);
    regexBound.aborted = r2.output === "interrupted";
    expect(regexBound).toEqual({ stopped: true, responsive: true, aborted: true });
  },
  60_000,
);
