// /model with no argument on a real terminal: the built CLI in a
// pseudo-terminal, against the strict fake acting as a local OpenAI-compatible server (its
// own models, no key needed) and as Anthropic (configured by ANTHROPIC_BASE_URL). The list
// shows the servers' models and the catalog's; a number or ↑/↓ + Enter switches, and the
// status line says so; keys typed while the list opens stay in the prompt.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";

const KEY = "sk-test-models-e2e-1616";
/** generous: the machine is shared and busy */
const WAIT = 30_000;

let fake: FakeProvider;
let home: Home;
const running: PtySession[] = [];

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
});
beforeEach(async () => {
  fake = await startFakeProvider({
    key: KEY,
    models: { openai: ["llama3.2:3b", "qwen2.5-coder:7b"], anthropic: [{ id: "claude-haiku-4-5", display_name: "Claude Haiku 4.5" }] },
  });
  home = await makeHome({ OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.anthropicBase });
});
afterEach(async () => {
  for (const s of running.splice(0)) s.kill("SIGKILL");
  await fake.close();
});

function tui(): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "openai", "--model", "llama3.2:3b", "--base-url", fake.openaiBase], {
    cols: 110,
    // tall enough for the whole list: the catalog offers every current model of both SDKs
    rows: 90,
    cwd: home.workspace,
    env: { ...home.env, TERM: "xterm-256color" },
  });
  running.push(s);
  return s;
}

/** the status line, the screen's last row */
const status = (s: PtySession): string => s.line(s.rows - 1);

async function openList(s: PtySession): Promise<void> {
  s.send("/model");
  await s.waitFor("› /model", WAIT);
  s.send(KEYS.enter);
  await s.waitFor("Models (", WAIT);
}

describe("/model lists the models", () => {
  it("shows the servers' own models and the catalog's; a number switches and the status line says so", async () => {
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    await s.waitFor("openai/llama3.2:3b", WAIT);
    await openList(s);
    // the choices appear once the list has been on screen a moment (focus.ts, BoxGuard)
    await s.waitFor("pick by number", WAIT);
    const screen = s.screenText();
    expect(screen).toMatch(/ 1 {2}openai:llama3\.2:3b .*served .*\(current\)/);
    expect(screen).toMatch(/ 2 {2}openai:qwen2\.5-coder:7b .*served/);
    // the catalog's models, and the other configured provider's server
    expect(screen).toContain("openai:gpt-5 ");
    expect(screen).toMatch(/anthropic:claude-haiku-4-5 .*served: Claude Haiku 4\.5, catalog/);
    s.send("2");
    await s.waitForGone("Models (", WAIT);
    await s.waitFor("openai/qwen2.5-coder:7b", WAIT);
    expect(status(s)).toContain("openai/qwen2.5-coder:7b");
    expect(s.screenText()).toContain("Model: openai:qwen2.5-coder:7b");
  });

  it("↑/↓ and Enter switch too, across providers", async () => {
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    await openList(s);
    await s.waitFor("pick by number", WAIT);
    const rows = s.screenText().split("\n");
    const at = rows.findIndex((l) => /anthropic:claude-haiku-4-5 .*served/.test(l));
    const from = rows.findIndex((l) => /openai:llama3\.2:3b/.test(l));
    expect(at).toBeGreaterThan(from);
    for (let i = 0; i < at - from; i++) s.send(KEYS.down);
    // the selection is drawn in reverse video: wait until the row moved there before Enter
    await s.settle(300, WAIT);
    s.send(KEYS.enter);
    await s.waitFor("anthropic/claude-haiku-4-5", WAIT);
    expect(status(s)).toContain("anthropic/claude-haiku-4-5");
  });

  it("keys typed while the list opens go to the prompt: none chooses a model", async () => {
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    s.send("/model");
    await s.waitFor("› /model", WAIT);
    // Enter, then typing on at once: the list is not ready for keys until it has been seen
    s.send(KEYS.enter);
    s.send("12 then more");
    await s.waitFor("Models (", WAIT);
    await s.waitFor("› 12 then more", WAIT);
    // the typing on kept the list waiting; once ready it offers its choices, model unchanged
    await s.waitFor("pick by number", WAIT);
    expect(status(s)).toContain("openai/llama3.2:3b");
    s.send(KEYS.escape);
    await s.waitForGone("Models (", WAIT);
    expect(s.screenText()).toContain("› 12 then more");
    expect(status(s)).toContain("openai/llama3.2:3b");
  });

  it("a server that cannot list its models leaves a line in the list, and the catalog's models", async () => {
    await fake.close();
    // the OpenAI-shaped server now answers 503 to the list (and the Anthropic one is gone)
    fake = await startFakeProvider({ key: KEY, models: { failStatus: 503 } });
    home = await makeHome({ OPENAI_API_KEY: KEY });
    const s = tui();
    await s.waitFor("Type a request", WAIT);
    await openList(s);
    await s.waitFor("answered the model list with status 503", WAIT);
    expect(s.screenText()).toContain("openai:gpt-4o");
    expect(s.screenText()).toMatch(/openai:llama3\.2:3b .*in use/);
    // Esc closes it once it takes keys (not typed ahead into the prompt)
    await s.waitFor("pick by number", WAIT);
    s.send(KEYS.escape);
    await s.waitForGone("Models (", WAIT);
  });
});
