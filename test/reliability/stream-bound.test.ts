// One 100 MB stream event against the real default bound, through the built CLI (headless):
// the agent must stop reading at the bound with a clear error, keep the text that came before,
// and neither its memory nor its database may follow the size of what the provider sent.
import { afterAll, expect, it } from "vitest";
import fs from "node:fs/promises";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, startCli, type Home } from "../helpers/cli.js";
import { anthropicArgs, doneWithPeak, readRecord, removeHomes, secretHits, writeFigures } from "./lib.js";

const KEY = "sk-ant-reliability-BOUND-5d21e0";
const MB = 1024 * 1024;
const EVENT_BYTES = 100 * MB;
const BEFORE = "The answer begins normally, then one event brings a flood:";
/** generous: a Node process with SQLite idles near 100 MB; holding the event would need GBs */
const RSS_LIMIT_MB = 400;
const STORED_LIMIT_BYTES = 50 * MB;

let fake: FakeProvider | undefined;
const homes: Home[] = [];

afterAll(async () => {
  const hits = await secretHits(
    homes.map((h) => h.root),
    [KEY],
  );
  await fake?.close();
  await removeHomes(homes);
  expect(hits).toEqual([]);
});

async function size(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0;
  }
}

it(
  "one 100 MB event: stopped at the default bound with a clear error, the text before it kept, memory and storage bounded",
  async () => {
    fake = await startFakeProvider({ key: KEY });
    const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
    homes.push(h);
    fake.script({ fault: "huge_event", text: BEFORE, bytes: EVENT_BYTES });

    const run = startCli(["-p", "tell me everything", ...anthropicArgs(fake)], h);
    const { r, peak } = await doneWithPeak(run);
    const peakRssMb = Math.round(peak / 1024);
    const storedBytes = (await size(h.db)) + (await size(`${h.db}-wal`));

    const clearError = /albedo-tui: the provider sent more than 4 MB in one answer, in a single stream event; stopped reading it; what arrived up to the bound was kept/.test(
      r.stderr,
    );
    const rec = await readRecord(h.db);
    const last = rec.messages.at(-1);
    const kept = last?.role === "assistant" && last.status === "interrupted" && JSON.stringify(last.blocks) === JSON.stringify([{ type: "text", text: BEFORE }]);
    const held = r.code === 1 && clearError && kept && peak > 0 && peakRssMb < RSS_LIMIT_MB && storedBytes < STORED_LIMIT_BYTES;
    await writeFigures("stream-bound", { eventBytes: EVENT_BYTES, peakRssMb, storedBytes, held });

    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/albedo-tui: the provider sent more than 4 MB in one answer, in a single stream event; stopped reading it/);
    expect(rec.messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "interrupted"],
    ]);
    expect(last?.blocks).toEqual([{ type: "text", text: BEFORE }]);
    expect(peak).toBeGreaterThan(0);
    expect(peakRssMb).toBeLessThan(RSS_LIMIT_MB);
    expect(storedBytes).toBeLessThan(STORED_LIMIT_BYTES);
    // the agent hung up: the fake never got to the end of the event
    expect(fake.faults.at(-1)).toMatchObject({ fault: "huge_event", completed: false });
    expect(held).toBe(true);
  },
  120_000,
);
