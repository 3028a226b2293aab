// A hostile MCP server's secrets stay secret: a stdio server and a Streamable HTTP one (each
// test/helpers/mcp-echo-server.ts) say back everything they were given (their env values,
// argv with a `${VAR}` token in it, the request's URL with a token in its query, and its
// headers) in every field a server has: name, version, instructions, tool titles,
// descriptions, annotations, input schemas (nested), tool names, resources, prompts, results
// and errors. Through the built CLI headless against the fake provider, none of those values,
// nor a 16-character piece of one, is in any request body the provider received, any file of
// the home (the database with its WAL, the log, the state), any output, any export, any
// `context` page or any page of the local API.
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, startCli, waitUntil, allFiles, type Home } from "../helpers/cli.js";
import { ECHO, spawnHttpServer } from "../helpers/mcp-servers.js";
import { anthropicArgs, apiContextPages, localApi, readRecord, removeHomes, writeConfig, writeFigures } from "./lib.js";
import { KEY_PIECE, REDACTED } from "../../src/config/secrets.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

const KEY = "sk-ant-mcp-secrets-PROVIDER-4k9Qz7Lm2X";
const SECRETS = {
  /** the stdio server's env, from ${MY_TOKEN} */
  MY_TOKEN: "ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
  /** the stdio server's argv: "--token", "${ARG_TOKEN}", and a plain argument "${POS_ARG}" */
  ARG_TOKEN: "argtok_9xY8wV7uT6sR5qP4oN3mL2kJ1iH0gF",
  POS_ARG: "posarg_3Gh7Jk1Lm5Np9Qr2St6Vw0Xy4",
  /** the HTTP server's headers */
  HDR_TOKEN: "hdr-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5",
  HDR_KEY: "xk_Z9x8C7v6B5n4M3l2K1j0H9g8F7d6S5",
  /** the HTTP server's URL: ".../${URL_SEG}?token=${Q_TOKEN}" */
  Q_TOKEN: "qtok9F8e7D6c5B4a3Z2y1X0w9V8uT7s",
  URL_SEG: "seg_8Kp2Wq6Er0Ty4Ui9Op3As7Df1",
};
/** written in the config file as it is (a credential-named env entry) */
const LITERAL = "ghp_LiT3ralV4lu3InTheC0nfigF1le2468";
const ALL = [...Object.values(SECRETS), LITERAL, KEY];

let places = 0;
const found: string[] = [];
const homes: Home[] = [];
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await writeFigures("mcp-secrets", { secrets: ALL.length, placesChecked: places, secretsFound: found.length, found });
  await removeHomes(homes);
});

/** Each secret whole, and its first and last KEY_PIECE characters (what a cut leaves). */
function hits(label: string, text: string): string[] {
  places++;
  const out: string[] = [];
  for (const s of ALL) {
    for (const piece of [s, s.slice(0, KEY_PIECE), s.slice(-KEY_PIECE)]) {
      if (text.includes(piece)) {
        out.push(`${label} holds ${piece === s ? "" : "a piece of "}${s.slice(0, 8)}…`);
        break;
      }
    }
  }
  return out;
}

function startEchoHttp(): Promise<string> {
  const server = spawnHttpServer(ECHO, "echo");
  closers.push(server.close);
  return server.url;
}

describe("MCP secrets", () => {
  it(
    "what a hostile server says of its env, argv, URL and headers is in no request, record, output or page",
    async () => {
      const fake = await startFakeProvider({ key: KEY });
      closers.push(() => fake.close());
      const url = await startEchoHttp();
      const h = await makeHome({ ANTHROPIC_API_KEY: KEY, ...SECRETS });
      homes.push(h);
      const config = await writeConfig(h, {
        permission: "auto",
        mcpServers: {
          hostile: {
            command: process.execPath,
            args: ["--import", TSX, ECHO, "--echo-env", "SERVICE_TOKEN,GITHUB_PAT", "--token", "${ARG_TOKEN}", "${POS_ARG}"],
            env: { SERVICE_TOKEN: "${MY_TOKEN}", GITHUB_PAT: LITERAL },
          },
          web: { url: `${url}/\${URL_SEG}?token=\${Q_TOKEN}`, headers: { Authorization: "Bearer ${HDR_TOKEN}", "X-Api-Key": "${HDR_KEY}" } },
        },
      });
      const outputs: string[] = [];
      const run = async (args: string[]): Promise<string> => {
        const r = await runCli(args, h);
        outputs.push(r.stdout, r.stderr);
        expect(r.code, r.stderr).toBe(0);
        return r.stdout;
      };

      // every tool that says something, and both kinds of error
      fake.script(
        {
          toolCalls: [
            { name: "mcp__hostile__result", input: { top: "plain" } },
            { name: "mcp__hostile__fail", input: {} },
            { name: "mcp__hostile__error_result", input: {} },
            { name: "mcp__web__result", input: { top: "plain" } },
            { name: "mcp__web__fail", input: {} },
          ],
        },
        { text: "Heard them." },
      );
      expect(await run(["-p", "ask the servers", ...anthropicArgs(fake)])).toBe("Heard them.\n");
      expect(fake.rejections()).toEqual([]);
      const id = (await readRecord(h.db)).session.id;

      // the servers did say it all, and it was sent cut: their absence below means something
      const first = fake.requests[0]!.body as { tools: { name: string; description: string; input_schema: unknown }[] };
      const tool = (n: string) => first.tools.find((t) => t.name === n);
      expect(tool("mcp__hostile__result")!.description).toContain(`SERVICE_TOKEN=${REDACTED}`);
      expect(tool("mcp__hostile__result")!.description).toContain(`--token ${REDACTED} ${REDACTED}`);
      expect(JSON.stringify(tool("mcp__hostile__result")!.input_schema)).toContain(`--token ${REDACTED}`);
      expect(tool("mcp__web__result")!.description).toContain(`/${REDACTED}?token=${REDACTED}`);
      expect(tool("mcp__web__result")!.description).toContain(`Bearer ${REDACTED}`);
      // named with a secret: not offered at all, and said so without the name
      expect(first.tools.map((t) => t.name).filter((n) => /__t_|__keyed/.test(n))).toEqual([]);
      expect(outputs[1]).toContain("is not offered: its name, or a name in its input schema, holds a secret");
      expect(fake.requests[0]!.rawBody).toContain(`Instructions: env SERVICE_TOKEN=${REDACTED}`);
      const results = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
      expect(results).toContain(`you gave me env SERVICE_TOKEN=${REDACTED}`);
      expect(results).toContain("it failed on purpose");
      expect(results).toContain("an error: env");

      // the local API, read while a tool holds the next turn open
      const go = path.join(h.workspace, "go");
      fake.script({ toolCalls: [{ name: "bash", input: { command: `while [ ! -f ${go} ]; do sleep 0.05; done; echo released` } }] }, { text: "Released." });
      const live = startCli(["-p", "wait for me", "--continue", "--api", ...anthropicArgs(fake)], h);
      await waitUntil(() => live.stderr().includes("▸ bash"), 30_000, "the waiting tool");
      const pages = await apiContextPages(await localApi(live.stderr()), id);
      await fs.writeFile(go, "");
      const ended = await live.done;
      outputs.push(ended.stdout, ended.stderr);
      expect(ended.code, ended.stderr).toBe(0);
      expect(pages.join("\n")).toContain(REDACTED);

      // the shell's views of the record: exports, the inspector and every page of it
      for (const format of ["md", "json"]) outputs.push(await run(["export", id, "--format", format]));
      const summary = await run(["context", id, "--json"]);
      for (const s of (JSON.parse(summary) as { sections: { index: number; pages: number }[] }).sections) {
        for (let p = 0; p < s.pages; p++) outputs.push(await run(["context", id, "--section", String(s.index + 1), "--page", String(p + 1)]));
      }

      const all: string[] = [];
      for (const [i, r] of fake.requests.entries()) all.push(...hits(`request #${i}`, r.rawBody));
      for (const [i, p] of pages.entries()) all.push(...hits(`API page #${i}`, p));
      for (const [i, o] of outputs.entries()) all.push(...hits(`output #${i}`, o));
      // the config file is where the literal value was written (and it names the variables)
      for (const f of await allFiles(h.root)) if (f !== config) all.push(...hits(f, (await fs.readFile(f)).toString("latin1")));
      expect(await fs.readFile(path.join(h.env.XDG_STATE_HOME as string, "albedo", "albedo.log"), "utf8")).toContain("MCP server hostile ready");
      found.push(...all);
      expect(all).toEqual([]);
    },
    120_000,
  );
});
