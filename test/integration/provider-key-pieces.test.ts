// A provider that quotes pieces of the key in its errors (a 401 that echoes the key's first
// 20 and last 18 characters, a 429 whose retry reason does, an error event mid-stream, a
// refused request) leaves none of them on stderr, in the log or in any file: provider error
// text passes the one redactor (src/record/redaction.ts), with its pieces rule, wherever it
// is shown, logged or stored. The built CLI headless, against the strict fake provider.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider, type Step } from "../helpers/fake-provider.js";
import { allFiles, makeHome, runCli, type Home } from "../helpers/cli.js";
import { KEY_PIECE, REDACTED } from "../../src/config/secrets.js";

const KEY = "sk-ant-api03-Qm7Xv2Lp9Rt4Wz8Nc5Hb1Jd6Fg3Ks0YaE";
const HEAD = KEY.slice(0, 20);
const TAIL = KEY.slice(-18);
const ECHO = `the key ${HEAD}…${TAIL} is not valid`;
let fake: FakeProvider;
let h: Home;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  h = await makeHome({ ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY });
});
afterAll(async () => {
  await fake.close();
  await fs.rm(h.root, { recursive: true, force: true });
});

/** every KEY_PIECE-long window of the key that a text holds */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + KEY_PIECE <= KEY.length; i++) if (text.includes(KEY.slice(i, i + KEY_PIECE))) out.push(KEY.slice(i, i + KEY_PIECE));
  return out;
}

const anthropic = (): string[] => ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fake.anthropicBase];
const openai = (): string[] => ["--provider", "openai", "--model", "gpt-4o", "--base-url", fake.openaiBase];

describe("provider errors that quote pieces of the key", () => {
  const cases: { name: string; steps: Step[]; args: () => string[]; code: number; said: RegExp }[] = [
    {
      name: "a 401 echoing the key's head and tail",
      steps: [{ status: 401, body: { type: "error", error: { type: "authentication_error", message: ECHO } } }],
      args: anthropic,
      code: 1,
      said: /key was refused/,
    },
    {
      name: "a 429 whose reason (said while retrying) echoes them",
      steps: [{ status: 429, headers: { "retry-after": "0" }, body: { type: "error", error: { type: "rate_limit_error", message: ECHO } } }, { text: "Fine now." }],
      args: anthropic,
      code: 0,
      said: /retrying/,
    },
    {
      name: "an error event mid-stream",
      steps: [{ fault: "error_event", message: ECHO }],
      args: anthropic,
      code: 1,
      said: /mid-stream/,
    },
    {
      name: "a refused request (OpenAI's shape)",
      steps: [{ status: 400, body: { error: { message: ECHO, type: "invalid_request_error", param: null, code: null } } }],
      args: openai,
      code: 1,
      said: /rejected the request/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      fake.script(...c.steps);
      const r = await runCli(["-p", "hello", ...c.args()], h);
      expect(r.code, r.stderr).toBe(c.code);
      expect(r.stderr).toMatch(c.said);
      // the rest of the sentence is there, the pieces are not
      expect(r.stderr).toContain(`the key ${REDACTED}…${REDACTED} is not valid`);
      expect(pieces(r.stderr + r.stdout)).toEqual([]);
      const log = await fs.readFile(path.join(h.env.XDG_STATE_HOME as string, "albedo", "albedo.log"), "utf8");
      expect(log).toContain("is not valid");
      for (const f of await allFiles(h.root)) expect(pieces((await fs.readFile(f)).toString("latin1")), f).toEqual([]);
    }, 60_000);
  }
});
