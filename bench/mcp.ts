// Issue 18's figure: start-up to the first usable frame with two MCP servers configured
// (server-everything over stdio, twice) against the same start-up with none, in alternating
// rounds of fresh homes, through the real program in a pseudo-terminal. The servers start
// after that frame, so the target is within 5%. Also: when both servers' tools are listed by
// the transcript (how long after the frame they are ready), for the record.
import fs from "node:fs/promises";
import path from "node:path";
import { CLI, PtyRun, ROOT, benchHome, fmtMs, median, removeDir, type BenchHome, type Row, type ScreenTest } from "./lib.js";
import { MODEL } from "./tui.js";

const NODE = process.execPath;
const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
// the same first-usable-frame test as the start-up benchmark (bench/tui.ts)
const USABLE: ScreenTest = (s) => /^›/m.test(s) && (/^\s*starting…/m.test(s) || /^\s*idle · .*claude-sonnet-4-5/m.test(s));
const READY: ScreenTest = (s) => /^›/m.test(s) && /^\s*idle · .*claude-sonnet-4-5/m.test(s);

async function withServers(home: BenchHome): Promise<void> {
  const dir = path.join(home.root, "config", "albedo");
  await fs.mkdir(dir, { recursive: true });
  const entry = { command: NODE, args: [EVERYTHING, "stdio"] };
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ mcpServers: { one: entry, two: entry } }));
}

function start(home: BenchHome): PtyRun {
  return new PtyRun({
    file: NODE,
    args: [CLI, "--db", home.db, "--workspace", home.workspace, "--provider", "anthropic", "--model", MODEL],
    cwd: home.workspace,
    env: home.env,
  });
}

export async function benchMcp(quick: boolean): Promise<Row[]> {
  const runs = quick ? 2 : 9;
  const none: number[] = [];
  const two: number[] = [];
  const toolsReady: number[] = [];
  // round 0 warms the file cache (and the SDK's modules) and is not counted
  for (let i = 0; i < runs + 1; i++) {
    for (const servers of i % 2 === 0 ? [false, true] : [true, false]) {
      const home = await benchHome();
      if (servers) await withServers(home);
      const a = start(home);
      try {
        const t = await a.waitFor(USABLE, 20_000, "the first usable frame");
        if (servers) {
          await a.waitFor(READY, 20_000, "the session");
          // each server says so in the transcript when its tools are there
          const r = await a.waitFor((s) => /MCP server one ready: \d+ tools/.test(s) && /MCP server two ready: \d+ tools/.test(s), 30_000, "both servers ready");
          if (i > 0) toolsReady.push(r - a.spawnedAt);
        }
        if (i > 0) (servers ? two : none).push(t - a.spawnedAt);
      } finally {
        await a.stop();
        await removeDir(home.root);
      }
    }
  }
  const ratio = median(two.map((x, i) => x / none[i]!));
  return [
    {
      benchmark: "first usable frame, 2 MCP servers vs none",
      albedo: `${fmtMs(median(two))} with 2 servers`,
      floor: `${fmtMs(median(none))} with none`,
      ratio,
      target: "≤ 1.05×",
      met: ratio <= 1.05,
      raw: { runs, twoServersMs: two, noServersMs: none },
      note: "servers start after the first frame; the SDK is imported only then",
    },
    {
      benchmark: "2 MCP servers ready (from spawn)",
      albedo: fmtMs(median(toolsReady)),
      floor: "—",
      ratio: null,
      target: "— (none in issue 18)",
      met: null,
      raw: { runs, readyMs: toolsReady },
    },
  ];
}
