// The configured API keys must end up nowhere but the provider's request headers: not in the
// database, the log, the state or config folders (except the config file the test wrote the
// key into), an export, an inspector page from the shell or the local API, or anything the
// CLI prints. Two full runs: keys from the environment, then keys from the config file.
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, startCli, waitUntil, type CliResult, type Home } from "../helpers/cli.js";
import { apiContextPages, apiGet, localApi, readRecord, removeHomes, secretHits, textHits, writeConfig, writeFigures } from "./lib.js";

const KEYS = {
  envAnthropic: "sk-ant-env-SECRET-a1b2c3d4e5f6",
  envOpenai: "sk-proj-env-SECRET-0f9e8d7c6b5a",
  fileAnthropic: "sk-ant-file-SECRET-112233445566",
  fileOpenai: "sk-proj-file-SECRET-665544332211",
  wrong: "sk-ant-WRONG-SECRET-999888777666",
};
const ALL = Object.values(KEYS);

const fakes: FakeProvider[] = [];
const homes: Home[] = [];
const found: string[] = [];
let places = 0;

afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  await writeFigures("secrets", { keys: ALL.length, placesScanned: places, secretsFound: found.length, found });
  await removeHomes(homes);
});

/** Everything one person does in a day, in one home; returns all the text the program produced. */
async function fullRun(h: Home, anthropic: FakeProvider, openai: FakeProvider, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out: string[] = [];
  const a = ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", anthropic.anthropicBase];
  const o = ["--provider", "openai", "--model", "gpt-4o", "--base-url", openai.openaiBase];
  const run = async (args: string[], extra: NodeJS.ProcessEnv = {}, code = 0): Promise<CliResult> => {
    const r = await runCli(args, h, { ...env, ...extra });
    out.push(r.stdout, r.stderr);
    expect(r.code, r.stderr).toBe(code);
    return r;
  };
  await fs.writeFile(path.join(h.workspace, "notes.md"), "# notes\nthe build is green\n");

  // tools: the model looks at the environment, reads, writes, lists
  anthropic.script(
    {
      toolCalls: [
        { name: "bash", input: { command: "env | sort; echo \"A=$ANTHROPIC_API_KEY O=$OPENAI_API_KEY\"" } },
        { name: "read", input: { path: "notes.md" } },
        { name: "write", input: { path: "out.txt", content: "written by the model\n" } },
        { name: "ls", input: {} },
      ],
    },
    { text: "Looked around." },
  );
  const first = await run(["-p", "look around and write out.txt", "--permission", "auto", ...a]);
  expect(first.stdout).toBe("Looked around.\n");
  const id = (await readRecord(h.db)).session.id;

  // the other provider in the same session, with a retry and an ignored event (both logged)
  openai.script({ status: 429, headers: { "retry-after": "0" } }, { fault: "unknown_event", text: "OpenAI continues." });
  await run(["-p", "continue elsewhere", "--continue", ...o]);

  // a refused key: the sentence names the variable, never the key
  const refused = await run(["-p", "with a wrong key", "--continue", ...a], { ANTHROPIC_API_KEY: KEYS.wrong }, 1);
  expect(refused.stderr).toMatch(/key was refused/);

  // the local API, read while a tool holds the turn open
  const go = path.join(h.workspace, "go");
  anthropic.script({ toolCalls: [{ name: "bash", input: { command: `while [ ! -f ${go} ]; do sleep 0.05; done; echo released` } }] }, { text: "Released." });
  const live = startCli(["-p", "wait for me", "--continue", "--permission", "auto", "--api", ...a], h, env);
  await waitUntil(() => live.stderr().includes("▸ bash"), 20_000, "the waiting tool");
  const api = await localApi(live.stderr());
  out.push(await apiGet(api.port, "/health", api.token));
  out.push(...(await apiContextPages(api, id)));
  await fs.writeFile(go, "");
  const ended = await live.done;
  out.push(ended.stdout, ended.stderr);
  expect(ended.code, ended.stderr).toBe(0);

  // the shell's views of the record: sessions, exports, the inspector and every page of it
  await run(["sessions", "--json"]);
  for (const format of ["md", "json"]) {
    const e = await run(["export", id, "--format", format]);
    await fs.writeFile(path.join(h.root, `export.${format}`), e.stdout);
  }
  const summary = await run(["context", id, "--json"]);
  const view2 = JSON.parse(summary.stdout) as { sections: { index: number; pages: number }[] };
  for (const s of view2.sections) {
    // the JSON's numbers count from 0, the flags from 1
    for (let p = 0; p < s.pages; p++) await run(["context", id, "--section", String(s.index + 1), "--page", String(p + 1)]);
  }
  // the log exists and has the warnings (so scanning it means something)
  const log = await fs.readFile(path.join(h.env.XDG_STATE_HOME as string, "albedo", "albedo.log"), "utf8");
  expect(log).toMatch(/retrying/);
  expect(log).toMatch(/ignored an unknown/);
  out.push(log);
  expect(anthropic.rejections().filter((r) => !/x-api-key/.test(r))).toEqual([]);
  expect(openai.rejections()).toEqual([]);
  return out;
}

describe("secrets", () => {
  it(
    "keys from the environment: in no file, export, page, log or output",
    async () => {
      const anthropic = await startFakeProvider({ key: KEYS.envAnthropic });
      const openai = await startFakeProvider({ key: KEYS.envOpenai });
      fakes.push(anthropic, openai);
      const h = await makeHome({ ANTHROPIC_API_KEY: KEYS.envAnthropic, OPENAI_API_KEY: KEYS.envOpenai });
      homes.push(h);
      const texts = await fullRun(h, anthropic, openai, {});
      // the keys did go where they belong, so their absence elsewhere means something
      expect(anthropic.requests.some((r) => r.headers["x-api-key"] === KEYS.envAnthropic)).toBe(true);
      expect(openai.requests.some((r) => r.headers["authorization"] === `Bearer ${KEYS.envOpenai}`)).toBe(true);
      const hits = [...(await secretHits([h.root], ALL)), ...texts.flatMap((t, i) => textHits(`output #${i}`, t, ALL))];
      places += texts.length + 1;
      found.push(...hits);
      expect(hits).toEqual([]);
    },
    90_000,
  );

  it(
    "keys from the config file: only in that file",
    async () => {
      const anthropic = await startFakeProvider({ key: KEYS.fileAnthropic });
      const openai = await startFakeProvider({ key: KEYS.fileOpenai });
      fakes.push(anthropic, openai);
      const h = await makeHome({ ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" });
      homes.push(h);
      const config = await writeConfig(h, { anthropicApiKey: KEYS.fileAnthropic, openaiApiKey: KEYS.fileOpenai });
      const texts = await fullRun(h, anthropic, openai, {});
      expect(anthropic.requests.some((r) => r.headers["x-api-key"] === KEYS.fileAnthropic)).toBe(true);
      expect(openai.requests.some((r) => r.headers["authorization"] === `Bearer ${KEYS.fileOpenai}`)).toBe(true);
      expect(await fs.readFile(config, "utf8")).toContain(KEYS.fileAnthropic); // the one allowed place
      const hits = [...(await secretHits([h.root], ALL, { except: [config] })), ...texts.flatMap((t, i) => textHits(`output #${i}`, t, ALL))];
      places += texts.length + 1;
      found.push(...hits);
      expect(hits).toEqual([]);
    },
    90_000,
  );
});
