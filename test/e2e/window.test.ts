// The context window in the screen: the built CLI in a real pseudo-terminal, against the
// strict fake, which refuses a prompt over the window in Anthropic's words. A paste larger than
// the window is refused at Enter and comes back into the input box; /compact on a session
// whose history is over the window leaves the paste out of the summary request instead of
// sending it to be refused; after each, the next prompt goes through.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { fakeTokens, startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { SUMMARY_SYSTEM } from "../../src/compaction/summary.js";
import { LEFT_OUT_PREFIX } from "../../src/compaction/window.js";

const KEY = "sk-test-window-e2e-7272";
const MODEL = "claude-sonnet-4-5";
const WINDOW = 200_000;
let strict: FakeProvider;
let wide: FakeProvider;
const homes: Home[] = [];
const running: PtySession[] = [];

beforeAll(async () => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
  strict = await startFakeProvider({ key: KEY, contextWindow: WINDOW });
  wide = await startFakeProvider({ key: KEY });
});
afterAll(async () => {
  await strict.close();
  await wide.close();
  await Promise.all(homes.map((h) => fsp.rm(h.root, { recursive: true, force: true })));
});
afterEach(() => {
  for (const s of running.splice(0)) s.kill();
});

async function home(): Promise<Home> {
  const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
  homes.push(h);
  return h;
}

function tui(h: Home, args: string[] = []): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", MODEL, "--base-url", strict.anthropicBase, ...args], {
    cols: 160,
    rows: 40,
    cwd: h.workspace,
    env: { ...h.env, TERM: "xterm-256color" },
  });
  running.push(s);
  return s;
}

async function quit(s: PtySession): Promise<number> {
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit");
  s.send(KEYS.ctrl("c"));
  return (await s.exited()).exitCode;
}

/** ≈ 316,000 tokens by chars/4: a log that does not fit a 200,000-token window */
const PASTE = Array.from({ length: 14_000 }, (_, i) => `2025-03-14T09:00:00Z INFO api handled request id=${i} path=/api/items/${i % 977} status=200\n`).join("");

describe("a paste larger than the window", () => {
  it("is refused at Enter with what works, comes back into the input box, and the model then reads it as a file", async () => {
    const h = await home();
    const s = tui(h);
    await s.waitFor("Type a request", 20_000);
    const before = strict.requests.length;
    s.send(KEYS.paste(PASTE));
    await s.waitFor(/\[pasted #1 · 1\.\d MB · 14,001 lines\]/, 20_000);
    s.send(KEYS.enter);
    await s.waitFor("Not sent: this prompt makes a request of ≈", 20_000);
    await s.waitFor("(it is back in the input box)");
    // back as the atom it was typed as, ready to trim; nothing reached the provider
    await s.waitFor(/^› \[pasted #\d+ · 1\.\d MB · 14,00[01] lines\]/m);
    expect(strict.requests.length).toBe(before);
    const saved = await fsp.readdir(path.join(h.workspace, ".albedo", "pastes"));
    const file = saved.find((n) => n.endsWith(".txt"));
    expect(file).toBeDefined();
    expect(s.screenText()).toContain(file!);
    expect(await fsp.readFile(path.join(h.workspace, ".albedo", "pastes", file!), "utf8")).toBe(PASTE.trimEnd());

    // Enter again on the same paste: refused again, and the same file named, not a second one
    s.send(KEYS.enter);
    await s.waitFor(/Not sent: this prompt[\s\S]*Not sent: this prompt/, 20_000);
    await s.waitFor(/^› \[pasted #\d+ · 1\.\d MB · 14,00[01] lines\]/m);
    expect((await fsp.readdir(path.join(h.workspace, ".albedo", "pastes"))).filter((n) => n.endsWith(".txt"))).toEqual([file]);

    // the atom deletes as one; the file is read in parts instead
    s.send(KEYS.ctrl("u"));
    await s.waitForGone(/\[pasted #\d+ ·/);
    strict.script({ toolCalls: [{ name: "read", input: { path: `.albedo/pastes/${file!}`, offset: 1, limit: 100 } }] }, { text: "READ-IT: a log of handled requests." });
    s.send(`Read .albedo/pastes/${file!} in parts`);
    await s.waitFor(`Read .albedo/pastes/${file!} in parts`);
    s.send(KEYS.enter);
    await s.waitFor("READ-IT: a log of handled requests.", 30_000);
    expect(strict.rejections()).toEqual([]);
    expect(await quit(s)).toBe(0);
  }, 90_000);
});

describe("/compact with a history over the window", () => {
  it("leaves the paste out of the summary request, which fits, and the next prompt goes through", async () => {
    const h = await home();
    // the paste went where the window was large enough (a 1M-token model) ...
    const config = path.join(h.env.XDG_CONFIG_HOME as string, "albedo", "config.json");
    await fsp.mkdir(path.dirname(config), { recursive: true });
    await fsp.writeFile(config, JSON.stringify({ contextWindow: 1_000_000 }));
    wide.script({ text: "Read the log." }, { text: "Noted the second thing." });
    const wideArgs = ["--provider", "anthropic", "--model", MODEL, "--base-url", wide.anthropicBase];
    expect((await runCli(["-p", "-", ...wideArgs], h, {}, PASTE)).code).toBe(0);
    expect((await runCli(["-p", "remember the second thing", "--continue", ...wideArgs], h)).code).toBe(0);
    // ... and the session goes on with the model's own 200,000 tokens
    await fsp.writeFile(config, "{}");

    const start = strict.requests.length;
    strict.script({ text: "SUMMARY-NOTE: a log was pasted, then a second thing." }, { text: "AFTER-COMPACT: the log and the second thing." });
    const s = tui(h, ["--continue"]);
    await s.waitFor("Type a request", 20_000);
    s.send("/compact");
    await s.waitFor("/compact");
    s.send(KEYS.enter);
    await s.waitFor("Compaction: summarised messages 1–2.", 30_000);
    const summary = strict.requests[start]!;
    expect(summary.rejected).toBeUndefined();
    expect(JSON.stringify(summary.body.system)).toContain(SUMMARY_SYSTEM.slice(0, 40));
    expect(fakeTokens(summary.rawBody)).toBeLessThan(WINDOW);
    expect(summary.rawBody).toContain(LEFT_OUT_PREFIX);

    s.send("what do you know?");
    await s.waitFor("what do you know?");
    s.send(KEYS.enter);
    await s.waitFor("AFTER-COMPACT: the log and the second thing.", 30_000);
    expect(strict.rejections()).toEqual([]);
    expect(strict.requests.at(-1)!.rawBody).toContain("SUMMARY-NOTE");
    expect(await quit(s)).toBe(0);
  }, 90_000);
});
