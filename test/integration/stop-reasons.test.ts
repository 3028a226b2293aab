// Why an answer stopped, said: an answer cut by the output bound, a refusal, a content filter,
// a full window, a paused turn or an incomplete response is named (on stderr in headless, with
// exit 1 because what was printed is not the whole answer; under the answer in the screen),
// and is stored complete, so the next turn goes on from it. Through the built CLI against the
// strict fake, each endpoint sending its own word for the stop.
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type Home } from "../helpers/cli.js";
import { spawnPty, type PtySession } from "../helpers/pty.js";
import { anthropicArgs, readRecord, removeHomes, writeConfig } from "../reliability/lib.js";

const KEY = "sk-stop-reasons-TEST-7731";
const homes: Home[] = [];
const fakes: FakeProvider[] = [];
const ptys: PtySession[] = [];

afterAll(async () => {
  for (const p of ptys) p.kill("SIGKILL");
  await Promise.all(fakes.map((f) => f.close()));
  await removeHomes(homes);
});

async function setup(): Promise<{ f: FakeProvider; h: Home }> {
  const f = await startFakeProvider({ key: KEY });
  fakes.push(f);
  const h = await makeHome({ ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY });
  homes.push(h);
  return { f, h };
}

type Shape = "anthropic" | "chat" | "responses";

async function argsFor(shape: Shape, f: FakeProvider, h: Home): Promise<string[]> {
  if (shape === "anthropic") return anthropicArgs(f);
  if (shape === "responses") await writeConfig(h, { api: "responses" });
  return ["--provider", "openai", "--model", "gpt-4o", "--base-url", f.openaiBase];
}

const CASES: Array<{ shape: Shape; stop: string; said: RegExp }> = [
  { shape: "anthropic", stop: "max_tokens", said: /cut at the output limit of [\d,]+ tokens \(maxOutputTokens\)/ },
  { shape: "anthropic", stop: "refusal", said: /Anthropic refused to continue the answer \(stop reason: refusal\)/ },
  { shape: "anthropic", stop: "model_context_window_exceeded", said: /context window is full \(model_context_window_exceeded\)/ },
  { shape: "anthropic", stop: "pause_turn", said: /Anthropic paused the turn \(stop reason: pause_turn\)/ },
  { shape: "chat", stop: "length", said: /cut at the output limit of [\d,]+ tokens/ },
  { shape: "chat", stop: "content_filter", said: /content filter cut the answer \(finish reason: content_filter\)/ },
  { shape: "responses", stop: "max_output_tokens", said: /cut at the output limit of [\d,]+ tokens/ },
  { shape: "responses", stop: "content_filter", said: /content filter cut the answer/ },
  { shape: "responses", stop: "some_new_reason", said: /ended the answer incomplete \(reason: some_new_reason\)/ },
];

describe("headless: a cut answer is named on stderr and exits 1", () => {
  for (const c of CASES) {
    it(`${c.shape} ${c.stop}`, async () => {
      const { f, h } = await setup();
      const args = await argsFor(c.shape, f, h);
      f.script({ text: "The first half of the answer", stop: c.stop });
      const r = await runCli(["-p", "tell me everything", ...args], h);
      expect(r.stdout).toBe("The first half of the answer\n");
      expect(r.stderr).toMatch(c.said);
      expect(r.stderr).toMatch(/^albedo-tui: /m);
      expect(r.code).toBe(1);
      // stored complete: what arrived is kept, and the next turn goes on from it
      const rec = await readRecord(h.db);
      expect(rec.messages.map((m) => [m.role, m.status])).toEqual([
        ["user", "complete"],
        ["assistant", "complete"],
      ]);
      f.script({ text: "The rest." });
      const next = await runCli(["-p", "go on", "--continue", ...args], h);
      expect(next.code).toBe(0);
      expect(next.stdout).toBe("The rest.\n");
      expect(f.rejections()).toEqual([]);
      const sent = JSON.stringify(f.requests.at(-1)!.body);
      expect(sent).toContain("The first half of the answer");
    }, 60_000);
  }

  it("a whole answer says nothing and exits 0 (end_turn, stop, completed)", async () => {
    for (const shape of ["anthropic", "chat", "responses"] as const) {
      const { f, h } = await setup();
      f.script({ text: "All of it." });
      const r = await runCli(["-p", "hi", ...(await argsFor(shape, f, h))], h);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, "All of it.\n", ""]);
    }
  }, 60_000);

  it("a cut answer with a tool call does not run the call (its input may be cut too)", async () => {
    const { f, h } = await setup();
    f.script({ toolCalls: [{ name: "write", input: { path: "half.txt", content: "cut" } }], stop: "max_tokens" });
    const r = await runCli(["-p", "write it", "--permission", "auto", ...anthropicArgs(f)], h);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cut at the output limit/);
    expect(r.stderr).not.toContain("▸ write");
    expect(f.requests.length).toBe(1);
  }, 60_000);
});

describe("the screen: the cause is named under the answer", () => {
  const SCREEN: Array<{ shape: Shape; stop: string; said: RegExp }> = [
    { shape: "anthropic", stop: "max_tokens", said: /cut at the output limit/ },
    { shape: "anthropic", stop: "refusal", said: /refused to continue the answer/ },
    { shape: "chat", stop: "content_filter", said: /content filter cut the answer/ },
  ];
  for (const c of SCREEN) {
    it(`${c.shape} ${c.stop}`, async () => {
      const { f, h } = await setup();
      const args = await argsFor(c.shape, f, h);
      f.script({ text: "SCREEN-HALF-ANSWER", stop: c.stop });
      const s = spawnPty(process.execPath, [CLI, ...args], { cols: 160, rows: 40, cwd: h.workspace, env: { ...h.env, TERM: "xterm-256color" } });
      ptys.push(s);
      await s.waitFor("Type a request", 30_000);
      s.send("tell me everything\r");
      await s.waitFor("SCREEN-HALF-ANSWER", 30_000);
      await s.waitFor(c.said, 30_000);
      const screen = s.screenText();
      // under the answer, not above it
      expect(screen.indexOf("SCREEN-HALF-ANSWER")).toBeLessThan(screen.search(c.said));
      expect(screen).not.toContain("interrupted");
      s.kill("SIGKILL");
    }, 90_000);
  }
});

/** RSS in MB of a process and its descendants (the bin may start the bundle as a child). */
async function treeRssMb(pid: number): Promise<number> {
  let kb = 0;
  try {
    const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
    kb += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    for (const t of await fs.readdir(`/proc/${pid}/task`)) {
      const kids = (await fs.readFile(`/proc/${pid}/task/${t}/children`, "utf8")).trim();
      for (const k of kids ? kids.split(/\s+/) : []) kb += (await treeRssMb(Number(k))) * 1024;
    }
  } catch {
    // gone meanwhile
  }
  return kb / 1024;
}

describe("the screen after a long answer cut at the output bound", () => {
  it("names the cause, and its memory does not keep the stream: RSS after the answer stays bounded", async () => {
    const { f, h } = await setup();
    // 1 MB in 2,000 deltas, then the stop at the bound
    const text = "word ".repeat(200_000);
    f.script({ text: `${text}SCREEN-LONG-END`, wordsPerEvent: 100, stop: "max_tokens" });
    const s = spawnPty(process.execPath, [CLI, ...anthropicArgs(f)], { cols: 160, rows: 40, cwd: h.workspace, env: { ...h.env, TERM: "xterm-256color" } });
    ptys.push(s);
    await s.waitFor("Type a request", 30_000);
    s.send("write a very long answer\r");
    await s.waitFor(/cut at the output limit/, 240_000);
    await s.settle(1000, 30_000);
    const after = await treeRssMb(s.pid);
    // the answer is 1 MB; a screen that kept every delta's copies would hold hundreds of MB
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(400);
    expect(s.screenText()).not.toContain("interrupted");
    s.kill("SIGKILL");
  }, 360_000);
});
