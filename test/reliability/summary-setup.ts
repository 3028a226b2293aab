// Global setup of the test run: gives the run a folder for the reliability figures before any
// file starts, and after the last file has finished gathers what the reliability files wrote
// into one table, printed in the CI log and kept in test/reliability/last-run.json (ignored by
// git). Test files run in parallel workers, so each writes its own figures file; only this hook
// sees them all. The folder is per run (handed to the workers with provide/inject) so that two
// test runs in one checkout never clear or mix each other's figures.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIGURES_ROOT = path.join(HERE, ".figures");
const LAST_RUN = path.join(HERE, "last-run.json");
/** a run folder this old belongs to a run that died without its teardown */
const STALE_MS = 60 * 60 * 1000;

declare module "vitest" {
  export interface ProvidedContext {
    reliabilityFiguresDir: string;
  }
}

type Figures = Record<string, unknown>;

let runDir = "";

export function setup(project: TestProject): void {
  fs.mkdirSync(FIGURES_ROOT, { recursive: true });
  for (const d of fs.readdirSync(FIGURES_ROOT)) {
    const p = path.join(FIGURES_ROOT, d);
    try {
      if (Date.now() - fs.statSync(p).mtimeMs > STALE_MS) fs.rmSync(p, { recursive: true, force: true });
    } catch {
      // another run removed it meanwhile
    }
  }
  runDir = fs.mkdtempSync(path.join(FIGURES_ROOT, "run-"));
  project.provide("reliabilityFiguresDir", runDir);
}

function read(name: string): Figures | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(runDir, `${name}.json`), "utf8")) as Figures;
  } catch {
    return undefined;
  }
}

const num = (x: unknown): number => (typeof x === "number" ? x : 0);

/** "start 11, list 2, …": the MCP failure cases by the moment of a server's life they hit */
function momentsOf(x: Figures): string {
  const m = (x.moments ?? {}) as Record<string, unknown>;
  return ["start", "list", "call", "reload", "exit"].map((k) => `${k} ${num(m[k])}`).join(", ");
}

interface Trap {
  trap: string;
  held: boolean;
  nextTurnWorks: boolean;
  messagesLost: number;
  detail?: string;
}

/** Every traps-*.json of the run (lib.ts, writeTraps), in file order. */
function readTraps(): Trap[] {
  let names: string[];
  try {
    names = fs.readdirSync(runDir).filter((n) => /^traps-.+\.json$/.test(n)).sort();
  } catch {
    return [];
  }
  const out: Trap[] = [];
  for (const n of names) {
    const f = read(n.slice(0, -".json".length));
    if (Array.isArray(f?.traps)) out.push(...(f.traps as Trap[]));
  }
  return out;
}

export function teardown(): void {
  const f = {
    kills: read("kills"),
    faults: read("faults"),
    badInput: read("bad-input"),
    hostile: read("hostile-output"),
    api: read("api-attack"),
    apiHost: read("api-host"),
    secrets: read("secrets"),
    boundary: read("boundary"),
    autoReads: read("auto-reads"),
    streamBound: read("stream-bound"),
    processes: read("processes"),
    io: read("io-boundary"),
    mcpSecrets: read("mcp-secrets"),
    mcpFailures: read("mcp-failures"),
    twoWindows: read("two-windows"),
    rewindHostile: read("rewind-hostile"),
    sandbox: read("sandbox-escape"),
  };
  const traps = readTraps();
  fs.rmSync(runDir, { recursive: true, force: true });
  if (Object.values(f).every((x) => x === undefined) && traps.length === 0) return; // no reliability file ran
  const notRun = "not run";
  const held = (x: Figures | undefined): string => (x ? `${num(x.held)}/${num(x.tried)}` : notRun);
  const secretsFound = Object.values(f).reduce((a, x) => a + num(x?.secretsFound), 0);
  const k = f.kills;
  const a = f.api;
  const rows: [string, string][] = [
    ["kills survived", k ? `${num(k.survived)}/${num(k.runs)} (seed ${String(k.seed)})` : notRun],
    ["complete messages lost", k ? String(num(k.messagesLost)) : notRun],
    [
      "max streamed chars lost per kill",
      k ? `${num(k.maxCharsLost)} (${num(k.maxSecondsLost)} s at ${num(k.charsPerSecond)} chars/s; bound ${num(k.lossBoundChars)})` : notRun,
    ],
    ["next requests rejected", k ? String(num(k.rejected)) : notRun],
    ["provider faults held", held(f.faults)],
    ["bad inputs held", held(f.badInput)],
    ["hostile sequences leaked", f.hostile ? `${num(f.hostile.sequencesLeaked)} of ${num(f.hostile.sequencesTried)} kinds (${held(f.hostile)} checks held)` : notRun],
    ["API concurrent GETs answered", a ? `${num(a.concurrentAnswered)}/${num(a.concurrentGets)} (stream drew ${num(a.streamWordsDuringBurst)} words meanwhile)` : notRun],
    [
      "API malformed requests rejected",
      a
        ? `${num(a.malformedRejected4xx) + num(a.malformedDropped)}/${num(a.malformed)} (${num(a.malformedRejected4xx)} 4xx, ${num(a.malformedDropped)} dropped; ${num(a.halfRequestsCutOff)} half requests cut off)`
        : notRun,
    ],
    [
      "API foreign Host / Origin refused",
      f.apiHost ? `${num(f.apiHost.hostsRefused)}/${num(f.apiHost.hostsTried)} / ${num(f.apiHost.originsRefused)}/${num(f.apiHost.originsTried)}` : notRun,
    ],
    ["API database unchanged / loopback only", a ? `${a.dbUnchanged === true ? "yes" : "NO"} / ${a.loopbackOnly === true ? "yes" : "NO"}` : notRun],
    [
      "boundary escapes (glob/grep/read/write forms)",
      f.boundary
        ? `${num(f.boundary.escaped)} of ${num(f.boundary.formsTried)} forms; racing links ${num(f.boundary.racingEscapes)} of ${num(f.boundary.racingReadsTried)} reads`
        : notRun,
    ],
    ["regex time bound held", f.boundary ? (f.boundary.regexBoundHeld === true ? "yes" : "NO") : notRun],
    ["automatic reads outside the workspace", f.autoReads ? `${num(f.autoReads.outsideReads)} of ${num(f.autoReads.formsTried)} hostile forms` : notRun],
    [
      "stream bound held (one 100 MB event)",
      f.streamBound
        ? `${f.streamBound.held === true ? "yes" : "NO"}: peak ${num(f.streamBound.peakRssMb)} MB, ${num(f.streamBound.storedBytes)} bytes stored of ${num(f.streamBound.eventBytes)} sent`
        : notRun,
    ],
    ["processes left after the agent exits", f.processes ? `${num(f.processes.left)} (${num(f.processes.tried)} exit paths × background forms)` : notRun],
    [
      "store faults named / start files refused",
      f.io ? `${num(f.io.storeFaultsNamed)}/${num(f.io.storeFaultsTried)} / ${num(f.io.startFilesRefused)}/${num(f.io.startFilesTried)}` : notRun,
    ],
    [
      "MCP server failure moments tried / agent crashes",
      f.mcpFailures ? `${num(f.mcpFailures.momentsTried)} (${momentsOf(f.mcpFailures)}; ${held(f.mcpFailures)} held) / ${num(f.mcpFailures.agentCrashes)}` : notRun,
    ],
    ["keys in the agent's /proc environ / loose file modes left", f.io ? `${num(f.io.keysInEnviron)} of ${num(f.io.environsRead)} read / ${num(f.io.looseModesLeft)}` : notRun],
    [
      "MCP secrets found in requests/records/pages",
      f.mcpSecrets ? `${num(f.mcpSecrets.secretsFound)} (${num(f.mcpSecrets.secrets)} secrets and their pieces, ${num(f.mcpSecrets.placesChecked)} places checked)` : notRun,
    ],
    ...traps.map((t): [string, string] => [
      `trap: ${t.trap}`,
      `${t.held ? "held" : "NOT HELD"}: next turn ${t.nextTurnWorks ? "works" : "FAILS"}, ${num(t.messagesLost)} stored messages lost${t.detail ? ` (${t.detail})` : ""}`,
    ]),
    [
      "hostile repository rewound: paths put back / named as not restorable",
      f.rewindHostile ? `${num(f.rewindHostile.restored)} / ${num(f.rewindHostile.named)} (${held(f.rewindHostile)} checks held)` : notRun,
    ],
    ["sandbox escape forms tried / escaped", f.sandbox ? `${num(f.sandbox.formsTried)} / ${num(f.sandbox.escaped)}` : notRun],
    ["user-shell variables readable by a sandboxed command", f.sandbox ? `${num(f.sandbox.shellVarsReadable)} (${num(f.sandbox.shellVarRoutes)} routes tried)` : notRun],
    ["secrets found", `${secretsFound}${f.secrets ? ` (${num(f.secrets.placesScanned)} outputs and every file of every home scanned)` : ""}`],
  ];
  const w = Math.max(...rows.map(([n]) => n.length));
  const line = "─".repeat(w + 2) + "┼" + "─".repeat(Math.max(...rows.map(([, v]) => v.length)) + 2);
  const text = [
    "",
    "Reliability figures",
    line,
    ...rows.map(([n, v]) => ` ${n.padEnd(w)} │ ${v}`),
    line,
    "",
  ].join("\n");
  process.stdout.write(text + "\n");
  fs.writeFileSync(
    LAST_RUN,
    JSON.stringify({ finishedAt: new Date().toISOString(), table: Object.fromEntries(rows), figures: { ...f, traps } }, null, 2) + "\n",
  );
}
