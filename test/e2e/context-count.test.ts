// Exact counts in the context pane on a real terminal: the built CLI in a pty against the
// strict fake, which counts by a rule of its own (fakeCountTokens). The pane's key asks
// count_tokens for the request shown; without the key nothing is counted.
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ptyFrame } from "../helpers/pty-frame.js";
import { CLI } from "../helpers/cli.js";
import { fakeCountTokens } from "../helpers/fake-provider.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { countBody } from "../../src/provider/anthropic/count-tokens.js";

const KEY = "sk-test-count-e2e-5151";
const WAIT = 30_000;
const e2e = ptyFrame(KEY);

function tui(): PtySession {
  const s = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", e2e.fake.anthropicBase], {
    cols: 220,
    rows: 40,
    cwd: e2e.home.workspace,
    env: { ...e2e.home.env, TERM: "xterm-256color" },
  });
  e2e.running.push(s);
  return s;
}

async function turnThenPane(s: PtySession): Promise<void> {
  e2e.fake.script({ text: "Answer COUNTED." });
  await s.waitFor("Type a request", WAIT);
  s.send("count me");
  await s.waitFor("count me", WAIT);
  s.send(KEYS.enter);
  await s.waitFor("Answer COUNTED.", WAIT);
  await s.waitFor(/ idle · /, WAIT);
  s.send(KEYS.ctrl("o"));
  await s.waitFor("Context · what the last request sent", WAIT);
  await s.waitFor("≈ tokens", WAIT);
}

async function quit(s: PtySession): Promise<void> {
  s.send(KEYS.ctrl("c"));
  await s.waitFor("again to quit", WAIT);
  s.send(KEYS.ctrl("c"));
  expect((await s.exited()).exitCode).toBe(0);
}

describe("exact counts in the context pane", () => {
  it(
    "Alt-T shows the fake's own figures, labelled and apart from the estimates",
    async () => {
      const s = tui();
      await turnThenPane(s);
      expect(e2e.fake.counts).toEqual([]);
      s.send(`${KEYS.escape}t`);
      await s.waitFor("exact, count_tokens (anthropic), asked ", WAIT);
      const sent = e2e.fake.requests.at(-1)!.body as never;
      const total = fakeCountTokens(countBody(sent)).toLocaleString("en-US");
      await s.waitFor(new RegExp(`asked \\d\\d:\\d\\d:\\d\\d: total ${total} tokens · system \\d`), WAIT);
      // one count of the whole request and one without each section, all accepted
      expect(e2e.fake.counts.length).toBeGreaterThanOrEqual(4);
      expect(e2e.fake.counts.every((c) => c.rejected === undefined)).toBe(true);
      // the estimates stay where they were, named as estimates
      expect(s.screenText()).toContain("tokens are estimates");
      await quit(s);
    },
    120_000,
  );

  it(
    "without the key nothing is counted: a turn, the pane opened and paged",
    async () => {
      const s = tui();
      await turnThenPane(s);
      s.send(KEYS.down);
      s.send(KEYS.up);
      await quit(s);
      expect(e2e.fake.requests.length).toBe(1);
      expect(e2e.fake.counts).toEqual([]);
      expect(s.screenText()).not.toContain("count_tokens (anthropic)");
    },
    120_000,
  );

  it(
    'countTokens "each request": the pane shows the fake\'s figures for the request without the key',
    async () => {
      const dir = path.join(e2e.home.env.XDG_CONFIG_HOME!, "albedo");
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ countTokens: "each request" }));
      const s = tui();
      await turnThenPane(s);
      await s.waitFor("exact, count_tokens (anthropic), asked ", WAIT);
      const sent = e2e.fake.requests.at(-1)!.body as never;
      const total = fakeCountTokens(countBody(sent)).toLocaleString("en-US");
      await s.waitFor(new RegExp(`asked \\d\\d:\\d\\d:\\d\\d: total ${total} tokens · system \\d`), WAIT);
      expect(e2e.fake.counts.length).toBeGreaterThanOrEqual(4);
      expect(e2e.fake.counts.every((c) => c.rejected === undefined)).toBe(true);
      expect(s.screenText()).toContain("tokens are estimates");
      await quit(s);
    },
    120_000,
  );
});
