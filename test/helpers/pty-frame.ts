// The frame the screen's end-to-end files share: the built CLI must exist; each test gets a
// fresh home (with the key in its environment) and a strict fake provider of its own (steps a
// failed test left unused never answer the next one); every pty a test started is killed,
// and its fake closed, when it ends.
import { afterEach, beforeAll, beforeEach } from "vitest";
import fs from "node:fs";
import { startFakeProvider, type FakeProvider } from "./fake-provider.js";
import { CLI, makeHome, type Home } from "./cli.js";
import type { PtySession } from "./pty.js";

export interface PtyFrame {
  /** this test's fake provider and home (set before each test) */
  fake: FakeProvider;
  home: Home;
  /** ptys to kill when the test ends */
  running: PtySession[];
}

export function ptyFrame(key: string): PtyFrame {
  const frame = { running: [] } as unknown as PtyFrame;
  beforeAll(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
  });
  beforeEach(async () => {
    frame.home = await makeHome({ ANTHROPIC_API_KEY: key });
    frame.fake = await startFakeProvider({ key });
  });
  afterEach(async () => {
    for (const s of frame.running.splice(0)) s.kill("SIGKILL");
    await frame.fake.close();
  });
  return frame;
}
