// Shared by the boundary tests and the reliability file: a workspace with a world outside it,
// the spellings a glob pattern can use to climb out, and a real child process that swaps
// links while the tools run (a race needs a second process: the tools only yield at awaits).
import fs from "node:fs/promises";
import path from "node:path";
import { spawn } from "node:child_process";
import type { PermissionAnswer, PermissionPolicy, PermissionRequest, ToolContext } from "../../src/tools/types.js";
import { builtinTools, PermissionMemory, runTool } from "../../src/tools/run.js";
import type { ToolOutput } from "../../src/tools/types.js";
import { tempFolder } from "./tools-fixture.js";

/** in every outside file; no tool output may ever hold it */
export const OUTSIDE_MARK = "SECRET-OUTSIDE-5e1f";
/** the outside file's name, unlike any inside name */
export const OUTSIDE_FILE = "outside-only-5e1f.txt";

export interface Layout {
  root: string;
  /** root/a/b/ws: deep enough for ".\\./.\\./b/outside" */
  ws: string;
  /** root/a/b/outside, a sibling of the workspace */
  outside: string;
}

/**
 * ws/sub/x.txt and ws/in.txt (inside); ws/linkdir -> outside; ws/linkfile.txt -> the
 * outside file; ws/alias -> sub (a link that stays inside); outside/OUTSIDE_FILE and
 * outside/sub/x.txt (the same relative names as inside, for patterns that climb).
 */
export async function makeLayout(): Promise<Layout> {
  const root = await tempFolder("albedo-boundary-");
  const ws = path.join(root, "a", "b", "ws");
  const outside = path.join(root, "a", "b", "outside");
  await fs.mkdir(path.join(ws, "sub"), { recursive: true });
  await fs.mkdir(path.join(outside, "sub"), { recursive: true });
  await fs.writeFile(path.join(outside, OUTSIDE_FILE), `${OUTSIDE_MARK}\n`);
  await fs.writeFile(path.join(outside, "sub", "x.txt"), `${OUTSIDE_MARK} in sub\n`);
  await fs.writeFile(path.join(ws, "in.txt"), "inside text\n");
  await fs.writeFile(path.join(ws, "sub", "x.txt"), "inside sub text\n");
  await fs.symlink(outside, path.join(ws, "linkdir"));
  await fs.symlink(path.join(outside, OUTSIDE_FILE), path.join(ws, "linkfile.txt"));
  await fs.symlink("sub", path.join(ws, "alias"));
  return { root, ws, outside };
}

export interface Form {
  pattern: string;
  /** the glob engine reads it as leaving the folder: it must be refused with an error */
  refused: boolean;
}

/** Every spelling of "go up" or "go elsewhere" a pattern can use (relative to ws). */
export function escapeForms(l: Layout): Form[] {
  return [
    { pattern: `.\\./outside/*`, refused: true },
    { pattern: `\\.\\./outside/*`, refused: true },
    { pattern: `.\\./.\\./b/outside/*`, refused: true },
    { pattern: `.\\./outside/${OUTSIDE_FILE}`, refused: true },
    { pattern: `@(..)/outside/*`, refused: true },
    { pattern: `[.][.]/outside/*`, refused: true },
    { pattern: `[.]./outside/*`, refused: true },
    { pattern: `.[.]/outside/*`, refused: true },
    { pattern: `./../outside/*`, refused: true },
    { pattern: `../outside/*`, refused: true },
    { pattern: `sub/../../outside/*`, refused: true },
    { pattern: `~/*`, refused: true },
    { pattern: `/etc/*`, refused: true },
    { pattern: `${l.outside}/*`, refused: true },
    { pattern: `\\/etc/*`, refused: true },
    { pattern: `linkdir/*`, refused: true },
    { pattern: `linkdir/sub/x.txt`, refused: true },
    // the engine does not read these as "..", so they find nothing; they must still not escape
    { pattern: `{..}/outside/*`, refused: false },
    { pattern: `{..,x}/outside/*`, refused: false },
    { pattern: `{../outside/*,x}`, refused: false },
    { pattern: `*(.)/outside/*`, refused: false },
    { pattern: `linkfile.txt`, refused: false },
    // a link is not descended unless the pattern names it as a plain folder
    { pattern: `linkdir/**`, refused: false },
    { pattern: `{linkdir,sub}/*`, refused: false },
    { pattern: `**/${OUTSIDE_FILE}`, refused: false },
    { pattern: `**/*`, refused: false },
  ];
}

/** A context for one call: `answer` decides each prompt (default: deny). */
export function contextFor(
  ws: string,
  policy: PermissionPolicy,
  answer: (req: PermissionRequest) => PermissionAnswer = () => "deny",
  signal: AbortSignal = new AbortController().signal,
): { ctx: ToolContext; asked: PermissionRequest[] } {
  const asked: PermissionRequest[] = [];
  const ctx: ToolContext = {
    workspace: ws,
    policy,
    signal,
    askPermission: async (req) => {
      asked.push(req);
      return answer(req);
    },
  };
  return { ctx, asked };
}

const tools = builtinTools();
export function call(name: string, input: unknown, ctx: ToolContext): Promise<ToolOutput> {
  return runTool(tools, name, input, ctx, new PermissionMemory());
}

/** For races: only content counts. A listed name is checked by escapesIn, which resolves
 * it later; while links are being swapped that would judge the name at another moment. */
export function contentEscapes(out: ToolOutput): string[] {
  return out.output.includes(OUTSIDE_MARK) ? [`holds ${OUTSIDE_MARK}: ${out.output.slice(0, 200)}`] : [];
}

/**
 * What in an output came from outside: the mark, or a listed path whose real location is
 * outside the workspace. Empty when the output stayed in.
 */
export async function escapesIn(out: ToolOutput, l: Layout): Promise<string[]> {
  const found: string[] = [];
  if (out.output.includes(OUTSIDE_MARK)) found.push(`holds ${OUTSIDE_MARK}`);
  for (const line of out.output.split("\n")) {
    const name = line.split(":")[0]!;
    if (name === "" || line.startsWith("[") || / /.test(name)) continue; // notes and sentences
    const real = await fs.realpath(path.resolve(l.ws, name)).catch(() => undefined);
    if (real !== undefined && !(real === l.ws || real.startsWith(`${l.ws}/`))) found.push(`lists ${name} (${real})`);
  }
  return found;
}

export type SwapMode =
  /** `at` is a link, flipped atomically between `a` and `b` */
  | { kind: "flip-link"; at: string; a: string; b: string }
  /** `dir` is a real folder, replaced for a moment by a link to `to` (two renames) */
  | { kind: "swap-dir"; dir: string; to: string };

const SWAPPER = `
const fs = require("node:fs");
const [kind, x, y, z] = process.argv.slice(1);
let swaps = 0;
process.on("SIGTERM", () => { process.stdout.write(String(swaps)); process.exit(0); });
const quiet = (f) => { try { f(); } catch {} };
function flip() {
  const tmp = x + ".swap";
  quiet(() => fs.unlinkSync(tmp));
  quiet(() => fs.symlinkSync(swaps % 2 ? y : z, tmp));
  quiet(() => fs.renameSync(tmp, x));
}
function swapDir() {
  quiet(() => fs.renameSync(x, x + ".held"));
  quiet(() => fs.symlinkSync(y, x));
  quiet(() => fs.unlinkSync(x));
  quiet(() => fs.renameSync(x + ".held", x));
}
(function chunk() {
  for (let k = 0; k < 200; k++) { kind === "flip-link" ? flip() : swapDir(); swaps++; }
  if (swaps === 200) process.stdout.write("swapping\\n");
  setImmediate(chunk);
})();
`;

/**
 * A child process swapping links until stop(), which returns how many swaps it made.
 * Resolves once the child is swapping, so no racing call can finish before the race starts.
 */
export async function startSwapper(mode: SwapMode): Promise<{ stop(): Promise<number> }> {
  const args = mode.kind === "flip-link" ? [mode.kind, mode.at, mode.a, mode.b] : [mode.kind, mode.dir, mode.to];
  const child = spawn(process.execPath, ["-e", SWAPPER, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("swapping\n")) resolve();
    });
    void exited.then(() => reject(new Error(`the swapper exited before swapping: ${out}`)));
  });
  return {
    async stop() {
      child.kill("SIGTERM");
      await exited;
      return Number(out.slice(out.indexOf("\n") + 1)) || 0;
    },
  };
}
